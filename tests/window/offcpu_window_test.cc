// ComputeThreadWaits: a thread's measured waits between two OffCpuReadings,
// as shares of the window (window/offcpu_window.h), from readings built here.
#include "window/offcpu_window.h"

#include <gtest/gtest.h>

#include "tests/window/offcpu_readings.h"

namespace bottleneckd::offcpu_window_test {
namespace {

OffCpuReading Reading(int64_t mono_ns, std::vector<OffCpuSite> sites, std::vector<int> tids = {7}) {
  return testing::OffCpuReadingOf(mono_ns, std::move(sites), std::move(tids));
}

TEST(ComputeThreadWaits, SharesOfTheWindowLargestFirst) {
  // One second: 0.6 s more in nanosleep over 300 periods, 0.3 s more in
  // recvfrom, 0.05 s preempted, and a site new in this window.
  OffCpuReading a = Reading(1'000'000'000, {{7, "hrtimer_nanosleep (clock_nanosleep)", false, 100'000'000, 50},
                                            {7, "__skb_wait_for_more_packets (recvfrom)", false, 10'000'000, 5},
                                            {7, "irqentry_exit", true, 0, 0}});
  OffCpuReading b = Reading(2'000'000'000, {{7, "hrtimer_nanosleep (clock_nanosleep)", false, 700'000'000, 350},
                                            {7, "__skb_wait_for_more_packets (recvfrom)", false, 310'000'000, 25},
                                            {7, "irqentry_exit", true, 50'000'000, 40},
                                            {7, "futex_wait_queue (futex)", false, 20'000'000, 2},
                                            {8, "other thread", false, 900'000'000, 1}});
  auto w = ComputeThreadWaits(a, b, 7);
  ASSERT_TRUE(w.has_value());
  ASSERT_EQ(w->size(), 4u);
  EXPECT_EQ((*w)[0].where, "hrtimer_nanosleep (clock_nanosleep)");
  EXPECT_DOUBLE_EQ((*w)[0].ratio, 0.6);
  EXPECT_DOUBLE_EQ((*w)[0].periods_per_second, 300);
  EXPECT_EQ((*w)[1].where, "__skb_wait_for_more_packets (recvfrom)");
  EXPECT_DOUBLE_EQ((*w)[1].ratio, 0.3);
  EXPECT_TRUE((*w)[2].involuntary);
  EXPECT_DOUBLE_EQ((*w)[2].ratio, 0.05);
  EXPECT_EQ((*w)[3].where, "futex_wait_queue (futex)");  // new in the window: from 0
  EXPECT_DOUBLE_EQ((*w)[3].ratio, 0.02);
}

TEST(ComputeThreadWaits, ClampsAndDropsNoise) {
  // Maps and clock read microseconds apart: a site a hair over the window is
  // the window; one under 0.1 % of it is left out.
  OffCpuReading a = Reading(0, {});
  OffCpuReading b = Reading(1'000'000, {{7, "a", false, 1'000'500, 1}, {7, "b", false, 900, 1}});
  auto w = ComputeThreadWaits(a, b, 7);
  ASSERT_TRUE(w.has_value());
  ASSERT_EQ(w->size(), 1u);
  EXPECT_DOUBLE_EQ((*w)[0].ratio, 1.0);
}

TEST(ComputeThreadWaits, UnmeasuredWindows) {
  OffCpuReading a = Reading(1'000'000'000, {{7, "x", false, 500, 1}});
  OffCpuReading b = Reading(2'000'000'000, {{7, "x", false, 900, 2}});
  EXPECT_TRUE(ComputeThreadWaits(a, b, 7).has_value());
  // Not followed by one of the readings.
  EXPECT_FALSE(ComputeThreadWaits(Reading(1'000'000'000, {}, {}), b, 7).has_value());
  EXPECT_FALSE(ComputeThreadWaits(a, Reading(2'000'000'000, {}, {8}), 7).has_value());
  EXPECT_FALSE(ComputeThreadWaits(a, b, 9).has_value());
  // Another program load.
  OffCpuReading other = b;
  other.generation = 4;
  EXPECT_FALSE(ComputeThreadWaits(a, other, 7).has_value());
  // A total that went down, time that did not move forward.
  EXPECT_FALSE(ComputeThreadWaits(b, Reading(3'000'000'000, {{7, "x", false, 100, 3}}), 7).has_value());
  EXPECT_FALSE(ComputeThreadWaits(b, a, 7).has_value());
  // Followed, no waits: measured, empty.
  auto none = ComputeThreadWaits(Reading(1, {}), Reading(2, {}), 7);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
}

TEST(ComputeThreadWaits, SampledStacksStandForAllPeriods) {
  // A thread switching 8000 times in a second with a quarter of its stacks
  // walked: 2000 periods walked (0.3 s in nanosleep, 0.1 s in recvfrom), 6000
  // not (1.2 s... of periods whose sites are unknown: 0.5 s here). All its
  // off-CPU time, 0.9 s, is split as the walked periods split it.
  OffCpuReading a = Reading(0, {});
  OffCpuSite unsampled{7, "", false, 500'000'000, 6000, false};
  OffCpuReading b = Reading(1'000'000'000, {{7, "hrtimer_nanosleep (clock_nanosleep)", false, 300'000'000, 1500},
                                            {7, "__skb_wait_for_more_packets (recvfrom)", false, 100'000'000, 500},
                                            unsampled});
  auto w = ComputeThreadWaits(a, b, 7);
  ASSERT_TRUE(w.has_value());
  ASSERT_EQ(w->size(), 2u);
  EXPECT_EQ((*w)[0].where, "hrtimer_nanosleep (clock_nanosleep)");
  EXPECT_DOUBLE_EQ((*w)[0].ratio, 0.9 * 0.75);
  EXPECT_DOUBLE_EQ((*w)[1].ratio, 0.9 * 0.25);
  EXPECT_DOUBLE_EQ((*w)[0].periods_per_second + (*w)[1].periods_per_second, 8000);
  // No period walked in the window: its time, under no place.
  OffCpuReading c = Reading(2'000'000'000, b.sites);
  c.sites[2].ns += 400'000'000;
  c.sites[2].count += 3000;
  auto none = ComputeThreadWaits(b, c, 7);
  ASSERT_TRUE(none.has_value());
  ASSERT_EQ(none->size(), 1u);
  EXPECT_EQ((*none)[0].where, "");
  EXPECT_DOUBLE_EQ((*none)[0].ratio, 0.4);
}

TEST(ComputeThreadWaits, WakersSplitASitesTime) {
  // A futex site woken 0.3 s by thread 9 (named in the reading) and 0.1 s by
  // an interrupt (a timer) in the window; a period under way at the
  // first reading (0.05 s, no waker yet) ended by thread 9: the site's sum
  // moved on, the no-waker part went down and counts for nobody.
  OffCpuReading a = Reading(1'000'000'000, {{7, "futex_do_wait (futex)", false, 50'000'000, 0, true, kWakerNotYet},
                                            {7, "futex_do_wait (futex)", false, 100'000'000, 10, true, 9}});
  OffCpuReading b = Reading(2'000'000'000, {{7, "futex_do_wait (futex)", false, 450'000'000, 50, true, 9},
                                            {7, "futex_do_wait (futex)", false, 100'000'000, 20, true, 0}});
  b.wakers = {{9, 8, "udpwork"}};
  auto w = ComputeThreadWaits(a, b, 7);
  ASSERT_TRUE(w.has_value());
  ASSERT_EQ(w->size(), 1u);
  EXPECT_DOUBLE_EQ((*w)[0].ratio, 0.4);  // 0.55 s - 0.15 s
  ASSERT_EQ((*w)[0].wakers.size(), 2u);
  EXPECT_EQ((*w)[0].wakers[0].tid, 9);
  EXPECT_EQ((*w)[0].wakers[0].pid, 8);
  EXPECT_EQ((*w)[0].wakers[0].name, "udpwork");
  EXPECT_DOUBLE_EQ((*w)[0].wakers[0].ratio, 0.35 / 0.45);  // thread 9's total grew 0.35 s, the interrupt's 0.1 s
  EXPECT_EQ((*w)[0].wakers[1].tid, kWokenByInterrupt);
  EXPECT_EQ((*w)[0].wakers[1].name, "");
  EXPECT_DOUBLE_EQ((*w)[0].wakers[1].ratio, 0.1 / 0.45);
  // The site's sum going down is another load: unmeasured, as before wakers.
  OffCpuReading c = Reading(3'000'000'000, {{7, "futex_do_wait (futex)", false, 500'000'000, 60, true, 9}});
  EXPECT_FALSE(ComputeThreadWaits(b, c, 7).has_value());
}

// A waiter still asleep at the second reading (0.2 s of it, its waker not
// known yet) is no one's share: the thread that woke every ended wait has
// them all. Periods that ended with no wakeup seen (preempted in a sleeping
// state, a wakeup the program missed) are a share of their own.
TEST(ComputeThreadWaits, APeriodUnderWayIsNoWakersShare) {
  OffCpuReading a = Reading(1'000'000'000, {{7, "futex_do_wait (futex)", false, 100'000'000, 10, true, 9}});
  OffCpuReading b = Reading(2'000'000'000, {{7, "futex_do_wait (futex)", false, 700'000'000, 70, true, 9},
                                            {7, "futex_do_wait (futex)", false, 200'000'000, 0, true, kWakerNotYet}});
  b.wakers = {{9, 8, "udpwork"}};
  auto w = ComputeThreadWaits(a, b, 7);
  ASSERT_TRUE(w.has_value());
  ASSERT_EQ(w->size(), 1u);
  EXPECT_DOUBLE_EQ((*w)[0].ratio, 0.8);  // the time under way is the site's
  ASSERT_EQ((*w)[0].wakers.size(), 1u);
  EXPECT_EQ((*w)[0].wakers[0].tid, 9);
  EXPECT_DOUBLE_EQ((*w)[0].wakers[0].ratio, 1.0);
  OffCpuReading c = Reading(3'000'000'000, {{7, "futex_do_wait (futex)", false, 1'300'000'000, 130, true, 9},
                                            {7, "futex_do_wait (futex)", false, 200'000'000, 10, true, kNoWaker}});
  c.wakers = b.wakers;
  w = ComputeThreadWaits(b, c, 7);
  ASSERT_TRUE(w.has_value());
  ASSERT_EQ((*w)[0].wakers.size(), 2u);
  EXPECT_DOUBLE_EQ((*w)[0].wakers[0].ratio, 0.6 / 0.8);
  EXPECT_EQ((*w)[0].wakers[1].tid, kNoWaker);
  EXPECT_DOUBLE_EQ((*w)[0].wakers[1].ratio, 0.2 / 0.8);
}

}  // namespace
}  // namespace bottleneckd::offcpu_window_test
