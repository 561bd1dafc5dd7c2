// A window's off-CPU stacks: how long each followed target thread was off
// the CPU between two OffCpuReadings (sources/offcpu.h), by the whole stack
// it left with, in microseconds, folded as the on-CPU profile's stacks are
// (sources/profile_fold.h) so one flame graph draws either:
//
//   udpecho;main (udpecho);...;__libc_recv (libc.so.6);...;schedule [kernel];[udp 10.0.0.7:5432 (connected)] 84210
//
// The root frame is the thread's name. The leaf is what the wait was on:
// the object the threads collector resolved at the window's end
// (collectors/wait_object.h), when the thread was then waiting at this
// stack's site (its wchan is the site's function); "[preempted]" for time
// runnable but descheduled; none where the object is not known. A thread
// whose stacks were walked for a share of its periods has the walked
// stacks' time scaled to all its time off the CPU (as offcpu_window.h
// scales its sites); time with no period walked is "[not walked]", a walked
// stack the kernel's map did not keep "[stack not kept]". A thread asleep
// since before offcpu followed it (offcpu_window.h MeasuredMissed) has its
// unmeasured waiting drawn as the place its window-end sample saw, marked
// so:
//
//   udpecho;recvfrom [sampled: waiting since before offcpu followed it];
//     __skb_wait_for_more_packets [kernel];[udp 10.0.0.1:40000 -> 10.0.0.7:5432] 1000000
//
// (one line, folded here).
//
// Pure arithmetic.
#pragma once

#include <string>
#include <vector>

#include "sources/offcpu.h"
#include "sources/profile_fold.h"

namespace bottleneckd {

// What the window knows of one followed thread beside offcpu's totals.
struct OffCpuStackThread {
  int tid = 0;
  std::string thread;         // its name (comm)
  std::string wait_function;  // its wchan at the window's end; "" running or unknown
  std::string object;         // WaitObject::Describe() of that wait; "" none
  std::string syscall{};      // the system call of that wait ("recvfrom"); "" none
  // Its waiting the readings did not measure (MeasuredMissed), in seconds.
  double missed_seconds = 0;
};

// Adds the threads' time off the CPU between a and b to *out (microseconds,
// rounded; a stack under 1 us left out). Nothing for a thread that either
// reading did not follow, or when the readings are of different program
// loads or b is not after a; a thread whose total went down (a reload) is
// left out.
void AddOffCpuStacks(const OffCpuReading& a, const OffCpuReading& b, const std::vector<OffCpuStackThread>& threads,
                     FoldedProfile* out);

// The leaf frames AddOffCpuStacks writes besides objects.
inline constexpr const char* kPreemptedFrame = "[preempted]";
inline constexpr const char* kNotWalkedFrame = "[not walked]";
inline constexpr const char* kStackNotKeptFrame = "[stack not kept]";
inline constexpr const char* kMissedMark = " [sampled: waiting since before offcpu followed it]";

}  // namespace bottleneckd
