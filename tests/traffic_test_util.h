// Helpers of the traffic analysis tests (tests/traffic*_test.cc): frames
// built by hand as PacketInfo plus the bytes the payload sits in, no parser.
#pragma once

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
}  // namespace bottleneckd::traffic_testing
