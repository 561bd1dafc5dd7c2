// Tests of LatencyHistogram (collectors/traffic.h): nearest-rank percentiles
// of known sets within 1 %, the clamping to 1 us and 100 s, and Merge.
#include "collectors/traffic.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace bottleneckd {
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

}  // namespace
}  // namespace bottleneckd
