// A saturated CPU is always named (docs/verdict-rules.md section 2, "A
// saturated CPU is named"): when the rules' scores leave a losing window
// undetermined but a CPU on the packet path (one that ran a target thread or
// received the offered load) was measured saturated, that CPU is the
// verdict. Its own time budget (analysis/cpu_budget.h) says which label:
// `interrupt` when the interrupt work (hardirq + softirq + learned delivery)
// took more of it than its tasks (the target threads and every other task),
// else `cpu`. A saturated CPU off the packet path (a load generator's) is
// never named.
#pragma once

#include <optional>
#include <string>

#include "analysis/signals.h"
#include "analysis/verdict.h"

namespace bottleneckd {

struct SaturatedCpuCall {
  Bound label = Bound::kCpu;  // kCpu or kInterrupt
  int cpu = -1;
  double tasks = 0;     // target threads + other tasks, share of the window
  double handlers = 0;  // hardirq + softirq + delivery, share of the window
  // "cpu1 saturated (99.3 % busy by the soaker, ...): tasks 58.0 % of the
  // CPU (target threads 58.0 %), interrupt work 41.3 % (...): tasks took more,
  // so cpu"
  std::string sentence;
  // A full bus beside it (a modelled, not emulated, link at
  // bus_utilisation_min or more while its NIC drops): "em2 (0000:03:01.0):
  // bus path 100 % full and its NIC drops 2763/s"; "" when none. Two full
  // resources together stay undetermined.
  std::string full_bus;
};

// The most saturated packet-path CPU of a losing window, nullopt when the
// window loses nothing, no CPU on the path is saturated outright (busy at
// 1 - cpu_idle_max or more; by accounting alone only with under a quarter
// stolen), or the packet path is not known (no target thread and no receive
// CPU measured).
std::optional<SaturatedCpuCall> SaturatedPathCpu(const Signals& s, const VerdictThresholds& t);

}  // namespace bottleneckd
