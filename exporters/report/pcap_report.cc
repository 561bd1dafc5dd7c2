#include "exporters/report/pcap_report.h"

#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <functional>
#include <string>

#include "exporters/report/pcap_report_internal.h"
#include "exporters/report/report_html.h"

namespace bottleneckd {
namespace {

using pcap_report::EchoDeficit;
using pcap_report::LossRatio;
using pcap_report::PerSecond;
using pcap_report::SecondRow;

// Above this many seconds the table shows rows of several seconds each.
inline constexpr int64_t kMaxRows = 120;

std::string Printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Printf(const char* fmt, ...) {
  char b[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  return b;
}

std::string U(uint64_t v) { return std::to_string(v); }

std::string Percent(std::optional<double> ratio) { return ratio ? Printf("%.2f", *ratio * 100) : "-"; }

std::string Rate(std::optional<double> v, const char* fmt) { return v ? Printf(fmt, *v) : "-"; }

// The per-second rows, `*width` seconds each (1 unless there are more than
// kMaxRows seconds); seconds without frames are rows of zeros.
std::vector<SecondRow> Rows(const std::vector<TrafficSecond>& seconds, int64_t* width) {
  *width = 1;
  if (seconds.empty()) return {};
  int64_t first = seconds.front().second, last = first;
  for (const TrafficSecond& s : seconds) {
    first = std::min(first, s.second);
    last = std::max(last, s.second);
  }
  int64_t span = last - first + 1;
  int64_t k = span <= kMaxRows ? 1 : (span + kMaxRows - 1) / kMaxRows;
  *width = k;
  std::vector<SecondRow> rows(static_cast<size_t>((span + k - 1) / k));
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].offset = static_cast<int64_t>(i) * k;
    rows[i].width = std::min(k, span - rows[i].offset);
  }
  for (const TrafficSecond& s : seconds) {
    SecondRow& r = rows[static_cast<size_t>((s.second - first) / k)];
    r.requests += s.requests;
    r.replies += s.replies;
    r.request_bytes += s.request_bytes;
    r.reply_bytes += s.reply_bytes;
  }
  return rows;
}

double Mbits(uint64_t bytes, double seconds) { return static_cast<double>(bytes) * 8 / 1e6 / seconds; }

void AppendTable(const PcapReport& r, std::string* o) {
  const TrafficSummary& s = r.summary;
  int64_t k = 1;
  std::vector<SecondRow> rows = Rows(s.seconds, &k);
  if (k > 1) {
    *o += Printf("  %zu rows of %lld s each (rates are the means over each row)\n", rows.size(),
                 static_cast<long long>(k));
  }
  *o += Printf("  %-13s %11s %11s %14s %14s %8s\n", "second", "applied/s", "echoed/s", "applied Mbit/s",
               "echoed Mbit/s", "loss %");
  for (const SecondRow& row : rows) {
    double w = static_cast<double>(row.width);
    std::string label = row.width > 1 ? Printf("%lld-%lld", static_cast<long long>(row.offset),
                                               static_cast<long long>(row.offset + row.width - 1))
                                      : std::to_string(row.offset);
    *o += Printf("  %-13s %11.6g %11.6g %14.3f %14.3f %8s\n", label.c_str(), static_cast<double>(row.requests) / w,
                 static_cast<double>(row.replies) / w, Mbits(row.request_bytes, w), Mbits(row.reply_bytes, w),
                 Percent(EchoDeficit(row.requests, row.replies)).c_str());
  }
  uint64_t request_bytes = 0, reply_bytes = 0;
  pcap_report::EchoBytes(s, &request_bytes, &reply_bytes);
  auto mbits = [&](uint64_t bytes) -> std::optional<double> {
    auto v = PerSecond(static_cast<double>(bytes), s);
    if (v) *v = *v * 8 / 1e6;
    return v;
  };
  *o += Printf("  %-13s %11s %11s %14s %14s %8s\n", "overall", Rate(PerSecond(s.requests, s), "%.6g").c_str(),
               Rate(PerSecond(s.replies, s), "%.6g").c_str(), Rate(mbits(request_bytes), "%.3f").c_str(),
               Rate(mbits(reply_bytes), "%.3f").c_str(), Percent(EchoDeficit(s.requests, s.replies)).c_str());
  *o += "  requests " + U(s.requests) + ", replies " + U(s.replies) + "; UDP echo: paired " + U(s.paired) + ", lost " +
        U(s.lost) + " (" + Percent(LossRatio(s.lost, s.paired)) + " % of those answered or lost), unmatched replies " +
        U(s.unmatched_replies) + ", waiting at the end " + U(s.outstanding_at_end) + ", evicted " +
        U(s.evicted_outstanding) + "\n";
  if (s.untabled_packets > 0) *o += "  " + U(s.untabled_packets) + " frames in no row of the table\n";
}

std::string Micros(double seconds) { return Printf("%.1f us", seconds * 1e6); }

// The turnaround of the pairs whose reply could answer no other request;
// the others (identical payloads in flight) are said, never timed.
void AppendTurnaround(const TrafficSummary& s, std::string* o) {
  const LatencyHistogram& h = s.turnaround;
  const std::string ambiguous = U(s.ambiguous_pairs) +
                                " replies could answer another request with the same payload in flight: "
                                "their turnaround is not known (give each request its own payload, a sequence number)";
  if (h.count() == 0) {
    *o += s.ambiguous_pairs > 0 ? "  turnaround: not measured: " + ambiguous + "\n"
                                : std::string("  turnaround: no request/reply pairs\n");
    return;
  }
  *o += "  turnaround (" + U(h.count()) + " pairs): p50 " + Micros(h.Percentile(50)) + ", p90 " +
        Micros(h.Percentile(90)) + ", p99 " + Micros(h.Percentile(99)) + ", max " + Micros(h.Max()) + "\n";
  if (s.ambiguous_pairs > 0) *o += "  turnaround leaves out " + ambiguous + "\n";
}

void AppendFlows(const TrafficSummary& s, std::string* o) {
  if (s.lossy_flows.empty()) {
    *o += "  flows with loss: none\n";
  } else {
    *o += "  flows with loss (requester > responder):\n";
    for (const FlowStats& f : s.lossy_flows) {
      *o += "    " + f.key.ToString() + ": " + U(f.requests) + " requests, " + U(f.replies) + " replies, " + U(f.lost) +
            " lost (" + Percent(LossRatio(f.lost, f.paired)) + " %)\n";
    }
  }
  if (s.top_flows.empty()) return;
  *o += "  top flows by packets:\n";
  for (const FlowStats& f : s.top_flows) {
    // An evicting table over-counts: say the range (docs/traffic-analysis.md).
    std::string packets = f.packets_error == 0 ? U(f.packets) + " packets"
                                               : U(f.packets - f.packets_error) + " to " + U(f.packets) + " packets";
    *o += "    " + f.key.ToString() + ": " + packets + ", " + U(f.bytes) + " bytes, " + U(f.requests) + " requests, " +
          U(f.replies) + " replies\n";
  }
}

void AppendSizes(const TrafficSummary& s, std::string* o) {
  *o += "  frame sizes (bytes on the wire):\n";
  for (size_t i = 0; i < kSizeBuckets; ++i) {
    std::string label = i == 0                 ? "<= " + U(kSizeBounds[0])
                        : i + 1 < kSizeBuckets ? U(kSizeBounds[i - 1] + 1) + "-" + U(kSizeBounds[i])
                                               : "> " + U(kSizeBounds[i - 1]);
    double share = s.packets ? static_cast<double>(s.sizes[i]) / static_cast<double>(s.packets) : 0;
    *o +=
        Printf("    %-10s %12llu %6.1f %%\n", label.c_str(), static_cast<unsigned long long>(s.sizes[i]), share * 100);
  }
}

void AppendFile(const PcapReport& r, std::string* o) {
  const PcapFileInfo& in = r.info;
  const TrafficSummary& s = r.summary;
  *o += in.path + ": ";
  if (in.linktype >= 0) {
    *o += in.linktype_name + " (link type " + std::to_string(in.linktype) + "), snaplen " + U(in.snaplen) + ", ";
  }
  *o += U(in.frames) + " frames in " + Printf("%.3f s", pcap_report::Duration(s)) + "\n";
  if (!r.error.empty()) *o += "  read stopped: " + r.error + "\n";
  if (s.packets == 0) return;
  *o += "  frames " + U(s.packets) + " (" + U(s.bytes) + " bytes): IP " + U(s.ip_packets) + " (IPv6 " + U(s.ipv6) +
        "; UDP " + U(s.udp) + ", TCP " + U(s.tcp) + ", other " + U(s.other) + "), not IP " + U(s.not_ip) +
        ", truncated " + U(s.truncated) + ", malformed " + U(s.malformed) + ", fragments " + U(s.fragments) +
        ", VLAN-tagged " + U(s.vlan_tagged) +
        (s.unsupported_link ? ", link type not supported " + U(s.unsupported_link) : "") + "\n";
  AppendTable(r, o);
  AppendTurnaround(s, o);
  AppendFlows(s, o);
  AppendSizes(s, o);
}

}  // namespace

std::string PcapReportText(const std::vector<PcapReport>& reports) {
  std::string o;
  for (size_t i = 0; i < reports.size(); ++i) {
    if (i) o += "\n";
    AppendFile(reports[i], &o);
  }
  return o;
}

int RunPcapCommand(const std::vector<std::string>& files, const std::string& format, const TrafficOptions& o) {
  if (format != "text" && format != "json" && format != "html") {
    std::fprintf(stderr, "bottleneckd: pcap: unknown format \"%s\" (text, json or html)\n", format.c_str());
    return 2;
  }
  if (files.empty()) {
    std::fprintf(stderr, "bottleneckd: pcap: no capture file given\n");
    return 2;
  }
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  std::vector<PcapReport> reports;
  std::vector<std::string> errors;  // each failed file's, in order, after the reports
  for (const std::string& file : files) {
    PcapReport r;
    TrafficAnalyzer analyzer(o);
    std::function<void(uint64_t)> progress;
    if (tty) {
      progress = [&file](uint64_t n) {
        std::fprintf(stderr, "%s: %llu frames...\n", file.c_str(), static_cast<unsigned long long>(n));
      };
    }
    Status st = AnalysePcapFile(file, &analyzer, &r.info, progress);
    r.summary = analyzer.Finish();
    if (!st.ok()) r.error = st.message();
    // A file that gave no frame at all (missing, unreadable, no capture
    // file) has no report: its error alone, not half a report of zeros.
    if (!r.error.empty()) errors.push_back(r.error);
    if (!st.ok() && r.info.frames == 0) continue;
    reports.push_back(std::move(r));
  }
  int rc = errors.empty() ? 0 : 1;
  bool written = true;
  if (reports.empty()) {
    // Nothing read: no report of zeros.
  } else if (format == "json") {
    JsonWriter w(stdout);
    WritePcapReportJson(reports, &w);
    written = w.Finish();
  } else {
    std::string out = format == "html" ? PcapReportHtml(reports) : PcapReportText(reports);
    written = std::fwrite(out.data(), 1, out.size(), stdout) == out.size() && std::fflush(stdout) == 0;
  }
  if (!written) {
    std::fprintf(stderr, "bottleneckd: pcap: writing the report to stdout failed\n");
    rc = 1;
  }
  for (const std::string& e : errors) std::fprintf(stderr, "bottleneckd: pcap: %s\n", e.c_str());
  return rc;
}

}  // namespace bottleneckd
