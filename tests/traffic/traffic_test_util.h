// Helpers of the traffic analysis tests (tests/traffic*_test.cc): frames
// built by hand as PacketInfo plus the bytes the payload sits in, no parser.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "traffic/packet.h"
#include "traffic/traffic.h"

namespace bottleneckd::traffic_testing {

using Addr = std::array<uint8_t, 16>;

inline Addr V4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) { return Addr{a, b, c, d}; }
// 2001:db8::last (the documentation prefix).
inline Addr Doc6(uint16_t last) {
  Addr x{0x20, 0x01, 0x0d, 0xb8};
  x[14] = last >> 8, x[15] = last & 0xff;
  return x;
}

struct End {
  Addr addr;
  uint16_t port;
};
inline const End kA{V4(10, 0, 0, 1), 40000}, kB{V4(10, 0, 0, 2), 7};
inline const End kC{V4(10, 0, 0, 3), 50000}, kD{V4(10, 0, 0, 9), 7};

// A frame: Ethernet (14) + IPv4 (20) or IPv6 (40) + UDP/TCP header (8 or 20)
// + payload; the header bytes are zeros (the analyzer reads only the payload).
struct Frame {
  PacketInfo info;
  std::vector<uint8_t> bytes;
};

inline Frame Make(End src, End dst, const std::string& payload, uint8_t protocol = 17, bool ipv6 = false) {
  Frame f;
  size_t l4 = protocol == 6 ? 20 : 8;
  size_t header = 14 + (ipv6 ? 40 : 20) + l4;
  f.bytes.assign(header, 0);
  f.bytes.insert(f.bytes.end(), payload.begin(), payload.end());
  PacketInfo& i = f.info;
  i.caplen = i.wirelen = static_cast<uint32_t>(f.bytes.size());
  i.ipv6 = ipv6;
  i.src = src.addr, i.dst = dst.addr;
  i.protocol = protocol;
  i.has_ports = true;
  i.src_port = src.port, i.dst_port = dst.port;
  i.ip_length = static_cast<uint32_t>(f.bytes.size() - 14);
  i.payload_length = static_cast<uint32_t>(payload.size());
  i.payload_offset = header;
  i.payload_captured = static_cast<uint32_t>(payload.size());
  return f;
}

inline void Feed(TrafficAnalyzer* a, double ts, const Frame& f) {
  a->Add(ts, PacketStatus::kOk, f.info, f.bytes.data());
}

inline const FlowStats* FindFlow(const std::vector<FlowStats>& flows, End src, End dst) {
  for (const FlowStats& f : flows) {
    if (f.key.src == src.addr && f.key.src_port == src.port && f.key.dst == dst.addr && f.key.dst_port == dst.port) {
      return &f;
    }
  }
  return nullptr;
}

// 8-byte payload holding a sequence number: "00000042".
inline std::string Seq(uint32_t n) {
  char b[16];
  snprintf(b, sizeof(b), "%08u", n);
  return b;
}

// The echo with loss, the same for the live and the file path: every
// request carries the same payload, one every 1 ms for 1 s, each answered
// 5 us later except every 50th (i % 50 == 0: 20 of them). Times are
// nanoseconds from the first request, in order.
struct EchoEvent {
  uint64_t ns;
  bool reply;
};
inline std::vector<EchoEvent> IdenticalPayloadEchoWithLoss() {
  std::vector<EchoEvent> events;
  for (uint64_t i = 0; i < 1000; ++i) {
    events.push_back({i * 1000000, false});
    if (i % 50 != 0) events.push_back({i * 1000000 + 5000, true});
  }
  return events;
}

// What the analysis makes of it, derived by hand: each reply answers the
// newest request, the one 5 us before it, so 980 pairs; the 20 replies that
// come right after an unanswered request could answer it as well (two
// identical requests in flight): ambiguous, out of the turnaround, which
// holds the other 960 at 5 us (within `tolerance`). Each unanswered request
// is passed over by the next reply: lost (at the timeout, or at the end: 20),
// none outstanding at the end, all on the one flow
// 10.0.0.1:40000 > 10.0.0.2:7.
inline void ExpectIdenticalPayloadEchoWithLoss(const TrafficSummary& s, double tolerance) {
  EXPECT_EQ(s.requests, 1000u);
  EXPECT_EQ(s.replies, 980u);
  EXPECT_EQ(s.paired, 980u);
  EXPECT_EQ(s.lost, 20u);
  EXPECT_EQ(s.unmatched_replies, 0u);
  EXPECT_EQ(s.outstanding_at_end, 0u);
  EXPECT_EQ(s.ambiguous_pairs, 20u);
  ASSERT_EQ(s.turnaround.count(), 960u);
  EXPECT_NEAR(s.turnaround.Percentile(50), 5e-6, tolerance);
  EXPECT_NEAR(s.turnaround.Percentile(90), 5e-6, tolerance);
  EXPECT_NEAR(s.turnaround.Percentile(99), 5e-6, tolerance);
  EXPECT_NEAR(s.turnaround.Max(), 5e-6, tolerance);
  ASSERT_EQ(s.lossy_flows.size(), 1u);
  EXPECT_EQ(s.lossy_flows[0].key.ToString(), "udp 10.0.0.1:40000 > 10.0.0.2:7");
  EXPECT_EQ(s.lossy_flows[0].lost, 20u);
  EXPECT_EQ(s.lossy_flows[0].paired, 980u);
}
}  // namespace bottleneckd::traffic_testing
