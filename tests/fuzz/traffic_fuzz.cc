// libFuzzer target: the bytes are a stream of UDP frames among four endpoints
// (records of 3 bytes plus a payload: endpoints, status, time step, payload
// length), fed to a TrafficAnalyzer with tiny bounds. Besides the sanitizers
// (the payload sits in an exact-size buffer), checks the analysis's promises:
// every bound, the per-second table's continuity and conservation, the
// top flows' packet counts bounding the true ones, and after Finish every
// UDP request accounted for once.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "traffic/traffic.h"

namespace {

using bottleneckd::PacketInfo;
using bottleneckd::PacketStatus;
using bottleneckd::TrafficSummary;

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckTable(const TrafficSummary& s, size_t max_seconds) {
  Check(s.seconds.size() <= max_seconds);
  uint64_t tabled = 0;
  for (size_t i = 0; i < s.seconds.size(); ++i) {
    if (i > 0) Check(s.seconds[i].second == s.seconds[i - 1].second + 1);
    tabled += s.seconds[i].packets;
    Check(s.seconds[i].requests + s.seconds[i].replies <= s.seconds[i].packets);
  }
  Check(tabled + s.untabled_packets == s.packets);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bottleneckd::TrafficOptions o;
  o.top_flows = 3;
  o.max_tracked_flows = 3;
  o.max_outstanding = 3;
  o.max_outstanding_total = 5;
  o.max_seconds = 8;
  o.reply_timeout_seconds = 0.05;
  o.fingerprint_bytes = 4;
  bottleneckd::TrafficAnalyzer a(o);
  const PacketStatus kStatuses[] = {PacketStatus::kOk, PacketStatus::kNotIp, PacketStatus::kTruncated,
                                    PacketStatus::kMalformed, PacketStatus::kUnsupportedLink};
  double ts = 1e9;
  // Packets of each flow pair (IPv6 or not, lower endpoint, higher one),
  // counted here to hold the top flows' bounds against.
  uint64_t truth[2][4][4] = {};
  size_t i = 0;
  while (i + 3 <= size) {
    const uint8_t b0 = data[i], b1 = data[i + 1], b2 = data[i + 2];
    i += 3;
    PacketInfo info;
    const uint8_t src = b0 & 3, dst = (b0 >> 2) & 3;
    info.ipv6 = (b0 & 0x80) != 0;
    info.src = {10, 0, 0, src};
    info.dst = {10, 0, 0, dst};
    info.protocol = 17;
    info.has_ports = true;
    info.src_port = static_cast<uint16_t>(7 + src);
    info.dst_port = static_cast<uint16_t>(7 + dst);
    info.payload_length = b2 & 15;
    info.payload_captured = static_cast<uint32_t>(std::min<size_t>(info.payload_length, size - i));
    if (b2 & 0x10) info.payload_captured /= 2;  // cut by the snap length
    if (b2 & 0x20) info.fragment = true, info.first_fragment = (b2 & 0x40) != 0;
    if (info.fragment && !info.first_fragment) info.has_ports = false;
    info.payload_offset = 42;
    info.caplen = 42 + info.payload_captured;
    info.wirelen = info.caplen + (b2 >> 7) * 9000;
    const PacketStatus status = kStatuses[((b0 >> 4) & 7) % 5];
    if (status != PacketStatus::kOk) info.has_ports = false;
    // Steps of -64..63 ms; 127 jumps 100 s, so the table restarts.
    ts += b1 == 127 ? 100.0 : (static_cast<int>(b1) - 64) * 1e-3;
    std::unique_ptr<uint8_t[]> frame(new uint8_t[info.caplen]());
    for (uint32_t k = 0; k < info.payload_captured; ++k) frame[42 + k] = data[i + k];
    i += info.payload_captured;
    a.Add(ts, status, info, frame.get());
    if (info.has_ports) ++truth[info.ipv6][std::min(src, dst)][std::max(src, dst)];  // a flow's packet
    Check(a.tracked_flows() <= o.max_tracked_flows);
    CheckTable(a.current(), o.max_seconds);
    if (data[i - 1] == 0xee) a.Expire(ts);
  }
  TrafficSummary snap = a.Snapshot();
  Check(snap.top_flows.size() <= o.top_flows && snap.lossy_flows.size() <= o.top_flows);
  TrafficSummary s = a.Finish();
  CheckTable(s, o.max_seconds);
  Check(s.top_flows.size() <= o.top_flows && s.lossy_flows.size() <= o.top_flows);
  for (const auto& f : s.top_flows) {
    Check(f.packets_error < f.packets);
    const uint8_t x = f.key.src[3], y = f.key.dst[3];
    const uint64_t n = truth[f.key.ipv6][std::min(x, y)][std::max(x, y)];
    Check(f.packets - f.packets_error <= n && n <= f.packets);  // the true count within the bound
  }
  Check(s.requests == s.paired + s.lost + s.evicted_outstanding + s.outstanding_at_end);
  Check(s.replies == s.paired + s.unmatched_replies);
  // Every pair is timed unless its reply could answer another identical
  // request in flight (traffic/traffic.h, ambiguous_pairs).
  Check(s.turnaround.count() + s.ambiguous_pairs == s.paired);
  Check(s.ip_packets == s.udp && s.tcp == 0 && s.other == 0);
  Check(s.first_ts <= s.last_ts);
  Check(a.tracked_flows() == 0 && a.current().packets == 0);
  return 0;
}
