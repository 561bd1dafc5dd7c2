// cpu collector: per-CPU time accounting and CPU pressure.
// Reads /proc/stat    "cpu0 4705 356 584 3699 23 23 0 0 0 0"  (USER_HZ ticks)
//       /proc/pressure/cpu  "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345"  (us)
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/kernel_units.h"
#include "collectors/collector.h"

namespace bottleneckd {

// One "cpuN" line of /proc/stat, cumulative USER_HZ ticks (base/kernel_units.h:
// TicksToSeconds). Fields after
// "idle" appeared in later kernels and are nullopt when the line is shorter.
struct CpuTimes {
  int cpu = -1;  // -1: the aggregate "cpu" line
  uint64_t user = 0, nice = 0, system = 0, idle = 0;
  std::optional<uint64_t> iowait, irq, softirq, steal, guest, guest_nice;
};

struct ProcStat {
  std::optional<CpuTimes> total;
  std::vector<CpuTimes> cpus;          // in file order (online CPUs only)
  std::optional<uint64_t> intr_total;  // "intr" first column: all interrupts since boot
  std::optional<uint64_t> ctxt;
  std::optional<uint64_t> softirq_total;  // "softirq" first column
  std::optional<uint64_t> procs_running, procs_blocked;
};

// Parses /proc/stat, replacing *out (its cpus vector keeps its capacity).
// Corruption when no cpu line parses or a cpu line is malformed (fewer than 4
// fields, non-numeric, u64 overflow, a bad "cpuN" id); columns past guest_nice
// and unknown lines are skipped. A missing or malformed first value on the intr,
// ctxt, softirq and procs_* lines leaves that field nullopt. *out is unspecified
// on failure.
Status ParseProcStat(std::string_view text, ProcStat* out);

struct PressureLine {
  double avg10 = 0, avg60 = 0, avg300 = 0;  // percent
  uint64_t total_us = 0;                    // cumulative stall, microseconds
};

struct CpuPressure {
  std::optional<PressureLine> some, full;  // "full" exists from Linux 5.13
};

// Parses a /proc/pressure/* file, replacing *out. Each "some"/"full" line needs
// avg10, avg60, avg300 (finite, >= 0) and total (u64); other keys and lines are
// skipped. Corruption when a line is malformed or neither line is present.
Status ParsePressure(std::string_view text, CpuPressure* out);

// Fills Sample::stat and Sample::cpu_pressure. A failure to read or parse stat
// is returned with both unset. A kernel without PSI (no pressure/cpu, or
// EOPNOTSUPP with psi=0) leaves cpu_pressure unset and is OK; any other
// pressure failure is returned with stat filled and cpu_pressure unset.
class CpuCollector : public Collector {
 public:
  std::string_view name() const override { return "cpu"; }
  Status Collect(const HostFs& fs, HostReadings* out) override;

 private:
  std::string buf_;
  UniqueFd stat_fd_, pressure_fd_;  // kept open between ticks (HostFs::ReadProcKept)
};

}  // namespace bottleneckd
