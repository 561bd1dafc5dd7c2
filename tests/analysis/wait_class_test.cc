// Waits classified by what they wait on (analysis/wait_class.h): the places
// are those the lab's servers sleep in on this VM (kernel 6.18.44): the
// waiting echo in hrtimer_nanosleep (clock_nanosleep), the lock handoff in
// futex_do_wait (futex), the fsync echo in jbd2_log_wait_commit (fdatasync),
// the peer echo in __skb_wait_for_more_packets (recvfrom) on its backend's
// connected socket, and an echo with nothing to do in the same function on
// its own unconnected socket.
#include "analysis/wait_class.h"

#include <gtest/gtest.h>

namespace bottleneckd {
namespace {

ThreadState::Place Place(const std::string& where, int samples, double ratio = 0, int object_samples = 0,
                         int peer_samples = 0, const std::string& object = "") {
  ThreadState::Place p;
  p.where = where;
  p.samples = samples;
  p.ratio = ratio;
  p.object_samples = object_samples;
  p.peer_samples = peer_samples;
  p.object = object;
  return p;
}

TEST(WaitClass, APlaceIsClassedByWhatItWaitsOnNotItsKernelFunction) {
  EXPECT_EQ(ClassOfPlace(Place("hrtimer_nanosleep (clock_nanosleep)", 1)), WaitClass::kSleep);
  EXPECT_EQ(ClassOfPlace(Place("futex_do_wait (futex)", 1)), WaitClass::kLock);
  EXPECT_EQ(ClassOfPlace(Place("jbd2_log_wait_commit (fdatasync)", 1)), WaitClass::kDisk);
  EXPECT_EQ(ClassOfPlace(Place("folio_wait_bit_common (pread64)", 1)), WaitClass::kDisk);
  EXPECT_EQ(ClassOfPlace(Place("pipe_read (read)", 1, 0, 1, 0, "file /var/lib/db/table")), WaitClass::kDisk);
  // One kernel function, two meanings: its object tells them apart.
  const std::string recv = "__skb_wait_for_more_packets (recvfrom)";
  EXPECT_EQ(ClassOfPlace(Place(recv, 26, 0, 26, 25, "udp 10.198.28.2:55011 -> 10.198.28.2:8")), WaitClass::kPeer);
  EXPECT_EQ(ClassOfPlace(Place(recv, 9, 0, 9, 0, "udp 0.0.0.0:7 (unconnected)")), WaitClass::kInput);
  EXPECT_EQ(ClassOfPlace(Place(recv, 9)), WaitClass::kInput);  // unresolved: its input, as before objects
  EXPECT_EQ(ClassOfPlace(Place("do_epoll_wait (epoll_wait)", 1)), WaitClass::kOther);
  EXPECT_EQ(ClassOfPlace(Place("pipe_read (read)", 1, 0, 1, 0, "pipe:[1234]")), WaitClass::kOther);
}

// An event loop blocked in epoll: what its interest list watches
// (collectors/wait_object.h) says what it waits for. With an input there it
// has nothing ready (epoll is level-triggered): input, no limit; watching
// only peers, their answers; pipes, eventfds and timers alone, other. The
// receiver mark (the load's taker) follows the input.
TEST(WaitClass, AnEpollWaitIsClassedByWhatItWatches) {
  const std::string ep = "do_epoll_wait (epoll_wait)";
  EXPECT_EQ(ClassOfPlace(Place(ep, 9, 0, 9, 0, "epoll (inputs 1: udp 0.0.0.0:7 (unconnected); other 2)")),
            WaitClass::kInput);
  EXPECT_EQ(ClassOfPlace(Place(ep, 9, 0, 9, 0, "epoll (inputs 3: tcp 10.0.0.2:80 (listening); peers 1: tcp a -> b)")),
            WaitClass::kInput);
  EXPECT_EQ(ClassOfPlace(Place(ep, 9, 0, 9, 0, "epoll (peers 2: tcp 10.0.0.2:40000 -> 10.0.0.7:5432)")),
            WaitClass::kPeer);
  EXPECT_EQ(ClassOfPlace(Place(ep, 9, 0, 9, 0, "epoll (peers 2: tcp a -> b; other 1)")), WaitClass::kOther);
  EXPECT_EQ(ClassOfPlace(Place(ep, 9, 0, 9, 0, "epoll (other 2)")), WaitClass::kOther);
  EXPECT_EQ(ClassOfPlace(Place(ep, 9, 0, 9, 0, "epoll")), WaitClass::kOther);
  EXPECT_EQ(ClassOfPlace(Place("ep_poll (epoll_pwait)", 9, 0, 9, 0, "epoll (inputs 1: udp [::]:53 (unconnected))")),
            WaitClass::kInput);
  EXPECT_TRUE(WaitedForInput(Place(ep, 9, 0, 9, 0, "epoll (inputs 1: udp 0.0.0.0:7 (unconnected))")));
  EXPECT_FALSE(WaitedForInput(Place(ep, 9, 0, 9, 0, "epoll (peers 1: udp a -> b)")));
}

TEST(WaitClass, SampledPlacesShareTheWaitingByTheirCounts) {
  ThreadState st;
  st.waiting = 0.80;
  st.places = {Place("__skb_wait_for_more_packets (recvfrom)", 6, 0, 6, 6, "udp a -> b"),
               Place("hrtimer_nanosleep (clock_nanosleep)", 2)};
  auto shares = WaitShares(st);
  EXPECT_DOUBLE_EQ(shares[static_cast<size_t>(WaitClass::kPeer)], 0.60);
  EXPECT_DOUBLE_EQ(shares[static_cast<size_t>(WaitClass::kSleep)], 0.20);
  EXPECT_EQ(WaitSharesSentence(shares), "peer 60.0 %, sleep 20.0 %");
  // No place seen: all of it unseen, never guessed.
  st.places.clear();
  shares = WaitShares(st);
  EXPECT_DOUBLE_EQ(shares[static_cast<size_t>(WaitClass::kUnseen)], 0.80);
}

TEST(WaitClass, TooFewSampledWaitsAreUnseenNotExtrapolated) {
  // lab.echo's idle scenario (this VM, 2026-12-06): the echo asleep 63 % of
  // the time in 50 us sleeps, one of its last 18 samples waiting, in the
  // receive on its own input; the class split read "input 69.6 % of the
  // window" from that one sample.
  ThreadState st;
  st.waiting = 0.696;
  st.place_samples = 18;
  st.places = {Place("__skb_wait_for_more_packets (recvfrom)", 1, 0, 1, 0, "udp 10.0.0.2:7 (unconnected)")};
  EXPECT_TRUE(TooFewSampledWaits(st));
  auto shares = WaitShares(st);
  EXPECT_DOUBLE_EQ(shares[static_cast<size_t>(WaitClass::kUnseen)], 0.696);
  EXPECT_DOUBLE_EQ(shares[static_cast<size_t>(WaitClass::kInput)], 0.0);
  EXPECT_EQ(LargestOwnClass(st), "");
  // Two are still too few; at kSampledPlacesMin they split.
  st.places.push_back(Place("hrtimer_nanosleep (clock_nanosleep)", 1));
  EXPECT_DOUBLE_EQ(WaitShares(st)[static_cast<size_t>(WaitClass::kUnseen)], 0.696);
  st.places.back().samples = kSampledPlacesMin - 1;
  EXPECT_FALSE(TooFewSampledWaits(st));
  shares = WaitShares(st);
  EXPECT_DOUBLE_EQ(shares[static_cast<size_t>(WaitClass::kUnseen)], 0.0);
  EXPECT_NEAR(shares[static_cast<size_t>(WaitClass::kSleep)], 0.696 * 2 / 3, 1e-12);
  EXPECT_EQ(LargestOwnClass(st), "sleep");
  // Measured places are time, whatever the samples.
  st.places_measured = true;
  EXPECT_FALSE(TooFewSampledWaits(st));
}

TEST(WaitClass, MeasuredPlacesAreTimeAndLeaveTheRestUnseen) {
  // offcpu measured 50 % and 30 % of the time off the CPU (waiting 0.78 +
  // runnable 0.02) in two places; the preempted rest is no place.
  ThreadState st;
  st.waiting = 0.78;
  st.runnable = 0.02;
  st.places_measured = true;
  st.places = {Place("futex_do_wait (futex)", 0, 0.5), Place("jbd2_log_wait_commit (fdatasync)", 0, 0.3)};
  auto shares = WaitShares(st);
  EXPECT_NEAR(shares[static_cast<size_t>(WaitClass::kLock)], 0.40, 1e-12);
  EXPECT_NEAR(shares[static_cast<size_t>(WaitClass::kDisk)], 0.24, 1e-12);
  EXPECT_NEAR(shares[static_cast<size_t>(WaitClass::kUnseen)], 0.14, 1e-12);
  double sum = 0;
  for (double v : shares) sum += v;
  EXPECT_NEAR(sum, st.waiting, 1e-12);
  // Two clocks that claim more than the waiting are scaled to it.
  st.places = {Place("futex_do_wait (futex)", 0, 1.0)};
  st.waiting = 0.5;
  st.runnable = 0.5;
  shares = WaitShares(st);
  EXPECT_NEAR(shares[static_cast<size_t>(WaitClass::kLock)], 0.5, 1e-12);
  EXPECT_NEAR(shares[static_cast<size_t>(WaitClass::kUnseen)], 0.0, 1e-12);
}

TEST(WaitClass, ThreadsWithoutSchedstatHaveNoShares) {
  Signals s;
  ThreadSignal a, b;
  a.tid = 10;
  a.state = ThreadState{};
  a.state->waiting = 0.3;
  b.tid = 11;  // no schedstat
  s.threads = {a, b};
  std::vector<ThreadWaitShares> w = ThreadWaits(s);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].tid, 10);
  EXPECT_DOUBLE_EQ(w[0].shares[static_cast<size_t>(WaitClass::kUnseen)], 0.3);
}

// Seconds by class add up window by window (shares x the window's seconds);
// a thread gone from a window is forgotten, and one that comes back starts
// again from 0.
TEST(WaitClass, WaitSecondsAddUpPerThreadAndForgetThreadsThatGo) {
  const size_t sleep = static_cast<size_t>(WaitClass::kSleep), peer = static_cast<size_t>(WaitClass::kPeer);
  ThreadWaitShares a{10, {}}, b{11, {}};
  a.shares[sleep] = 0.5;
  b.shares[peer] = 0.8;
  WaitSecondsTotals totals;
  std::vector<ThreadWaitSeconds> t = totals.Add({a, b}, 1.0);
  t = totals.Add({a, b}, 2.0);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].tid, 10);
  EXPECT_DOUBLE_EQ(t[0].seconds[sleep], 1.5);
  EXPECT_DOUBLE_EQ(t[1].seconds[peer], 2.4);
  EXPECT_DOUBLE_EQ(t[1].seconds[sleep], 0);
  t = totals.Add({a}, 1.0);  // 11 gone
  ASSERT_EQ(t.size(), 1u);
  EXPECT_DOUBLE_EQ(t[0].seconds[sleep], 2.0);
  t = totals.Add({a, b}, 1.0);  // 11 back: from 0
  ASSERT_EQ(t.size(), 2u);
  EXPECT_DOUBLE_EQ(t[1].seconds[peer], 0.8);
}

}  // namespace
}  // namespace bottleneckd
