// The figures the pcap report derives from a TrafficSummary, shared by its
// text (pcap_report.cc) and JSON (pcap_report_json.cc) renderers so both say
// the same thing. Definitions in docs/pcap.md.
#pragma once

#include <cstdint>
#include <optional>

#include "traffic/traffic.h"

namespace bottleneckd::pcap_report {

// Capture length in seconds: last frame's time minus the first's.
inline double Duration(const TrafficSummary& s) { return s.packets > 0 ? s.last_ts - s.first_ts : 0; }

// `count` over the capture's duration; none for a capture shorter than a tick.
inline std::optional<double> PerSecond(double count, const TrafficSummary& s) {
  double d = Duration(s);
  if (!(d > 0)) return std::nullopt;
  return count / d;
}

// Lost share of the requests whose fate is known (answered or lost);
// requests still waiting for their reply when the capture ended are left out.
inline std::optional<double> LossRatio(uint64_t lost, uint64_t paired) {
  if (lost + paired == 0) return std::nullopt;
  return static_cast<double>(lost) / static_cast<double>(lost + paired);
}

// Bytes of requests and of replies (wire length) over the capture.
inline void EchoBytes(const TrafficSummary& s, uint64_t* request_bytes, uint64_t* reply_bytes) {
  *request_bytes = *reply_bytes = 0;
  for (const TrafficSecond& sec : s.seconds) {
    *request_bytes += sec.request_bytes;
    *reply_bytes += sec.reply_bytes;
  }
}

// One row of the per-second table: `width` seconds (more than one when
// the table is aggregated) starting `offset` seconds after the first.
struct SecondRow {
  int64_t offset = 0;
  int64_t width = 1;
  uint64_t requests = 0, replies = 0, request_bytes = 0, reply_bytes = 0;
};

// The echo deficit: 1 - echoed / applied (in a row of the table negative
// when replies to the previous row's requests arrive in this one); none
// without requests.
inline std::optional<double> EchoDeficit(uint64_t requests, uint64_t replies) {
  if (requests == 0) return std::nullopt;
  return (static_cast<double>(requests) - static_cast<double>(replies)) / static_cast<double>(requests);
}

}  // namespace bottleneckd::pcap_report
