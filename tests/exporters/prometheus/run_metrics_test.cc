// bottleneckd_run_active: one series per active run, names cut to 64 bytes
// on a character boundary, none when no run is active.
#include <gtest/gtest.h>

#include "exporters/prometheus/metrics.h"
#include "tests/support/metric_families.h"

namespace bottleneckd::run_metrics_test {
namespace {

using ::bottleneckd::testing::Find;
using ::bottleneckd::testing::Label;

std::vector<std::string> Runs(const Snapshot& s) {
  auto fams = BuildMetricFamilies(&s, GetBuildInfo());
  const prometheus::MetricFamily* f = Find(fams, "bottleneckd_run_active");
  std::vector<std::string> out;
  if (f == nullptr) return out;
  EXPECT_EQ(f->type, prometheus::MetricType::Gauge);
  for (const auto& m : f->metric) {
    EXPECT_EQ(m.gauge.value, 1);
    out.push_back(Label(m, "run"));
  }
  return out;
}

TEST(RunMetrics, OneSeriesPerActiveRun) {
  Snapshot s;
  EXPECT_TRUE(Runs(s).empty());
  s.active_runs = {"echo 550M", "sweep"};
  EXPECT_EQ(Runs(s), (std::vector<std::string>{"echo 550M", "sweep"}));
}

TEST(RunMetrics, LongNamesAreCutAndTwoAlikeAreOneSeries) {
  Snapshot s;
  // 63 ASCII bytes then a 2-byte character: the cut may not split it.
  const std::string stem(63, 'a');
  s.active_runs = {stem + "\xc3\xa9" + "-one", stem + "\xc3\xa9" + "-two"};
  EXPECT_EQ(Runs(s), (std::vector<std::string>{stem}));
}

}  // namespace
}  // namespace bottleneckd::run_metrics_test
