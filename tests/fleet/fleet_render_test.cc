// The three renderings of one report built by hand: the answer lines, the
// JSON read back with nlohmann-json, the HTML escaped.
#include "fleet/fleet_render.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bottleneckd::fleet_render_test {
namespace {

FleetReport Report() {
  FleetReport r;
  r.url = "http://prom:9090";
  r.selector = "{job=\"bottleneckd\"}";
  r.run = "echo <1>";
  r.span = {1'800'000'000, 1'800'000'059, 1};
  FleetInstance gen;
  gen.instance = "gen:9858";
  gen.job = "bottleneckd";
  gen.in_run = true;
  gen.main_bound = "cpu";
  gen.main_resource = "cpu0";
  gen.bound_share = 50.0 / 60;
  gen.coverage = 1;
  gen.share = {{"cpu", 50.0 / 60}, {"none", 10.0 / 60}};
  gen.first_bound = 1'800'000'010;
  gen.worst = FleetStretch{1'800'000'010, 1'800'000'060, "cpu", "cpu0", 0.5, 0.99};
  FleetInstance by;
  by.instance = "bystander:9858";
  by.job = "bottleneckd";
  by.coverage = 1;
  by.share = {{"none", 1}};
  r.instances = {gen, by};
  r.limited_first = 0;
  r.limited_longest = 0;
  r.warnings = {"remote read of site-b failed"};
  return r;
}

TEST(FleetRender, TextGivesTheAnswerFirst) {
  const std::string t = FleetText(Report());
  EXPECT_NE(t.find("limited first: gen:9858 (cpu, cpu0) at +10 s\n"), std::string::npos) << t;
  EXPECT_NE(t.find("limited longest: gen:9858 (cpu, cpu0), bound 83 % of run 'echo <1>'\n"), std::string::npos) << t;
  EXPECT_NE(t.find("warning: the store's answer may be partial: remote read of site-b failed"), std::string::npos);
  EXPECT_NE(t.find("+10 s for 50 s"), std::string::npos) << t;
  EXPECT_NE(t.find("bystander:9858"), std::string::npos);
  // A ratio's peak as a percentage (it printed "... (/proc/stat) 0.99").
  EXPECT_NE(t.find("busiest CPU's busy ratio (/proc/stat) 99.0 %"), std::string::npos) << t;
}

// The column of the header word `column` on each table line of t.
std::vector<size_t> ColumnOf(const std::string& t, const std::string& column, const std::string& first_cell_prefix) {
  std::vector<size_t> out;
  size_t header = t.find("\ninstance ");
  if (header == std::string::npos) return out;
  size_t at = t.find(column, header) - header - 1;
  out.push_back(at);
  for (size_t p = t.find("\n" + first_cell_prefix); p != std::string::npos;
       p = t.find("\n" + first_cell_prefix, p + 1)) {
    size_t end = t.find('\n', p + 1);
    std::string line = t.substr(p + 1, end - p - 1);
    // The cell under the header word starts after a space, at the same column.
    out.push_back(line.size() > at && line[at - 1] == ' ' && line[at] != ' ' ? at : std::string::npos);
  }
  return out;
}

TEST(FleetRender, TextColumnsFitTheLongestCell) {
  // A thread name longer than the header's column (the fleet lab's
  // "thread lab_load_gen") pushes the columns after it, on every line.
  FleetReport r = Report();
  r.instances[0].main_resource = "thread lab_load_gen_with_a_long_name";
  r.instances[0].worst->resource = r.instances[0].main_resource;
  const std::string t = FleetText(r);
  std::vector<size_t> at = ColumnOf(t, "worst stretch", "gen:9858");
  ASSERT_EQ(at.size(), 2u) << t;
  EXPECT_EQ(at[1], at[0]) << t;
  at = ColumnOf(t, "worst stretch", "bystander:9858");
  ASSERT_EQ(at.size(), 2u) << t;
  EXPECT_EQ(at[1], at[0]) << t;
  EXPECT_NE(t.find("thread lab_load_gen_with_a_long_name +10 s for 50 s"), std::string::npos) << t;
}

TEST(FleetRender, JsonReadsBack) {
  nlohmann::json j = nlohmann::json::parse(FleetJson(Report()));
  EXPECT_EQ(j["run"], "echo <1>");
  EXPECT_EQ(j["limited_first"], "gen:9858");
  EXPECT_EQ(j["instances"].size(), 2u);
  EXPECT_EQ(j["instances"][0]["bound"], "cpu");
  EXPECT_EQ(j["instances"][0]["worst"]["evidence_peak"], 0.99);
  EXPECT_TRUE(j["instances"][1]["worst"].is_null());
  EXPECT_TRUE(j["instances"][1]["first_bound"].is_null());
  EXPECT_EQ(j["warnings"][0], "remote read of site-b failed");
}

TEST(FleetRender, HtmlEscapesWhatItQuotes) {
  const std::string h = FleetHtml(Report());
  EXPECT_EQ(h.find("echo <1>"), std::string::npos);
  EXPECT_NE(h.find("echo &lt;1&gt;"), std::string::npos);
  EXPECT_NE(h.find("<p class=\"answer\" id=\"first\">limited first: gen:9858"), std::string::npos);
}

TEST(FleetRender, NoBoundHostSaysSo) {
  FleetReport r = Report();
  r.instances.erase(r.instances.begin());
  r.limited_first.reset();
  r.limited_longest.reset();
  EXPECT_NE(FleetText(r).find("no host was bound in run 'echo <1>'"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(FleetJson(r))["limited_first"].is_null());
}

}  // namespace
}  // namespace bottleneckd::fleet_render_test
