// AnalyzeFleet over hand-built range answers whose truth is known: a
// generator bound by cpu0 from step 10 on, a box bound by its interrupts for
// ten steps from step 30, a bystander never bound, on a 60-step grid.
// Every expected number is counted by hand from those steps.
#include <gtest/gtest.h>

#include <cmath>

#include "fleet/fleet_report.h"

namespace bottleneckd::fleet_analysis_test {
namespace {

constexpr double kStart = 1'800'000'000;

PromSeries Series(std::map<std::string, std::string> labels, size_t from, size_t to, double value = 1) {
  PromSeries s;
  s.labels = std::move(labels);
  for (size_t i = from; i < to; ++i) s.points.emplace_back(kStart + static_cast<double>(i), value);
  return s;
}

std::map<std::string, std::string> Info(const char* instance, const char* bound, const char* resource) {
  return {{"instance", instance}, {"job", "bottleneckd"}, {"bound", bound}, {"resource", resource}};
}

// A host holding `bound` (naming `resource`) for steps [from, to): its
// bottleneckd_verdict{bound} == 1 series and its verdict_info series.
void Held(FleetData* d, const char* instance, const char* bound, const char* resource, size_t from, size_t to) {
  d->verdict.series.push_back(Series({{"instance", instance}, {"job", "bottleneckd"}, {"bound", bound}}, from, to));
  d->verdict_info.series.push_back(Series(Info(instance, bound, resource), from, to));
}

std::map<std::string, std::string> Host(const char* instance) {
  return {{"instance", instance}, {"job", "bottleneckd"}};
}

FleetData ThreeHosts() {
  FleetData d;
  d.span = {kStart, kStart + 59, 1};
  d.run = "echo";
  d.selector = "{}";
  Held(&d, "gen", "none", "", 0, 10);
  Held(&d, "gen", "cpu", "cpu0", 10, 60);
  Held(&d, "box", "none", "", 0, 30);
  Held(&d, "box", "interrupt", "cpu1", 30, 40);
  Held(&d, "box", "none", "", 40, 60);
  Held(&d, "bystander", "none", "", 0, 60);
  // gen's confidence 0.5 while bound; box's 0.8.
  d.confidence.series = {Series(Host("gen"), 10, 60, 0.5), Series(Host("box"), 30, 40, 0.8)};
  // box on a plateau for steps 30..44 at 0.82.
  d.plateau.series = {Series(Host("box"), 30, 45, 1), Series(Host("box"), 45, 60, 0)};
  d.plateau_level.series = {Series(Host("box"), 30, 45, 0.82)};
  d.run_active.series = {Series(Host("gen"), 0, 60), Series(Host("box"), 0, 60)};
  PromSeries busy = Series(Host("gen"), 0, 60, 0.6);
  busy.points[20].second = 0.99;
  d.evidence["cpu"].series = {busy};
  d.evidence_queries["cpu"] = "max by (instance, job) (bottleneckd_cpu_busy_ratio{source=\"accounting\"})";
  d.evidence["interrupt"].series = {Series(Host("box"), 0, 60, 0.4)};
  return d;
}

const FleetInstance& Find(const FleetReport& r, const std::string& name) {
  for (const FleetInstance& x : r.instances)
    if (x.instance == name) return x;
  static FleetInstance none;
  ADD_FAILURE() << name << " not in the report";
  return none;
}

TEST(FleetAnalysis, NamesTheHostBoundFirstAndLongest) {
  FleetReport r = AnalyzeFleet(ThreeHosts(), "http://prom:9090");
  ASSERT_EQ(r.instances.size(), 3u);
  ASSERT_TRUE(r.limited_first && r.limited_longest);
  EXPECT_EQ(r.instances[*r.limited_first].instance, "gen");
  EXPECT_EQ(r.instances[*r.limited_longest].instance, "gen");
  // Sorted by bound share: gen 50/60, box 10/60, bystander 0.
  EXPECT_EQ(r.instances[0].instance, "gen");
  EXPECT_EQ(r.instances[1].instance, "box");
  EXPECT_EQ(r.instances[2].instance, "bystander");
}

TEST(FleetAnalysis, EachInstancesSharesStretchAndEvidence) {
  FleetReport r = AnalyzeFleet(ThreeHosts(), "http://prom:9090");
  const FleetInstance& gen = Find(r, "gen");
  EXPECT_TRUE(gen.in_run);
  EXPECT_EQ(gen.main_bound, "cpu");
  EXPECT_EQ(gen.main_resource, "cpu0");
  EXPECT_DOUBLE_EQ(gen.bound_share, 50.0 / 60);
  EXPECT_DOUBLE_EQ(gen.share.at("none"), 10.0 / 60);
  EXPECT_DOUBLE_EQ(gen.coverage, 1);
  ASSERT_TRUE(gen.first_bound);
  EXPECT_EQ(*gen.first_bound, kStart + 10);
  ASSERT_TRUE(gen.worst);
  EXPECT_EQ(gen.worst->start, kStart + 10);
  EXPECT_EQ(gen.worst->end, kStart + 60);  // one step past its last bound step
  EXPECT_DOUBLE_EQ(gen.worst->mean_confidence, 0.5);
  ASSERT_TRUE(gen.worst->evidence_peak);
  EXPECT_EQ(*gen.worst->evidence_peak, 0.99);
  EXPECT_EQ(gen.evidence_query, "max by (instance, job) (bottleneckd_cpu_busy_ratio{source=\"accounting\"})");

  const FleetInstance& box = Find(r, "box");
  EXPECT_EQ(box.main_bound, "interrupt");
  EXPECT_DOUBLE_EQ(box.bound_share, 10.0 / 60);
  ASSERT_TRUE(box.worst);
  EXPECT_EQ(box.worst->start, kStart + 30);
  EXPECT_EQ(box.worst->end, kStart + 40);
  EXPECT_DOUBLE_EQ(box.worst->mean_confidence, 0.8);
  EXPECT_DOUBLE_EQ(box.plateau_share, 15.0 / 60);
  EXPECT_DOUBLE_EQ(box.plateau_level, 0.82);

  const FleetInstance& by = Find(r, "bystander");
  EXPECT_FALSE(by.in_run);
  EXPECT_EQ(by.main_bound, "none");
  EXPECT_FALSE(by.first_bound);
  EXPECT_FALSE(by.worst);
  EXPECT_DOUBLE_EQ(by.share.at("none"), 1);
}

TEST(FleetAnalysis, TheEarliestBoundHostIsFirstEvenWhenAnotherIsLonger) {
  FleetData d = ThreeHosts();
  // box bound by the bus for steps 5..7 as well: first, but briefly.
  Held(&d, "box", "bus", "em2 (0000:03:01.0)", 5, 8);
  FleetReport r = AnalyzeFleet(d, "u");
  ASSERT_TRUE(r.limited_first && r.limited_longest);
  EXPECT_EQ(r.instances[*r.limited_first].instance, "box");
  EXPECT_EQ(*r.instances[*r.limited_first].first_bound, kStart + 5);
  EXPECT_EQ(r.instances[*r.limited_longest].instance, "gen");
  // box's bound steps: interrupt 10, bus 3; its worst stretch is the interrupt one.
  const FleetInstance& box = Find(r, "box");
  EXPECT_EQ(box.main_bound, "interrupt");
  EXPECT_DOUBLE_EQ(box.bound_share, 13.0 / 60);
  EXPECT_EQ(box.worst->bound, "interrupt");
}

TEST(FleetAnalysis, AHostScrapedPartOfTheSpanHasLessCoverageNotMoreShare) {
  FleetData d;
  d.span = {kStart, kStart + 99, 1};
  Held(&d, "late", "cpu", "cpu3", 50, 100);
  FleetReport r = AnalyzeFleet(d, "u");
  ASSERT_EQ(r.instances.size(), 1u);
  EXPECT_DOUBLE_EQ(r.instances[0].coverage, 0.5);
  EXPECT_DOUBLE_EQ(r.instances[0].bound_share, 0.5);
}

TEST(FleetAnalysis, TwoLabelsAtOneStepCountTheBoundOne) {
  // A store without staleness markers can give the old label and the new
  // one at the same step for its look-back.
  FleetData d;
  d.span = {kStart, kStart + 9, 1};
  Held(&d, "h", "none", "", 0, 10);
  Held(&d, "h", "wait", "thread echo", 5, 10);
  FleetReport r = AnalyzeFleet(d, "u");
  ASSERT_EQ(r.instances.size(), 1u);
  EXPECT_DOUBLE_EQ(r.instances[0].share.at("wait"), 0.5);
  EXPECT_DOUBLE_EQ(r.instances[0].share.at("none"), 0.5);
  EXPECT_EQ(r.instances[0].main_resource, "thread echo");
}

TEST(FleetAnalysis, AStaleInfoSeriesDoesNotChangeTheLabel) {
  // verdict_info still shows cpu for five steps after the host left it (a
  // store's look-back without staleness markers): the label is verdict's.
  FleetData d;
  d.span = {kStart, kStart + 19, 1};
  Held(&d, "h", "cpu", "cpu2", 0, 10);
  Held(&d, "h", "none", "", 10, 20);
  d.verdict_info.series.push_back(Series(Info("h", "cpu", "cpu2"), 10, 15));
  FleetReport r = AnalyzeFleet(d, "u");
  ASSERT_EQ(r.instances.size(), 1u);
  EXPECT_DOUBLE_EQ(r.instances[0].bound_share, 0.5);
  EXPECT_EQ(r.instances[0].worst->end, kStart + 10);
  EXPECT_EQ(r.instances[0].main_resource, "cpu2");
}

TEST(FleetAnalysis, NoBoundHostGivesNoAnswer) {
  FleetData d;
  d.span = {kStart, kStart + 9, 1};
  Held(&d, "a", "none", "", 0, 10);
  Held(&d, "b", "undetermined", "", 0, 10);
  FleetReport r = AnalyzeFleet(d, "u");
  EXPECT_FALSE(r.limited_first);
  EXPECT_FALSE(r.limited_longest);
}

TEST(FleetAnalysis, PointsOffTheGridAreNotCounted) {
  FleetData d;
  d.span = {kStart, kStart + 90, 10};  // 10 steps of 10 s
  PromSeries s;
  s.labels = {{"instance", "h"}, {"job", "bottleneckd"}, {"bound", "cpu"}};
  s.points = {{kStart, 1}, {kStart + 5, 1}, {kStart + 10, 1}, {kStart + 500, 1}};
  d.verdict.series = {s};
  FleetReport r = AnalyzeFleet(d, "u");
  ASSERT_EQ(d.span.steps(), 10u);
  EXPECT_DOUBLE_EQ(r.instances[0].bound_share, 2.0 / 10);
}

TEST(FleetSelector, TakesMatchersInBracesOnly) {
  std::string m;
  ASSERT_TRUE(SelectorMatchers("{job=\"bottleneckd\", site=~\"eu.*\"}", &m).ok());
  EXPECT_EQ(m, "job=\"bottleneckd\", site=~\"eu.*\"");
  ASSERT_TRUE(SelectorMatchers(" {} ", &m).ok());
  EXPECT_EQ(m, "");
  ASSERT_TRUE(SelectorMatchers("{job=\"a\",}", &m).ok());
  EXPECT_EQ(m, "job=\"a\"");
  EXPECT_FALSE(SelectorMatchers("job=\"a\"", &m).ok());
  EXPECT_FALSE(SelectorMatchers("up{job=\"a\"}", &m).ok());
  EXPECT_FALSE(SelectorMatchers("{a=\"1\"} or {b=\"2\"}", &m).ok());
}

TEST(FleetSelector, BracesInsideQuotedValuesAreText) {
  std::string m;
  ASSERT_TRUE(SelectorMatchers("{run=\"echo {550M}\", site=~'eu-\\'{1}'}", &m).ok());
  EXPECT_EQ(m, "run=\"echo {550M}\", site=~'eu-\\'{1}'");
  ASSERT_TRUE(SelectorMatchers("{a=`x}\\`}", &m).ok());  // raw strings: no escapes
  EXPECT_EQ(m, "a=`x}\\`");
  ASSERT_TRUE(SelectorMatchers("{a=\"q\\\"}\"}", &m).ok());  // an escaped quote keeps the string open
  EXPECT_EQ(m, "a=\"q\\\"}\"");
  Status st = SelectorMatchers("{a=\"open}", &m);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("a quoted value is not closed"), std::string::npos) << st.message();
  EXPECT_FALSE(SelectorMatchers("{a=\"x\"} {b=\"y\"}", &m).ok());
  EXPECT_FALSE(SelectorMatchers("{a={b}}", &m).ok());
}

TEST(FleetSelector, EvidenceQueriesCarryTheSelector) {
  EXPECT_EQ(EvidenceQuery("bus", "job=\"x\""),
            "max by (instance, job) (bottleneckd_bus_path_utilisation_ratio{job=\"x\"})");
  EXPECT_EQ(EvidenceQuery("cpu", ""), "max by (instance, job) (bottleneckd_cpu_busy_ratio{source=\"accounting\"})");
  EXPECT_EQ(EvidenceQuery("wait", "job=\"x\""),
            "sum by (instance, job) (rate(bottleneckd_network_drops_total{job=\"x\"}[1m]))");
  EXPECT_EQ(EvidenceQuery("none", ""), "");
}

}  // namespace
}  // namespace bottleneckd::fleet_analysis_test
