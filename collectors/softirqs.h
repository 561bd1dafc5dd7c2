// softirqs collector: softirq counts per CPU and the network stack's per-CPU
// backlog statistics.
// Reads /proc/softirqs:
//                     CPU0       CPU1
//          NET_RX:     1234       5678
// and /proc/net/softnet_stat (hex, one line per online CPU, 9 to 15 columns by
// kernel version; column 13, when present, is the CPU id):
//   0000272d 00000000 00000001 00000000 00000000 00000000 00000000 00000000 ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector.h"

namespace bottleneckd {

struct SoftirqRow {
  std::string type;               // "NET_RX"
  std::vector<uint64_t> per_cpu;  // aligned with Softirqs::cpus
};

struct Softirqs {
  std::vector<int> cpus;
  std::vector<SoftirqRow> rows;
};

// Parses /proc/softirqs, replacing *out (rows are overwritten in place, keeping
// their storage). The first non-blank line is the "CPUn ..." header; every other
// non-blank line is "TYPE: count..." with one u64 per header CPU. Corruption on
// a missing or bad header, a line without "TYPE:", a bad count, or a count
// number that differs from the header's. *out is unspecified on failure.
Status ParseProcSoftirqs(std::string_view text, Softirqs* out);

// One line of /proc/net/softnet_stat. The kernel prints 32-bit counters.
struct SoftnetCpu {
  int cpu = -1;                              // from the CPU-id column, else the line index
  uint64_t processed = 0;                    // column 1
  uint64_t dropped = 0;                      // column 2: backlog (netdev_max_backlog) drops
  uint64_t time_squeeze = 0;                 // column 3: net_rx_action ran out of budget/time
  std::optional<uint64_t> cpu_collision;     // column 9 (always 0 since 4.x)
  std::optional<uint64_t> received_rps;      // column 10
  std::optional<uint64_t> flow_limit_count;  // column 11
  std::optional<uint64_t> backlog_len;       // column 12 (gauge, 5.10+)
  bool cpu_from_column = false;              // cpu came from column 13
};

// Parses /proc/net/softnet_stat, replacing *out with one entry per non-blank
// line. Lines need at least 9 hex columns (older kernels: 9, 10 or 11; 5.10+:
// 13; 6.x: 15); columns a newer kernel may add after the 15th are skipped, as are
// 14 and 15 (input_qlen, process_qlen). Without column 13 the CPU is the line
// index, which is only a guess (offline CPUs have no line): cpu_from_column is
// false then. Corruption on an empty file, a short line, a non-hex column, u64
// overflow or a CPU id past INT_MAX.
Status ParseSoftnetStat(std::string_view text, std::vector<SoftnetCpu>* out);

// Fills Sample::softirqs and Sample::softnet. One of the two files missing: the
// other is filled and the result is OK; both missing: NotSupported. A file that
// fails to read or parse leaves its part unset and its Status (Corruption
// naming the file) is returned; the other part is still filled.
class SoftirqsCollector : public Collector {
 public:
  std::string_view name() const override { return "softirqs"; }
  Status Collect(const HostFs& fs, HostReadings* out) override;

 private:
  std::string buf_;
  UniqueFd softirqs_fd_, softnet_fd_;  // kept open between ticks (HostFs::ReadProcKept)
};

}  // namespace bottleneckd
