// The capture's page of the HTML report (report_html.h): the figures of
// pcap_report_internal.h, drawn.
#include <algorithm>
#include <cstdio>

#include "exporters/report/html_escape.h"
#include "exporters/report/pcap_report_internal.h"
#include "exporters/report/report_html.h"
#include "exporters/report/svg_plot.h"

namespace bottleneckd {

namespace {

constexpr int kTurnaroundBins = 24;

std::string Printf(const char* fmt, double v) {
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

// Applied (requests) and echoed (replies) in each second of the capture.
PlotSpec RatePlot(const TrafficSummary& s) {
  PlotSpec p = MakePlot("pcap-rate", "applied vs echoed per second", "seconds since the first frame", "packets/s");
  PlotSeries applied = MakeSeries("applied", "#1f77b4"), echoed = MakeSeries("echoed", "#ff7f0e");
  applied.markers = echoed.markers = s.seconds.size() <= 60;
  int64_t first = s.seconds.empty() ? 0 : s.seconds.front().second;
  for (const TrafficSecond& sec : s.seconds) first = std::min(first, sec.second);
  for (const TrafficSecond& sec : s.seconds) {
    double x = static_cast<double>(sec.second - first);
    applied.x.push_back(x), applied.y.push_back(static_cast<double>(sec.requests));
    echoed.x.push_back(x), echoed.y.push_back(static_cast<double>(sec.replies));
  }
  p.series = {applied, echoed};
  return p;
}

// The turnaround histogram in kTurnaroundBins equal bins from the fastest
// to the slowest pair (the histogram's buckets are exact to 2 %); the bins
// add up to the pairs.
PlotSpec TurnaroundPlot(const TrafficSummary& s) {
  PlotSpec p = MakePlot("pcap-turnaround", "echo turnaround", "turnaround (ms)", "pairs");
  PlotSeries bins = MakeSeries("pairs", "#2ca02c", SeriesKind::kBars);
  const LatencyHistogram& h = s.turnaround;
  if (h.count() > 0) {
    double lo = h.Min(), hi = h.Max();
    int n = hi > lo ? kTurnaroundBins : 1;
    double width = hi > lo ? (hi - lo) / n : 0;
    uint64_t below = 0;
    for (int i = 1; i <= n; ++i) {
      uint64_t at = i == n ? h.count() : h.CountAtOrBelow(lo + width * i);
      at = std::max(at, below);
      bins.x.push_back((lo + width * (i - 0.5)) * 1e3);
      bins.y.push_back(static_cast<double>(at - below));
      below = at;
    }
  }
  p.series = {bins};
  return p;
}

PlotSpec SizePlot(const TrafficSummary& s) {
  PlotSpec p = MakePlot("pcap-sizes", "frame sizes (wire length)", "bytes", "frames");
  PlotSeries frames = MakeSeries("frames", "#9467bd", SeriesKind::kBars);
  for (size_t i = 0; i < kSizeBuckets; ++i) {
    p.x_categories.push_back(i + 1 < kSizeBuckets ? "<=" + std::to_string(kSizeBounds[i])
                                                  : ">" + std::to_string(kSizeBounds[i - 1]));
    frames.x.push_back(static_cast<double>(i));
    frames.y.push_back(static_cast<double>(s.sizes[i]));
  }
  p.series = {frames};
  return p;
}

void AppendCapture(const PcapReport& r, std::string* o) {
  const TrafficSummary& s = r.summary;
  *o += "<section class=\"capture\" data-path=\"" + HtmlEscape(r.info.path) + "\"><h2>" + HtmlEscape(r.info.path) +
        "</h2>\n<p>" + std::to_string(r.info.frames) + " frames in " + Printf("%.3f s", pcap_report::Duration(s)) +
        (r.info.linktype >= 0 ? ", " + HtmlEscape(r.info.linktype_name) : std::string()) + "; requests " +
        std::to_string(s.requests) + ", replies " + std::to_string(s.replies) + ", paired " + std::to_string(s.paired) +
        ", lost " + std::to_string(s.lost);
  if (auto loss = pcap_report::LossRatio(s.lost, s.paired)) *o += " (" + Printf("%.2f", *loss * 100) + " % loss)";
  if (s.turnaround.count())
    *o += "; turnaround p50 " + Printf("%.3f", s.turnaround.Percentile(50) * 1e3) + " ms, p99 " +
          Printf("%.3f", s.turnaround.Percentile(99) * 1e3) + " ms";
  if (s.ambiguous_pairs > 0)
    *o += "; " + std::to_string(s.ambiguous_pairs) +
          " replies left out of the turnaround: each could answer another request with the same payload in flight";
  *o += "</p>\n";
  if (!r.error.empty()) *o += "<p class=\"differs\">read stopped: " + HtmlEscape(r.error) + "</p>\n";
  *o += RenderPlot(RatePlot(s)) + "<div class=\"row\">" + RenderPlot(TurnaroundPlot(s)) + RenderPlot(SizePlot(s)) +
        "</div></section>\n";
}

}  // namespace

std::string PcapReportHtml(const std::vector<PcapReport>& reports) {
  std::string body = "<h1>bottleneckd capture report</h1>\n";
  std::string title = "bottleneckd capture report";
  for (const PcapReport& r : reports) AppendCapture(r, &body);
  if (reports.size() == 1) title += ": " + reports[0].info.path;
  return HtmlPage(title, body);
}

}  // namespace bottleneckd
