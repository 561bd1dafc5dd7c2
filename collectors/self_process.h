// self_process: the daemon's own cost, under the names every Prometheus client
// library exports (process_cpu_seconds_total, process_resident_memory_bytes,
// ...). Not a registered collector: it always reads the REAL /proc of this
// process (a HostFs over the default roots), never the configured
// --path.procfs, which is often a fixture or recorded tree.
// Reads /proc/self/stat, /proc/stat (btime), /proc/self/limits, /proc/self/fd:
//   4242 (bottleneckd) S 1 4242 4242 0 -1 4194624 ... 12 30 ... 8817 23470080 1450 ...
//        field 14 utime, 15 stime (USER_HZ), 22 starttime (USER_HZ since boot),
//        23 vsize (bytes), 24 rss (pages)
//   btime 1764600000
//   Max open files            1024                 524288               files
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/status.h"
#include "collectors/host_fs.h"

namespace bottleneckd {

// The fields of /proc/PID/stat that the process metrics need, in kernel units.
struct SelfStat {
  uint64_t utime = 0, stime = 0;  // USER_HZ ticks
  uint64_t starttime = 0;         // USER_HZ ticks after boot
  uint64_t vsize = 0;             // bytes
  uint64_t rss = 0;               // pages
};

// Parses /proc/PID/stat. The comm between the first '(' and the LAST ')' may
// hold spaces and ')'. Corruption without "(comm)", with a bad pid, a field
// from utime to rss that is not an unsigned integer, or a line that ends
// before rss (field 24). *out is written only on success.
Status ParseSelfStat(std::string_view text, SelfStat* out);

// The "btime" (boot time, seconds since the epoch) line of /proc/stat.
// Corruption when it is missing or not an unsigned integer.
Status ParseStatBtime(std::string_view text, uint64_t* out);

// The soft limit of "Max open files" in /proc/PID/limits; nullopt when
// "unlimited". Corruption when the line is missing or the value is neither
// "unlimited" nor an unsigned integer.
Status ParseLimitsMaxOpenFiles(std::string_view text, std::optional<uint64_t>* out);

// The daemon's own usage, in base units.
struct SelfProcess {
  double cpu_seconds = 0;           // utime + stime
  uint64_t resident_bytes = 0;      // rss pages x page size
  uint64_t virtual_bytes = 0;       // vsize
  uint64_t open_fds = 0;            // entries of /proc/self/fd
  std::optional<uint64_t> max_fds;  // soft RLIMIT_NOFILE; nullopt when unlimited
  double start_time_seconds = 0;    // btime + starttime / USER_HZ, since the epoch
};

// What ReadSelfProcess keeps between calls: the boot time (/proc/stat,
// large on a big host, is read only while it is unset), the descriptors of
// self/stat and self/limits (HostFs::ReadProcKept), and the descriptor
// count and limit, read again only every kFdsEveryNanos: listing
// /proc/self/fd makes a dentry per descriptor, 9 % of an idle tick with the
// ~110 that netdev keeps open (docs/performance-history.md "The idle tick against
// its floor"); they stand for at most 10 s in between.
struct SelfProcessState {
  static constexpr int64_t kFdsEveryNanos = 10'000'000'000;
  std::optional<uint64_t> btime;
  UniqueFd stat, limits;
  int64_t fds_read_ns = 0;  // MonotonicNanos() of the last listing; 0: never
  uint64_t open_fds = 0;
  std::optional<uint64_t> max_fds;
};

// Reads this process's usage through `fs` (its procfs root must be the live
// /proc). The first error of a read or parse is returned and *out is left
// unchanged.
Status ReadSelfProcess(const HostFs& fs, SelfProcess* out, SelfProcessState* state);

}  // namespace bottleneckd
