// FamilyBuilder into both outputs (exporters/prometheus/family_builder.h):
// families in the order their builders were created even when their samples
// interleave, empty families dropped, whole families added between, and the
// text equal to the model serialized. The expected text is written from the
// exposition format 0.0.4 by hand.
#include "exporters/prometheus/family_builder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exporters/prometheus/text_format.h"

namespace bottleneckd::family_builder_test {
namespace {

using prometheus::MetricType;

prometheus::MetricFamily Histogram() {
  prometheus::MetricFamily f;
  f.name = "h_seconds";
  f.help = "H.";
  f.type = MetricType::Histogram;
  prometheus::ClientMetric m;
  prometheus::ClientMetric::Bucket b;
  b.upper_bound = 1;
  b.cumulative_count = 2;
  m.histogram.bucket.push_back(b);
  m.histogram.sample_count = 3;
  m.histogram.sample_sum = 4.5;
  f.metric.push_back(m);
  return f;
}

// Three families filled in one loop, one empty, one nested after the loop's
// inner builder closed, a histogram added while they are open, then one more
// at the top level.
void Build(MetricsOut* out) {
  {
    FamilyBuilder a(out, MetricName("a_total"), "A, with a \\ and\na newline.", MetricType::Counter);
    {
      FamilyBuilder b(out, MetricName("b"), "B.", MetricType::Gauge);
      FamilyBuilder empty(out, MetricName("empty"), "Never filled.", MetricType::Gauge);
      for (int i = 0; i < 2; ++i) {
        const std::string n = std::to_string(i);
        a.Add(i, {{"cpu", n}});
        b.Add(0.5 + i, {{"cpu", n}, {"name", "x\"y"}});
      }
    }
    a.Add(7);
    out->AddFamily(Histogram());
    FamilyBuilder c(out, MetricName("c"), "", MetricType::Untyped);
    c.Add(-1, std::vector<prometheus::ClientMetric::Label>{{"k", "v"}});
    a.Add(8, {{"cpu", "9"}});
  }
  FamilyBuilder d(out, MetricName("d"), "D.", MetricType::Gauge);
  d.Add(1);
}

TEST(FamilyBuilder, TextKeepsFamiliesApartInCreationOrder) {
  std::string text = "# before\n";
  MetricsOut out(&text);
  Build(&out);
  EXPECT_EQ(text,
            "# before\n"
            "# HELP a_total A, with a \\\\ and\\na newline.\n"
            "# TYPE a_total counter\n"
            "a_total{cpu=\"0\"} 0\n"
            "a_total{cpu=\"1\"} 1\n"
            "a_total 7\n"
            "a_total{cpu=\"9\"} 8\n"
            "# HELP b B.\n"
            "# TYPE b gauge\n"
            "b{cpu=\"0\",name=\"x\\\"y\"} 0.5\n"
            "b{cpu=\"1\",name=\"x\\\"y\"} 1.5\n"
            "# HELP h_seconds H.\n"
            "# TYPE h_seconds histogram\n"
            "h_seconds_bucket{le=\"1\"} 2\n"
            "h_seconds_bucket{le=\"+Inf\"} 3\n"
            "h_seconds_sum 4.5\n"
            "h_seconds_count 3\n"
            "# TYPE c untyped\n"
            "c{k=\"v\"} -1\n"
            "# HELP d D.\n"
            "# TYPE d gauge\n"
            "d 1\n");
}

TEST(FamilyBuilder, ModelHasTheSameFamiliesAndSerializesToTheSameText) {
  std::vector<prometheus::MetricFamily> families;
  MetricsOut model(&families);
  Build(&model);
  ASSERT_EQ(families.size(), 5u);
  EXPECT_EQ(families[0].name, "a_total");
  EXPECT_EQ(families[0].metric.size(), 4u);
  EXPECT_EQ(families[2].name, "h_seconds");
  EXPECT_EQ(families[4].name, "d");

  std::string from_model, direct;
  AppendTextFormat(families, &from_model);
  MetricsOut text(&direct);
  Build(&text);
  EXPECT_EQ(direct, from_model);
}

TEST(FamilyBuilder, AnOutputIsReusedAfterEveryBuilderClosed) {
  std::string text;
  MetricsOut out(&text);
  for (int round = 0; round < 3; ++round) {
    FamilyBuilder outer(&out, MetricName("o"), "O.", MetricType::Gauge);
    FamilyBuilder inner(&out, MetricName("i"), "I.", MetricType::Gauge);
    inner.Add(round);
    outer.Add(round);
  }
  EXPECT_EQ(text,
            "# HELP o O.\n# TYPE o gauge\no 0\n# HELP i I.\n# TYPE i gauge\ni 0\n"
            "# HELP o O.\n# TYPE o gauge\no 1\n# HELP i I.\n# TYPE i gauge\ni 1\n"
            "# HELP o O.\n# TYPE o gauge\no 2\n# HELP i I.\n# TYPE i gauge\ni 2\n");
}

}  // namespace
}  // namespace bottleneckd::family_builder_test
