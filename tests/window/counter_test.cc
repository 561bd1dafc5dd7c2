// CounterDelta: increments, 32-bit wraps and resets.
#include "window/counter.h"

#include <gtest/gtest.h>

namespace bottleneckd::counter_test {
namespace {

TEST(CounterDelta, Increment) {
  std::vector<CounterIssue> issues;
  EXPECT_EQ(CounterDelta(10, 25, CounterWidth::k64, &issues, "t", "o", "c"), 15u);
  EXPECT_EQ(CounterDelta(7, 7, CounterWidth::k32, &issues, "t", "o", "c"), 0u);
  EXPECT_EQ(CounterDelta(0, UINT64_MAX, CounterWidth::k64, &issues, "t", "o", "c"), UINT64_MAX);
  EXPECT_TRUE(issues.empty());
}

TEST(CounterDelta, ThirtyTwoBitWrap) {
  std::vector<CounterIssue> issues;
  // 0xfffffff0 -> 0x10 is 0x20 increments across the wrap.
  auto d = CounterDelta(0xfffffff0u, 0x10u, CounterWidth::k32, &issues, "softnet", "cpu0", "dropped");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(*d, 0x20u);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, CounterAnomaly::kWrap);
  EXPECT_EQ(issues[0].source, "softnet");
  EXPECT_EQ(issues[0].key, "cpu0/dropped");
}

TEST(CounterDelta, ThirtyTwoBitDropFarFromTopIsAReset) {
  std::vector<CounterIssue> issues;
  // 1000 -> 5: a wrap would mean ~4.29e9 increments in one window; a reset.
  EXPECT_FALSE(CounterDelta(1000, 5, CounterWidth::k32, &issues, "interrupts", "24", "cpu0").has_value());
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, CounterAnomaly::kReset);
}

TEST(CounterDelta, SixtyFourBitBackwardsIsAReset) {
  std::vector<CounterIssue> issues;
  EXPECT_FALSE(CounterDelta(0xfffffff0u, 0x10u, CounterWidth::k64, &issues, "netdev", "eth0", "rx_packets"));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, CounterAnomaly::kReset);
  EXPECT_EQ(issues[0].key, "eth0/rx_packets");
}

TEST(CounterDelta, ThirtyTwoBitValueAboveRangeIsAReset) {
  // A "32-bit" counter above 2^32 cannot have wrapped at 2^32.
  EXPECT_FALSE(CounterDelta(uint64_t{1} << 33, 5, CounterWidth::k32, nullptr, "t", "o", "c").has_value());
}

TEST(CounterDelta, WrapBoundary) {
  // Wrapped delta exactly 2^31 - 1 is a wrap; 2^31 is a reset.
  EXPECT_EQ(CounterDelta(0x80000001u, 0, CounterWidth::k32, nullptr, "t", "o", "c"), 0x7fffffffu);
  EXPECT_FALSE(CounterDelta(0x80000000u, 0, CounterWidth::k32, nullptr, "t", "o", "c").has_value());
}

}  // namespace
}  // namespace bottleneckd::counter_test
