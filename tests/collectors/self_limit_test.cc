// The self-limit watchdog's policy with injected usage (no real time): no
// judgement before a whole window, entering, deepening at most once a
// window, the cap, hysteresis on the way back, memory, and refused samples.
#include "collectors/self_limit.h"

#include <gtest/gtest.h>

#include <vector>

namespace bottleneckd::self_limit_test {
namespace {

constexpr int64_t kSec = 1000000000;
constexpr uint64_t kMiB = 1 << 20;

// Drives a SelfLimit one second a tick; each tick spends `share` of one CPU.
class Driver {
 public:
  explicit Driver(const SelfLimitOptions& o) : limit_(o) {}
  // `ticks` ticks at `share` CPU and `rss`; returns every change, in order.
  std::vector<SelfLimitChange> Run(int ticks, double share, uint64_t rss = 10 * kMiB) {
    std::vector<SelfLimitChange> changes;
    for (int i = 0; i < ticks; ++i) {
      t_ += kSec;
      cpu_ += share;
      SelfLimitChange c = limit_.Observe({t_, cpu_, rss});
      if (c != SelfLimitChange::kNone) changes.push_back(c);
    }
    return changes;
  }
  const SelfLimitState& state() const { return limit_.state(); }
  SelfLimit& limit() { return limit_; }

 private:
  SelfLimit limit_;
  int64_t t_ = 100 * kSec;
  double cpu_ = 0;
};

SelfLimitOptions Budget() {
  SelfLimitOptions o;
  o.cpu_percent = 10;
  o.cpu_window_seconds = 10;
  o.memory_bytes = 100 * kMiB;
  return o;
}

using C = SelfLimitChange;

TEST(SelfLimit, NoCpuJudgementBeforeAWholeWindow) {
  Driver d(Budget());
  // 50 % of a CPU, five times the budget, for 9 s: the window is not whole yet
  // (the first reading starts it, nine seconds later it spans 9 s).
  EXPECT_TRUE(d.Run(10, 0.5).empty());
  EXPECT_FALSE(d.state().cpu_percent.has_value());
  EXPECT_EQ(d.state().backoff, 1);
  EXPECT_EQ(d.Run(1, 0.5), std::vector<C>{C::kEntered});
  ASSERT_TRUE(d.state().cpu_percent.has_value());
  EXPECT_NEAR(*d.state().cpu_percent, 50, 1e-9);
  EXPECT_TRUE(d.state().cpu_exceeded);
  EXPECT_FALSE(d.state().memory_exceeded);
  EXPECT_EQ(d.state().backoff, 2);
  EXPECT_EQ(ExceededResources(d.state()), "cpu");
}

TEST(SelfLimit, DeepensOncePerWindowUpToTheCap) {
  Driver d(Budget());
  d.Run(11, 0.5);
  ASSERT_EQ(d.state().backoff, 2);
  // Still over: the next step only once a window has passed since the last.
  EXPECT_TRUE(d.Run(9, 0.5).empty());
  EXPECT_EQ(d.Run(1, 0.5), std::vector<C>{C::kDeeper});
  EXPECT_EQ(d.state().backoff, 4);
  EXPECT_EQ(d.Run(30, 0.5), (std::vector<C>{C::kDeeper, C::kDeeper}));
  EXPECT_EQ(d.state().backoff, SelfLimit::kMaxBackoff);
  EXPECT_TRUE(d.Run(30, 0.5).empty()) << "capped";
}

TEST(SelfLimit, HysteresisThenStepwiseRecovery) {
  Driver d(Budget());
  d.Run(11, 0.5);
  d.Run(10, 0.5);
  ASSERT_EQ(d.state().backoff, 4);
  // 9 % of a CPU: under the budget but above 80 % of it: stays backed off.
  EXPECT_TRUE(d.Run(40, 0.09).empty());
  EXPECT_FALSE(d.state().cpu_exceeded);
  EXPECT_EQ(d.state().backoff, 4);
  // 5 %: under 80 % of the budget once the window holds only such ticks;
  // halves, a window later recovers.
  EXPECT_EQ(d.Run(30, 0.05), (std::vector<C>{C::kEased, C::kRecovered}));
  EXPECT_EQ(d.state().backoff, 1);
  EXPECT_EQ(ExceededResources(d.state()), "");
}

TEST(SelfLimit, MemoryNeedsNoWindow) {
  Driver d(Budget());
  EXPECT_EQ(d.Run(1, 0, 101 * kMiB), std::vector<C>{C::kEntered});
  EXPECT_TRUE(d.state().memory_exceeded);
  EXPECT_EQ(ExceededResources(d.state()), "memory");
  // 90 MiB: under the budget, not under 80 % of it.
  EXPECT_TRUE(d.Run(20, 0, 90 * kMiB).empty());
  EXPECT_EQ(d.state().backoff, 2);
  EXPECT_EQ(d.Run(20, 0, 70 * kMiB), std::vector<C>{C::kRecovered});
}

TEST(SelfLimit, BothResourcesAndNewBudgets) {
  Driver d(Budget());
  d.Run(11, 0.5, 200 * kMiB);
  EXPECT_EQ(ExceededResources(d.state()), "cpu,memory");
  SelfLimitOptions roomy = Budget();
  roomy.cpu_percent = 1000;
  roomy.memory_bytes = 1000 * kMiB;
  d.limit().SetOptions(roomy);
  EXPECT_EQ(d.Run(20, 0.5, 200 * kMiB), (std::vector<C>{C::kEased, C::kRecovered}))
      << "the factor stays, the budget changes";
}

TEST(SelfLimit, ReadingNotLaterThanTheLastIsIgnored) {
  SelfLimit l(Budget());
  EXPECT_EQ(l.Observe({10 * kSec, 1, 200 * kMiB}), C::kEntered);
  EXPECT_EQ(l.Observe({10 * kSec, 1, 1}), C::kNone);
  EXPECT_EQ(l.Observe({5 * kSec, 1, 1}), C::kNone);
  EXPECT_TRUE(l.state().memory_exceeded) << "the refused readings changed nothing";
}

// While the soaker runs the daemon forgets the CPU history each tick: CPU is
// judged again only a whole window after the last ForgetCpu.
TEST(SelfLimit, ForgottenCpuIsJudgedAgainAWindowLater) {
  Driver d(Budget());
  d.Run(11, 0.5);
  ASSERT_TRUE(d.state().cpu_exceeded);
  for (int i = 0; i < 5; ++i) {
    d.limit().ForgetCpu();
    d.Run(1, 1.0);  // a soaker's worth of CPU
    EXPECT_FALSE(d.state().cpu_percent.has_value());
    EXPECT_FALSE(d.state().cpu_exceeded);
  }
  d.limit().ForgetCpu();
  EXPECT_TRUE(d.Run(10, 0.5).size() <= 1) << "at most a step back while CPU is unknown";
  EXPECT_FALSE(d.state().cpu_percent.has_value()) << "the window since the last forget is not whole yet";
  d.Run(1, 0.5);
  ASSERT_TRUE(d.state().cpu_percent.has_value());
  EXPECT_NEAR(*d.state().cpu_percent, 50, 1e-9);
}

}  // namespace
}  // namespace bottleneckd::self_limit_test
