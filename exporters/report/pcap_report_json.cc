// PcapReportJson: every figure of the pcap report as one JSON object
// (schema in docs/pcap.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "exporters/report/json_util.h"
#include "exporters/report/pcap_report.h"
#include "exporters/report/pcap_report_internal.h"
#include "traffic/packet.h"

namespace bottleneckd {
namespace {

using pcap_report::Duration;
using pcap_report::LossRatio;
using pcap_report::PerSecond;

std::string Str(const std::string& s) { return JsonString(s); }

// Rates, ratios and durations: 9 significant digits.
std::string Num(std::optional<double> v) { return v ? JsonNumber(*v) : "null"; }

// Capture timestamps (Unix seconds): to the nanosecond.
std::string Time(double t) {
  char b[40];
  std::snprintf(b, sizeof b, "%.9f", t);
  return b;
}

std::string U(uint64_t v) { return std::to_string(v); }
std::string Bool(bool v) { return v ? "true" : "false"; }

// "," before every member but the first of an object or array.
class Members {
 public:
  explicit Members(std::string* o) : o_(o) {}
  std::string& Add(const char* key) {
    *o_ += first_ ? "\"" : ",\"";
    first_ = false;
    *o_ += key;
    *o_ += "\":";
    return *o_;
  }

 private:
  std::string* o_;
  bool first_ = true;
};

void AppendFlow(const FlowStats& f, std::string* o) {
  *o += "{";
  Members m(o);
  m.Add("flow") += Str(f.key.ToString());
  m.Add("protocol") += U(f.key.protocol);
  m.Add("ipv6") += Bool(f.key.ipv6);
  m.Add("src") += Str(FormatAddress(f.key.src, f.key.ipv6));
  m.Add("src_port") += U(f.key.src_port);
  m.Add("dst") += Str(FormatAddress(f.key.dst, f.key.ipv6));
  m.Add("dst_port") += U(f.key.dst_port);
  m.Add("requests") += U(f.requests);
  m.Add("replies") += U(f.replies);
  m.Add("paired") += U(f.paired);
  m.Add("lost") += U(f.lost);
  m.Add("loss_ratio") += Num(LossRatio(f.lost, f.paired));
  // Top flows: `packets` is an upper bound when the bounded table evicted
  // flows; the true count is at least packets - packets_error.
  m.Add("packets_error") += U(f.packets_error);
  m.Add("packets") += U(f.packets);
  m.Add("bytes") += U(f.bytes);
  *o += "}";
}

void AppendFlows(const char* key, const std::vector<FlowStats>& flows, Members* m) {
  std::string& o = m->Add(key);
  o += "[";
  for (size_t i = 0; i < flows.size(); ++i) {
    if (i) o += ",";
    AppendFlow(flows[i], &o);
  }
  o += "]";
}

void AppendSeconds(const std::vector<TrafficSecond>& seconds, Members* m) {
  std::string& o = m->Add("seconds");
  int64_t first = 0;
  for (size_t i = 0; i < seconds.size(); ++i) first = i ? std::min(first, seconds[i].second) : seconds[i].second;
  o += "[";
  for (size_t i = 0; i < seconds.size(); ++i) {
    const TrafficSecond& s = seconds[i];
    o += i ? ",{" : "{";
    Members r(&o);
    r.Add("second") += std::to_string(s.second);
    r.Add("offset") += std::to_string(s.second - first);
    r.Add("packets") += U(s.packets);
    r.Add("bytes") += U(s.bytes);
    r.Add("requests") += U(s.requests);
    r.Add("replies") += U(s.replies);
    r.Add("paired") += U(s.paired);
    r.Add("request_bytes") += U(s.request_bytes);
    r.Add("reply_bytes") += U(s.reply_bytes);
    o += "}";
  }
  o += "]";
}

void AppendTurnaround(const LatencyHistogram& h, Members* m) {
  std::string& o = m->Add("turnaround_seconds");
  o += "{";
  Members t(&o);
  bool any = h.count() > 0;
  t.Add("count") += U(h.count());
  t.Add("p50") += Num(any ? std::optional(h.Percentile(50)) : std::nullopt);
  t.Add("p90") += Num(any ? std::optional(h.Percentile(90)) : std::nullopt);
  t.Add("p99") += Num(any ? std::optional(h.Percentile(99)) : std::nullopt);
  t.Add("max") += Num(any ? std::optional(h.Max()) : std::nullopt);
  o += "}";
}

void AppendSizes(const TrafficSummary& s, Members* m) {
  std::string& o = m->Add("sizes");
  o += "[";
  for (size_t i = 0; i < kSizeBuckets; ++i) {
    o += i ? ",{" : "{";
    Members b(&o);
    b.Add("max_bytes") += i + 1 < kSizeBuckets ? U(kSizeBounds[i]) : "null";
    b.Add("frames") += U(s.sizes[i]);
    o += "}";
  }
  o += "]";
}

void AppendFile(const PcapReport& r, std::string* o) {
  const PcapFileInfo& in = r.info;
  const TrafficSummary& s = r.summary;
  *o += "{";
  Members m(o);
  m.Add("path") += Str(in.path);
  m.Add("linktype") += in.linktype >= 0 ? std::to_string(in.linktype) : "null";
  m.Add("linktype_name") += in.linktype >= 0 ? Str(in.linktype_name) : "null";
  m.Add("snaplen") += U(in.snaplen);
  m.Add("frames") += U(in.frames);
  m.Add("nanosecond") += Bool(in.nanosecond);
  m.Add("error") += r.error.empty() ? "null" : Str(r.error);
  m.Add("first_timestamp") += s.packets ? Time(s.first_ts) : "null";
  m.Add("last_timestamp") += s.packets ? Time(s.last_ts) : "null";
  m.Add("duration_seconds") += Num(Duration(s));
  m.Add("packets") += U(s.packets);
  m.Add("bytes") += U(s.bytes);
  m.Add("ip_packets") += U(s.ip_packets);
  m.Add("ipv6") += U(s.ipv6);
  m.Add("udp") += U(s.udp);
  m.Add("tcp") += U(s.tcp);
  m.Add("other") += U(s.other);
  m.Add("not_ip") += U(s.not_ip);
  m.Add("truncated") += U(s.truncated);
  m.Add("malformed") += U(s.malformed);
  m.Add("fragments") += U(s.fragments);
  m.Add("vlan_tagged") += U(s.vlan_tagged);
  m.Add("unsupported_link") += U(s.unsupported_link);
  AppendSizes(s, &m);
  m.Add("requests") += U(s.requests);
  m.Add("replies") += U(s.replies);
  m.Add("paired") += U(s.paired);
  m.Add("lost") += U(s.lost);
  m.Add("unmatched_replies") += U(s.unmatched_replies);
  m.Add("outstanding_at_end") += U(s.outstanding_at_end);
  m.Add("evicted_outstanding") += U(s.evicted_outstanding);
  m.Add("loss_ratio") += Num(LossRatio(s.lost, s.paired));
  m.Add("echo_deficit_ratio") += Num(pcap_report::EchoDeficit(s.requests, s.replies));
  uint64_t request_bytes = 0, reply_bytes = 0;
  pcap_report::EchoBytes(s, &request_bytes, &reply_bytes);
  m.Add("applied_per_second") += Num(PerSecond(static_cast<double>(s.requests), s));
  m.Add("echoed_per_second") += Num(PerSecond(static_cast<double>(s.replies), s));
  m.Add("applied_bits_per_second") += Num(PerSecond(static_cast<double>(request_bytes) * 8, s));
  m.Add("echoed_bits_per_second") += Num(PerSecond(static_cast<double>(reply_bytes) * 8, s));
  AppendTurnaround(s.turnaround, &m);
  AppendSeconds(s.seconds, &m);
  m.Add("untabled_packets") += U(s.untabled_packets);
  AppendFlows("top_flows", s.top_flows, &m);
  AppendFlows("lossy_flows", s.lossy_flows, &m);
  *o += "}";
}

}  // namespace

std::string PcapReportJson(const std::vector<PcapReport>& reports) {
  std::string o = "{\"files\":[";
  for (size_t i = 0; i < reports.size(); ++i) {
    if (i) o += ",";
    AppendFile(reports[i], &o);
  }
  return o + "]}\n";
}

}  // namespace bottleneckd
