#include "exporters/http/landing_page.h"

#include <cstdio>
#include <ctime>

namespace bottleneckd {

namespace {

// Each NIC's bus path: every link, its capacity, and how full the model says
// it is over the last window.
void AppendBusPaths(const Snapshot& snap, std::string* h) {
  if (!snap.bus_paths || snap.bus_paths->empty()) return;
  const BusEstimate* bus = snap.window && snap.bus ? &*snap.bus : nullptr;
  *h +=
      "<h2>Bus paths</h2>\n<table><tr><th>interface</th><th>link (upstream end)</th><th>bus</th><th>speed</th>"
      "<th>width</th><th>capacity</th><th>utilisation</th><th>notes</th></tr>\n";
  char buf[64];
  for (const BusPath& p : *snap.bus_paths) {
    for (size_t i = 0; i < p.links.size(); ++i) {
      const BusLink& l = p.links[i];
      std::snprintf(buf, sizeof(buf), "%.1f MB/s", l.raw_bytes_per_second / 1e6);
      std::string util = "-";
      const BusLinkEstimate* e = bus ? bus->FindLink(l.device) : nullptr;
      if (e && e->known()) {
        char u[32];
        std::snprintf(u, sizeof(u), "%.1f %%", e->load.utilisation * 100);
        util = u;
      }
      std::string notes;
      if (l.downtrained) notes += "downtrained from " + l.MaxSpeedLabel() + " x" + std::to_string(l.max_width) + "; ";
      if (l.emulated) notes += "emulated (no physical limit); ";
      if (i == p.narrowest && p.links.size() > 1) notes += "narrowest; ";
      *h += "<tr><td>" + HtmlEscape(i == 0 ? p.interface : "") + "</td><td>" + HtmlEscape(l.device) + "</td><td>" +
            l.KindLabel() + std::string("</td><td>") + HtmlEscape(l.SpeedLabel()) + "</td><td>" +
            HtmlEscape(l.WidthLabel()) + "</td><td>" + buf + "</td><td" + (l.downtrained ? " class=\"bad\">" : ">") +
            util + "</td><td>" + HtmlEscape(notes) + "</td></tr>\n";
    }
  }
  *h += "</table>\n";
}

// The live verdict of the latest window (after hysteresis), its evidence and
// the plateau detector: what `bottleneckd --report` says of a run, for now.
void AppendVerdict(const Snapshot& snap, std::string* h) {
  *h += "<h2>Verdict</h2>\n";
  if (!snap.verdict) {
    *h += "<p>No window yet: the first verdict comes one interval after start.</p>\n";
    return;
  }
  const Verdict& v = *snap.verdict;
  char conf[32];
  std::snprintf(conf, sizeof conf, "%.2f", v.confidence);
  *h += "<p class=\"verdict\"><b>" + std::string(BoundName(v.label)) + "</b>" +
        (v.resource.empty() ? "" : " " + HtmlEscape(v.resource)) + " (confidence " + conf + ")</p>\n";
  if (!v.evidence.empty() || !v.reasons.empty()) {
    *h += "<ul>\n";
    for (const std::string& e : v.evidence) *h += "<li>" + HtmlEscape(e) + "</li>\n";
    for (const std::string& e : v.reasons) *h += "<li>? " + HtmlEscape(e) + "</li>\n";
    *h += "</ul>\n";
  }
  // While a change waits out the hysteresis, the last window says something
  // else: show what, so the page is not a window behind the metrics.
  if (snap.window_verdict && (snap.window_verdict->label != v.label || snap.window_verdict->resource != v.resource)) {
    const Verdict& w = *snap.window_verdict;
    std::snprintf(conf, sizeof conf, "%.2f", w.confidence);
    *h += "<p>The last window alone says <b>" + std::string(BoundName(w.label)) + "</b>" +
          (w.resource.empty() ? "" : " " + HtmlEscape(w.resource)) + " (confidence " + conf +
          "); the verdict changes when the next windows agree.</p>\n";
    if (!w.evidence.empty()) {
      *h += "<ul>\n";
      for (const std::string& e : w.evidence) *h += "<li>" + HtmlEscape(e) + "</li>\n";
      *h += "</ul>\n";
    }
  }
  if (snap.plateau && snap.plateau->detected)
    *h += "<p class=\"bad\">Utilisation plateau: " + HtmlEscape(snap.plateau->evidence) + "</p>\n";
  *h += "<p>Runs: <code>bottleneckd run -- CMD</code>, <code>bottleneckd --report</code>.</p>\n";
}

// The last hour's window runs, one row each: when (UTC), the verdict, its
// confidence, and why: the first reason of an undetermined one (else its
// strongest evidence), so no row says "undetermined" and nothing more.
void AppendHistory(const VerdictHistory& history, std::string* h) {
  *h += "<h2>Verdicts, the last hour</h2>\n";
  if (!history.error.empty()) {
    *h += "<p>Run store not read: " + HtmlEscape(history.error) + "</p>\n";
    return;
  }
  if (history.windows.empty()) {
    *h += "<p>No window run ended in the last hour (runs.window sets their length).</p>\n";
    return;
  }
  *h +=
      "<table class=\"history\"><tr><th>from (UTC)</th><th>to</th><th>verdict</th><th>confidence</th>"
      "<th>why</th></tr>\n";
  for (const RunReport& r : history.windows) {
    char from[32], to[32], conf[32];
    time_t a = static_cast<time_t>(r.start), b = static_cast<time_t>(r.end);
    struct tm ta, tb;
    gmtime_r(&a, &ta);
    gmtime_r(&b, &tb);
    std::strftime(from, sizeof from, "%H:%M:%S", &ta);
    std::strftime(to, sizeof to, "%H:%M:%S", &tb);
    std::snprintf(conf, sizeof conf, "%.2f", r.verdict.confidence);
    *h += "<tr data-label=\"" + std::string(BoundName(r.verdict.label)) + "\"><td>" + from + "</td><td>" + to +
          "</td><td><b>" + BoundName(r.verdict.label) + "</b>" +
          (r.verdict.resource.empty() ? "" : " " + HtmlEscape(r.verdict.resource)) + "</td><td>" + conf + "</td><td>";
    const std::vector<std::string>& why =
        r.verdict.label == Bound::kUndetermined && !r.verdict.reasons.empty() ? r.verdict.reasons : r.verdict.evidence;
    *h += (why.empty() ? std::string("(no evidence stored)") : HtmlEscape(why.front())) + "</td></tr>\n";
  }
  *h += "</table>\n";
}

}  // namespace

std::string RenderLandingPage(const Snapshot* snap, const BuildInfo& build, const VerdictHistory* history) {
  std::string h =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>bottleneckd</title>\n"
      "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 10px;text-align:left}"
      ".bad{color:#b00}</style></head><body>\n"
      "<h1>bottleneckd</h1>\n<p>Linux bottleneck profiler: is this host CPU-, interrupt- or bus-bound?</p>\n"
      "<p>version " +
      HtmlEscape(build.version) + " (" + HtmlEscape(build.revision) +
      ")</p>\n"
      "<ul><li><a href=\"/metrics\">/metrics</a> (Prometheus)</li>"
      "<li><a href=\"/healthz\">/healthz</a></li>";
  if (history) h += "<li><a href=\"/report\">/report</a> (the HTML report of the last runs)</li>";
  h += "</ul>\n";
  if (snap == nullptr) {
    h += "<p>No sample taken yet.</p>\n";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(snap->samples_total));
    h += "<p>Samples taken: " + std::string(buf) + "</p>\n";
    if (!snap->soaker_state.empty()) h += "<p>Soaker: " + HtmlEscape(snap->soaker_state) + "</p>\n";
    AppendVerdict(*snap, &h);
    h += "<h2>Collectors</h2>\n<table>"
         "<tr><th>collector</th><th>state</th><th>last read</th></tr>\n";
    for (const CollectorResult& r : snap->sample.results) {
      std::snprintf(buf, sizeof(buf), "%.3f ms", r.duration_seconds * 1e3);
      h += "<tr><td>" + HtmlEscape(r.name) + "</td><td" +
           (r.success ? ">ok" : " class=\"bad\">" + HtmlEscape(r.error)) + "</td><td>" + buf + "</td></tr>\n";
    }
    h += "</table>\n";
    AppendBusPaths(*snap, &h);
  }
  if (history) AppendHistory(*history, &h);
  h += "</body></html>\n";
  return h;
}

}  // namespace bottleneckd
