// Tests of LatencyHistogram (traffic/traffic.h): nearest-rank percentiles
// of known sets within 1 %, the clamping to 1 us and 100 s, Merge, and
// each value's bucket against the logarithm that defines it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "traffic/traffic.h"

namespace bottleneckd::traffic_latency_test {
namespace {

TEST(LatencyHistogramTest, EmptyAndKnownSets) {
  LatencyHistogram h;
  EXPECT_EQ(h.Percentile(50), 0.0);
  for (int ms = 1; ms <= 100; ++ms) h.Add(ms * 1e-3);
  EXPECT_EQ(h.count(), 100u);
  // Nearest rank of 1..100 ms: p% is p ms (p0 is the minimum).
  for (double p : {0.0, 1.0, 10.0, 50.0, 90.0, 99.0, 100.0}) {
    double want = std::max(1.0, p) * 1e-3;
    EXPECT_NEAR(h.Percentile(p), want, want * 0.01) << p;
  }
  EXPECT_NEAR(h.Percentile(50.5), 51e-3, 51e-5);  // rank ceil(50.5) = 51
  EXPECT_DOUBLE_EQ(h.Max(), 0.1);
  EXPECT_DOUBLE_EQ(h.Min(), 0.001);
}

TEST(LatencyHistogramTest, OnePercentAcrossTheRange) {
  // {v/2, v, 2v}: the median is v, away from the clamping to min and max.
  for (double v = 2e-6; v <= 50; v *= 1.037) {
    LatencyHistogram h;
    for (double x : {v / 2, v, 2 * v}) h.Add(x);
    EXPECT_NEAR(h.Percentile(50), v, v * 0.01) << v;
  }
}

TEST(LatencyHistogramTest, ValuesOutsideClampToTheEnds) {
  LatencyHistogram h;
  h.Add(1e-9);
  h.Add(1e-3);
  h.Add(1e3);
  EXPECT_NEAR(h.Percentile(0), 1e-6, 1e-8);  // reported as the 1 us end
  EXPECT_NEAR(h.Percentile(100), 100, 1);    // reported as the 100 s end
  EXPECT_EQ(h.Max(), 1e3);                   // the maximum itself is exact
  LatencyHistogram z;
  z.Add(0);
  z.Add(-1);  // non-positive counts as 0
  EXPECT_EQ(z.count(), 2u);
  EXPECT_EQ(z.Percentile(50), 0.0);
}

TEST(LatencyHistogramTest, MergeEqualsOneHistogramOfEverything) {
  LatencyHistogram low, high, empty;
  for (int ms = 1; ms <= 50; ++ms) low.Add(ms * 1e-3);
  for (int ms = 51; ms <= 100; ++ms) high.Add(ms * 1e-3);
  empty.Merge(low);
  empty.Merge(high);
  low.Merge(high);
  low.Merge(LatencyHistogram{});
  for (LatencyHistogram* h : {&low, &empty}) {
    EXPECT_EQ(h->count(), 100u);
    EXPECT_DOUBLE_EQ(h->Min(), 0.001);
    EXPECT_DOUBLE_EQ(h->Max(), 0.1);
    EXPECT_NEAR(h->Percentile(25), 25e-3, 25e-5);
    EXPECT_NEAR(h->Percentile(75), 75e-3, 75e-5);
  }
}

// A cumulative histogram's window: the values added between two copies.
TEST(LatencyHistogramSince, GivesOnlyTheValuesAddedAfterTheEarlierCopy) {
  LatencyHistogram h;
  for (int i = 0; i < 100; ++i) h.Add(10e-6);  // 100 values of 10 us
  LatencyHistogram earlier = h;
  for (int i = 0; i < 10; ++i) h.Add(1e-3);  // then 10 of 1 ms
  LatencyHistogram d = h.Since(earlier);
  EXPECT_EQ(d.count(), 10u);
  // Every value of the window is 1 ms: its median is 1 ms within the 1 % error.
  EXPECT_NEAR(d.Percentile(50), 1e-3, 1e-5);
  EXPECT_NEAR(d.Sum(), 10 * 1e-3, 1e-9);
  // The window's max stays within the histogram's own max (1 ms).
  EXPECT_LE(d.Max(), 1e-3);
}

TEST(LatencyHistogramSince, EmptyWindowAndResetHistogram) {
  LatencyHistogram h;
  h.Add(5e-6);
  EXPECT_EQ(h.Since(h).count(), 0u);                   // nothing added since itself
  EXPECT_EQ(h.Since(LatencyHistogram()).count(), 1u);  // since nothing: all of it
  LatencyHistogram bigger = h;
  bigger.Add(5e-6);
  // `bigger` is not an older copy of h (it has more): h is returned whole.
  EXPECT_EQ(h.Since(bigger).count(), 1u);
}

TEST(LatencyHistogramCount, CountsValuesAtOrBelowABound) {
  LatencyHistogram h;
  h.Add(10e-6);
  h.Add(100e-6);
  h.Add(100e-6);
  h.Add(5e-3);
  EXPECT_EQ(h.CountAtOrBelow(1e-6), 0u);
  EXPECT_EQ(h.CountAtOrBelow(50e-6), 1u);  // 10 us
  EXPECT_EQ(h.CountAtOrBelow(1e-3), 3u);   // and the two 100 us
  EXPECT_EQ(h.CountAtOrBelow(10e-3), 4u);  // everything (at or above the max)
  EXPECT_EQ(LatencyHistogram().CountAtOrBelow(1), 0u);
}

// The bucket of a value (found from its bits, no logarithm) is the one the
// definition gives, floor(ln(x / 1 us) / ln(1.02)), over the whole range:
// each value is added beside 1000 s (so it is not the maximum) and its
// bucket read back through CountAtOrBelow at the bucket edges.
TEST(LatencyHistogramCount, BucketsAreTheDefinitionsOverTheRange) {
  int checked = 0;
  for (double x = 1.0001e-6; x < 99; x *= 1.00731) {
    const double exact = std::log(x / 1e-6) / std::log(1.02);
    const double whole = std::floor(exact);
    if (exact - whole < 1e-9 || whole + 1 - exact < 1e-9) continue;  // on an edge: rounding decides
    const auto want = static_cast<int>(whole);
    LatencyHistogram h;
    h.Add(x);
    h.Add(1000);
    // Bucket b's upper edge is 1e-6 * 1.02^(b + 1); x is counted at the
    // upper edge of its own bucket, not at the one below.
    auto edge = [](int b) { return 1e-6 * std::pow(1.02, b + 1) * (1 + 1e-12); };
    EXPECT_EQ(h.CountAtOrBelow(edge(want)), 1u) << x;
    if (want > 0) {
      EXPECT_EQ(h.CountAtOrBelow(edge(want - 1)), 0u) << x;
    }
    ++checked;
  }
  EXPECT_GT(checked, 2500);
}

}  // namespace
}  // namespace bottleneckd::traffic_latency_test
