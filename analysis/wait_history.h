// Where each target thread waits, over the recent windows: one sample of its
// wchan and system call a window is a coin toss for a thread that sleeps
// 50 us at a time (the echo lab's waiting echo read "running" in half its
// samples and its socket receive in 7 %), so the evidence counts the last
// kWaitSamples of them.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "analysis/signals.h"

namespace bottleneckd {

inline constexpr int kWaitSamples = 30;
// While the window loses, the places are counted over the samples taken in
// losing windows: what the thread waits on while work is lost, not what it
// waited on in the light load before. Until those caught it waiting
// kSampledPlacesMin times (analysis/wait_class.h), the newest of the others
// fill in, so a thread seen waiting only for its input keeps that until its
// losing samples say otherwise. lab.echo's pipe consumer (this VM,
// 2026-12-07) waited on its input in the light step and on the pipe from the
// load step on; counted over all samples, or over the losing ones only from
// the third, its wait was discounted as input for 3 windows and its
// producer named: 3.4-5.3 s to `wait thread udpecho` (goal 5 s), and 4.9-5.1
// s for the pool's dispatcher.
class WaitHistory {
 public:
  // Adds each target thread's sample of this window (ThreadState::wchan,
  // syscall, object) to its history and writes the history's places into
  // ThreadState::places (measured places keep their shares and gain the
  // samples' objects): over every sample, or, while the window loses, over
  // the losing windows' samples (filled in as above). Threads gone from the
  // window are forgotten.
  //
  // Then, with offcpu's wakers: a thread seen blocked in a socket receive
  // (analysis/wait_class.h WaitedForInput) receives work, from then on
  // (ThreadState::receiver); a futex place of a thread that does not,
  // woken by one that does, is that receiver handing work over
  // (ThreadState::Place::handoff): a pool worker waiting for work, not a
  // lock, which is a thread that received work waiting for a sibling that
  // held it (docs/verdict-rules.md section 2, "Wait classes").
  void Record(Signals* s);

 private:
  void MarkHandoffs(Signals* s);
  struct Sampled;
  // Which of a history's samples count (the comment above Record).
  static std::vector<bool> Counted(const std::deque<Sampled>& h, bool losing);
  struct Sampled {
    std::string place;   // WaitPlace; "" for a sample on the CPU or hidden
    std::string object;  // ThreadState::object
    bool peer = false;
    bool losing = false;  // taken in a window that lost packets
  };
  std::map<int, std::deque<Sampled>> by_tid_;
  std::map<int, bool> receiver_;  // tid -> seen blocked in a socket receive
};

// "hrtimer_nanosleep (clock_nanosleep)", "futex_do_wait", "(recvfrom)"; ""
// when the sample saw nothing.
std::string WaitPlace(const std::string& wchan, const std::string& syscall);

}  // namespace bottleneckd
