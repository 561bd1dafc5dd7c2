// Block devices' counters, for a wait on a file: /proc/diskstats, one line
// per device (partitions included), the kernel's cumulative counts:
//    254       0 vda 992517 22964 18388818 1380587 1143174 1899812 303555456 2093189 0 540688 3835180 ...
//   major minor name, then reads completed, reads merged, sectors read, ms
//   reading, writes completed, writes merged, sectors written, ms writing,
//   I/Os in progress, ms doing I/O (io_ticks), weighted ms, and (4.18+)
//   discards and (5.5+) flushes.
// io_ticks over a window is the share of it the device had I/O in flight:
// its utilisation as iostat's %util reads it (a device serving requests in
// parallel can be "100 %" and still take more).
//
// Read by the threads collector, and only once a target thread has been
// seen waiting on a file on a block device (collectors/wait_object.h
// `device`): the device of a disk wait, said beside it
// (analysis/rule_wait.cc).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace bottleneckd {

struct DiskStat {
  int major = 0, minor = 0;
  std::string name;                // "vda", "nvme0n1p2"
  uint64_t reads = 0, writes = 0;  // completed
  uint64_t io_ms = 0;              // ms with I/O in flight (io_ticks)
  bool operator==(const DiskStat&) const = default;
};

// Parses /proc/diskstats into *out (replaced): every device, or only those
// in `only` (major, minor) when given: a host's dozens of
// loop and partition lines are not kept each tick for the one device a
// wait was on. Lines with fewer than the 14 fields every kernel since 2.6
// prints, or a field that is not a whole number, are Corruption naming the
// line. *out is unspecified on failure.
Status ParseProcDiskstats(std::string_view text, std::vector<DiskStat>* out,
                          const std::vector<std::pair<int, int>>* only = nullptr);

// "254:0" -> (254, 0); false when it is not MAJOR:MINOR.
bool ParseDeviceNumber(std::string_view major_minor, std::pair<int, int>* out);

// "254:0" -> the device of that number in `disks`, or nullptr.
const DiskStat* FindDisk(const std::vector<DiskStat>& disks, std::string_view major_minor);

}  // namespace bottleneckd
