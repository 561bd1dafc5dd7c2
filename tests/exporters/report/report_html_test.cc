// The HTML report (exporters/report/report_html.h) over hand-built Reports
// and capture summaries: one series per drawn quantity with as many points
// as the input has values (runs for the sweep, windows for the timelines,
// seconds, bins and size buckets for a capture), the figures of the table,
// the verdict and the MLFRR as the input gives them and as ReportJson
// writes them, a page with nothing to plot saying "no data", nothing
// fetched from outside, every dynamic string escaped, and a run's on-CPU
// profile (its top functions as the JSON lists them, its flame graph).
#include "exporters/report/report_html.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "exporters/report/report_profile.h"

namespace bottleneckd::report_html_test {
namespace {

// The <svg> element whose data-plot is `id` ("" when absent).
std::string Plot(const std::string& html, const std::string& id) {
  size_t at = html.find("data-plot=\"" + id + "\"");
  if (at == std::string::npos) return "";
  size_t begin = html.rfind("<svg", at);
  return html.substr(begin, html.find("</svg>", at) - begin);
}

// data-points (or another attribute) of a series of a plot; -1 when absent.
double SeriesAttr(const std::string& html, const std::string& plot, const std::string& series,
                  const std::string& attr = "data-points") {
  std::string svg = Plot(html, plot);
  std::smatch m;
  std::regex re("<g class=\"series\" data-series=\"" + series + "\"[^>]* " + attr + "=\"([^\"]*)\"");
  return std::regex_search(svg, m, re) ? std::stod(m[1].str()) : -1;
}

std::string Fmt(const char* fmt, double v) {
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

RunReport MakeRun(const std::string& name, double offered, double delivered, std::optional<double> idle) {
  RunReport r;
  r.name = name;
  r.source = "recording";
  r.offered_packets_per_second = offered;
  r.received_packets_per_second = delivered;
  r.application_packets_per_second = delivered * 0.99;
  r.received_bits_per_second = delivered * 8 * 1024;
  r.cpu_busy = 0.5 + offered / 1e6;
  r.accounting_busy = 0.45 + offered / 1e6;
  r.soaker_idle = idle;
  r.interrupts_per_second = offered / 4;
  r.drops_per_second = offered - delivered;
  r.windows = 10;
  r.verdict.label = Bound::kCpu;
  r.verdict.resource = "cpu1";
  r.verdict.confidence = 0.87;
  r.verdict_windows = 9;
  r.verdict.evidence = {"cpu1 <busy> & \"saturated\""};
  return r;
}

Report Sweep() {
  Report r;
  r.recording = "/rec/<sweep>";
  r.info.source = "simulated";
  r.info.samples = 40;
  r.info.interval_seconds = 1;
  r.runs = {MakeRun("10k", 10000, 10000, 0.4), MakeRun("20k", 20000, 20000, std::nullopt),
            MakeRun("<script>alert(1)</script>", 30000, 24000, 0.02)};
  r.runs[2].echoed_per_second = 23000;
  // Drops per rung: none at 10k (no capture: application unknown), unknown
  // at 20k (a run stored before schema version 3), every rung losing at 30k.
  r.runs[0].rungs = {0.0, 0.0, 0.0, std::nullopt};
  r.runs[2].rungs = {100.0, 900.0, 5000.0, 120.0};
  r.mlfrr.rate = 20000;
  r.mlfrr.knee = 2;
  r.mlfrr.first_losing_rung = "socket";
  r.plateau.detected = true;
  r.plateau.first = 1;
  r.plateau.last = 2;
  r.plateau.level = 0.81;
  r.plateau.evidence = "utilisation 81 %";
  for (int i = 0; i < 7; ++i) {
    TimelinePoint p;
    p.t = i;
    p.offered_packets_per_second = 1000.0 * i;
    p.cpu_busy = 0.1 * i;
    p.accounting_busy = 0.08 * i;
    if (i % 3 == 0) p.soaker_idle = 1 - 0.1 * i;
    if (i == 4) p.bus_utilisation = std::numeric_limits<double>::quiet_NaN();  // skipped, not drawn
    if (i == 5) p.bus_utilisation = 0.3;
    if (i < 6) {  // the last window: a row stored before drops per rung were kept
      p.rungs.nic = 2.0 * i;
      p.rungs.backlog = i >= 4 ? 50.0 * i : 0;
      p.rungs.socket = i >= 3 ? 300.0 * i : 0;
      if (i % 2) p.rungs.application = 10.0 * i;
    }
    p.drops_per_second = 400.0 * i;
    p.first_losing_rung = i == 5 ? "backlog" : i >= 3 ? "socket" : "none";
    r.timeline.push_back(p);
  }
  return r;
}

TEST(ReportHtml, SeriesHaveOnePointPerRunAndPerWindow) {
  Report r = Sweep();
  std::string html = ReportHtml(r);
  size_t runs = r.runs.size(), idle = 0, echoed = 0;
  for (const RunReport& x : r.runs) idle += x.soaker_idle.has_value(), echoed += x.echoed_per_second.has_value();
  for (const char* s : {"offered", "received", "application", "cpu", "accounting"})
    EXPECT_EQ(SeriesAttr(html, "sweep", s), runs) << s;
  EXPECT_EQ(SeriesAttr(html, "sweep", "soaker-idle"), idle);
  EXPECT_EQ(SeriesAttr(html, "sweep", "echoed"), echoed);

  size_t windows = r.timeline.size(), soaker = 0, bus = 0;
  for (const TimelinePoint& p : r.timeline) {
    soaker += p.soaker_idle.has_value();
    bus += p.bus_utilisation && std::isfinite(*p.bus_utilisation);
  }
  for (const char* s : {"offered", "received", "application"}) EXPECT_EQ(SeriesAttr(html, "timeline-load", s), windows);
  EXPECT_EQ(SeriesAttr(html, "timeline-load", "echoed"), 0);
  EXPECT_EQ(SeriesAttr(html, "timeline-cpu", "cpu"), windows);
  EXPECT_EQ(SeriesAttr(html, "timeline-cpu", "soaker-idle"), soaker);
  EXPECT_EQ(SeriesAttr(html, "timeline-cpu", "hidden"), soaker);
  EXPECT_EQ(SeriesAttr(html, "timeline-drops", "drops"), windows);
  EXPECT_EQ(SeriesAttr(html, "timeline-interrupts", "interrupts"), windows);
  EXPECT_EQ(SeriesAttr(html, "timeline-bus", "bus"), bus);
  // Each run shaded on the timelines, the plateau and the two marks on the sweep.
  std::string cpu = Plot(html, "timeline-cpu");
  size_t bands = 0;
  for (size_t at = cpu.find("data-band=\"run\""); at != std::string::npos; at = cpu.find("data-band=\"run\"", at + 1))
    ++bands;
  EXPECT_EQ(bands, runs);
  EXPECT_NE(Plot(html, "sweep").find("data-band=\"plateau\""), std::string::npos);
  EXPECT_NE(Plot(html, "sweep").find("data-mark=\"mlfrr\" data-x=\"" + Fmt("%g", *r.mlfrr.rate) + "\""),
            std::string::npos);
  EXPECT_NE(
      Plot(html, "sweep").find("data-mark=\"knee\" data-x=\"" + Fmt("%g", r.runs[2].offered_packets_per_second) + "\""),
      std::string::npos);
  EXPECT_EQ(html.find("nan"), std::string::npos);
}

// A rung's drops of a run or a window, by its name.
std::optional<double> Rung(const RungDrops& d, const std::string& rung) {
  return rung == "nic" ? d.nic : rung == "backlog" ? d.backlog : rung == "socket" ? d.socket : d.application;
}

// How many of `rows` (runs or timeline points) have the rung, and its total.
template <typename Row>
std::pair<size_t, double> CountAndTotal(const std::vector<Row>& rows, const std::string& rung) {
  std::pair<size_t, double> out{0, 0};
  for (const Row& x : rows)
    if (std::optional<double> v = Rung(x.rungs, rung)) ++out.first, out.second += *v;
  return out;
}

// The data-series count of a plot; -1 when absent.
int DeclaredSeries(const std::string& html, const std::string& plot) {
  std::smatch m;
  std::string svg = Plot(html, plot);
  return std::regex_search(svg, m, std::regex("data-series=\"([0-9]+)\"")) ? std::stoi(m[1].str()) : -1;
}

TEST(ReportHtml, DropsPerRungPerRunAndPerWindow) {
  Report r = Sweep();
  std::string html = ReportHtml(r);
  const std::vector<std::string> rungs = {"nic", "backlog", "socket", "application"};
  // Below the sweep: one stacked bar series per rung, a bar per run that has the rung.
  EXPECT_EQ(DeclaredSeries(html, "loss"), 4);
  for (const std::string& rung : rungs) {
    auto [n, total] = CountAndTotal(r.runs, rung);
    EXPECT_EQ(SeriesAttr(html, "loss", rung), n) << rung;
    EXPECT_EQ(SeriesAttr(html, "loss", rung, "data-total"), total) << rung;
  }
  // The knee's first losing rung is the one emphasised, and named in the legend.
  std::string loss = Plot(html, "loss");
  EXPECT_NE(loss.find("data-series=\"" + r.mlfrr.first_losing_rung + "\" data-kind=\"bars\""), std::string::npos);
  EXPECT_TRUE(
      std::regex_search(loss, std::regex("data-series=\"" + r.mlfrr.first_losing_rung + "\"[^>]*data-emphasis=\"1\"")));
  EXPECT_NE(loss.find(r.mlfrr.first_losing_rung + " (first to lose at the knee)"), std::string::npos);
  EXPECT_NE(loss.find("data-mark=\"knee\""), std::string::npos);

  // The timeline: the all-rungs total and one series per rung, a point per window that has it.
  EXPECT_EQ(DeclaredSeries(html, "timeline-drops"), 5);
  EXPECT_EQ(SeriesAttr(html, "timeline-drops", "drops"), r.timeline.size());
  std::map<std::string, size_t> first;
  for (const TimelinePoint& p : r.timeline)
    if (p.first_losing_rung != "none") ++first[p.first_losing_rung];
  std::string most;
  for (const auto& [rung, n] : first)
    if (most.empty() || n > first[most]) most = rung;
  for (const std::string& rung : rungs) {
    auto [n, total] = CountAndTotal(r.timeline, rung);
    EXPECT_EQ(SeriesAttr(html, "timeline-drops", rung), n) << rung;
    EXPECT_DOUBLE_EQ(SeriesAttr(html, "timeline-drops", rung, "data-total"), total) << rung;
    bool emphasised = std::regex_search(Plot(html, "timeline-drops"),
                                        std::regex("data-series=\"" + rung + "\"[^>]*data-emphasis=\"1\""));
    EXPECT_EQ(emphasised, rung == most) << rung;
  }
  EXPECT_NE(Plot(html, "timeline-drops")
                .find("first to lose " + most + " (" + std::to_string(first[most]) + " of " +
                      std::to_string(r.timeline.size()) + " windows)"),
            std::string::npos);

  // The JSON report carries the same figures: each run's and each window's.
  std::string json = ReportJson(r);
  EXPECT_NE(json.find("\"rung_drops_per_second\":{\"nic\":100,\"backlog\":900,\"socket\":5000,\"application\":120}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"rung_drops_per_second\":{\"nic\":null,\"backlog\":null,\"socket\":null,\"application\":null}"),
            std::string::npos);
  size_t entries = 0;
  for (size_t at = json.find("\"first_losing_rung\"", json.find("\"timeline\":[")); at != std::string::npos;
       at = json.find("\"first_losing_rung\"", at + 1))
    ++entries;
  EXPECT_EQ(entries, r.timeline.size());
}

// Two runs two minutes apart, a window a second: the timeline's lines and
// areas stop at the gap (two pieces each) instead of a straight line across
// two minutes with no sample; one window late by a second is no gap.
TEST(ReportHtml, TimelineLinesBreakWhereNoWindowWasKept) {
  Report r = Sweep();
  r.timeline.clear();
  for (double t : {0.0, 1.0, 2.0, 3.0, 5.0, 6.0, 126.0, 127.0, 128.0}) {
    TimelinePoint p;
    p.t = 1'700'000'000 + t;
    p.offered_packets_per_second = 1000;
    p.soaker_idle = 0.5;
    r.timeline.push_back(p);
  }
  std::string html = ReportHtml(r);
  EXPECT_EQ(SeriesAttr(html, "timeline-load", "offered"), 9);
  EXPECT_EQ(SeriesAttr(html, "timeline-load", "offered", "data-pieces"), 2);
  EXPECT_EQ(SeriesAttr(html, "timeline-cpu", "soaker-idle", "data-pieces"), 2);  // the shaded area too
  EXPECT_EQ(SeriesAttr(html, "sweep", "received", "data-pieces"), 1);            // the sweep is not a timeline
  EXPECT_NE(html.find("lines stop where no window was kept for over 3 s"), std::string::npos);
}

TEST(ReportHtml, CaptionsSayHowHiddenTimeAndLossAreDerived) {
  std::string html = ReportHtml(Sweep());
  EXPECT_NE(html.find("hidden is derived here, not stored: /proc/stat idle less the soaker&#39;s delivered idle"),
            std::string::npos);
  EXPECT_NE(html.find("nic, backlog and socket stack to the run&#39;s drops/s"), std::string::npos);
}

TEST(ReportHtml, FiguresMatchTheInputAndTheJson) {
  Report r = Sweep();
  std::string html = ReportHtml(r);
  std::string json = ReportJson(r);
  std::string mlfrr = Fmt("%.0f", *r.mlfrr.rate);
  EXPECT_NE(html.find("data-mlfrr=\"" + mlfrr + "\""), std::string::npos);
  EXPECT_NE(html.find("MLFRR: " + mlfrr + " packets/s offered with no loss"), std::string::npos);
  EXPECT_NE(json.find("\"mlfrr_packets_per_second\":" + mlfrr), std::string::npos) << json;
  EXPECT_NE(html.find("first at the socket rung"), std::string::npos);
  EXPECT_NE(json.find("\"timeline_points\":" + std::to_string(r.timeline.size())), std::string::npos);
  for (const RunReport& x : r.runs) {
    // The table: received in Mbps, application in kpps, CPU % to one decimal.
    EXPECT_NE(html.find("<td>" + Fmt("%.1fMbps", x.received_bits_per_second / 1e6) + "</td>"), std::string::npos);
    EXPECT_NE(html.find("<td>" + Fmt("%.1fkpps", x.application_packets_per_second / 1e3) + "</td>"), std::string::npos);
    EXPECT_NE(html.find("<td>" + Fmt("%.1f", x.cpu_busy * 100) + "</td>"), std::string::npos);
  }
  std::string verdict = "data-label=\"cpu\" data-resource=\"cpu1\" data-confidence=\"0.87\"";
  size_t cards = 0;
  for (size_t at = html.find(verdict); at != std::string::npos; at = html.find(verdict, at + 1)) ++cards;
  EXPECT_EQ(cards, r.runs.size());
  EXPECT_NE(json.find("\"label\":\"cpu\",\"resource\":\"cpu1\",\"confidence\":0.87"), std::string::npos) << json;
}

TEST(ReportHtml, EscapedAndSelfContained) {
  std::string html = ReportHtml(Sweep());
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("cpu1 &lt;busy&gt; &amp; &quot;saturated&quot;"), std::string::npos);
  EXPECT_NE(html.find("/rec/&lt;sweep&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  // The only address is SVG's namespace name, which is never fetched.
  std::string rest = std::regex_replace(html, std::regex("http://www.w3.org/2000/svg"), "");
  EXPECT_EQ(rest.find("http"), std::string::npos);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
}

TEST(ReportHtml, NothingToPlotSaysNoData) {
  Report r;
  r.store = "/var/lib/bottleneckd/runs.db";
  std::string html = ReportHtml(r);
  for (const char* p : {"sweep", "loss", "timeline-load", "timeline-cpu", "timeline-bus"}) {
    std::string svg = Plot(html, p);
    ASSERT_FALSE(svg.empty()) << p;
    EXPECT_NE(svg.find("data-empty=\"1\""), std::string::npos) << p;
    EXPECT_NE(svg.find(">no data<"), std::string::npos) << p;
  }
  EXPECT_NE(html.find("(no runs)"), std::string::npos);
  EXPECT_NE(html.find("MLFRR: no runs"), std::string::npos);
  EXPECT_NE(html.find("data-mlfrr=\"\""), std::string::npos);

  // One run: one point on every sweep series.
  r.runs = {MakeRun("only", 5000, 5000, 0.5)};
  html = ReportHtml(r);
  EXPECT_EQ(SeriesAttr(html, "sweep", "received"), 1);
  EXPECT_EQ(Plot(html, "sweep").find("data-empty"), std::string::npos);
}

// --run NAME's profile: the section after the verdicts with the top
// functions in the JSON's names and order and the flame graph; a run with
// no samples says the profiler was not loaded; a report of no run has none.
TEST(ReportHtml, ProfileSectionWithTopFunctionsAndFlameGraph) {
  Report r = Sweep();
  r.profile_of = "fp<1>";
  AddFolded("hot;main (hot);copy_loop (hot)", 90, &r.profile);
  AddFolded("hot;main (hot)", 6, &r.profile);
  AddFolded("hot;read [kernel];<&>", 4, &r.profile);
  std::string html = ReportHtml(r);
  size_t section = html.find("<section id=\"profile\"");
  ASSERT_NE(section, std::string::npos);
  EXPECT_GT(section, html.find("<section id=\"runs\""));
  EXPECT_NE(html.find("<h2>On-CPU profile of run &#39;fp&lt;1&gt;&#39;</h2>", section), std::string::npos);
  EXPECT_NE(html.find("<p>100 on-CPU samples while the run ran", section), std::string::npos);
  std::vector<std::string> table;
  std::regex cell("<td class=\"function\">([^<]*)</td>");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell); it != std::sregex_iterator(); ++it)
    table.push_back((*it)[1]);
  EXPECT_EQ(table, (std::vector<std::string>{"copy_loop (hot)", "main (hot)", "&lt;&amp;&gt;"}));
  std::string json = ReportJson(r);
  EXPECT_NE(json.find("\"top_functions\":[{\"function\":\"copy_loop (hot)\",\"samples\":90,\"share\":0.9},"
                      "{\"function\":\"main (hot)\",\"samples\":6,\"share\":0.06},{\"function\":\"<&>\""),
            std::string::npos)
      << json;
  size_t flame = html.find("<svg class=\"flame\"", section);
  ASSERT_NE(flame, std::string::npos);
  EXPECT_LT(flame, html.find("</section>", section));
  for (const std::string& name : table)
    EXPECT_NE(html.find("<g class=\"frame\" data-name=\"" + name + "\"", flame), std::string::npos) << name;
  EXPECT_EQ(html.find("<&>"), std::string::npos);

  // An empty profile says why: no reading (not loaded), readings that
  // walked no stack, or a store too old to tell.
  r.profile = FoldedProfile();
  r.profile_readings = 0;
  html = ReportHtml(r);
  section = html.find("<section id=\"profile\"");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(html.find("the profiler was not loaded while the run ran", section), std::string::npos);
  r.profile_readings = 12;
  EXPECT_NE(ReportHtml(r).find("No samples: the profiler was loaded for 12 of the run&#39;s windows and walked no "
                               "stack: collectors.profile.stacks"),
            std::string::npos);
  EXPECT_NE(ReportJson(r).find("\"readings\":12,\"empty_because\":\"the profiler was loaded for 12"),
            std::string::npos);
  r.profile_readings.reset();
  EXPECT_NE(ReportHtml(r).find("it cannot tell whether the profiler was loaded"), std::string::npos);
  r.profile_readings = 0;
  html = ReportHtml(r);
  EXPECT_EQ(html.find("<svg class=\"flame\""), std::string::npos);
  EXPECT_EQ(html.find("<table class=\"top-functions\""), std::string::npos);

  EXPECT_EQ(ReportHtml(Sweep()).find("id=\"profile\""), std::string::npos);
}

// --run NAME's off-CPU stacks: the section after the on-CPU profile, the
// top waits ("THREAD: CALL [OBJECT]", the call the innermost user frame) in
// the JSON's and the text's order, and the flame graph in microseconds; a run
// with none says why, in the three forms; a report of no run has none.
TEST(ReportHtml, OffCpuSectionWithTopWaitsAndFlameGraph) {
  Report r = Sweep();
  r.profile_of = "peer";
  AddFolded(
      "udpecho;main (echo);ask_backend (echo);recv (libc.so.6);__sys_recvfrom [kernel];schedule [kernel];"
      "[udp 10.0.0.2:7 -> 10.0.0.9:9]",
      750'000, &r.offcpu);
  AddFolded("udpecho;main (echo);ask_backend (echo);recv (libc.so.6);__sys_recvfrom [kernel];[preempted]", 50'000,
            &r.offcpu);
  AddFolded("udpecho;[truncated];nanosleep (libc.so.6);do_nanosleep [kernel]", 150'000, &r.offcpu);
  AddFolded("kworker;worker_thread [kernel];schedule [kernel]", 50'000, &r.offcpu);
  const std::vector<FunctionSamples> want = {{"udpecho: recv (libc.so.6) [udp 10.0.0.2:7 -> 10.0.0.9:9]", 750'000},
                                             {"udpecho: nanosleep (libc.so.6)", 150'000},
                                             {"kworker: (kernel)", 50'000},
                                             {"udpecho: recv (libc.so.6) [preempted]", 50'000}};
  EXPECT_EQ(TopOffCpuWaits(r.offcpu, 10), want);
  // A stack whose user part the map did not keep says so, not "(kernel)".
  FoldedProfile lost;
  AddFolded("udpecho;[user stack not kept];__sys_recvfrom [kernel];[udp 10.0.0.2:7 -> 10.0.0.9:9]", 10, &lost);
  EXPECT_EQ(TopOffCpuWaits(lost, 10),
            (std::vector<FunctionSamples>{{"udpecho: [user stack not kept] [udp 10.0.0.2:7 -> 10.0.0.9:9]", 10}}));
  std::string html = ReportHtml(r);
  size_t section = html.find("<section id=\"offcpu\" data-run=\"peer\" data-microseconds=\"1000000\">");
  ASSERT_NE(section, std::string::npos) << html.substr(html.find("<section id=\"profile\""));
  EXPECT_GT(section, html.find("<section id=\"profile\""));
  EXPECT_NE(html.find("<p>1.00 s off the CPU while the run ran", section), std::string::npos);
  std::regex cell("<td class=\"function\">([^<]*)</td>");
  std::vector<std::string> table;
  const std::string part = html.substr(section);
  for (auto it = std::sregex_iterator(part.begin(), part.end(), cell); it != std::sregex_iterator(); ++it)
    table.push_back((*it)[1]);
  ASSERT_EQ(table.size(), want.size());
  EXPECT_EQ(table[0], "udpecho: recv (libc.so.6) [udp 10.0.0.2:7 -&gt; 10.0.0.9:9]");
  size_t flame =
      html.find("<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" data-samples=\"1000000\"", section);
  ASSERT_NE(flame, std::string::npos);
  EXPECT_NE(html.find(">off-CPU flame graph: 1000000 us; ", flame), std::string::npos);
  EXPECT_NE(html.find("<g class=\"frame\" data-name=\"[udp 10.0.0.2:7 -&gt; 10.0.0.9:9]\"", flame), std::string::npos);
  EXPECT_NE(html.find("(750000 us, 75.00 %)", flame), std::string::npos);
  const std::string json = ReportJson(r);
  EXPECT_NE(
      json.find(
          "\"offcpu\":{\"run\":\"peer\",\"microseconds\":1000000,\"stacks\":4,\"readings\":null,\"empty_because\":null,"
          "\"top_waits\":[{\"wait\":\"udpecho: recv (libc.so.6) [udp 10.0.0.2:7 -> 10.0.0.9:9]\","
          "\"microseconds\":750000,\"share\":0.75},"),
      std::string::npos)
      << json;
  const std::string text = ReportText(r);
  EXPECT_NE(text.find("\noff-CPU stacks of run 'peer': 1.00 s off the CPU (its target threads together); where they "
                      "waited:\n    75.0 %  udpecho: recv (libc.so.6) [udp 10.0.0.2:7 -> 10.0.0.9:9]\n"
                      "    15.0 %  udpecho: nanosleep (libc.so.6)\n"),
            std::string::npos)
      << text;

  // Empty stacks say why: offcpu not loaded (no reading), loaded and no
  // time off the CPU measured, or a store too old to tell.
  r.offcpu = FoldedProfile();
  r.offcpu_readings = 0;
  EXPECT_NE(ReportHtml(r).find("<p class=\"no-profile\">None: offcpu was not loaded while the run ran"),
            std::string::npos);
  EXPECT_NE(ReportJson(r).find("\"offcpu\":{\"run\":\"peer\",\"microseconds\":0,\"stacks\":0,\"readings\":0,"
                               "\"empty_because\":\"offcpu was not loaded while the run ran"),
            std::string::npos);
  EXPECT_NE(ReportText(r).find("off-CPU stacks of run 'peer': none (offcpu was not loaded"), std::string::npos);
  r.offcpu_readings = 9;
  EXPECT_NE(ReportText(r).find("none (offcpu was loaded for 9 of the run's windows and measured no time off the CPU"),
            std::string::npos);
  r.offcpu_readings.reset();
  EXPECT_NE(ReportText(r).find("none (the run store holds no count of offcpu's readings for this run"),
            std::string::npos);
  EXPECT_NE(ReportJson(r).find("\"readings\":null,\"empty_because\""), std::string::npos);
  EXPECT_EQ(ReportHtml(Sweep()).find("id=\"offcpu\""), std::string::npos);
  EXPECT_NE(ReportJson(Sweep()).find("\"offcpu\":null"), std::string::npos);
}

TEST(PcapReportHtml, RateTurnaroundAndSizes) {
  PcapReport r;
  r.info.path = "/tmp/<cap>.pcap";
  r.info.frames = 12;
  TrafficSummary& s = r.summary;
  s.packets = 12;
  uint64_t requests = 0, replies = 0;
  for (int i = 0; i < 3; ++i) {
    TrafficSecond sec;
    sec.second = 1700000000 + i;
    sec.requests = 2 + i;
    sec.replies = 1 + i;
    requests += sec.requests, replies += sec.replies;
    s.seconds.push_back(sec);
  }
  s.sizes[0] = 5;
  s.sizes[5] = 7;
  const double turnarounds[] = {0.0001, 0.0002, 0.0002, 0.0009, 0.004};
  for (double t : turnarounds) s.turnaround.Add(t);
  std::string html = PcapReportHtml({r});
  EXPECT_EQ(SeriesAttr(html, "pcap-rate", "applied"), s.seconds.size());
  EXPECT_EQ(SeriesAttr(html, "pcap-rate", "echoed"), s.seconds.size());
  EXPECT_EQ(SeriesAttr(html, "pcap-rate", "applied", "data-total"), requests);
  EXPECT_EQ(SeriesAttr(html, "pcap-rate", "echoed", "data-total"), replies);
  EXPECT_EQ(SeriesAttr(html, "pcap-turnaround", "pairs", "data-total"), std::size(turnarounds));
  EXPECT_EQ(SeriesAttr(html, "pcap-sizes", "frames"), kSizeBuckets);
  EXPECT_EQ(SeriesAttr(html, "pcap-sizes", "frames", "data-total"), 12);
  EXPECT_NE(html.find("/tmp/&lt;cap&gt;.pcap"), std::string::npos);
  EXPECT_EQ(html.find("<cap>"), std::string::npos);

  // No pairs: the turnaround plot says so.
  r.summary.turnaround = LatencyHistogram();
  html = PcapReportHtml({r});
  EXPECT_NE(Plot(html, "pcap-turnaround").find(">no data<"), std::string::npos);
}

}  // namespace
}  // namespace bottleneckd::report_html_test
