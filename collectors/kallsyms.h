// The kernel's text symbols from /proc/kallsyms, to name the functions in a
// kernel stack (sources/offcpu.h: where a target thread waits):
//   ffffffff81000000 T _stext
//   ffffffff8226b9f0 t do_nanosleep
//   ffffffffc0a01000 t e1000_clean	[e1000]
// Only text symbols (types t, T, w, W) are kept. The readers without
// CAP_SYSLOG see every address as 0 (kernel.kptr_restrict): such a table
// names nothing and the parser says so.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace bottleneckd {

class KernelSymbols {
 public:
  // Replaces the table with `text`'s text symbols. Corruption naming the line
  // when a line is not "ADDRESS TYPE NAME [MODULE]" (a hexadecimal address
  // of at most 16 digits, one type letter); PermissionDenied when every
  // address is 0 (hidden by kptr_restrict); the table is left empty on error.
  Status Parse(std::string_view text);

  // The function containing `addr`: the text symbol with the greatest address
  // at or below it; "" below the first. Addresses past a module's last
  // function fall to that function (kallsyms gives no sizes).
  std::string_view Name(uint64_t addr) const;

  // Whether `addr` is in the scheduler's or the lock functions' text
  // (__sched_text_start..__sched_text_end, __lock_text_start..__lock_text_end):
  // the frames the kernel itself skips when it names where a task sleeps
  // (/proc/PID/wchan, in_sched_functions()). False when the table lacks
  // those markers.
  bool InSchedFunctions(uint64_t addr) const;

  size_t size() const { return addrs_.size(); }

 private:
  std::vector<uint64_t> addrs_;       // sorted
  std::vector<uint32_t> name_start_;  // into names_, parallel to addrs_
  std::string names_;                 // each name followed by '\0'
  uint64_t sched_begin_ = 0, sched_end_ = 0, lock_begin_ = 0, lock_end_ = 0;
};

// Where a task that left the CPU with kernel stack `ips` (innermost first)
// waits, as /proc/PID/wchan and /proc/PID/syscall would name it: the first
// function past the scheduler's own frames and, when the stack passes through
// a system call's entry (__x64_sys_NAME, __arm64_sys_NAME, ...), that call:
// "hrtimer_nanosleep (clock_nanosleep)", "futex_wait_queue", "(recvfrom)" when
// every frame above the call is the scheduler's. "" for an empty stack.
std::string WaitSiteOf(const KernelSymbols& symbols, const uint64_t* ips, int n);

}  // namespace bottleneckd
