// What a target thread does between ticks, from four more files of its task
// directory beside stat (collectors/threads.h reads them):
//   /proc/PID/task/TID/schedstat  "1742769 2960251 2": ns on a CPU, ns waiting
//                                 on a run queue, timeslices (CONFIG_SCHED_INFO)
//   /proc/PID/task/TID/status     "voluntary_ctxt_switches:\t1" and
//                                 "nonvoluntary_ctxt_switches:\t1" (other lines skipped)
//   /proc/PID/task/TID/wchan      the kernel function it sleeps in
//                                 ("hrtimer_nanosleep"), "0" when running or
//                                 when the reader may not ptrace it
//   /proc/PID/task/TID/syscall    "230 0x0 ... SP PC" blocked in a system call
//                                 (its six arguments), "-1 SP PC" blocked
//                                 outside one, "running"
// schedstat and status are cumulative counters; wchan and syscall are one
// sample, taken when the tick reads them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "collectors/wait_object.h"

namespace bottleneckd {

struct TaskSchedstat {
  uint64_t run_ns = 0;   // on a CPU
  uint64_t wait_ns = 0;  // runnable, waiting on a run queue
  uint64_t timeslices = 0;
};

struct TaskSwitches {
  uint64_t voluntary = 0;    // it blocked (a sleep, a lock, an empty socket)
  uint64_t involuntary = 0;  // it was preempted
};

// The thread's state as sampled once a tick: what it blocks in.
struct TaskWait {
  std::string wchan;  // kernel function; "" when running or hidden ("0")
  // The system call it is blocked in: its number (-1: blocked outside a system
  // call); nullopt when running or unreadable.
  std::optional<int64_t> syscall;
  // Its six arguments as the kernel printed them (empty outside a call).
  std::vector<uint64_t> args{};
  // What its first argument names when the call blocks on a descriptor
  // (collectors/wait_object.h); kNone otherwise or when it cannot be read.
  WaitObject object{};
  // wchan or syscall refused (EACCES): the daemon has no ptrace access to
  // the task (the packaged service, user bottleneckd without
  // CAP_SYS_PTRACE, watching another user's server). Where it waits is then
  // unknown, and said so, not taken for running.
  bool hidden = false;
};

// Corruption unless the text is three unsigned decimal numbers.
Status ParseTaskSchedstat(std::string_view text, TaskSchedstat* out);
// Corruption when either ctxt_switches line is missing or not a number.
Status ParseTaskStatusSwitches(std::string_view text, TaskSwitches* out);
// wchan as the kernel prints it: "0" and "" are "" (running or hidden).
std::string ParseTaskWchan(std::string_view text);
// nullopt for "running"; Corruption for anything else that does not start
// with a decimal number (-1 included). *args (optional) gets the six
// arguments of a call ("0x..." each; Corruption when one is missing or not
// hex), none outside one.
Status ParseTaskSyscall(std::string_view text, std::optional<int64_t>* out, std::vector<uint64_t>* args = nullptr);

// The name of system call `nr` on this machine's architecture (libseccomp's
// table): "clock_nanosleep"; "syscall NR" when the table does not know it,
// "none" for -1 (blocked outside a system call).
std::string SyscallName(int64_t nr);

}  // namespace bottleneckd
