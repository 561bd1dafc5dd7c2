// What a target thread's time off the CPU waits on, by class
// (docs/verdict-rules.md section 2, "Wait classes"), from each wait place's
// system call and resolved object, not its kernel function alone (one
// kernel function, __skb_wait_for_more_packets, serves a thread with nothing
// to do and one blocked on a peer):
//   input   a receive on a socket not connected to one peer: its input,
//           waiting for work (no limit while the input is empty); an
//           epoll wait whose interest list holds an input (an event loop
//           with nothing ready: epoll is level-triggered)
//   peer    a receive on a socket connected to one peer: its answer; an
//           epoll wait watching peers and nothing else
//   lock    futex (a mutex, a condition variable): waiting for a sibling
//           that holds what it needs; but a futex of a thread that does not
//           receive work, woken mostly by one that does (offcpu's wakers,
//           analysis/wait_history.h), is a handoff of input: `input`
//   disk    fsync, fdatasync, sync_file_range, msync; a wait on a regular
//           file; block I/O and page-cache waits in the kernel function
//   sleep   clock_nanosleep, nanosleep
//   other   any other place (poll, select, a pipe, an epoll of pipes,
//           eventfds or timers, ...)
//   unseen  waiting no place accounts for (running when sampled, no ptrace
//           access, too few samples)
// The shares split the thread's waiting share of the window
// (ThreadState::waiting) by its places' weights: measured time when offcpu
// measured them, else the recent windows' sample counts.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "analysis/signals.h"

namespace bottleneckd {

enum class WaitClass { kInput, kPeer, kLock, kDisk, kSleep, kOther, kUnseen };
inline constexpr size_t kWaitClassCount = 7;
// "input", "peer", "lock", "disk", "sleep", "other", "unseen": the metric's
// `class` label values and the evidence's words.
const char* WaitClassName(WaitClass c);

// The class of one wait place ("__skb_wait_for_more_packets (recvfrom)"
// with its object counts).
WaitClass ClassOfPlace(const ThreadState::Place& p);

// Whether the place is a socket receive, on the thread's input or on a
// peer's answer: the thread takes its work from the network. Not the
// place's class: one kernel function holds a thread's receives on its input
// and on its peer, the class is the majority's, and a dispatcher that asks
// a peer per request waits on the peer's socket more than on its input even
// in light load; sampled once a tick, its few input waits were missed in
// two of three fresh-clone CIs (lab.echo's pool).
bool WaitedForInput(const ThreadState::Place& p);

// Sampled places (no eBPF) are split among the classes only over at least
// this many waiting samples; fewer leave the waiting `unseen`. One sample
// is no split: lab.echo's idle scenario (this VM, 2026-12-06, 5878986's
// daemon) read "input 69.6 % of the window" from 1 waiting sample of 18,
// the echo asleep 63 % of the time (schedstat) in 50 us sleeps its
// samplers barely caught (the lab's own: 17 of 83). A sampler that wakes
// on the thread's CPU finds it runnable: its sleep ended while the
// sampler ran.
inline constexpr int kSampledPlacesMin = 3;

// Each class's share of the window, indexed by WaitClass; they sum to
// st.waiting.
std::array<double, kWaitClassCount> WaitShares(const ThreadState& st);

// The waiting samples of a thread's sampled places, and whether they are
// too few (under kSampledPlacesMin) to say what it waited on; false when
// its places are measured or none was sampled.
int SampledWaits(const ThreadState& st);
bool TooFewSampledWaits(const ThreadState& st);

// Each target thread's shares (the threads with schedstat), for the
// metrics: bottleneckd_thread_wait_ratio{class}.
struct ThreadWaitShares {
  int tid = 0;
  std::array<double, kWaitClassCount> shares{};
};
std::vector<ThreadWaitShares> ThreadWaits(const Signals& s);

// Each target thread's seconds off the CPU by class since the analysis
// first saw it, for the metrics: bottleneckd_thread_wait_seconds_total
// {class}, whose rate() over any range is the thread's wait ratio there (a
// scrape every 15 s reads the ratio gauge's last window, 1 s of 15).
struct ThreadWaitSeconds {
  int tid = 0;
  std::array<double, kWaitClassCount> seconds{};
};
class WaitSecondsTotals {
 public:
  // Adds each thread's shares x the window's seconds to its totals and
  // returns them; a thread absent from the window is forgotten, and starts
  // again from 0 if its tid comes back (a counter reset, as rate() reads
  // one).
  std::vector<ThreadWaitSeconds> Add(const std::vector<ThreadWaitShares>& window, double seconds);

 private:
  std::map<int, std::array<double, kWaitClassCount>> by_tid_;
};

// The largest of a thread's own classes (not input, not unseen: what it
// waited on that is its limit), "" when it has none over 0.05 % of the
// window: a `wait` verdict's Verdict::wait_class.
std::string LargestOwnClass(const ThreadState& st);

// "peer 88.0 %, sleep 2.0 %": the classes over 0.05 % of the window, most
// first; "" when none.
std::string WaitSharesSentence(const std::array<double, kWaitClassCount>& shares);

}  // namespace bottleneckd
