#include "exporters/report/report_budget.h"

#include <array>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/rules.h"
#include "exporters/report/html_escape.h"

namespace bottleneckd {
namespace {

// Each part's colour, in BudgetParts' order: idle the lightest, unexplained
// (time no source claims) dark and apart from the rest.
constexpr const char* kPartColors[] = {"#7f7f7f", "#d62728", "#ff7f0e", "#e377c2",
                                       "#1f77b4", "#2ca02c", "#3b0a57", "#ececec"};
static_assert(std::size(kPartColors) == kBudgetPartMembers.size(), "one colour per budget part");

const CpuBudget* BudgetOfCpu(const std::vector<CpuBudget>& budgets, int cpu) {
  for (const CpuBudget& b : budgets)
    if (b.cpu == cpu) return &b;
  return nullptr;
}

// "cpuN" -> N, else -1.
int CpuOfResource(std::string_view resource) {
  if (!resource.starts_with("cpu")) return -1;
  int cpu = -1;
  auto [end, ec] = std::from_chars(resource.data() + 3, resource.data() + resource.size(), cpu);
  return ec == std::errc() && end == resource.data() + resource.size() && cpu >= 0 ? cpu : -1;
}

// The runs in the order BudgetPlotCpu looks at their verdicts.
std::vector<const RunReport*> ParentThenRuns(const Report& r) {
  std::vector<const RunReport*> runs;
  if (r.parent) runs.push_back(&*r.parent);
  for (const RunReport& x : r.runs) runs.push_back(&x);
  return runs;
}

}  // namespace

std::string BudgetText(const RunReport& x) {
  if (x.cpu_budget.empty()) return "";
  std::string o = "    CPU budget, mean over the settled windows:\n";
  size_t left_out = 0;
  for (const RunCpuBudget& b : x.cpu_budget) {
    bool named = CpuName(b.budget.cpu) == x.verdict.resource;
    if (!named && 1 - b.budget.idle < kBudgetTextBusy) {
      ++left_out;
      continue;
    }
    o += "      " + CpuBudgetSentence(b.budget);
    if (b.windows < x.windows) o += " (" + std::to_string(b.windows) + " of " + std::to_string(x.windows) + " windows)";
    o += "\n";
  }
  if (left_out)
    o += "      " + std::to_string(left_out) + " more CPU" + (left_out == 1 ? "" : "s") + " under " +
         FormatPercent(kBudgetTextBusy) + " busy\n";
  return o;
}

void WriteBudgetJson(const CpuBudget& b, std::optional<size_t> windows, JsonWriter* w) {
  w->BeginObject();
  w->Key("cpu").String(CpuName(b.cpu));
  if (windows) w->Key("windows").Integer(*windows);
  for (const BudgetPart& part : BudgetParts(b)) w->Key(std::string(part.name) + "_ratio").Number(part.ratio);
  w->Key("overlap_ratio").Number(b.overlap);
  w->Key("idle_delivered").Bool(b.idle_delivered);
  w->Key("interrupts_measured").Bool(b.interrupts_measured);
  w->Key("threads_measured").Bool(b.threads_measured);
  w->Key("delivery_learned").Bool(b.delivery_learned);
  w->EndObject();
}

void WriteBudgetJson(const RunReport& x, JsonWriter* w) {
  w->BeginArray();
  for (const RunCpuBudget& b : x.cpu_budget) WriteBudgetJson(b.budget, b.windows, w);
  w->EndArray();
}

void WriteBudgetJson(const TimelinePoint& p, JsonWriter* w) {
  w->BeginArray();
  for (const CpuBudget& b : p.cpu_budget) WriteBudgetJson(b, std::nullopt, w);
  w->EndArray();
}

int BudgetPlotCpu(const Report& r) {
  std::map<int, std::pair<double, size_t>> busy;  // by CPU: busy summed, points
  for (const TimelinePoint& p : r.timeline)
    for (const CpuBudget& b : p.cpu_budget) busy[b.cpu].first += 1 - b.idle, ++busy[b.cpu].second;
  if (busy.empty()) return -1;
  for (const RunReport* x : ParentThenRuns(r)) {
    int cpu = CpuOfResource(x->verdict.resource);
    if (cpu >= 0 && busy.count(cpu)) return cpu;
  }
  int best = -1;
  double best_busy = -1;
  for (const auto& [cpu, sum] : busy) {
    double mean = sum.first / static_cast<double>(sum.second);
    if (mean > best_busy) best = cpu, best_busy = mean;
  }
  return best;
}

std::string BudgetPlotHtml(const Report& r, const PlotSpec& base, double t0) {
  const int cpu = BudgetPlotCpu(r);
  PlotSpec p = base;
  p.id = "timeline-budget";
  p.y_label = "% of the window";
  p.stack_bars = true;
  p.height = 260;
  const std::string name = cpu >= 0 ? CpuName(cpu) : "no CPU";
  p.title = name + "'s time budget (% of each window, stacked)";
  for (const BudgetPart& part : BudgetParts(CpuBudget()))
    p.series.push_back(MakeSeries(part.name, kPartColors[p.series.size()], SeriesKind::kBars));
  size_t windows = 0, soaker = 0, measured = 0, estimate = 0;
  double overlap = 0;
  for (const TimelinePoint& point : r.timeline) {
    const CpuBudget* b = cpu >= 0 ? BudgetOfCpu(point.cpu_budget, cpu) : nullptr;
    if (!b) continue;
    ++windows;
    soaker += b->idle_delivered, measured += b->interrupts_measured, estimate += b->delivery_learned;
    overlap += b->overlap;
    std::array<BudgetPart, 8> parts = BudgetParts(*b);
    for (size_t i = 0; i < parts.size(); ++i) {
      p.series[i].x.push_back(point.t - t0);
      p.series[i].y.push_back(parts[i].ratio * 100);
    }
  }
  std::string caption = "No window of the timeline kept a CPU budget (runs stored before run store schema 5).";
  if (windows) {
    auto of = [windows](size_t n) { return std::to_string(n) + " of " + std::to_string(windows); };
    bool named = false;
    for (const RunReport* x : ParentThenRuns(r)) named = named || x->verdict.resource == name;
    caption = name + (named ? " (a verdict names it)" : " (the busiest CPU: no verdict names a CPU)") +
              ": every second of each window once: steal, hardirq, softirq, delivery, threads, tasks, unexplained "
              "(busy no source claims), idle. Idle from the soaker in " +
              of(soaker) + " windows (else /proc/stat); hardirq and softirq measured by irqtime in " + of(measured) +
              " (else /proc/stat ticks); delivery a learned estimate in " + of(estimate) + ". The sources claimed " +
              FormatPercent(overlap / static_cast<double>(windows)) +
              " more than the busy time on average (overlap, cut from the later parts).";
  }
  return RenderPlot(p) + "<p class=\"caption\">" + HtmlEscape(caption) + "</p>\n";
}

}  // namespace bottleneckd
