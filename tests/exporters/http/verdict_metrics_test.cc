// While a verdict change waits out the hysteresis, the published verdict is
// the old one and the window's own classification is the new one:
// bottleneckd_verdict_score_ratio (documented as the scores before
// hysteresis) and the landing page must show the window's, not the old
// verdict's.
#include <gtest/gtest.h>

#include "analysis/snapshot.h"
#include "exporters/http/landing_page.h"
#include "exporters/prometheus/metrics.h"
#include "tests/support/metric_families.h"

namespace bottleneckd::verdict_metrics_test {
namespace {

Snapshot PendingChange() {
  Snapshot s;
  Verdict published;
  published.label = Bound::kNone;
  published.confidence = 0.8;
  published.scores[static_cast<int>(Bound::kNone)] = 0.8;
  published.evidence = {"no rung loses packets"};
  Verdict window;
  window.label = Bound::kCpu;
  window.resource = "cpu1";
  window.confidence = 0.9;
  window.scores[static_cast<int>(Bound::kCpu)] = 1.0;
  window.scores[static_cast<int>(Bound::kNone)] = 0.1;
  window.evidence = {"cpu1: 0.2 % delivered idle (soaker)"};
  s.verdict = published;
  s.window_verdict = window;
  return s;
}

double Score(const std::vector<prometheus::MetricFamily>& fams, Bound b) {
  const prometheus::MetricFamily* f = testing::Find(fams, "bottleneckd_verdict_score_ratio");
  EXPECT_NE(f, nullptr);
  if (f == nullptr) return -1;
  for (const auto& m : f->metric)
    if (testing::Label(m, "bound") == BoundName(b)) return m.gauge.value;
  return -1;
}

TEST(VerdictMetrics, ScoresAreTheWindowsWhileAChangeIsPending) {
  Snapshot s = PendingChange();
  auto fams = BuildMetricFamilies(&s, BuildInfo{});
  EXPECT_EQ(Score(fams, Bound::kCpu), 1.0);  // the window's: a CPU at 100 %
  EXPECT_EQ(Score(fams, Bound::kNone), 0.1);
  // The published label stays the old one until the hysteresis lets go.
  const prometheus::MetricFamily* info = testing::Find(fams, "bottleneckd_verdict_info");
  ASSERT_NE(info, nullptr);
  ASSERT_EQ(info->metric.size(), 1u);
  EXPECT_EQ(testing::Label(info->metric[0], "bound"), "none");
}

TEST(VerdictMetrics, WithoutAWindowVerdictTheScoresAreThePublishedOnes) {
  Snapshot s = PendingChange();
  s.window_verdict.reset();
  auto fams = BuildMetricFamilies(&s, BuildInfo{});
  EXPECT_EQ(Score(fams, Bound::kNone), 0.8);
  EXPECT_EQ(Score(fams, Bound::kCpu), 0.0);
}

TEST(LandingPage, ShowsWhatThePendingWindowSays) {
  Snapshot s = PendingChange();
  std::string page = RenderLandingPage(&s, BuildInfo{});
  EXPECT_NE(page.find("<b>none</b>"), std::string::npos) << page;
  EXPECT_NE(page.find("The last window alone says <b>cpu</b> cpu1 (confidence 0.90)"), std::string::npos) << page;
  EXPECT_NE(page.find("<li>cpu1: 0.2 % delivered idle (soaker)</li>"), std::string::npos) << page;
  // When the window agrees with the verdict there is nothing pending to show.
  s.window_verdict = s.verdict;
  page = RenderLandingPage(&s, BuildInfo{});
  EXPECT_EQ(page.find("The last window alone"), std::string::npos) << page;
}

}  // namespace
}  // namespace bottleneckd::verdict_metrics_test
