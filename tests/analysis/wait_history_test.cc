// WaitHistory (analysis/wait_history.h): the last kWaitSamples samples of
// each target thread's wait place, counted, most first; and the wait rule's
// evidence naming them. The mix is the echo lab's waiting echo as the lab's
// own 0.2 s sampler saw it: on the CPU in about half the samples, in
// clock_nanosleep in most of the rest, in its socket receive now and then.
#include "analysis/wait_history.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/verdict.h"
#include "window/window.h"

namespace bottleneckd::wait_history_test {
namespace {

Signals OneThread(int tid, const std::string& wchan, const std::string& syscall) {
  Signals s;
  ThreadSignal t;
  t.thread = t.process = "udpecho";
  t.tid = tid;
  t.cpu = 1;
  t.cpu_share = 0.36;
  t.state = ThreadState{0.36, 0.01, 0.63, 10800, 1, wchan, syscall, {}, 0};
  s.threads = {t};
  return s;
}

// Window i of the echo: every other one on the CPU, every eighth in recvfrom.
Signals EchoWindow(int i) {
  if (i % 2 == 0) return OneThread(812, "", "");
  if (i % 8 == 1) return OneThread(812, "__skb_wait_for_more_packets", "recvfrom");
  return OneThread(812, "hrtimer_nanosleep", "clock_nanosleep");
}

// The last window's signals after 40 windows of the echo.
Signals FortyEchoWindows() {
  WaitHistory h;
  Signals s;
  for (int i = 0; i < 40; ++i) {
    s = EchoWindow(i);
    h.Record(&s);
  }
  return s;
}

TEST(WaitHistory, CountsTheRecentSamplesMostFirst) {
  Signals s = FortyEchoWindows();
  // The last 30 windows (10..39): 15 on the CPU (even i), 3 in recvfrom
  // (i = 17, 25, 33), the other 12 asleep.
  const ThreadState& st = *s.threads[0].state;
  EXPECT_EQ(st.place_samples, kWaitSamples);
  ASSERT_EQ(st.places.size(), 2u);
  EXPECT_EQ(st.places[0].where, "hrtimer_nanosleep (clock_nanosleep)");
  EXPECT_EQ(st.places[0].samples, 12);
  EXPECT_EQ(st.places[1].where, "__skb_wait_for_more_packets (recvfrom)");
  EXPECT_EQ(st.places[1].samples, 3);
}

TEST(WaitHistory, AThreadGoneIsForgotten) {
  WaitHistory h;
  Signals s = OneThread(812, "futex_do_wait", "futex");
  h.Record(&s);
  s = OneThread(900, "", "");  // 812 exited, a new thread
  h.Record(&s);
  s = OneThread(812, "hrtimer_nanosleep", "clock_nanosleep");  // a tid reused: a new history
  h.Record(&s);
  ASSERT_EQ(s.threads[0].state->places.size(), 1u);
  EXPECT_EQ(s.threads[0].state->places[0].where, "hrtimer_nanosleep (clock_nanosleep)");
  EXPECT_EQ(s.threads[0].state->place_samples, 1);
}

// wchan and syscall are two reads: a thread that woke between them reads
// "hrtimer_nanosleep" with no system call. The echo lab's waiting echo did,
// and its evidence listed the place twice.
TEST(WaitHistory, OneFunctionCountsOnceWhateverTheSystemCallRead) {
  WaitHistory h;
  Signals s;
  for (const char* call : {"clock_nanosleep", "", "clock_nanosleep", "none"}) {
    s = OneThread(812, "hrtimer_nanosleep", call);
    h.Record(&s);
  }
  ASSERT_EQ(s.threads[0].state->places.size(), 1u);
  EXPECT_EQ(s.threads[0].state->places[0].where, "hrtimer_nanosleep (clock_nanosleep)");
  EXPECT_EQ(s.threads[0].state->places[0].samples, 4);
}

TEST(WaitHistory, PlacesNameWhatTheSampleSaw) {
  EXPECT_EQ(WaitPlace("hrtimer_nanosleep", "clock_nanosleep"), "hrtimer_nanosleep (clock_nanosleep)");
  EXPECT_EQ(WaitPlace("", "futex"), "(futex)");
  EXPECT_EQ(WaitPlace("do_epoll_wait", "none"), "do_epoll_wait");
  EXPECT_EQ(WaitPlace("", ""), "");
}

TEST(WaitHistory, TheWaitEvidenceNamesTheRecentPlaces) {
  Signals s = FortyEchoWindows();
  CpuSignal cpu;
  cpu.cpu = 1;
  cpu.busy = cpu.accounting_busy = 0.40;
  s.cpus = {cpu};
  s.reader_cpus = {1};
  s.offered_packets_per_second = 20000;
  s.ladder.first_losing = Rung::kSocket;
  s.ladder.socket = 9000;
  Verdict v = Classify(s, VerdictThresholds());
  ASSERT_EQ(v.label, Bound::kWait);
  ASSERT_FALSE(v.evidence.empty());
  EXPECT_NE(v.evidence[0].find("sampled in hrtimer_nanosleep (clock_nanosleep) 12, "
                               "__skb_wait_for_more_packets (recvfrom) 3 of its last 30 samples (one a window)"),
            std::string::npos)
      << v.evidence[0];
}

// The same echo measured by offcpu: the window's eBPF totals name the places
// with their share of its time off the CPU (0.55 of the window of 0.63 off it:
// 87.3 %), and the samples' history does not replace them.
TEST(WaitHistory, MeasuredWaitsNameThePlacesWithTheirShare) {
  Window w;
  w.seconds = 1;
  ThreadWindow t;
  t.pid = t.tid = 812;
  t.process = t.thread = "udpecho";
  t.cpu_ratio = 0.36;
  t.processor = 1;
  t.running_ratio = 0.36;
  t.runnable_ratio = 0.01;
  t.waiting_ratio = 0.63;
  t.wait.wchan = "";  // the tick's sample saw it running
  t.measured_waits = std::vector<WaitSiteWindow>{{"hrtimer_nanosleep (clock_nanosleep)", false, 0.55, 9000},
                                                 {"irqentry_exit", true, 0.01, 40},
                                                 {"__skb_wait_for_more_packets (recvfrom)", false, 0.07, 1800}};
  w.threads = {t};
  Signals s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(s.threads.size(), 1u);
  ASSERT_TRUE(s.threads[0].state.has_value());
  const ThreadState& st = *s.threads[0].state;
  EXPECT_TRUE(st.places_measured);
  ASSERT_EQ(st.places.size(), 2u);  // its own waits: the preemption is not one
  EXPECT_EQ(st.places[0].where, "hrtimer_nanosleep (clock_nanosleep)");
  EXPECT_DOUBLE_EQ(st.places[0].ratio, 0.55 / 0.63);  // of its time off the CPU, preemptions included
  EXPECT_EQ(st.places[1].where, "__skb_wait_for_more_packets (recvfrom)");

  WaitHistory h;
  for (int i = 0; i < 5; ++i) {
    Signals earlier = EchoWindow(i);
    h.Record(&earlier);
  }
  h.Record(&s);
  ASSERT_EQ(s.threads[0].state->places.size(), 2u);
  EXPECT_DOUBLE_EQ(s.threads[0].state->places[0].ratio, 0.55 / 0.63);

  CpuSignal cpu;
  cpu.cpu = 1;
  cpu.busy = cpu.accounting_busy = 0.40;
  s.cpus = {cpu};
  s.reader_cpus = {1};
  s.offered_packets_per_second = 20000;
  s.ladder.first_losing = Rung::kSocket;
  s.ladder.socket = 9000;
  Verdict v = Classify(s, VerdictThresholds());
  ASSERT_EQ(v.label, Bound::kWait);
  ASSERT_FALSE(v.evidence.empty());
  EXPECT_NE(v.evidence[0].find("; measured by eBPF (sched_switch) in hrtimer_nanosleep (clock_nanosleep) 87.3 %, "
                               "__skb_wait_for_more_packets (recvfrom) 11.1 % of its time off the CPU"),
            std::string::npos)
      << v.evidence[0];
}

// Measured, and no wait of its own in the window: said, not sampled instead.
TEST(WaitHistory, MeasuredWithoutWaitsSaysSo) {
  Signals s = OneThread(812, "hrtimer_nanosleep", "clock_nanosleep");
  s.threads[0].state->places_measured = true;
  WaitHistory h;
  h.Record(&s);
  EXPECT_TRUE(s.threads[0].state->places.empty());
  CpuSignal cpu;
  cpu.cpu = 1;
  cpu.busy = cpu.accounting_busy = 0.40;
  s.cpus = {cpu};
  s.ladder.first_losing = Rung::kSocket;
  s.ladder.socket = 9000;
  Verdict v = Classify(s, VerdictThresholds());
  ASSERT_FALSE(v.evidence.empty());
  EXPECT_NE(v.evidence[0].find("measured by eBPF (sched_switch): no wait of its own this window"), std::string::npos)
      << v.evidence[0];
}

// The object each sample's descriptor named rides with its place: the
// receive samples on the peer's socket and on the input are counted apart,
// the object seen most is kept, and measured places (eBPF) gain them too.
TEST(WaitHistory, PlacesCountTheirSamplesObjects) {
  WaitHistory h;
  Signals s;
  for (int i = 0; i < 6; ++i) {
    s = OneThread(812, "__skb_wait_for_more_packets", "recvfrom");
    s.threads[0].state->object = i < 4 ? "udp 10.0.0.1:40000 -> 10.0.0.7:5432" : "udp 0.0.0.0:7000 (unconnected)";
    s.threads[0].state->object_peer = i < 4;
    if (i == 5) s.threads[0].state->object.clear();  // not resolved (closed meanwhile)
    h.Record(&s);
  }
  const ThreadState::Place& p = s.threads[0].state->places.at(0);
  EXPECT_EQ(p.samples, 6);
  EXPECT_EQ(p.object_samples, 5);
  EXPECT_EQ(p.peer_samples, 4);
  EXPECT_EQ(p.object, "udp 10.0.0.1:40000 -> 10.0.0.7:5432");

  s = OneThread(812, "__skb_wait_for_more_packets", "recvfrom");
  s.threads[0].state->object = "udp 10.0.0.1:40000 -> 10.0.0.7:5432";
  s.threads[0].state->object_peer = true;
  s.threads[0].state->places_measured = true;
  s.threads[0].state->places = {{"__skb_wait_for_more_packets (recvfrom)", 0, 0.9}, {"futex_do_wait (futex)", 0, 0.1}};
  h.Record(&s);
  const ThreadState& st = *s.threads[0].state;
  ASSERT_EQ(st.places.size(), 2u);
  EXPECT_DOUBLE_EQ(st.places[0].ratio, 0.9);  // the measured share stays
  EXPECT_EQ(st.places[0].object_samples, 6);
  EXPECT_EQ(st.places[0].peer_samples, 5);
  EXPECT_EQ(st.places[1].object_samples, 0);  // never sampled there
}

// lab.echo's peer echo in a fresh-clone CI (193676a): its light step left
// receives on its own input in the history, and at the load step the peer's
// receives were too few of the 30 samples: 5.2 s to its `wait` verdict. While
// the window loses, the losing windows' samples are counted, once there are
// kLosingSamplesMin of them; before that, and when nothing is lost, all.
TEST(WaitHistory, WhileLosingThePlacesAreTheLosingWindowsOnes) {
  WaitHistory h;
  Signals s;
  auto window = [&](bool peer, bool losing) {
    s = OneThread(812, "__skb_wait_for_more_packets", "recvfrom");
    s.threads[0].state->object = peer ? "udp 10.0.0.1:40000 -> 10.0.0.7:5432" : "udp 0.0.0.0:7 (unconnected)";
    s.threads[0].state->object_peer = peer;
    if (losing) s.ladder.first_losing = Rung::kSocket;
    h.Record(&s);
    return s.threads[0].state->places.at(0);
  };
  for (int i = 0; i < 20; ++i) window(false, false);  // the light step: its input
  ThreadState::Place p = window(true, true);          // the load step's first losing window
  EXPECT_EQ(p.samples, 21);                           // too few losing samples yet: all of them
  EXPECT_EQ(p.peer_samples, 1);
  window(true, true);
  p = window(true, true);
  EXPECT_EQ(p.samples, 3);  // kLosingSamplesMin losing windows: theirs only
  EXPECT_EQ(p.object_samples, 3);
  EXPECT_EQ(p.peer_samples, 3);
  EXPECT_EQ(s.threads[0].state->place_samples, 3);
  // A window that loses nothing counts every sample again.
  p = window(true, false);
  EXPECT_EQ(p.samples, 24);
  EXPECT_EQ(p.peer_samples, 4);
}

}  // namespace
}  // namespace bottleneckd::wait_history_test
