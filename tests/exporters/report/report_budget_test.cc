// Each CPU's time budget in the reports (exporters/report/report_budget.h):
// the text's lines (the verdict's CPU and the busy ones, the rest counted),
// the JSON's objects per run and per window, and the HTML report's stacked
// plot of one CPU (the verdict's, else the busiest). Expected values come
// from the budgets built here.
#include "exporters/report/report_budget.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "analysis/rules.h"
#include "exporters/report/report_html.h"

namespace bottleneckd::report_budget_test {
namespace {

// A budget of `busy` threads time, the rest idle.
CpuBudget Budget(int cpu, double threads, double softirq = 0) {
  CpuBudget b;
  b.cpu = cpu;
  b.threads = threads;
  b.softirq = softirq;
  b.idle = 1 - threads - softirq;
  return b;
}

RunReport RunWithBudget() {
  RunReport r;
  r.name = "echo";
  r.windows = 10;
  r.verdict.label = Bound::kCpu;
  r.verdict.resource = "cpu1";
  r.cpu_budget = {RunCpuBudget{Budget(0, 0.375, 0.125), 10}, RunCpuBudget{Budget(1, 0.0, 0.0), 10},
                  RunCpuBudget{Budget(2, 0.01), 10}, RunCpuBudget{Budget(3, 0.5), 3}};
  r.cpu_budget[0].budget.idle_delivered = true;
  return r;
}

TEST(BudgetText, ListsTheVerdictsCpuAndTheBusyOnesAndCountsTheRest) {
  RunReport r = RunWithBudget();
  std::string text = BudgetText(r);
  EXPECT_NE(text.find("      " + CpuBudgetSentence(r.cpu_budget[0].budget) + "\n"), std::string::npos) << text;
  // cpu1 is idle but the verdict names it.
  EXPECT_NE(text.find("      " + CpuBudgetSentence(r.cpu_budget[1].budget) + "\n"), std::string::npos) << text;
  // cpu3 was kept in 3 of the run's 10 windows.
  EXPECT_NE(text.find("      " + CpuBudgetSentence(r.cpu_budget[3].budget) + " (3 of 10 windows)\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("cpu2"), std::string::npos) << text;  // 1 % busy
  EXPECT_NE(text.find("1 more CPU under 5.0 % busy"), std::string::npos) << text;
  EXPECT_EQ(BudgetText(RunReport()), "");  // a run stored before budgets were kept
}

TEST(BudgetText, FollowsTheFlowsOfANamedRunOnly) {
  RunReport r = RunWithBudget();
  EXPECT_NE(RunTable({r}, /*flows=*/true).find(BudgetText(r)), std::string::npos);
  EXPECT_EQ(RunTable({r}, /*flows=*/false).find("CPU budget"), std::string::npos);
}

TEST(BudgetJson, EachRunAndWindowCarriesItsCpusParts) {
  Report rep;
  rep.store = "runs.db";
  rep.runs = {RunWithBudget()};
  TimelinePoint p;
  p.t = 7;
  p.cpu_budget = {Budget(1, 0.25, 0.5)};
  rep.timeline = {p, TimelinePoint()};
  std::string json = ReportJson(rep);
  EXPECT_NE(json.find("\"cpu_budget\":[{\"cpu\":\"cpu0\",\"windows\":10,\"steal_ratio\":0,\"hardirq_ratio\":0,"
                      "\"softirq_ratio\":0.125,\"delivery_ratio\":0,\"threads_ratio\":0.375,\"tasks_ratio\":0,"
                      "\"unexplained_ratio\":0,\"idle_ratio\":0.5,\"overlap_ratio\":0,\"idle_delivered\":true,"
                      "\"interrupts_measured\":false,\"threads_measured\":false,\"delivery_learned\":false}"),
            std::string::npos)
      << json;
  // The window's budget has no windows count; a window without one an empty array.
  EXPECT_NE(json.find("\"cpu_budget\":[{\"cpu\":\"cpu1\",\"steal_ratio\":0,\"hardirq_ratio\":0,"
                      "\"softirq_ratio\":0.5,\"delivery_ratio\":0,\"threads_ratio\":0.25,"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"cpu_budget\":[]}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"timeline_budget_cpu\":\"cpu1\""), std::string::npos) << json;
  EXPECT_NE(ReportJson(Report()).find("\"timeline_budget_cpu\":null"), std::string::npos);
}

TEST(BudgetPlot, DrawsTheVerdictsCpuElseTheBusiest) {
  Report rep;
  TimelinePoint a, b;
  a.t = 1, b.t = 2;
  a.cpu_budget = {Budget(0, 0.25), Budget(1, 0.5), Budget(2, 0.75)};
  b.cpu_budget = {Budget(0, 0.25), Budget(2, 0.0)};  // cpu2's mean 0.375, cpu1's 0.5
  rep.timeline = {a, b};
  EXPECT_EQ(BudgetPlotCpu(rep), 1);
  RunReport run;
  run.verdict.resource = "cpu0";
  rep.runs = {run};
  EXPECT_EQ(BudgetPlotCpu(rep), 0);
  run.verdict.resource = "cpu7";  // kept in no window: the busiest again
  rep.runs = {run};
  EXPECT_EQ(BudgetPlotCpu(rep), 1);
  run.verdict.resource = "cpu";  // not a CPU
  rep.runs = {run};
  EXPECT_EQ(BudgetPlotCpu(rep), 1);
  EXPECT_EQ(BudgetPlotCpu(Report()), -1);
}

// data-points or data-total of a series of the timeline-budget plot; -1 when absent.
double BudgetSeries(const std::string& html, const std::string& part, const char* attr) {
  size_t at = html.find("data-plot=\"timeline-budget\"");
  if (at == std::string::npos) return -1;
  std::string svg = html.substr(at, html.find("</svg>", at) - at);
  std::smatch m;
  std::regex re("<g class=\"series\" data-series=\"" + part + "\" data-kind=\"bars\"[^>]* " + attr + "=\"([^\"]*)\"");
  return std::regex_search(svg, m, re) ? std::stod(m[1].str()) : -1;
}

TEST(BudgetPlot, StacksEachPartOfTheCpuPerWindow) {
  Report rep;
  RunReport run;
  run.verdict.resource = "cpu2";
  rep.runs = {run};
  for (int i = 0; i < 3; ++i) {
    TimelinePoint p;
    p.t = 100 + i;
    p.cpu_budget = {Budget(1, 0.5), Budget(2, 0.25 * i, 0.125)};
    if (i == 1) p.cpu_budget.pop_back();  // cpu2 not kept in this window: no bar
    rep.timeline.push_back(p);
  }
  std::string html = ReportHtml(rep);
  ASSERT_NE(html.find("data-plot=\"timeline-budget\" data-series=\"8\""), std::string::npos);
  // cpu2 in windows 0 and 2: threads 0 and 50 %, softirq 12.5 % twice, idle 87.5 and 37.5 %.
  EXPECT_EQ(BudgetSeries(html, "threads", "data-points"), 2);
  EXPECT_EQ(BudgetSeries(html, "threads", "data-total"), 50);
  EXPECT_EQ(BudgetSeries(html, "softirq", "data-total"), 25);
  EXPECT_EQ(BudgetSeries(html, "idle", "data-total"), 125);
  EXPECT_EQ(BudgetSeries(html, "unexplained", "data-points"), 2);
  EXPECT_EQ(BudgetSeries(html, "unexplained", "data-total"), 0);
  // In BudgetParts' order, so the stack's order is the budget's.
  size_t last = 0;
  for (const BudgetPart& part : BudgetParts(CpuBudget())) {
    size_t at = html.find("data-series=\"" + std::string(part.name) + "\" data-kind=\"bars\"");
    ASSERT_NE(at, std::string::npos) << part.name;
    EXPECT_GT(at, last) << part.name;
    last = at;
  }
  EXPECT_NE(html.find("cpu2 (a verdict names it)"), std::string::npos);
  // A report with no budget still has the plot, saying "no data".
  std::string bare = ReportHtml(Report());
  EXPECT_NE(bare.find("data-plot=\"timeline-budget\" data-series=\"8\" data-empty=\"1\""), std::string::npos);
}

}  // namespace
}  // namespace bottleneckd::report_budget_test
