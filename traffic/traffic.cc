// TrafficAnalyzer: frame counting, the per-second table and the hand-off of
// flow packets to the flow tracker (traffic/traffic_flows.h).
#include "traffic/traffic.h"

#include <algorithm>
#include <cmath>

#include "traffic/traffic_flows.h"

namespace bottleneckd {

using traffic_internal::FlowOutcome;
using traffic_internal::FlowTracker;

size_t SizeBucket(uint32_t wirelen) {
  for (size_t i = 0; i + 1 < kSizeBuckets; ++i) {
    if (wirelen <= kSizeBounds[i]) return i;
  }
  return kSizeBuckets - 1;
}

struct TrafficAnalyzer::Private {
  explicit Private(const TrafficOptions& o) : flows(o) {}
  FlowTracker flows;
};

TrafficAnalyzer::TrafficAnalyzer(const TrafficOptions& o) : p_(std::make_unique<Private>(o)), o_(o) {
  o_.max_seconds = std::max<size_t>(o_.max_seconds, 1);
}
TrafficAnalyzer::~TrafficAnalyzer() = default;
TrafficAnalyzer::TrafficAnalyzer(TrafficAnalyzer&&) noexcept = default;
TrafficAnalyzer& TrafficAnalyzer::operator=(TrafficAnalyzer&&) noexcept = default;

size_t TrafficAnalyzer::tracked_flows() const { return p_->flows.tracked(); }

TrafficSecond* TrafficAnalyzer::Row(int64_t second) {
  std::vector<TrafficSecond>& rows = summary_.seconds;
  auto drop_front = [&](size_t n) {
    for (size_t i = 0; i < n; ++i) summary_.untabled_packets += rows[i].packets;
    rows.erase(rows.begin(), rows.begin() + static_cast<ptrdiff_t>(n));
  };
  if (rows.empty()) {
    rows.push_back(TrafficSecond{.second = second});
    return &rows.back();
  }
  const int64_t first = rows.front().second;
  const int64_t last = first + static_cast<int64_t>(rows.size()) - 1;
  const uint64_t max = o_.max_seconds;
  if (second >= first && second <= last) return &rows[static_cast<size_t>(second - first)];
  if (second > last) {
    uint64_t need = static_cast<uint64_t>(second - first) + 1;
    if (need > max) {
      // Drop at least an eighth of the table at once so that a capture
      // longer than the table costs amortised O(1) per new second.
      uint64_t drop = std::max<uint64_t>(need - max, max / 8);
      if (drop >= rows.size()) {
        drop_front(rows.size());
        rows.push_back(TrafficSecond{.second = second});
        return &rows.back();
      }
      drop_front(static_cast<size_t>(drop));
    }
    while (rows.back().second < second) rows.push_back(TrafficSecond{.second = rows.back().second + 1});
    return &rows.back();
  }
  // Earlier than the table (a capture's timestamps may step back a little).
  uint64_t before = static_cast<uint64_t>(first - second);
  if (before + rows.size() > max) return nullptr;
  rows.insert(rows.begin(), static_cast<size_t>(before), TrafficSecond{});
  for (size_t i = 0; i < before; ++i) rows[i].second = second + static_cast<int64_t>(i);
  return &rows.front();
}

void TrafficAnalyzer::Add(double ts, PacketStatus status, const PacketInfo& info, const uint8_t* frame) {
  TrafficSummary& s = summary_;
  // Keep the clock sane (a corrupt capture's times must not overflow a row
  // index): +-1e15 s is 30 million years.
  if (!std::isfinite(ts)) ts = s.packets > 0 ? s.last_ts : 0;
  ts = std::clamp(ts, -1e15, 1e15);
  if (s.packets == 0) {
    s.first_ts = s.last_ts = ts;
  } else {
    s.first_ts = std::min(s.first_ts, ts);
    s.last_ts = std::max(s.last_ts, ts);
  }
  ++s.packets;
  s.bytes += info.wirelen;
  ++s.sizes[SizeBucket(info.wirelen)];
  if (info.vlan_tags > 0) ++s.vlan_tagged;
  switch (status) {
    case PacketStatus::kOk: ++s.ip_packets; break;
    case PacketStatus::kNotIp: ++s.not_ip; break;
    case PacketStatus::kTruncated: ++s.truncated; break;
    case PacketStatus::kMalformed: ++s.malformed; break;
    case PacketStatus::kUnsupportedLink: ++s.unsupported_link; break;
  }
  TrafficSecond* row = Row(static_cast<int64_t>(std::floor(ts)));
  if (row != nullptr) {
    ++row->packets;
    row->bytes += info.wirelen;
  } else {
    ++s.untabled_packets;
  }
  if (status != PacketStatus::kOk) return;

  if (info.ipv6) ++s.ipv6;
  ++(info.protocol == 17 ? s.udp : info.protocol == 6 ? s.tcp : s.other);
  if (info.fragment) ++s.fragments;
  if (info.fragment && !info.has_ports) return;  // a later fragment: no ports, no flow

  FlowKey key{.ipv6 = info.ipv6, .protocol = info.protocol, .src = info.src, .dst = info.dst};
  if (info.has_ports) {
    key.src_port = info.src_port;
    key.dst_port = info.dst_port;
  }
  const bool pairable = info.protocol == 17 && info.has_ports;
  uint64_t fingerprint = 0;
  if (pairable) {
    size_t n = 0;
    if (frame != nullptr && info.payload_offset <= info.caplen) {
      n = std::min<size_t>({o_.fingerprint_bytes, info.payload_captured, info.caplen - info.payload_offset});
    }
    fingerprint = traffic_internal::Fingerprint(info.payload_length, n > 0 ? frame + info.payload_offset : nullptr, n);
  }
  FlowOutcome out = p_->flows.Add(ts, s.last_ts, key, info.wirelen, pairable, fingerprint, &s);
  if (row == nullptr) return;
  if (out.request) {
    ++row->requests;
    row->request_bytes += info.wirelen;
  } else {
    ++row->replies;
    row->reply_bytes += info.wirelen;
  }
  if (out.paired) ++row->paired;
}

TrafficSummary TrafficAnalyzer::Finish() {
  p_->flows.Finish(summary_.last_ts, &summary_);
  TrafficSummary out = std::move(summary_);
  summary_ = TrafficSummary{};
  p_ = std::make_unique<Private>(o_);
  return out;
}

void TrafficAnalyzer::Expire(double now) {
  if (std::isfinite(now)) p_->flows.ExpireAll(now, &summary_);
}

TrafficSummary TrafficAnalyzer::Snapshot() const {
  TrafficSummary out = summary_;
  p_->flows.FillFlows(&out);
  return out;
}

}  // namespace bottleneckd
