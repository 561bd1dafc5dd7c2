// Each CPU's time budget in the reports (analysis/cpu_budget.h, a run's
// mean from runs/run_summary.h): the text's lines, the JSON's objects and
// the HTML report's stacked plot of one CPU over the timeline. Internal to
// exporters/report (report_table.cc, report.cc, report_html.cc).
#pragma once

#include <string>

#include "exporters/report/json_writer.h"
#include "exporters/report/report.h"
#include "exporters/report/svg_plot.h"

namespace bottleneckd {

// The run's budget lines for the text report, empty when it has none:
// "    CPU budget, mean over the settled windows:" then one CpuBudgetSentence
// per CPU that the verdict names or that was at least kBudgetTextBusy busy,
// and a line counting the CPUs left out.
inline constexpr double kBudgetTextBusy = 0.05;
std::string BudgetText(const RunReport& x);

// The `cpu_budget` arrays: a run's, one object per CPU it kept (with the
// windows its means are over), and a timeline point's, one per CPU the
// point kept. docs/report.md lists the keys.
void WriteBudgetJson(const RunReport& x, JsonWriter* w);
void WriteBudgetJson(const TimelinePoint& p, JsonWriter* w);

// The CPU the HTML report plots: the first "cpuN" verdict resource of the
// parent and then the runs, else the CPU least idle on average over the
// timeline points that kept it (ties: the lower); -1 when no point has a
// budget.
int BudgetPlotCpu(const Report& r);

// The `timeline-budget` plot: `base` (x axis, bands) with one stacked bar
// series per part in BudgetParts' order for that CPU, in % of each window,
// and a caption with its flags.
std::string BudgetPlotHtml(const Report& r, const PlotSpec& base, double t0);

}  // namespace bottleneckd
