#include "exporters/landing_page.h"

#include <cstdio>

namespace bottleneckd {

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string RenderLandingPage(const Snapshot* snap, const BuildInfo& build) {
  std::string h =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>bottleneckd</title>\n"
      "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 10px;text-align:left}"
      ".bad{color:#b00}</style></head><body>\n"
      "<h1>bottleneckd</h1>\n<p>Linux bottleneck profiler: is this host CPU-, interrupt- or bus-bound?</p>\n"
      "<p>version " + HtmlEscape(build.version) + " (" + HtmlEscape(build.revision) + ")</p>\n"
      "<ul><li><a href=\"/metrics\">/metrics</a> (Prometheus)</li>"
      "<li><a href=\"/healthz\">/healthz</a></li></ul>\n";
  if (snap == nullptr) {
    h += "<p>No sample taken yet.</p>\n";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(snap->samples_total));
    h += "<p>Samples taken: " + std::string(buf) + "</p>\n<h2>Collectors</h2>\n<table>"
         "<tr><th>collector</th><th>state</th><th>last read</th></tr>\n";
    for (const CollectorResult& r : snap->sample.results) {
      std::snprintf(buf, sizeof(buf), "%.3f ms", r.duration_seconds * 1e3);
      h += "<tr><td>" + HtmlEscape(r.name) + "</td><td" + (r.success ? ">ok" : " class=\"bad\">" + HtmlEscape(r.error)) +
           "</td><td>" + buf + "</td></tr>\n";
    }
    h += "</table>\n";
  }
  h += "</body></html>\n";
  return h;
}

}  // namespace bottleneckd
