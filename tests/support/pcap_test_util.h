// Capture fixtures written by the tests themselves: frame builders
// (Ethernet with optional 802.1Q/802.1ad tags, IPv4 with fragments, IPv6,
// UDP, ARP), a pcap writer through libpcap (pcap_open_dead + pcap_dump, at
// microsecond or nanosecond precision) and a pcapng writer (libpcap cannot
// write pcapng) that lays out the blocks by hand per the pcapng spec
// (draft-ietf-opsawg-pcapng: SHB, IDB with if_tsresol, EPB), in host byte
// order as the spec allows (the byte-order magic says which).
#pragma once

#include <pcap/pcap.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace bottleneckd::testing {

using Bytes = std::vector<uint8_t>;
using Ip4 = std::array<uint8_t, 4>;
using Ip6 = std::array<uint8_t, 16>;

inline void PutBe16(Bytes* b, uint16_t v) {
  b->push_back(static_cast<uint8_t>(v >> 8));
  b->push_back(static_cast<uint8_t>(v));
}
inline void PutBe32(Bytes* b, uint32_t v) {
  PutBe16(b, static_cast<uint16_t>(v >> 16));
  PutBe16(b, static_cast<uint16_t>(v));
}
inline void Append(Bytes* b, const uint8_t* p, size_t n) { b->insert(b->end(), p, p + n); }

// 16-bit one's complement sum (RFC 1071) of `b`, continuing from `sum`.
inline uint32_t OnesSum(const uint8_t* p, size_t n, uint32_t sum = 0) {
  for (size_t i = 0; i + 1 < n; i += 2) sum += (uint32_t{p[i]} << 8) | p[i + 1];
  if (n % 2) sum += uint32_t{p[n - 1]} << 8;
  return sum;
}
inline uint16_t FoldChecksum(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

// `len` payload bytes that start with `seq` (big-endian) so that every
// request has its own fingerprint; the rest is a fixed pattern.
inline Bytes Payload(uint32_t seq, size_t len) {
  Bytes b;
  PutBe32(&b, seq);
  for (size_t i = b.size(); i < len; ++i) b.push_back(static_cast<uint8_t>('a' + i % 26));
  b.resize(len);
  return b;
}

// A UDP header (checksum 0: "none", allowed for IPv4) and its payload.
inline Bytes Udp(uint16_t sport, uint16_t dport, const Bytes& payload) {
  Bytes b;
  PutBe16(&b, sport);
  PutBe16(&b, dport);
  PutBe16(&b, static_cast<uint16_t>(8 + payload.size()));
  PutBe16(&b, 0);
  Append(&b, payload.data(), payload.size());
  return b;
}

struct Ip4Options {
  uint16_t id = 1;
  uint16_t fragment_offset = 0;  // in 8-byte units
  bool more_fragments = false;
  uint8_t ihl = 5;        // header length in 32-bit words (options zero-filled)
  int total_length = -1;  // override of the total length field (-1: the real one)
};

// An IPv4 datagram: header (with its checksum) + `body`.
inline Bytes Ipv4(const Ip4& src, const Ip4& dst, uint8_t protocol, const Bytes& body, const Ip4Options& o = {}) {
  size_t hlen = std::max<size_t>(o.ihl, 5) * 4;
  Bytes b;
  b.push_back(static_cast<uint8_t>(0x40 | (o.ihl & 0x0f)));
  b.push_back(0);
  PutBe16(&b, static_cast<uint16_t>(o.total_length >= 0 ? o.total_length : static_cast<int>(hlen + body.size())));
  PutBe16(&b, o.id);
  PutBe16(&b, static_cast<uint16_t>((o.more_fragments ? 0x2000 : 0) | (o.fragment_offset & 0x1fff)));
  b.push_back(64);
  b.push_back(protocol);
  PutBe16(&b, 0);
  Append(&b, src.data(), 4);
  Append(&b, dst.data(), 4);
  b.resize(hlen, 0);
  uint16_t csum = FoldChecksum(OnesSum(b.data(), hlen));
  b[10] = static_cast<uint8_t>(csum >> 8);
  b[11] = static_cast<uint8_t>(csum);
  Append(&b, body.data(), body.size());
  return b;
}

// An IPv6 packet carrying UDP, with the UDP checksum over the pseudo-header
// (mandatory for IPv6, RFC 8200 section 8.1).
inline Bytes Ipv6Udp(const Ip6& src, const Ip6& dst, uint16_t sport, uint16_t dport, const Bytes& payload) {
  Bytes udp = Udp(sport, dport, payload);
  uint32_t sum = OnesSum(src.data(), 16);
  sum = OnesSum(dst.data(), 16, sum);
  sum += static_cast<uint32_t>(udp.size());
  sum += 17;
  uint16_t csum = FoldChecksum(OnesSum(udp.data(), udp.size(), sum));
  if (csum == 0) csum = 0xffff;
  udp[6] = static_cast<uint8_t>(csum >> 8);
  udp[7] = static_cast<uint8_t>(csum);
  Bytes b;
  b.push_back(0x60);
  b.push_back(0);
  PutBe16(&b, 0);  // traffic class and flow label
  PutBe16(&b, static_cast<uint16_t>(udp.size()));
  b.push_back(17);
  b.push_back(64);
  Append(&b, src.data(), 16);
  Append(&b, dst.data(), 16);
  Append(&b, udp.data(), udp.size());
  return b;
}

inline Bytes Ipv4Udp(const Ip4& src, const Ip4& dst, uint16_t sport, uint16_t dport, const Bytes& payload,
                     const Ip4Options& o = {}) {
  return Ipv4(src, dst, 17, Udp(sport, dport, payload), o);
}

inline constexpr uint16_t kEtherIpv4 = 0x0800, kEtherIpv6 = 0x86dd, kEtherArp = 0x0806;

// An Ethernet II frame (no FCS) with the given VLAN ids outermost first: one
// tag is 802.1Q (0x8100), with two the outer one is 802.1ad (0x88a8).
inline Bytes Ethernet(uint16_t ethertype, const Bytes& l3, const std::vector<uint16_t>& vlans = {},
                      uint8_t src_host = 1, uint8_t dst_host = 2) {
  Bytes b = {0x02, 0, 0, 0, 0, dst_host, 0x02, 0, 0, 0, 0, src_host};
  for (size_t i = 0; i < vlans.size(); ++i) {
    PutBe16(&b, vlans.size() > 1 && i == 0 ? 0x88a8 : 0x8100);
    PutBe16(&b, vlans[i] & 0x0fff);
  }
  PutBe16(&b, ethertype);
  Append(&b, l3.data(), l3.size());
  return b;
}

// An ARP request (who-has 10.0.0.2 tell 10.0.0.1) on Ethernet: 14 + 28 bytes.
inline Bytes ArpFrame() {
  Bytes arp = {0, 1, 8, 0, 6, 4, 0, 1, 0x02, 0, 0, 0, 0, 1, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2};
  Bytes b = Ethernet(kEtherArp, arp);
  std::fill(b.begin(), b.begin() + 6, 0xff);
  return b;
}

struct TestFrame {
  int64_t sec = 0;
  uint32_t nsec = 0;
  Bytes bytes;  // the frame as on the wire; the writers cut it to the snap length
};

inline uint32_t CapturedLength(const TestFrame& f, uint32_t snaplen) {
  return static_cast<uint32_t>(std::min<size_t>(f.bytes.size(), snaplen));
}

// Writes a pcap file through libpcap. With `nanosecond` the file has the
// nanosecond magic (0xa1b23c4d), else microseconds (nsec / 1000). Returns ""
// or what failed.
inline std::string WritePcap(const std::string& path, int dlt, uint32_t snaplen, const std::vector<TestFrame>& frames,
                             bool nanosecond = true) {
  pcap_t* p = pcap_open_dead_with_tstamp_precision(
      dlt, static_cast<int>(snaplen), nanosecond ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);
  if (!p) return "pcap_open_dead failed";
  pcap_dumper_t* d = pcap_dump_open(p, path.c_str());
  if (!d) {
    std::string e = pcap_geterr(p);
    pcap_close(p);
    return e;
  }
  for (const TestFrame& f : frames) {
    struct pcap_pkthdr h {};
    h.ts.tv_sec = f.sec;
    h.ts.tv_usec = nanosecond ? f.nsec : f.nsec / 1000;
    h.caplen = CapturedLength(f, snaplen);
    h.len = static_cast<uint32_t>(f.bytes.size());
    pcap_dump(reinterpret_cast<u_char*>(d), &h, f.bytes.data());
  }
  pcap_dump_close(d);
  pcap_close(p);
  return "";
}

// Size of the record of `f` in a pcap file: 16-byte header + captured bytes.
inline size_t PcapRecordSize(const TestFrame& f, uint32_t snaplen) { return 16 + CapturedLength(f, snaplen); }

namespace pcapng_internal {
inline void Put16(Bytes* b, uint16_t v) { Append(b, reinterpret_cast<const uint8_t*>(&v), 2); }
inline void Put32(Bytes* b, uint32_t v) { Append(b, reinterpret_cast<const uint8_t*>(&v), 4); }
inline void Pad4(Bytes* b) {
  while (b->size() % 4) b->push_back(0);
}
// A block: type, total length, `body` (padded to 32 bits), total length again.
inline void Block(Bytes* out, uint32_t type, Bytes body) {
  Pad4(&body);
  uint32_t total = static_cast<uint32_t>(12 + body.size());
  Put32(out, type);
  Put32(out, total);
  Append(out, body.data(), body.size());
  Put32(out, total);
}
}  // namespace pcapng_internal

// Writes a pcapng file: one Section Header Block, one Interface Description
// Block (link type `dlt`, `snaplen`, and with `nanosecond` the if_tsresol
// option = 9, i.e. 10^-9 s units; without it the default 10^-6), and one
// Enhanced Packet Block per frame. Returns "" or what failed.
inline std::string WritePcapng(const std::string& path, uint16_t dlt, uint32_t snaplen,
                               const std::vector<TestFrame>& frames, bool nanosecond = true) {
  using namespace pcapng_internal;
  Bytes out;
  Bytes shb;
  Put32(&shb, 0x1a2b3c4d);  // byte-order magic
  Put16(&shb, 1);           // major version
  Put16(&shb, 0);           // minor version
  Put32(&shb, 0xffffffff);  // section length: unspecified (-1, 64 bits)
  Put32(&shb, 0xffffffff);
  Block(&out, 0x0a0d0d0a, shb);
  Bytes idb;
  Put16(&idb, dlt);
  Put16(&idb, 0);  // reserved
  Put32(&idb, snaplen);
  if (nanosecond) {
    Put16(&idb, 9);  // if_tsresol
    Put16(&idb, 1);
    idb.push_back(9);
    Pad4(&idb);
    Put16(&idb, 0);  // opt_endofopt
    Put16(&idb, 0);
  }
  Block(&out, 0x00000001, idb);
  for (const TestFrame& f : frames) {
    uint64_t units = nanosecond ? static_cast<uint64_t>(f.sec) * 1000000000ull + f.nsec
                                : static_cast<uint64_t>(f.sec) * 1000000ull + f.nsec / 1000;
    uint32_t caplen = CapturedLength(f, snaplen);
    Bytes epb;
    Put32(&epb, 0);  // interface id
    Put32(&epb, static_cast<uint32_t>(units >> 32));
    Put32(&epb, static_cast<uint32_t>(units));
    Put32(&epb, caplen);
    Put32(&epb, static_cast<uint32_t>(f.bytes.size()));
    Append(&epb, f.bytes.data(), caplen);
    Block(&out, 0x00000006, epb);
  }
  FILE* fp = std::fopen(path.c_str(), "wb");
  if (!fp) return "cannot create " + path;
  bool ok = std::fwrite(out.data(), 1, out.size(), fp) == out.size();
  ok = std::fclose(fp) == 0 && ok;
  return ok ? "" : "cannot write " + path;
}

// A UDP echo between a client (10.0.0.1:40000 / 2001:db8::1:40000, host 1)
// and a server (10.0.0.2:7 / 2001:db8::2:7, host 2): request i at
// start + i * interval, its reply (the same payload, addresses and ports
// swapped) `turnaround` later, except the replies of every `drop_every`-th
// request (i + 1 a multiple of it), which are missing.
struct EchoSpec {
  int requests = 200;
  int64_t start_sec = 1700000000;
  uint32_t start_nsec = 0;
  uint64_t interval_ns = 10000000;
  uint64_t turnaround_ns = 300000;
  int drop_every = 20;  // 0: every reply present
  size_t payload = 64;
  bool ipv6 = false;
  bool ethernet = true;  // false: raw IP frames (LINKTYPE_RAW)
  std::vector<uint16_t> vlans;
};

inline TestFrame At(int64_t sec, uint64_t nsec, Bytes bytes) {
  return TestFrame{sec + static_cast<int64_t>(nsec / 1000000000), static_cast<uint32_t>(nsec % 1000000000),
                   std::move(bytes)};
}

inline std::vector<TestFrame> EchoFrames(const EchoSpec& e) {
  const Ip4 c4 = {10, 0, 0, 1}, s4 = {10, 0, 0, 2};
  const Ip6 c6 = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  const Ip6 s6 = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  auto frame = [&](bool request, const Bytes& payload) {
    uint16_t sport = request ? 40000 : 7, dport = request ? 7 : 40000;
    Bytes l3 = e.ipv6 ? Ipv6Udp(request ? c6 : s6, request ? s6 : c6, sport, dport, payload)
                      : Ipv4Udp(request ? c4 : s4, request ? s4 : c4, sport, dport, payload);
    if (!e.ethernet) return l3;
    return Ethernet(e.ipv6 ? kEtherIpv6 : kEtherIpv4, l3, e.vlans, request ? 1 : 2, request ? 2 : 1);
  };
  std::vector<TestFrame> out;
  for (int i = 0; i < e.requests; ++i) {
    uint64_t t = e.start_nsec + static_cast<uint64_t>(i) * e.interval_ns;
    Bytes payload = Payload(static_cast<uint32_t>(i), e.payload);
    out.push_back(At(e.start_sec, t, frame(true, payload)));
    if (e.drop_every > 0 && (i + 1) % e.drop_every == 0) continue;
    out.push_back(At(e.start_sec, t + e.turnaround_ns, frame(false, payload)));
  }
  return out;
}

}  // namespace bottleneckd::testing
