// The HTML report (`bottleneckd --report --format html`, `pcap FILE...
// --format html`): one self-contained page, inline SVG plots drawn by
// svg_plot.h and CSS in the page itself, no script and nothing fetched, so
// it reads the same offline and in a mail. Every dynamic string is
// HTML-escaped. docs/report.md ("HTML") lists the plots and their data
// attributes.
#pragma once

#include <string>
#include <vector>

#include "exporters/report/pcap_report.h"
#include "exporters/report/report.h"

namespace bottleneckd {

// The run report: ReportHeading, the plateau / MLFRR / sensitivity lines,
// the sweep plot (offered on x; delivered, application and echoed rates
// left, CPU busy, /proc/stat busy and soaker idle right; the knee and the
// MLFRR marked, the plateau shaded) over the loss per rung per run (stacked
// bars, the knee's first losing rung emphasised), the sweep table
// (SweepTableCells), the timelines of r.timeline (load, CPU with soaker
// idle and hidden time, drops per rung with the first losing rung named,
// interrupts, bus) with the runs shaded, each run's verdict with its
// evidence and, for --run NAME (r.profile_of), the run's on-CPU profile: its
// top functions and flame graph (flame_graph.h), or a line saying it has none.
std::string ReportHtml(const Report& r);

// Each capture: its counts, applied vs echoed per second, the turnaround
// distribution and the packet sizes.
std::string PcapReportHtml(const std::vector<PcapReport>& reports);

// The page around a body: doctype, charset, title and the report's CSS.
std::string HtmlPage(const std::string& title, const std::string& body);

}  // namespace bottleneckd
