// The learned interrupt delivery cost (analysis/delivery_cost.h) kept in the
// state directory across restarts, with the host it was learned on: a fit
// learned on another CPU model, kernel, CPU count or hypervisor is dropped
// and learning starts over (docs/verdict-rules.md section 10).
//
//   # comments
//   format 1
//   cpu_model AMD EPYC 7B13
//   kernel 6.18.44-fc-v1045
//   cpus 2
//   hypervisor 1
//   fit measured <n> <sum x> <sum y> <sum xx> <sum xy> <sum yy>
//   fit ticks <n> ...
#pragma once

#include <string>
#include <string_view>

#include "analysis/delivery_cost.h"
#include "base/status.h"
#include "collectors/host_fs.h"

namespace bottleneckd {

struct DeliveryCostHost {
  std::string cpu_model, kernel;
  int cpus = 0;
  bool hypervisor = false;
  bool operator==(const DeliveryCostHost&) const = default;
};

// This host, from /proc/cpuinfo and /proc/sys/kernel/osrelease.
Status ReadDeliveryCostHost(const HostFs& fs, DeliveryCostHost* out);

std::string FormatDeliveryCost(const DeliveryCostHost& host, const DeliveryCost& cost);
// Errors name the line; fits not in the file stay empty.
Status ParseDeliveryCost(std::string_view text, DeliveryCostHost* host, DeliveryCost* cost);

// Restores the fits in state_dir's file into *cost when they were learned on
// `host`. A missing file is no error; *note says what was done ("restored
// ...", "learned on another host ...", "none yet") for the log.
Status LoadDeliveryCost(const std::string& state_dir, const DeliveryCostHost& host, DeliveryCost* cost,
                        std::string* note);
Status StoreDeliveryCost(const std::string& state_dir, const DeliveryCostHost& host, const DeliveryCost& cost);
// The file's name in the state directory.
inline constexpr const char* kDeliveryCostFile = "delivery-cost";

}  // namespace bottleneckd
