// Where each target thread waits, over the recent windows: one sample of its
// wchan and system call a window is a coin toss for a thread that sleeps
// 50 us at a time (the echo lab's waiting echo read "running" in half its
// samples and its socket receive in 7 %), so the evidence counts the last
// kWaitSamples of them.
#pragma once

#include <deque>
#include <map>
#include <string>

#include "analysis/signals.h"

namespace bottleneckd {

inline constexpr int kWaitSamples = 30;

class WaitHistory {
 public:
  // Adds each target thread's sample of this window (ThreadState::wchan,
  // syscall, object) to its history and writes the history's places into
  // ThreadState::places (measured places keep their shares and gain the
  // samples' objects). Threads gone from the window are forgotten.
  void Record(Signals* s);

 private:
  struct Sampled {
    std::string place;   // WaitPlace; "" for a sample on the CPU or hidden
    std::string object;  // ThreadState::object
    bool peer = false;
  };
  std::map<int, std::deque<Sampled>> by_tid_;
};

// "hrtimer_nanosleep (clock_nanosleep)", "futex_do_wait", "(recvfrom)"; ""
// when the sample saw nothing.
std::string WaitPlace(const std::string& wchan, const std::string& syscall);

}  // namespace bottleneckd
