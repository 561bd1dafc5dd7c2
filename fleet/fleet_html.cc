// The fleet report as one self-contained HTML page: the answer, then a row
// per instance with a strip of its worst stretch across the span.
#include <cstdio>

#include "base/clock.h"
#include "exporters/report/html_escape.h"
#include "fleet/fleet_render.h"

namespace bottleneckd {

namespace {

constexpr const char* kCss =
    "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse}td,th{padding:.25em .6em;border-bottom:1px solid #ddd;text-align:left}"
    "th{background:#f4f4f4}.cpu{fill:#d62728}.interrupt{fill:#ff7f0e}.bus{fill:#9467bd}.wait{fill:#1f77b4}"
    ".answer{font-size:1.1em;margin:.3em 0}.warn{color:#a60}";

// The worst stretch as a bar across the span (200 px wide).
std::string Strip(const FleetReport& r, const FleetInstance& x) {
  std::string s =
      "<svg width=\"200\" height=\"12\" role=\"img\" aria-label=\"worst stretch\">"
      "<rect width=\"200\" height=\"12\" fill=\"#eee\"/>";
  const double len = r.span.end - r.span.start + r.span.step;
  if (x.worst && len > 0) {
    double a = (x.worst->start - r.span.start) / len * 200, b = (x.worst->end - r.span.start) / len * 200;
    s += "<rect class=\"" + HtmlEscape(x.worst->bound) + "\" x=\"" + FleetNumber(a, "%.1f") + "\" width=\"" +
         FleetNumber(std::max(1.0, b - a), "%.1f") + "\" height=\"12\"/>";
  }
  return s + "</svg>";
}

}  // namespace

std::string FleetHtml(const FleetReport& r) {
  const std::string subject = r.run.empty() ? "the span" : "run " + r.run;
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>bottleneckd fleet report: " +
                  HtmlEscape(subject) + "</title>\n<style>" + kCss + "</style></head>\n<body>\n";
  o += "<h1>Fleet report: " + HtmlEscape(subject) + "</h1>\n<p>" + HtmlEscape(r.url) + " <code>" +
       HtmlEscape(r.selector) + "</code>, " + HtmlEscape(FormatUtc(r.span.start)) + " to " +
       HtmlEscape(FormatUtc(r.span.end)) + ", step " + FleetNumber(r.span.step, "%.0f") + " s</p>\n";
  for (const std::string& w : r.warnings)
    o += "<p class=\"warn\">The store's answer may be partial: " + HtmlEscape(w) + "</p>\n";
  o += "<p class=\"answer\" id=\"first\">" + HtmlEscape(FleetFirstLine(r)) + "</p>\n";
  if (std::string l = FleetLongestLine(r); !l.empty())
    o += "<p class=\"answer\" id=\"longest\">" + HtmlEscape(l) + "</p>\n";
  o += "<table id=\"instances\">\n<tr><th>instance</th><th>job</th>" +
       std::string(r.run.empty() ? "" : "<th>in run</th>") +
       "<th>bound</th><th>share</th><th>resource</th><th>worst stretch</th><th>across the span</th>"
       "<th>confidence</th><th>plateau</th><th>evidence (peak)</th></tr>\n";
  for (const FleetInstance& x : r.instances) {
    std::string worst = "-", conf = "-", evidence = "-";
    if (x.worst) {
      worst = FleetOffset(r, x.worst->start) + " for " + FleetNumber(x.worst->end - x.worst->start, "%.0f") + " s (" +
              x.worst->bound + (x.worst->resource.empty() ? "" : ", " + x.worst->resource) + ")";
      conf = FleetNumber(x.worst->mean_confidence, "%.2f");
      if (x.worst->evidence_peak) evidence = EvidencePeakText(x.worst->bound, *x.worst->evidence_peak);
    }
    o += "<tr><td>" + HtmlEscape(x.instance) + "</td><td>" + HtmlEscape(x.job) + "</td>" +
         (r.run.empty() ? "" : std::string("<td>") + (x.in_run ? "yes" : "no") + "</td>") + "<td>" +
         HtmlEscape(x.main_bound) + "</td><td>" +
         HtmlEscape(FleetPercent(IsBoundLabel(x.main_bound) ? x.bound_share : x.coverage)) + "</td><td>" +
         HtmlEscape(x.main_resource.empty() ? "-" : x.main_resource) + "</td><td>" + HtmlEscape(worst) + "</td><td>" +
         Strip(r, x) + "</td><td>" + conf + "</td><td>" +
         HtmlEscape(x.plateau_share > 0 ? FleetPercent(x.plateau_share) + " at " + FleetNumber(x.plateau_level, "%.2f")
                                        : "-") +
         "</td><td title=\"" + HtmlEscape(x.evidence_query) + "\">" + HtmlEscape(evidence) + "</td></tr>\n";
  }
  o += "</table>\n</body></html>\n";
  return o;
}

}  // namespace bottleneckd
