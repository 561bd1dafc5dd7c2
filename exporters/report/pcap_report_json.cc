// PcapReportJson / WritePcapReportJson: every figure of the pcap report as
// one JSON object (schema in docs/pcap.md), through JsonWriter.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "exporters/report/pcap_report.h"
#include "exporters/report/pcap_report_internal.h"
#include "traffic/packet.h"

namespace bottleneckd {
namespace {

using pcap_report::Duration;
using pcap_report::LossRatio;
using pcap_report::PerSecond;

void WriteFlow(const FlowStats& f, JsonWriter* w) {
  w->BeginObject();
  w->Key("flow").String(f.key.ToString());
  w->Key("protocol").Integer(f.key.protocol);
  w->Key("ipv6").Bool(f.key.ipv6);
  w->Key("src").String(FormatAddress(f.key.src, f.key.ipv6));
  w->Key("src_port").Integer(f.key.src_port);
  w->Key("dst").String(FormatAddress(f.key.dst, f.key.ipv6));
  w->Key("dst_port").Integer(f.key.dst_port);
  w->Key("requests").Integer(f.requests);
  w->Key("replies").Integer(f.replies);
  w->Key("paired").Integer(f.paired);
  w->Key("lost").Integer(f.lost);
  w->Key("loss_ratio").Optional(LossRatio(f.lost, f.paired));
  // Top flows: `packets` is an upper bound when the bounded table evicted
  // flows; the true count is at least packets - packets_error.
  w->Key("packets_error").Integer(f.packets_error);
  w->Key("packets").Integer(f.packets);
  w->Key("bytes").Integer(f.bytes);
  w->EndObject();
}

void WriteFlows(const char* key, const std::vector<FlowStats>& flows, JsonWriter* w) {
  w->Key(key).BeginArray();
  for (const FlowStats& f : flows) WriteFlow(f, w);
  w->EndArray();
}

void WriteSeconds(const std::vector<TrafficSecond>& seconds, JsonWriter* w) {
  int64_t first = 0;
  for (size_t i = 0; i < seconds.size(); ++i) first = i ? std::min(first, seconds[i].second) : seconds[i].second;
  w->Key("seconds").BeginArray();
  for (const TrafficSecond& s : seconds) {
    w->BeginObject();
    w->Key("second").Integer(s.second);
    w->Key("offset").Integer(s.second - first);
    w->Key("packets").Integer(s.packets);
    w->Key("bytes").Integer(s.bytes);
    w->Key("requests").Integer(s.requests);
    w->Key("replies").Integer(s.replies);
    w->Key("paired").Integer(s.paired);
    w->Key("request_bytes").Integer(s.request_bytes);
    w->Key("reply_bytes").Integer(s.reply_bytes);
    w->EndObject();
  }
  w->EndArray();
}

void WriteTurnaround(const LatencyHistogram& h, uint64_t ambiguous, JsonWriter* w) {
  const bool any = h.count() > 0;
  auto value = [any](double v) { return any ? std::optional(v) : std::nullopt; };
  w->Key("turnaround_seconds").BeginObject();
  w->Key("count").Integer(h.count());
  w->Key("ambiguous").Integer(ambiguous);
  w->Key("p50").Optional(value(h.Percentile(50)));
  w->Key("p90").Optional(value(h.Percentile(90)));
  w->Key("p99").Optional(value(h.Percentile(99)));
  w->Key("max").Optional(value(h.Max()));
  w->EndObject();
}

void WriteSizes(const TrafficSummary& s, JsonWriter* w) {
  w->Key("sizes").BeginArray();
  for (size_t i = 0; i < kSizeBuckets; ++i) {
    w->BeginObject();
    w->Key("max_bytes").Optional(i + 1 < kSizeBuckets ? std::optional<uint64_t>(kSizeBounds[i]) : std::nullopt);
    w->Key("frames").Integer(s.sizes[i]);
    w->EndObject();
  }
  w->EndArray();
}

// Capture timestamps (Unix seconds): to the nanosecond; null without packets.
void WriteTime(const char* key, bool any, double t, JsonWriter* w) {
  w->Key(key);
  if (any)
    w->Fixed(t, 9);
  else
    w->Null();
}

void WriteFile(const PcapReport& r, JsonWriter* w) {
  const PcapFileInfo& in = r.info;
  const TrafficSummary& s = r.summary;
  w->BeginObject();
  w->Key("path").String(in.path);
  w->Key("linktype").Optional(in.linktype >= 0 ? std::optional(in.linktype) : std::nullopt);
  w->Key("linktype_name").Optional(in.linktype >= 0 ? std::optional(in.linktype_name) : std::nullopt);
  w->Key("snaplen").Integer(in.snaplen);
  w->Key("frames").Integer(in.frames);
  w->Key("nanosecond").Bool(in.nanosecond);
  w->Key("error").Optional(r.error.empty() ? std::nullopt : std::optional(r.error));
  WriteTime("first_timestamp", s.packets > 0, s.first_ts, w);
  WriteTime("last_timestamp", s.packets > 0, s.last_ts, w);
  w->Key("duration_seconds").Number(Duration(s));
  w->Key("packets").Integer(s.packets);
  w->Key("bytes").Integer(s.bytes);
  w->Key("ip_packets").Integer(s.ip_packets);
  w->Key("ipv6").Integer(s.ipv6);
  w->Key("udp").Integer(s.udp);
  w->Key("tcp").Integer(s.tcp);
  w->Key("other").Integer(s.other);
  w->Key("not_ip").Integer(s.not_ip);
  w->Key("truncated").Integer(s.truncated);
  w->Key("malformed").Integer(s.malformed);
  w->Key("fragments").Integer(s.fragments);
  w->Key("vlan_tagged").Integer(s.vlan_tagged);
  w->Key("unsupported_link").Integer(s.unsupported_link);
  WriteSizes(s, w);
  w->Key("requests").Integer(s.requests);
  w->Key("replies").Integer(s.replies);
  w->Key("paired").Integer(s.paired);
  w->Key("lost").Integer(s.lost);
  w->Key("unmatched_replies").Integer(s.unmatched_replies);
  w->Key("outstanding_at_end").Integer(s.outstanding_at_end);
  w->Key("evicted_outstanding").Integer(s.evicted_outstanding);
  w->Key("loss_ratio").Optional(LossRatio(s.lost, s.paired));
  w->Key("echo_deficit_ratio").Optional(pcap_report::EchoDeficit(s.requests, s.replies));
  uint64_t request_bytes = 0, reply_bytes = 0;
  pcap_report::EchoBytes(s, &request_bytes, &reply_bytes);
  w->Key("applied_per_second").Optional(PerSecond(static_cast<double>(s.requests), s));
  w->Key("echoed_per_second").Optional(PerSecond(static_cast<double>(s.replies), s));
  w->Key("applied_bits_per_second").Optional(PerSecond(static_cast<double>(request_bytes) * 8, s));
  w->Key("echoed_bits_per_second").Optional(PerSecond(static_cast<double>(reply_bytes) * 8, s));
  WriteTurnaround(s.turnaround, s.ambiguous_pairs, w);
  WriteSeconds(s.seconds, w);
  w->Key("untabled_packets").Integer(s.untabled_packets);
  WriteFlows("top_flows", s.top_flows, w);
  WriteFlows("lossy_flows", s.lossy_flows, w);
  w->EndObject();
}

}  // namespace

void WritePcapReportJson(const std::vector<PcapReport>& reports, JsonWriter* w) {
  w->BeginObject();
  w->Key("files").BeginArray();
  for (const PcapReport& r : reports) WriteFile(r, w);
  w->EndArray();
  w->EndObject();
}

std::string PcapReportJson(const std::vector<PcapReport>& reports) {
  std::string o;
  JsonWriter w(&o);
  WritePcapReportJson(reports, &w);
  w.Finish();
  return o;
}

}  // namespace bottleneckd
