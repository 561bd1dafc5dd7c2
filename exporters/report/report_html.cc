#include "exporters/report/report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "exporters/report/flame_graph.h"
#include "exporters/report/html_escape.h"
#include "exporters/report/report_budget.h"
#include "exporters/report/report_profile.h"
#include "exporters/report/svg_plot.h"

namespace bottleneckd {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const char* const kCss = R"(body{font:14px/1.4 sans-serif;margin:1.5em;color:#222;max-width:1500px}
h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}
h3{font-size:1.05em;margin:.8em 0 .2em}.source{color:#555;margin:0}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
td:first-child,th:first-child,td:last-child,th:last-child{text-align:left}
.row{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}
.verdict .label{font-weight:bold;text-transform:uppercase}.run{margin-bottom:1em}
ul{margin:.2em 0}.reason{color:#8a5a00}.differs{color:#b00;font-weight:bold}
svg.plot{background:#fff;border:1px solid #eee;margin:.3em 0}
svg .title{font-size:13px;font-weight:bold}svg .tick,svg .legend,svg .band-label,svg .mark-label{font-size:11px}
p.caption{color:#555;font-size:12px;max-width:1100px;margin:0 0 .8em}
svg .label{font-size:12px;fill:#444}svg .nodata{font-size:16px;fill:#999}svg .mark-label{fill:#c0392b}
svg.flame{background:#fff;border:1px solid #eee;margin:.3em 0}svg .caption{font-size:11px;fill:#555}
svg.flame .frame:hover rect{stroke:#222}table.top-functions td:not(:last-child){white-space:nowrap}
)";

std::string F(const char* fmt, double v) {
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

double Or(const std::optional<double>& v, double scale = 1) { return v ? *v * scale : kNaN; }

// The drop ladder's rungs in the order a received packet meets them, with
// their colours (the loss and timeline-drops plots).
struct RungStyle {
  const char* name;
  const char* color;
  std::optional<double> RungDrops::*drops;
};
constexpr RungStyle kRungs[] = {{"nic", "#8c564b", &RungDrops::nic},
                                {"backlog", "#ff7f0e", &RungDrops::backlog},
                                {"socket", "#d62728", &RungDrops::socket},
                                {"application", "#9467bd", &RungDrops::application}};

// One series per rung, `first` (a RungName) emphasised with `note`.
std::vector<PlotSeries> RungSeries(SeriesKind kind, const std::string& first, const std::string& note) {
  std::vector<PlotSeries> out;
  for (const RungStyle& rung : kRungs) {
    out.push_back(MakeSeries(rung.name, rung.color, kind));
    if (first == rung.name) out.back().emphasis = true, out.back().note = note;
  }
  return out;
}

std::string Caption(const std::string& text) { return "<p class=\"caption\">" + HtmlEscape(text) + "</p>\n"; }

void AppendVerdict(const RunReport& x, std::string* o) {
  *o += "<div class=\"run\" data-run=\"" + HtmlEscape(x.name) + "\"><h3>" + HtmlEscape(x.name) + "</h3>\n";
  *o += "<p class=\"verdict\" data-label=\"" + std::string(BoundName(x.verdict.label)) + "\" data-resource=\"" +
        HtmlEscape(x.verdict.resource) + "\" data-confidence=\"" + F("%.2f", x.verdict.confidence) +
        "\">bound: <span class=\"label\">" + BoundName(x.verdict.label) + "</span>" +
        (x.verdict.resource.empty() ? "" : " <span class=\"resource\">" + HtmlEscape(x.verdict.resource) + "</span>") +
        ", confidence <span class=\"confidence\">" + F("%.2f", x.verdict.confidence) + "</span> (" +
        std::to_string(x.verdict_windows) + " of " + std::to_string(x.windows) +
        " settled windows); first losing rung: " + HtmlEscape(x.first_losing_rung) + "</p>\n";
  if (std::string part = LimitedPartSentence(x); !part.empty())
    *o += "<p class=\"parts\" data-limited=\"" + std::to_string(x.limited_windows) + "\" data-light=\"" +
          std::to_string(x.light_windows) + "\">" + HtmlEscape(part) + "</p>\n";
  if (!x.verdict.evidence.empty() || !x.verdict.reasons.empty()) {
    *o += "<ul class=\"evidence\">\n";
    for (const std::string& e : x.verdict.evidence) *o += "<li>" + HtmlEscape(e) + "</li>\n";
    for (const std::string& e : x.verdict.reasons) *o += "<li class=\"reason\">? " + HtmlEscape(e) + "</li>\n";
    *o += "</ul>\n";
  }
  if (!x.expected_label.empty()) {
    bool ok = x.expected_label == BoundName(x.verdict.label) &&
              (x.expected_resource.empty() || x.expected_resource == x.verdict.resource);
    *o += "<p class=\"expected\">expected " + HtmlEscape(x.expected_label) +
          (x.expected_resource.empty() ? "" : " " + HtmlEscape(x.expected_resource)) +
          (ok ? " (matches)" : " <span class=\"differs\">(DIFFERS)</span>") + "</p>\n";
  }
  *o += "</div>\n";
}

void AppendTable(const std::vector<RunReport>& runs, std::string* o) {
  SweepTable t = SweepTableCells(runs);
  *o += "<table class=\"sweep-table\"><tr>";
  for (const std::string& h : t.header) *o += "<th>" + HtmlEscape(h) + "</th>";
  *o += "</tr>\n";
  for (const auto& row : t.rows) {
    *o += "<tr>";
    for (const std::string& c : row) *o += "<td>" + HtmlEscape(c) + "</td>";
    *o += "</tr>\n";
  }
  *o += "</table>\n";
}

// Across the runs by offered rate: the sweep and, below it, the loss.
void AppendSweep(const Report& r, std::string* o) {
  // The knee indexes the runs by offered rate (AnalyseSweep); the curves keep the runs' order.
  const std::vector<RunReport>& swept = SweptRuns(r);
  std::vector<RunReport> by_offered = swept;
  std::stable_sort(by_offered.begin(), by_offered.end(), [](const RunReport& a, const RunReport& b) {
    return a.offered_packets_per_second < b.offered_packets_per_second;
  });
  PlotSpec sweep = MakePlot("sweep", "sweep: received, application and CPU against offered load", "offered (packets/s)",
                            "packets/s");
  sweep.y2_label = "% of a CPU";
  sweep.height = 340;
  sweep.series = {MakeSeries("offered", "#bbb"),
                  MakeSeries("received", "#1f77b4"),
                  MakeSeries("application", "#2ca02c"),
                  MakeSeries("echoed", "#17becf"),
                  MakeSeries("cpu", "#d62728", SeriesKind::kLine, true),
                  MakeSeries("accounting", "#ff7f0e", SeriesKind::kLine, true),
                  MakeSeries("soaker-idle", "#9467bd", SeriesKind::kLine, true)};
  PlotSpec loss = MakePlot("loss", "loss per rung (packets/s lost, stacked)", "offered (packets/s)", "drops/s");
  loss.height = 220;
  loss.stack_bars = true;
  const std::string knee_rung = r.mlfrr.knee ? r.mlfrr.first_losing_rung : "";
  loss.series = RungSeries(SeriesKind::kBars, knee_rung, "(first to lose at the knee)");
  for (const RunReport& x : swept) {
    double off = x.offered_packets_per_second;
    const double ys[] = {off,
                         x.received_packets_per_second,
                         x.application_packets_per_second,
                         Or(x.echoed_per_second),
                         x.cpu_busy * 100,
                         x.accounting_busy * 100,
                         Or(x.soaker_idle, 100)};
    for (size_t i = 0; i < sweep.series.size(); ++i) {
      sweep.series[i].x.push_back(off);
      sweep.series[i].y.push_back(ys[i]);
      sweep.series[i].markers = true;
      sweep.series[i].sort_by_x = false;  // in run order: a sweep repeated (more work per packet) stays two curves
    }
    for (size_t i = 0; i < std::size(kRungs); ++i) {
      loss.series[i].x.push_back(off);
      loss.series[i].y.push_back(Or(x.rungs.*kRungs[i].drops));
    }
  }
  if (r.mlfrr.rate) sweep.marks.push_back({"mlfrr", *r.mlfrr.rate, "MLFRR " + F("%.0f", *r.mlfrr.rate)});
  if (r.mlfrr.knee && *r.mlfrr.knee < by_offered.size()) {
    PlotMark knee{"knee", by_offered[*r.mlfrr.knee].offered_packets_per_second, "knee"};
    sweep.marks.push_back(knee);
    loss.marks.push_back(knee);
  }
  if (r.plateau.detected && r.plateau.last < swept.size() && r.plateau.first <= r.plateau.last) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (size_t i = r.plateau.first; i <= r.plateau.last; ++i) {
      lo = std::min(lo, swept[i].offered_packets_per_second);
      hi = std::max(hi, swept[i].offered_packets_per_second);
    }
    sweep.bands.push_back({"plateau", lo, hi, "plateau " + F("%.0f %%", r.plateau.level * 100)});
  }
  *o += "<section id=\"sweep\"><h2>Across the runs</h2>\n";
  if (!r.sweep_of.empty())
    *o += "<p class=\"sweep-of\" data-swept=\"" + std::to_string(swept.size()) + "\">swept: " + HtmlEscape(r.sweep_of) +
          "</p>\n";
  *o += "<div class=\"row\"><div>" + RenderPlot(sweep) + RenderPlot(loss) +
        Caption(
            "Under each run's offered load, the packets per second lost on each rung of the drop ladder, "
            "the mean over the run's settled windows: nic, backlog and socket stack to the run's drops/s; "
            "application (echo requests never answered, from the live capture) sits on top. A rung with no "
            "bar has no drops or was not measured (a run stored before drops per rung were kept).") +
        "</div><div>\n";
  AppendTable(swept, o);
  *o += "</div></div></section>\n";
}

// Where the timeline has no windows: more than kGapWindows times the median
// spacing between windows (a run store's runs minutes apart; a daemon that
// was stopped). 0 with fewer than two windows. A window's own jitter (a late
// tick under load) stays well under three spacings.
constexpr double kGapWindows = 3;
double TimelineGap(const std::vector<TimelinePoint>& tl) {
  std::vector<double> steps;
  for (size_t i = 1; i < tl.size(); ++i)
    if (tl[i].t > tl[i - 1].t) steps.push_back(tl[i].t - tl[i - 1].t);
  if (steps.empty()) return 0;
  std::nth_element(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(steps.size() / 2), steps.end());
  return kGapWindows * steps[steps.size() / 2];
}

void AppendTimelines(const Report& r, std::string* o) {
  const std::vector<TimelinePoint>& tl = r.timeline;
  double t0 = tl.empty() ? 0 : tl.front().t;
  PlotSpec base;
  base.x_label = "seconds since the first window";
  base.height = 240;
  base.width = 1100;
  base.break_x_over = TimelineGap(tl);
  std::vector<RunReport> shaded = r.runs;
  if (r.parent && r.runs.empty()) shaded.push_back(*r.parent);
  for (const RunReport& x : shaded) base.bands.push_back({"run", x.start - t0, x.end - t0, x.name});
  auto plot = [&](const char* id, const std::string& title, const char* y_label, std::vector<PlotSeries> series,
                  const std::vector<std::vector<double>>& ys) {
    PlotSpec p = base;
    p.id = id;
    p.title = title;
    p.y_label = y_label;
    for (size_t i = 0; i < series.size(); ++i) {
      for (size_t k = 0; k < tl.size(); ++k) series[i].x.push_back(tl[k].t - t0);
      series[i].y = ys[i];
    }
    p.series = std::move(series);
    *o += RenderPlot(p);
  };
  std::vector<double> offered, received, application, echoed, cpu, acct, idle, hidden, drops, intr, bus;
  std::vector<std::vector<double>> rungs(std::size(kRungs));
  std::map<std::string, size_t> first_losing;  // windows by the rung that lost first
  for (const TimelinePoint& p : tl) {
    for (size_t i = 0; i < rungs.size(); ++i) rungs[i].push_back(Or(p.rungs.*kRungs[i].drops));
    if (p.first_losing_rung != "none") ++first_losing[p.first_losing_rung];
    offered.push_back(p.offered_packets_per_second);
    received.push_back(p.received_packets_per_second);
    application.push_back(p.application_packets_per_second);
    echoed.push_back(Or(p.echoed_per_second));
    cpu.push_back(p.cpu_busy * 100);
    acct.push_back(p.accounting_busy * 100);
    idle.push_back(Or(p.soaker_idle, 100));
    // Hidden: busy the soaker saw that /proc/stat did not account (only with
    // the soaker; at least 0: accounting above the soaker's busy hides nothing).
    hidden.push_back(p.soaker_idle ? std::max(p.cpu_busy - p.accounting_busy, 0.0) * 100 : kNaN);
    drops.push_back(p.drops_per_second);
    intr.push_back(p.interrupts_per_second);
    bus.push_back(Or(p.bus_utilisation, 100));
  }
  *o += "<section id=\"timeline\"><h2>Timeline</h2>\n<p>One point per window; the runs (or load steps) shaded";
  if (base.break_x_over > 0)
    *o += "; lines stop where no window was kept for over " + F("%.3g", base.break_x_over) +
          " s (three times the usual spacing: between runs, or while no daemon ran)";
  *o += ".</p>\n";
  plot("timeline-load", "load (packets/s)", "packets/s",
       {MakeSeries("offered", "#bbb"), MakeSeries("received", "#1f77b4"), MakeSeries("application", "#2ca02c"),
        MakeSeries("echoed", "#17becf")},
       {offered, received, application, echoed});
  plot("timeline-cpu", "busiest CPU: busy, soaker idle and hidden time (%)", "%",
       {MakeSeries("cpu", "#d62728"), MakeSeries("accounting", "#ff7f0e"),
        MakeSeries("soaker-idle", "#9467bd", SeriesKind::kArea), MakeSeries("hidden", "#8c564b", SeriesKind::kArea)},
       {cpu, acct, idle, hidden});
  *o += Caption(
      "cpu is the busiest CPU's busy as the soaker measured it (its /proc/stat busy where no soaker ran), accounting "
      "that CPU's /proc/stat busy, soaker-idle the least delivered idle among CPUs. hidden is derived here, not "
      "stored: /proc/stat idle less the soaker's delivered idle, i.e. cpu - accounting, at least 0, only in windows "
      "where the soaker ran. It stands for the soaker's own hidden time (CPU time charged to the soaker that its "
      "loop did not get: bottleneckd_cpu_hidden_ratio, soaker.md), which the timeline does not keep.");
  *o += BudgetPlotHtml(r, base, t0);
  // The rung most losing windows lost at first (ties: the first in name order), as Summarise names a run's.
  std::string first;
  size_t first_windows = 0;
  for (const auto& [rung, n] : first_losing)
    if (n > first_windows) first = rung, first_windows = n;
  std::vector<PlotSeries> drop_series = RungSeries(SeriesKind::kLine, first, "(first to lose)");
  drop_series.insert(drop_series.begin(), MakeSeries("drops", "#bbb", SeriesKind::kArea));
  rungs.insert(rungs.begin(), drops);
  plot("timeline-drops",
       first.empty() ? std::string("drops per second per rung: no rung lost packets")
                     : "drops per second per rung: first to lose " + first + " (" + std::to_string(first_windows) +
                           " of " + std::to_string(tl.size()) + " windows)",
       "drops/s", std::move(drop_series), rungs);
  std::string per_run;
  for (const RunReport& x : shaded) per_run += (per_run.empty() ? "" : "; ") + x.name + " " + x.first_losing_rung;
  *o += Caption(
      "drops (grey) is nic + backlog + socket; application is echo requests never answered (live capture only). "
      "The first losing rung is the lowest rung losing more than the loss tolerance in a window; by run: " +
      (per_run.empty() ? std::string("no runs") : per_run) + ".");
  plot("timeline-interrupts", "interrupts per second (all NICs)", "interrupts/s", {MakeSeries("interrupts", "#e377c2")},
       {intr});
  plot("timeline-bus", "bus utilisation of the busiest NIC path (%)", "%",
       {MakeSeries("bus", "#7f7f7f", SeriesKind::kArea)}, {bus});
  *o += "</section>\n";
}

// --run NAME: the run's on-CPU profile, its top functions by self samples
// (the names and order of the JSON's profile.top_functions) over its flame
// graph.
void AppendProfile(const Report& r, std::string* o) {
  *o += "<section id=\"profile\" data-run=\"" + HtmlEscape(r.profile_of) + "\" data-samples=\"" +
        std::to_string(r.profile.samples) + "\"><h2>On-CPU profile of run &#39;" + HtmlEscape(r.profile_of) +
        "&#39;</h2>\n";
  if (r.profile.samples == 0) {
    *o += "<p class=\"no-profile\">No samples: " + HtmlEscape(EmptyProfileReason(r)) + ".</p>\n</section>\n";
    return;
  }
  *o += "<p>" + std::to_string(r.profile.samples) +
        " on-CPU samples while the run ran; the functions they ran in (the innermost frame: self samples):</p>\n"
        "<table class=\"top-functions\"><tr><th>#</th><th>share</th><th>samples</th><th>function</th></tr>\n";
  size_t rank = 0;
  for (const FunctionSamples& f : TopFunctions(r.profile, kReportTopFunctions))
    *o += "<tr><td>" + std::to_string(++rank) + "</td><td>" +
          F("%.1f %%", 100.0 * static_cast<double>(f.samples) / static_cast<double>(r.profile.samples)) + "</td><td>" +
          std::to_string(f.samples) + "</td><td class=\"function\">" + HtmlEscape(f.function) + "</td></tr>\n";
  *o += "</table>\n" + FlameGraphSvg(r.profile) + "</section>\n";
}

// --run NAME: where the run's threads waited, its top waits (the JSON's
// offcpu.top_waits) over the off-CPU flame graph, weighted by time.
void AppendOffCpu(const Report& r, std::string* o) {
  *o += "<section id=\"offcpu\" data-run=\"" + HtmlEscape(r.profile_of) + "\" data-microseconds=\"" +
        std::to_string(r.offcpu.samples) + "\"><h2>Off-CPU stacks of run &#39;" + HtmlEscape(r.profile_of) +
        "&#39;</h2>\n";
  if (r.offcpu.samples == 0) {
    *o += "<p class=\"no-profile\">None: " + HtmlEscape(EmptyOffCpuReason(r)) + ".</p>\n</section>\n";
    return;
  }
  *o += "<p>" + F("%.2f", static_cast<double>(r.offcpu.samples) / 1e6) +
        " s off the CPU while the run ran (its target threads together); where they waited (the call that blocked "
        "and, in brackets, what it waited on):</p>\n"
        "<table class=\"top-waits\"><tr><th>#</th><th>share</th><th>seconds</th><th>wait</th></tr>\n";
  size_t rank = 0;
  for (const FunctionSamples& f : TopOffCpuWaits(r.offcpu, kReportTopFunctions))
    *o += "<tr><td>" + std::to_string(++rank) + "</td><td>" +
          F("%.1f %%", 100.0 * static_cast<double>(f.samples) / static_cast<double>(r.offcpu.samples)) + "</td><td>" +
          F("%.3f", static_cast<double>(f.samples) / 1e6) + "</td><td class=\"function\">" + HtmlEscape(f.function) +
          "</td></tr>\n";
  FlameGraphOptions options;
  options.what = "off-CPU";
  options.unit = "us";
  *o += "</table>\n" + FlameGraphSvg(r.offcpu, options) + "</section>\n";
}

}  // namespace

std::string HtmlPage(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" + HtmlEscape(title) +
         "</title>\n<style>" + kCss + "</style></head>\n<body>\n" + body + "</body></html>\n";
}

std::string ReportHtml(const Report& r) {
  std::string o = "<h1>bottleneckd report</h1>\n<p class=\"source\">" + HtmlEscape(ReportHeading(r)) + "</p>\n";
  o += "<section id=\"summary\"><ul class=\"sweep-lines\">\n";
  for (const std::string& line : SweepLines(r)) o += "<li>" + HtmlEscape(line) + "</li>\n";
  o += "</ul>\n<p class=\"mlfrr\" data-mlfrr=\"" + (r.mlfrr.rate ? F("%.0f", *r.mlfrr.rate) : std::string()) +
       "\" data-runs=\"" + std::to_string(r.runs.size()) + "\" data-swept=\"" + std::to_string(SweptRuns(r).size()) +
       "\" data-plateau=\"" + (r.plateau.detected ? "1" : "0") + "\"></p></section>\n";
  AppendSweep(r, &o);
  AppendTimelines(r, &o);
  o += "<section id=\"runs\"><h2>Runs</h2>\n";
  if (r.parent) {
    AppendVerdict(*r.parent, &o);
    o += "<p>its steady load phases (segments):</p>\n";
  }
  if (r.runs.empty()) o += "<p>(no runs)</p>\n";
  for (const RunReport& x : r.runs) AppendVerdict(x, &o);
  o += "</section>\n";
  if (!r.profile_of.empty()) {
    AppendProfile(r, &o);
    AppendOffCpu(r, &o);
  }
  return HtmlPage("bottleneckd report: " + ReportHeading(r), o);
}

}  // namespace bottleneckd
