// The live capture's metric families (exporters/prometheus/metrics_capture.cc) from a
// hand-built snapshot: counters, the size and turnaround histograms
// (cumulative buckets), drops totals, the window gauges, low cardinality, and
// `promtool check metrics` on the text.
#include <gtest/gtest.h>

#include <set>

#include "exporters/prometheus/metrics.h"
#include "exporters/prometheus/text_format.h"
#include "tests/support/metric_families.h"
#include "tests/support/test_util.h"

namespace bottleneckd::capture_metrics_test {
namespace {

using testing::Find;
using testing::Label;

Snapshot MakeSnapshot() {
  Snapshot s;
  CaptureReading r;
  r.interface = "veth0";
  r.active = true;
  r.stats_ok = true;
  r.direction_known = true;
  r.opened_mono_ns = 5;
  r.packets = 30;
  r.bytes = 30 * 142;
  r.receive_packets = 14;
  r.transmit_packets = 16;
  r.requests = 16;
  r.replies = 14;
  r.paired = 14;
  r.lost = 2;
  r.truncated = 1;
  r.sizes[0] = 5;                                        // <= 64
  r.sizes[2] = 25;                                       // 129..256
  for (int i = 0; i < 10; ++i) r.turnaround.Add(15e-6);  // in (10 us, 20 us]
  for (int i = 0; i < 4; ++i) r.turnaround.Add(300e-6);  // in (200 us, 500 us]
  r.top_flows.push_back(FlowStats{});                    // flows never become labels
  CaptureReading down;
  down.interface = "eth7";
  down.error = "capture on eth7 needs CAP_NET_RAW";
  s.sample.capture = std::vector<CaptureReading>{r, down};
  s.capture_drops_total[{"veth0", "buffer"}] = 3;
  Window w;
  CaptureWindow cw;
  cw.interface = "veth0";
  cw.trusted = false;
  cw.turnaround_p50_seconds = 15e-6;
  cw.turnaround_p90_seconds = 300e-6;
  cw.turnaround_p99_seconds = 300e-6;
  w.captures.push_back(cw);
  s.window = w;
  return s;
}

TEST(CaptureMetrics, CountersAndUp) {
  Snapshot s = MakeSnapshot();
  auto fams = BuildMetricFamilies(&s, BuildInfo{"t", "t"});
  const auto* up = Find(fams, "bottleneckd_capture_up");
  ASSERT_NE(up, nullptr);
  ASSERT_EQ(up->metric.size(), 2u);
  EXPECT_EQ(up->metric[0].gauge.value, 1);
  EXPECT_EQ(Label(up->metric[1], "interface"), "eth7");
  EXPECT_EQ(up->metric[1].gauge.value, 0);
  // A capture never opened has no counters.
  const auto* packets = Find(fams, "bottleneckd_capture_packets_total");
  ASSERT_NE(packets, nullptr);
  ASSERT_EQ(packets->metric.size(), 1u);
  EXPECT_EQ(packets->metric[0].counter.value, 30);
  const auto* lost = Find(fams, "bottleneckd_capture_echo_lost_total");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->metric[0].counter.value, 2);
  const auto* drops = Find(fams, "bottleneckd_capture_drops_total");
  ASSERT_NE(drops, nullptr);
  ASSERT_EQ(drops->metric.size(), 2u);
  for (const auto& m : drops->metric) EXPECT_EQ(m.counter.value, Label(m, "source") == "buffer" ? 3 : 0);
  const auto* dir = Find(fams, "bottleneckd_capture_direction_packets_total");
  ASSERT_NE(dir, nullptr);
  for (const auto& m : dir->metric) EXPECT_EQ(m.counter.value, Label(m, "direction") == "receive" ? 14 : 16);
}

TEST(CaptureMetrics, HistogramsAreCumulative) {
  Snapshot s = MakeSnapshot();
  auto fams = BuildMetricFamilies(&s, BuildInfo{"t", "t"});
  const auto* sizes = Find(fams, "bottleneckd_capture_packet_size_bytes");
  ASSERT_NE(sizes, nullptr);
  ASSERT_EQ(sizes->metric.size(), 1u);
  const auto& h = sizes->metric[0].histogram;
  ASSERT_EQ(h.bucket.size(), kSizeBuckets);
  EXPECT_EQ(h.bucket[0].upper_bound, 64);
  EXPECT_EQ(h.bucket[0].cumulative_count, 5u);
  EXPECT_EQ(h.bucket[1].cumulative_count, 5u);   // <= 128: nothing more
  EXPECT_EQ(h.bucket[2].cumulative_count, 30u);  // <= 256: all
  EXPECT_EQ(h.sample_count, 30u);
  EXPECT_EQ(h.sample_sum, 30 * 142);

  const auto* t = Find(fams, "bottleneckd_capture_turnaround_seconds");
  ASSERT_NE(t, nullptr);
  const auto& th = t->metric[0].histogram;
  auto at = [&](double bound) -> uint64_t {
    for (const auto& b : th.bucket)
      if (b.upper_bound == bound) return b.cumulative_count;
    ADD_FAILURE() << "no bucket " << bound;
    return 0;
  };
  EXPECT_EQ(at(10e-6), 0u);
  EXPECT_EQ(at(20e-6), 10u);
  EXPECT_EQ(at(200e-6), 10u);
  EXPECT_EQ(at(500e-6), 14u);
  EXPECT_EQ(th.bucket.back().cumulative_count, 14u);  // +Inf
  EXPECT_EQ(th.sample_count, 14u);
  EXPECT_NEAR(th.sample_sum, 10 * 15e-6 + 4 * 300e-6, 1e-12);
}

TEST(CaptureMetrics, WindowGaugesLowCardinalityAndPromtool) {
  Snapshot s = MakeSnapshot();
  auto fams = BuildMetricFamilies(&s, BuildInfo{"t", "t"});
  const auto* trusted = Find(fams, "bottleneckd_capture_trusted");
  ASSERT_NE(trusted, nullptr);
  EXPECT_EQ(trusted->metric[0].gauge.value, 0);
  const auto* q = Find(fams, "bottleneckd_capture_window_turnaround_seconds");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->metric.size(), 3u);
  // Only interface and a small fixed set of values label capture series.
  const std::set<std::string> allowed = {"interface", "direction", "source", "reason", "percentile"};
  for (const auto& f : fams) {
    if (f.name.rfind("bottleneckd_capture_", 0) != 0) continue;
    for (const auto& m : f.metric)
      for (const auto& l : m.label) EXPECT_TRUE(allowed.count(l.name)) << f.name << " has label " << l.name;
  }
  std::string text, out;
  AppendTextFormat(fams, &text);
  EXPECT_EQ(testing::RunPromtoolCheckMetrics(text, &out), 0) << out << text;
}

// The capture's families are built in one loop over eleven builders at once,
// the histograms whole: the text /metrics serves is the model serialized.
TEST(CaptureMetrics, TextWrittenDirectlyIsTheModelSerialized) {
  Snapshot s = MakeSnapshot();
  std::string from_model, direct;
  AppendTextFormat(BuildMetricFamilies(&s, BuildInfo{"t", "t"}), &from_model);
  AppendMetricsText(&s, BuildInfo{"t", "t"}, &direct);
  ASSERT_NE(from_model.find("bottleneckd_capture_turnaround_seconds_bucket"), std::string::npos);
  EXPECT_EQ(direct, from_model);
}

}  // namespace
}  // namespace bottleneckd::capture_metrics_test
