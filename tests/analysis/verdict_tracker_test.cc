// VerdictTracker (hysteresis: no flapping on steady load, a real change
// published after N windows, a confident first verdict at once). The label
// names: tests/base/verdict_labels_test.cc. Scenario tests of Classify are in
// verdict_test.cc.
#include <gtest/gtest.h>

#include "analysis/verdict.h"

namespace bottleneckd::verdict_tracker_test {
namespace {

const VerdictThresholds kT;  // hysteresis_windows 3, switch_confidence 0.5

// A window's verdict; a bound's window loses packets unless `losing` says not.
Verdict Raw(Bound label, double confidence, const std::string& resource = "", bool losing = true) {
  Verdict v;
  v.label = label;
  v.losing = losing && label != Bound::kNone;
  v.confidence = confidence;
  v.resource = resource;
  return v;
}

TEST(VerdictTracker, ConfidentFirstVerdictIsPublishedAtOnce) {
  VerdictTracker tr(kT);
  EXPECT_EQ(tr.current().label, Bound::kUndetermined);
  EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.9, "cpu0")).label, Bound::kCpu);
  EXPECT_EQ(tr.current().resource, "cpu0");
}

TEST(VerdictTracker, UnsureFirstVerdictWaitsForHysteresis) {
  VerdictTracker tr(kT);  // 3 windows
  EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.3)).label, Bound::kUndetermined);
  EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.3)).label, Bound::kUndetermined);
  EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.3)).label, Bound::kCpu);
}

TEST(VerdictTracker, AlternatingNoiseDoesNotFlap) {
  VerdictTracker tr(kT);
  tr.Update(Raw(Bound::kCpu, 0.9));
  for (int i = 0; i < 20; ++i) {
    Bound noise = i % 3 == 0 ? Bound::kInterrupt : Bound::kUndetermined;
    EXPECT_EQ(tr.Update(Raw(i % 2 ? Bound::kCpu : noise, 0.6)).label, Bound::kCpu) << "window " << i;
  }
  // Two windows of something else between cpu windows never reach three.
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(tr.Update(Raw(Bound::kInterrupt, 0.9)).label, Bound::kCpu);
    EXPECT_EQ(tr.Update(Raw(Bound::kUndetermined, 0)).label, Bound::kCpu);
    EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.9)).label, Bound::kCpu);
  }
}

TEST(VerdictTracker, RealChangeSwitchesAfterNWindows) {
  VerdictTracker tr(kT);
  tr.Update(Raw(Bound::kCpu, 0.9, "cpu0"));
  EXPECT_EQ(tr.Update(Raw(Bound::kBus, 0.9, "em2")).label, Bound::kCpu);
  EXPECT_EQ(tr.Update(Raw(Bound::kBus, 0.9, "em2")).label, Bound::kCpu);
  const Verdict& v = tr.Update(Raw(Bound::kBus, 0.7, "em2"));
  EXPECT_EQ(v.label, Bound::kBus);
  EXPECT_EQ(v.resource, "em2");
  EXPECT_DOUBLE_EQ(v.confidence, 0.7);
  // Falling back to undetermined takes the same three windows.
  EXPECT_EQ(tr.Update(Raw(Bound::kUndetermined, 0)).label, Bound::kBus);
  EXPECT_EQ(tr.Update(Raw(Bound::kUndetermined, 0)).label, Bound::kBus);
  EXPECT_EQ(tr.Update(Raw(Bound::kUndetermined, 0)).label, Bound::kUndetermined);
}

TEST(VerdictTracker, AgreeingWindowRefreshesAndResetsPending) {
  VerdictTracker tr(kT);
  tr.Update(Raw(Bound::kCpu, 0.9, "cpu0"));
  tr.Update(Raw(Bound::kNone, 0.9));
  tr.Update(Raw(Bound::kNone, 0.9));
  tr.Update(Raw(Bound::kCpu, 0.4, "cpu0"));  // agrees: refreshed
  EXPECT_DOUBLE_EQ(tr.current().confidence, 0.4);
  // The two none windows before it no longer count.
  EXPECT_EQ(tr.Update(Raw(Bound::kNone, 0.9)).label, Bound::kCpu);
  EXPECT_EQ(tr.Update(Raw(Bound::kNone, 0.9)).label, Bound::kCpu);
  EXPECT_EQ(tr.Update(Raw(Bound::kNone, 0.9)).label, Bound::kNone);
}

TEST(VerdictTracker, OneWindowHysteresisFollowsEveryWindow) {
  VerdictThresholds t;
  t.hysteresis_windows = 1;
  VerdictTracker tr(t);
  EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.2)).label, Bound::kCpu);
  EXPECT_EQ(tr.Update(Raw(Bound::kBus, 0.2)).label, Bound::kBus);
  EXPECT_EQ(tr.Update(Raw(Bound::kNone, 0.2)).label, Bound::kNone);
}

// The echo lab's flat-out generator (tests/echo_lab): every window cpu, the
// resource alternating between the reader's thread and its CPU. Only a
// resource that holds hysteresis_windows windows replaces the published one.
TEST(VerdictTracker, ResourceHasHysteresisToo) {
  VerdictTracker tr(kT);
  tr.Update(Raw(Bound::kCpu, 0.9, "thread udpecho"));
  for (int i = 0; i < 10; ++i) {
    const Verdict& v = tr.Update(Raw(Bound::kCpu, 0.5 + i * 0.01, i % 2 ? "cpu0" : "cpu1"));
    EXPECT_EQ(v.resource, "thread udpecho") << "window " << i;
    EXPECT_DOUBLE_EQ(v.confidence, 0.5 + i * 0.01);  // the label's confidence follows the window
  }
  EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.9, "cpu1")).resource, "thread udpecho");
  EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.9, "cpu1")).resource, "thread udpecho");
  EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.9, "cpu1")).resource, "cpu1");
}

// A load step: from none, a confident bound is published in its first
// window (time to verdict), an unsure one waits; back to none takes three.
TEST(VerdictTracker, LeavesNoneAtOnceForAConfidentBound) {
  VerdictTracker tr(kT);
  tr.Update(Raw(Bound::kNone, 0.9));
  EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.6, "cpu1")).label, Bound::kCpu);
  EXPECT_EQ(tr.Update(Raw(Bound::kNone, 0.9)).label, Bound::kCpu);
  EXPECT_EQ(tr.Update(Raw(Bound::kNone, 0.9)).label, Bound::kCpu);
  EXPECT_EQ(tr.Update(Raw(Bound::kNone, 0.9)).label, Bound::kNone);
  EXPECT_EQ(tr.Update(Raw(Bound::kInterrupt, 0.3, "cpu1")).label, Bound::kNone);  // unsure
  EXPECT_EQ(tr.Update(Raw(Bound::kInterrupt, 0.3, "cpu1")).label, Bound::kNone);
  EXPECT_EQ(tr.Update(Raw(Bound::kInterrupt, 0.3, "cpu1")).label, Bound::kInterrupt);
  // Between two bounds the switch always waits.
  EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.9, "cpu1")).label, Bound::kInterrupt);
}

// One CPU of an idle 16-CPU host at 100 % for one second in ten (a log
// compressor), nothing lost: the window says cpu, the published verdict
// stays none. Before, a confident bound left none at once, and the return
// took three windows: 3 of every 10 published windows said cpu.
TEST(VerdictTracker, ABusySecondThatLosesNothingIsNotPublished) {
  VerdictTracker tr(kT);
  tr.Update(Raw(Bound::kNone, 0.9));
  for (int second = 0; second < 60; ++second) {
    bool spike = second % 10 == 0;
    Verdict raw = spike ? Raw(Bound::kCpu, 0.68, "cpu5", /*losing=*/false) : Raw(Bound::kNone, 0.9);
    EXPECT_EQ(tr.Update(raw).label, Bound::kNone) << "second " << second;
  }
  // Held three windows, the same bound is a bottleneck after all.
  tr.Update(Raw(Bound::kCpu, 0.68, "cpu5", false));
  tr.Update(Raw(Bound::kCpu, 0.68, "cpu5", false));
  EXPECT_EQ(tr.Update(Raw(Bound::kCpu, 0.68, "cpu5", false)).label, Bound::kCpu);
}

TEST(VerdictTracker, LeavesNoneAtOnceForAWaitThatLoses) {
  VerdictTracker tr(kT);
  tr.Update(Raw(Bound::kNone, 0.9));
  EXPECT_EQ(tr.Update(Raw(Bound::kWait, 0.9, "thread udpecho")).label, Bound::kWait);
}

TEST(VerdictTracker, TheThreadOnTheNamedCpuIsPublishedAtOnce) {
  // cpu1 first (the load began mid-window), then the echo thread that holds
  // cpu1: the same saturation named better, at once (lab.irqtime's CPU-bound
  // run tied 3 windows of cpu1 to 3 of the thread and said cpu1).
  VerdictTracker tr(kT);
  Verdict cpu1 = Raw(Bound::kCpu, 0.9, "cpu1");
  cpu1.resource_cpu = 1;
  Verdict thread = Raw(Bound::kCpu, 0.9, "thread udpecho");
  thread.resource_cpu = 1;
  EXPECT_EQ(tr.Update(cpu1).resource, "cpu1");
  EXPECT_EQ(tr.Update(thread).resource, "thread udpecho");
  // Back to the CPU is a change like any other: it holds three windows.
  EXPECT_EQ(tr.Update(cpu1).resource, "thread udpecho");
  EXPECT_EQ(tr.Update(cpu1).resource, "thread udpecho");
  EXPECT_EQ(tr.Update(cpu1).resource, "cpu1");
  // A thread on another CPU is another answer: it holds too.
  Verdict elsewhere = Raw(Bound::kCpu, 0.9, "thread udpgen");
  elsewhere.resource_cpu = 0;
  EXPECT_EQ(tr.Update(elsewhere).resource, "cpu1");
  EXPECT_EQ(tr.Update(elsewhere).resource, "cpu1");
  EXPECT_EQ(tr.Update(elsewhere).resource, "thread udpgen");
}

}  // namespace
}  // namespace bottleneckd::verdict_tracker_test
