// Tests for the packet parser: frames assembled byte by byte here, expected
// fields worked out by hand from the bytes written (offsets are sums of the
// header sizes: Ethernet 14, VLAN tag 4, IPv4 20, IPv6 40, UDP 8).
#include "traffic/packet.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace bottleneckd::packet_test {
namespace {

using Bytes = std::vector<uint8_t>;
using Tag = std::pair<uint16_t, uint16_t>;  // TPID, TCI

void Put16(Bytes* b, uint16_t v) {
  b->push_back(static_cast<uint8_t>(v >> 8));
  b->push_back(static_cast<uint8_t>(v));
}
void Put32(Bytes* b, uint32_t v) {
  Put16(b, static_cast<uint16_t>(v >> 16));
  Put16(b, static_cast<uint16_t>(v));
}
void Fill(Bytes* b, size_t n, uint8_t first = 0xA0) {
  for (size_t i = 0; i < n; ++i) b->push_back(static_cast<uint8_t>(first + i));
}

// dst 02:00:00:00:00:02, src 02:00:00:00:00:01, the tags, the EtherType.
Bytes Ethernet(uint16_t type, std::initializer_list<Tag> tags = {}) {
  Bytes b = {0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01};
  for (const Tag& t : tags) {
    Put16(&b, t.first);
    Put16(&b, t.second);
  }
  Put16(&b, type);
  return b;
}

// IPv4 header 10.0.0.1 -> 10.0.0.2 with IHL `ihl` (NOP options when > 5).
void Ipv4(Bytes* b, uint8_t protocol, uint16_t total_length, uint16_t id = 0x1234, uint16_t flags_fragment = 0,
          uint8_t ihl = 5) {
  b->push_back(static_cast<uint8_t>(0x40 | ihl));
  b->push_back(0);
  Put16(b, total_length);
  Put16(b, id);
  Put16(b, flags_fragment);
  b->push_back(64);
  b->push_back(protocol);
  Put16(b, 0);  // checksum: not checked
  for (uint8_t x : {10, 0, 0, 1, 10, 0, 0, 2}) b->push_back(x);
  for (int i = 5; i < ihl; ++i) Put32(b, 0x01010101);
}

// IPv6 header 2001:db8::1 -> 2001:db8::2.
void Ipv6(Bytes* b, uint16_t payload_length, uint8_t next) {
  Put32(b, 0x60000000);
  Put16(b, payload_length);
  b->push_back(next);
  b->push_back(64);
  for (uint8_t last : {1, 2}) {
    Put32(b, 0x20010db8);
    Put32(b, 0);
    Put32(b, 0);
    Put32(b, last);
  }
}

// Hop-by-hop / routing / destination options: (len + 1) * 8 bytes.
void Ipv6Options(Bytes* b, uint8_t next, uint8_t len) {
  b->push_back(next);
  b->push_back(len);
  b->resize(b->size() + (len + 1) * 8 - 2, 0);
}

void Ipv6Fragment(Bytes* b, uint8_t next, uint16_t offset_units, bool more, uint32_t id) {
  b->push_back(next);
  b->push_back(0);
  Put16(b, static_cast<uint16_t>(offset_units << 3 | (more ? 1 : 0)));
  Put32(b, id);
}

void Udp(Bytes* b, uint16_t sport, uint16_t dport, uint16_t length) {
  Put16(b, sport);
  Put16(b, dport);
  Put16(b, length);
  Put16(b, 0);
}

// TCP header of `words` 32-bit words (options: NOPs).
void Tcp(Bytes* b, uint16_t sport, uint16_t dport, uint8_t words = 5) {
  Put16(b, sport);
  Put16(b, dport);
  Put32(b, 1000);  // seq
  Put32(b, 0);     // ack
  b->push_back(static_cast<uint8_t>(words << 4));
  b->push_back(0x18);  // PSH ACK
  Put16(b, 65535);
  Put32(b, 0);  // checksum, urgent
  for (int i = 5; i < words; ++i) Put32(b, 0x01010101);
}

// Parses a heap copy of exactly `caplen` bytes, so ASan sees any over-read.
PacketStatus Parse(int linktype, const Bytes& frame, PacketInfo* info, size_t caplen = SIZE_MAX) {
  if (caplen == SIZE_MAX) caplen = frame.size();
  std::unique_ptr<uint8_t[]> copy(new uint8_t[caplen]);
  if (caplen > 0) std::memcpy(copy.get(), frame.data(), caplen);
  return ParsePacket(linktype, copy.get(), static_cast<uint32_t>(caplen), static_cast<uint32_t>(frame.size()), info);
}

std::array<uint8_t, 16> V4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) { return {a, b, c, d}; }

std::array<uint8_t, 16> V6(std::array<uint16_t, 8> groups) {
  std::array<uint8_t, 16> a{};
  for (int i = 0; i < 8; ++i) {
    a[2 * i] = static_cast<uint8_t>(groups[i] >> 8);
    a[2 * i + 1] = static_cast<uint8_t>(groups[i]);
  }
  return a;
}

// UDP 5000 -> 7 over IPv4 over Ethernet, 10 payload bytes: 14 + 20 + 8 + 10 = 52.
Bytes UdpFrame(std::initializer_list<Tag> tags = {}) {
  Bytes b = Ethernet(0x0800, tags);
  Ipv4(&b, 17, 38);
  Udp(&b, 5000, 7, 18);
  Fill(&b, 10);
  return b;
}

TEST(ParsePacket, UdpOverIpv4OverEthernet) {
  PacketInfo p;
  ASSERT_EQ(Parse(kLinkEthernet, UdpFrame(), &p), PacketStatus::kOk);
  EXPECT_EQ(p.caplen, 52u);
  EXPECT_EQ(p.wirelen, 52u);
  EXPECT_EQ(p.vlan, 0);
  EXPECT_EQ(p.vlan_tags, 0);
  EXPECT_FALSE(p.ipv6);
  EXPECT_EQ(p.src, V4(10, 0, 0, 1));
  EXPECT_EQ(p.dst, V4(10, 0, 0, 2));
  EXPECT_EQ(p.protocol, 17);
  EXPECT_FALSE(p.fragment);
  EXPECT_FALSE(p.first_fragment);
  EXPECT_EQ(p.fragment_id, 0x1234u);
  EXPECT_TRUE(p.has_ports);
  EXPECT_EQ(p.src_port, 5000);
  EXPECT_EQ(p.dst_port, 7);
  EXPECT_EQ(p.ip_length, 38u);
  EXPECT_EQ(p.payload_length, 10u);
  EXPECT_EQ(p.payload_offset, 42u);
  EXPECT_EQ(p.payload_captured, 10u);
  EXPECT_EQ(FormatAddress(p.src, p.ipv6), "10.0.0.1");
}

TEST(ParsePacket, OneVlanTag) {
  PacketInfo p;
  // TCI 0x6064: priority 3, VLAN 100.
  ASSERT_EQ(Parse(kLinkEthernet, UdpFrame({{0x8100, 0x6064}}), &p), PacketStatus::kOk);
  EXPECT_EQ(p.vlan, 100);
  EXPECT_EQ(p.vlan_tags, 1);
  EXPECT_EQ(p.payload_offset, 46u);
  EXPECT_EQ(p.payload_captured, 10u);
  EXPECT_EQ(p.dst_port, 7);
}

TEST(ParsePacket, QinQReportsOuterTag) {
  PacketInfo p;
  // Outer 802.1ad tag VLAN 200 (DEI set: 0x1000), inner 802.1Q VLAN 300.
  ASSERT_EQ(Parse(kLinkEthernet, UdpFrame({{0x88A8, 0x10C8}, {0x8100, 300}}), &p), PacketStatus::kOk);
  EXPECT_EQ(p.vlan, 200);
  EXPECT_EQ(p.vlan_tags, 2);
  EXPECT_EQ(p.payload_offset, 50u);
  EXPECT_EQ(p.src_port, 5000);
}

TEST(ParsePacket, VlanStackLimits) {
  PacketInfo p;
  Tag t{0x8100, 5};
  EXPECT_EQ(Parse(kLinkEthernet, UdpFrame({t, t, t, t}), &p), PacketStatus::kOk);
  EXPECT_EQ(p.vlan_tags, 4);
  EXPECT_EQ(p.payload_offset, 58u);
  EXPECT_EQ(Parse(kLinkEthernet, UdpFrame({t, t, t, t, t}), &p), PacketStatus::kMalformed);
  // The tag itself cut: 14 + 2 bytes.
  EXPECT_EQ(Parse(kLinkEthernet, UdpFrame({t}), &p, 16), PacketStatus::kTruncated);
  EXPECT_EQ(p.vlan_tags, 0);
}

// IPv6, hop-by-hop (8) + fragment (8) + UDP (8) + 16 payload bytes: payload length 40.
Bytes Ipv6FragmentFrame(uint16_t offset_units, bool more) {
  Bytes b = Ethernet(0x86DD);
  Ipv6(&b, 40, 0);
  Ipv6Options(&b, 44, 0);
  Ipv6Fragment(&b, 17, offset_units, more, 0xDEADBEEF);
  if (offset_units == 0) {
    Udp(&b, 4000, 7, 108);  // the whole datagram's UDP length: 100 payload bytes
    Fill(&b, 16);
  } else {
    Fill(&b, 24);
  }
  return b;
}

TEST(ParsePacket, Ipv6HopByHopAndFirstFragment) {
  PacketInfo p;
  ASSERT_EQ(Parse(kLinkEthernet, Ipv6FragmentFrame(0, true), &p), PacketStatus::kOk);
  EXPECT_TRUE(p.ipv6);
  EXPECT_EQ(FormatAddress(p.src, true), "2001:db8::1");
  EXPECT_EQ(FormatAddress(p.dst, true), "2001:db8::2");
  EXPECT_EQ(p.protocol, 17);
  EXPECT_TRUE(p.fragment);
  EXPECT_TRUE(p.first_fragment);
  EXPECT_EQ(p.fragment_id, 0xDEADBEEFu);
  ASSERT_TRUE(p.has_ports);
  EXPECT_EQ(p.src_port, 4000);
  EXPECT_EQ(p.ip_length, 80u);
  EXPECT_EQ(p.payload_length, 100u);
  EXPECT_EQ(p.payload_offset, 14u + 40 + 8 + 8 + 8);
  EXPECT_EQ(p.payload_captured, 16u);  // what this fragment carries
}

TEST(ParsePacket, Ipv6LaterFragmentHasNoPorts) {
  PacketInfo p;
  ASSERT_EQ(Parse(kLinkEthernet, Ipv6FragmentFrame(3, false), &p), PacketStatus::kOk);
  EXPECT_EQ(p.protocol, 17);
  EXPECT_TRUE(p.fragment);
  EXPECT_FALSE(p.first_fragment);
  EXPECT_EQ(p.fragment_id, 0xDEADBEEFu);
  EXPECT_FALSE(p.has_ports);
  EXPECT_EQ(p.src_port, 0);
  EXPECT_EQ(p.ip_length, 80u);
}

TEST(ParsePacket, Ipv6AtomicFragmentIsWhole) {
  PacketInfo p;
  Bytes b = Ethernet(0x86DD);
  Ipv6(&b, 8 + 8 + 4, 44);
  Ipv6Fragment(&b, 17, 0, false, 9);
  Udp(&b, 1, 2, 12);
  Fill(&b, 4);
  ASSERT_EQ(Parse(kLinkEthernet, b, &p), PacketStatus::kOk);
  EXPECT_FALSE(p.fragment);
  EXPECT_FALSE(p.first_fragment);
  EXPECT_TRUE(p.has_ports);
  EXPECT_EQ(p.payload_length, 4u);
  EXPECT_EQ(p.payload_offset, 14u + 40 + 8 + 8);
}

TEST(ParsePacket, Ipv6ExtensionChainToTcp) {
  // hop-by-hop len 1 (16) -> routing len 0 (8) -> AH len 4 ((4 + 2) * 4 = 24)
  // -> destination options len 0 (8) -> TCP (20) + 3 bytes: 79 after the fixed header.
  Bytes b;
  Ipv6(&b, 79, 0);
  Ipv6Options(&b, 43, 1);
  Ipv6Options(&b, 51, 0);
  b.push_back(60);
  b.push_back(4);
  b.resize(b.size() + 22, 0);
  Ipv6Options(&b, 6, 0);
  Tcp(&b, 443, 50000);
  Fill(&b, 3);
  PacketInfo p;
  ASSERT_EQ(Parse(kLinkRaw, b, &p), PacketStatus::kOk);
  EXPECT_EQ(p.protocol, 6);
  EXPECT_EQ(p.ip_length, 119u);
  ASSERT_TRUE(p.has_ports);
  EXPECT_EQ(p.src_port, 443);
  EXPECT_EQ(p.dst_port, 50000);
  EXPECT_EQ(p.payload_offset, 40u + 16 + 8 + 24 + 8 + 20);
  EXPECT_EQ(p.payload_length, 3u);
  EXPECT_EQ(p.payload_captured, 3u);
}

TEST(ParsePacket, Ipv6ChainEnds) {
  PacketInfo p;
  Bytes none;
  Ipv6(&none, 8, 0);
  Ipv6Options(&none, 59, 0);  // no next header
  ASSERT_EQ(Parse(kLinkRaw, none, &p), PacketStatus::kOk);
  EXPECT_EQ(p.protocol, 59);
  EXPECT_FALSE(p.has_ports);

  Bytes icmp;
  Ipv6(&icmp, 8, 58);
  Fill(&icmp, 8);
  ASSERT_EQ(Parse(kLinkRaw, icmp, &p), PacketStatus::kOk);
  EXPECT_EQ(p.protocol, 58);
  EXPECT_FALSE(p.has_ports);

  Bytes nine;  // nine hop-by-hop headers: more than the walk allows
  Ipv6(&nine, 9 * 8, 0);
  for (int i = 0; i < 9; ++i) Ipv6Options(&nine, i < 8 ? 0 : 59, 0);
  EXPECT_EQ(Parse(kLinkRaw, nine, &p), PacketStatus::kMalformed);

  Bytes beyond;  // option header says 16 bytes, payload length only 8
  Ipv6(&beyond, 8, 0);
  Ipv6Options(&beyond, 59, 1);
  EXPECT_EQ(Parse(kLinkRaw, beyond, &p), PacketStatus::kMalformed);

  Bytes cut = Ipv6FragmentFrame(0, true);  // cut inside the fragment header
  ASSERT_EQ(Parse(kLinkEthernet, cut, &p, 14 + 40 + 8 + 4), PacketStatus::kTruncated);
  EXPECT_TRUE(p.ipv6);
  EXPECT_EQ(FormatAddress(p.dst, true), "2001:db8::2");
  EXPECT_EQ(p.ip_length, 80u);
  EXPECT_FALSE(p.has_ports);
}

TEST(ParsePacket, Ipv4FirstFragment) {
  // MF set, offset 0; UDP length 1008 for the whole datagram, 20 bytes here.
  Bytes b = Ethernet(0x0800);
  Ipv4(&b, 17, 48, 0x4242, 0x2000);
  Udp(&b, 9, 10, 1008);
  Fill(&b, 20);
  PacketInfo p;
  ASSERT_EQ(Parse(kLinkEthernet, b, &p), PacketStatus::kOk);
  EXPECT_TRUE(p.fragment);
  EXPECT_TRUE(p.first_fragment);
  EXPECT_EQ(p.fragment_id, 0x4242u);
  ASSERT_TRUE(p.has_ports);
  EXPECT_EQ(p.dst_port, 10);
  EXPECT_EQ(p.ip_length, 48u);
  EXPECT_EQ(p.payload_length, 1000u);
  EXPECT_EQ(p.payload_captured, 20u);

  // A small first fragment (8 payload bytes, IP 36) padded to 60 bytes: the
  // padding after it is not payload.
  Bytes small = Ethernet(0x0800);
  Ipv4(&small, 17, 36, 0x4343, 0x2000);
  Udp(&small, 9, 10, 1008);
  Fill(&small, 8);
  small.resize(60, 0xEE);
  ASSERT_EQ(Parse(kLinkEthernet, small, &p), PacketStatus::kOk);
  EXPECT_EQ(p.payload_length, 1000u);
  EXPECT_EQ(p.payload_captured, 8u);
}

TEST(ParsePacket, Ipv4LaterFragment) {
  // Offset 185 * 8 = 1480 bytes, MF clear: the last fragment.
  Bytes b = Ethernet(0x0800);
  Ipv4(&b, 17, 50, 0x4242, 185);
  Fill(&b, 30);
  PacketInfo p;
  ASSERT_EQ(Parse(kLinkEthernet, b, &p), PacketStatus::kOk);
  EXPECT_TRUE(p.fragment);
  EXPECT_FALSE(p.first_fragment);
  EXPECT_EQ(p.fragment_id, 0x4242u);
  EXPECT_EQ(p.protocol, 17);
  EXPECT_FALSE(p.has_ports);
  EXPECT_EQ(p.ip_length, 50u);

  Bytes df = Ethernet(0x0800);  // DF alone: not a fragment
  Ipv4(&df, 17, 28, 1, 0x4000);
  Udp(&df, 1, 2, 8);
  ASSERT_EQ(Parse(kLinkEthernet, df, &p), PacketStatus::kOk);
  EXPECT_FALSE(p.fragment);
  EXPECT_TRUE(p.has_ports);
}

TEST(ParsePacket, EthernetPaddingIgnored) {
  // 28-byte datagram (UDP, empty payload) padded to a 60-byte frame.
  Bytes b = Ethernet(0x0800);
  Ipv4(&b, 17, 28);
  Udp(&b, 1234, 7, 8);
  b.resize(60, 0xEE);
  PacketInfo p;
  ASSERT_EQ(Parse(kLinkEthernet, b, &p), PacketStatus::kOk);
  EXPECT_EQ(p.caplen, 60u);
  EXPECT_EQ(p.ip_length, 28u);
  EXPECT_EQ(p.payload_length, 0u);
  EXPECT_EQ(p.payload_offset, 42u);
  EXPECT_EQ(p.payload_captured, 0u);

  // 4 payload bytes (IP 32) padded to 60: only those 4 count.
  Bytes four = Ethernet(0x0800);
  Ipv4(&four, 17, 32);
  Udp(&four, 1234, 7, 12);
  Fill(&four, 4);
  four.resize(60, 0xEE);
  ASSERT_EQ(Parse(kLinkEthernet, four, &p), PacketStatus::kOk);
  EXPECT_EQ(p.payload_length, 4u);
  EXPECT_EQ(p.payload_captured, 4u);
}

TEST(ParsePacket, TruncatedAtEveryOffset) {
  const Bytes frame = UdpFrame();  // 52 bytes, UDP header complete at 42
  for (size_t caplen = 0; caplen <= frame.size(); ++caplen) {
    SCOPED_TRACE(caplen);
    PacketInfo p;
    PacketStatus s = Parse(kLinkEthernet, frame, &p, caplen);
    EXPECT_EQ(p.caplen, caplen);
    EXPECT_EQ(p.wirelen, 52u);
    if (caplen < 42) {
      EXPECT_EQ(s, PacketStatus::kTruncated);
      EXPECT_FALSE(p.has_ports);
      // The fixed IPv4 header (14 + 20) gives the addresses.
      EXPECT_EQ(p.dst, caplen >= 34 ? V4(10, 0, 0, 2) : V4(0, 0, 0, 0));
    } else {
      EXPECT_EQ(s, PacketStatus::kOk);
      EXPECT_TRUE(p.has_ports);
      EXPECT_EQ(p.payload_length, 10u);
      EXPECT_EQ(p.payload_captured, caplen - 42);
    }
  }
}

TEST(ParsePacket, TcpWithOptions) {
  // TCP data offset 8 (32 bytes: 12 of options), 5 payload bytes: IP 57.
  Bytes b = Ethernet(0x0800);
  Ipv4(&b, 6, 57);
  Tcp(&b, 80, 40000, 8);
  Fill(&b, 5);
  PacketInfo p;
  ASSERT_EQ(Parse(kLinkEthernet, b, &p), PacketStatus::kOk);
  EXPECT_EQ(p.protocol, 6);
  ASSERT_TRUE(p.has_ports);
  EXPECT_EQ(p.src_port, 80);
  EXPECT_EQ(p.dst_port, 40000);
  EXPECT_EQ(p.payload_offset, 66u);
  EXPECT_EQ(p.payload_length, 5u);
  EXPECT_EQ(p.payload_captured, 5u);
  // Snap length inside the payload: 2 of its 5 bytes.
  ASSERT_EQ(Parse(kLinkEthernet, b, &p, 68), PacketStatus::kOk);
  EXPECT_EQ(p.payload_length, 5u);
  EXPECT_EQ(p.payload_captured, 2u);
  // Options cut by the snap length (14 + 20 + 24 of 32 header bytes).
  ASSERT_EQ(Parse(kLinkEthernet, b, &p, 58), PacketStatus::kTruncated);
  EXPECT_FALSE(p.has_ports);
  EXPECT_EQ(p.src, V4(10, 0, 0, 1));
}

TEST(ParsePacket, Ipv4OptionsShiftTheTransport) {
  Bytes b = Ethernet(0x0800);
  Ipv4(&b, 17, 24 + 8 + 2, 7, 0, 6);  // IHL 6: 24-byte header
  Udp(&b, 53, 53, 10);
  Fill(&b, 2);
  PacketInfo p;
  ASSERT_EQ(Parse(kLinkEthernet, b, &p), PacketStatus::kOk);
  EXPECT_EQ(p.payload_offset, 14u + 24 + 8);
  EXPECT_EQ(p.payload_captured, 2u);
  EXPECT_EQ(Parse(kLinkEthernet, b, &p, 14 + 22), PacketStatus::kTruncated);
}

TEST(ParsePacket, NotIp) {
  PacketInfo p;
  Bytes arp = Ethernet(0x0806);
  Fill(&arp, 28);
  EXPECT_EQ(Parse(kLinkEthernet, arp, &p), PacketStatus::kNotIp);
  Bytes lldp = Ethernet(0x88CC);
  Fill(&lldp, 30);
  EXPECT_EQ(Parse(kLinkEthernet, lldp, &p), PacketStatus::kNotIp);
  Bytes llc = Ethernet(46);  // 802.3 length field
  Fill(&llc, 46);
  EXPECT_EQ(Parse(kLinkEthernet, llc, &p), PacketStatus::kNotIp);
}

TEST(ParsePacket, Malformed) {
  PacketInfo p;
  Bytes ihl4 = Ethernet(0x0800);
  Ipv4(&ihl4, 17, 28, 1, 0, 4);
  Udp(&ihl4, 1, 2, 8);
  EXPECT_EQ(Parse(kLinkEthernet, ihl4, &p), PacketStatus::kMalformed);

  Bytes short_total = Ethernet(0x0800);
  Ipv4(&short_total, 17, 19);
  Udp(&short_total, 1, 2, 8);
  EXPECT_EQ(Parse(kLinkEthernet, short_total, &p), PacketStatus::kMalformed);

  Bytes udp7 = Ethernet(0x0800);
  Ipv4(&udp7, 17, 28);
  Udp(&udp7, 1, 2, 7);
  EXPECT_EQ(Parse(kLinkEthernet, udp7, &p), PacketStatus::kMalformed);

  Bytes udp_long = Ethernet(0x0800);  // UDP says 20 bytes, the datagram holds 8
  Ipv4(&udp_long, 17, 28);
  Udp(&udp_long, 1, 2, 20);
  EXPECT_EQ(Parse(kLinkEthernet, udp_long, &p), PacketStatus::kMalformed);

  Bytes no_udp_room = Ethernet(0x0800);  // IP length leaves 4 bytes for UDP
  Ipv4(&no_udp_room, 17, 24);
  Udp(&no_udp_room, 1, 2, 8);
  EXPECT_EQ(Parse(kLinkEthernet, no_udp_room, &p), PacketStatus::kMalformed);

  Bytes tcp4 = Ethernet(0x0800);  // TCP data offset 4
  Ipv4(&tcp4, 6, 40);
  Tcp(&tcp4, 1, 2);
  tcp4[14 + 20 + 12] = 0x40;
  EXPECT_EQ(Parse(kLinkEthernet, tcp4, &p), PacketStatus::kMalformed);

  Bytes v6_in_v4 = Ethernet(0x0800);  // EtherType IPv4, version nibble 6
  Ipv6(&v6_in_v4, 0, 59);
  EXPECT_EQ(Parse(kLinkEthernet, v6_in_v4, &p), PacketStatus::kMalformed);

  Bytes raw5 = {0x50, 0, 0, 20};
  EXPECT_EQ(Parse(kLinkRaw, raw5, &p), PacketStatus::kMalformed);
}

// Cooked, raw, null and loop headers in front of the same 38-byte UDP datagram.
Bytes Datagram() {
  Bytes b;
  Ipv4(&b, 17, 38);
  Udp(&b, 5000, 7, 18);
  Fill(&b, 10);
  return b;
}

Bytes Prefixed(Bytes head, const Bytes& body) {
  head.insert(head.end(), body.begin(), body.end());
  return head;
}

void ExpectUdpAt(int linktype, const Bytes& frame, size_t payload_offset) {
  SCOPED_TRACE(linktype);
  PacketInfo p;
  ASSERT_EQ(Parse(linktype, frame, &p), PacketStatus::kOk);
  EXPECT_EQ(p.dst, V4(10, 0, 0, 2));
  EXPECT_EQ(p.dst_port, 7);
  EXPECT_EQ(p.payload_offset, payload_offset);
  EXPECT_EQ(p.payload_captured, 10u);
}

TEST(ParsePacket, OtherLinkTypes) {
  // Cooked v1: packet type 0, ARPHRD_ETHER 1, address length 6, 8 address bytes, protocol.
  Bytes sll = {0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00};
  ExpectUdpAt(kLinkLinuxSll, Prefixed(sll, Datagram()), 16 + 28);
  Bytes sll_vlan = {0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x81, 0x00, 0x00, 0x2A, 0x08, 0x00};
  PacketInfo p;
  ASSERT_EQ(Parse(kLinkLinuxSll, Prefixed(sll_vlan, Datagram()), &p), PacketStatus::kOk);
  EXPECT_EQ(p.vlan, 42);
  EXPECT_EQ(p.payload_offset, 20u + 28);
  EXPECT_EQ(p.sll_pkttype, 0);  // the first two bytes: 0, to us
  Bytes sll_out = sll;
  sll_out[1] = 4;  // packet type 4: sent by us
  ASSERT_EQ(Parse(kLinkLinuxSll, Prefixed(sll_out, Datagram()), &p), PacketStatus::kOk);
  EXPECT_EQ(p.sll_pkttype, 4);
  // Cooked v2: protocol, reserved, ifindex 3, ARPHRD 1, packet type 4, address length 6, 8 bytes.
  Bytes sll2 = {0x08, 0x00, 0, 0, 0, 0, 0, 3, 0, 1, 4, 6, 2, 0, 0, 0, 0, 1, 0, 0};
  ExpectUdpAt(kLinkLinuxSll2, Prefixed(sll2, Datagram()), 20 + 28);
  Bytes sll2_arp = sll2;
  sll2_arp[1] = 0x06;
  EXPECT_EQ(Parse(kLinkLinuxSll2, Prefixed(sll2_arp, Datagram()), &p), PacketStatus::kNotIp);
  EXPECT_EQ(p.sll_pkttype, 4);  // byte 10 of the v2 header, read whatever the protocol
  sll2[10] = 0;
  ASSERT_EQ(Parse(kLinkLinuxSll2, Prefixed(sll2, Datagram()), &p), PacketStatus::kOk);
  EXPECT_EQ(p.sll_pkttype, 0);

  ExpectUdpAt(kLinkRaw, Datagram(), 28);
  ExpectUdpAt(12, Datagram(), 28);  // DLT_RAW as pcap_datalink() gives it on Linux
  ASSERT_EQ(Parse(kLinkRaw, Datagram(), &p), PacketStatus::kOk);
  EXPECT_EQ(p.sll_pkttype, 255);  // no packet type outside cooked headers

  uint32_t af_inet = 2;  // host order
  Bytes null_head(4);
  std::memcpy(null_head.data(), &af_inet, 4);
  ExpectUdpAt(kLinkNull, Prefixed(null_head, Datagram()), 4 + 28);
  std::swap(null_head[0], null_head[3]);  // written by a host of the other byte order
  std::swap(null_head[1], null_head[2]);
  ExpectUdpAt(kLinkNull, Prefixed(null_head, Datagram()), 4 + 28);
  ExpectUdpAt(kLinkLoop, Prefixed({0, 0, 0, 2}, Datagram()), 4 + 28);
  EXPECT_EQ(Parse(kLinkLoop, Prefixed({2, 0, 0, 0}, Datagram()), &p), PacketStatus::kNotIp);

  Bytes v6;
  Ipv6(&v6, 8, 17);
  Udp(&v6, 1, 2, 8);
  EXPECT_EQ(Parse(kLinkRaw, v6, &p), PacketStatus::kOk);
  EXPECT_TRUE(p.ipv6);
  for (uint32_t af6 : {10u, 24u, 28u, 30u}) {
    std::memcpy(null_head.data(), &af6, 4);
    ASSERT_EQ(Parse(kLinkNull, Prefixed(null_head, v6), &p), PacketStatus::kOk) << af6;
    EXPECT_TRUE(p.ipv6);
    EXPECT_EQ(p.payload_offset, 4u + 40 + 8);
    Bytes loop_head = {0, 0, 0, static_cast<uint8_t>(af6)};
    ASSERT_EQ(Parse(kLinkLoop, Prefixed(loop_head, v6), &p), PacketStatus::kOk) << af6;
    EXPECT_TRUE(p.ipv6);
  }

  EXPECT_EQ(Parse(105, UdpFrame(), &p), PacketStatus::kUnsupportedLink);  // 802.11
  for (int link : {kLinkNull, kLinkEthernet, kLinkRaw, kLinkLoop, kLinkLinuxSll, kLinkLinuxSll2}) {
    EXPECT_EQ(ParsePacket(link, nullptr, 0, 60, &p), PacketStatus::kTruncated) << link;
    EXPECT_EQ(p.wirelen, 60u);
  }
}

TEST(ParsePacket, ResetsOutput) {
  PacketInfo p;
  ASSERT_EQ(Parse(kLinkEthernet, UdpFrame({{0x8100, 7}}), &p), PacketStatus::kOk);
  Bytes arp = Ethernet(0x0806);
  Fill(&arp, 28);
  ASSERT_EQ(Parse(kLinkEthernet, arp, &p), PacketStatus::kNotIp);
  EXPECT_EQ(p.vlan_tags, 0);
  EXPECT_FALSE(p.has_ports);
  EXPECT_EQ(p.src_port, 0);
  EXPECT_EQ(p.ip_length, 0u);
  EXPECT_EQ(p.caplen, 42u);
}

TEST(FormatAddress, Ipv4) {
  EXPECT_EQ(FormatAddress(V4(192, 0, 2, 1), false), "192.0.2.1");
  EXPECT_EQ(FormatAddress(V4(0, 0, 0, 0), false), "0.0.0.0");
  EXPECT_EQ(FormatAddress(V4(255, 255, 255, 255), false), "255.255.255.255");
}

TEST(FormatAddress, Rfc5952) {
  // 4.1: leading zeros suppressed (2001:0db8::0001).
  EXPECT_EQ(FormatAddress(V6({0x2001, 0x0db8, 0, 0, 0, 0, 0, 1}), true), "2001:db8::1");
  // 4.2.1: "::" used to its maximum.
  EXPECT_EQ(FormatAddress(V6({0x2001, 0xdb8, 0, 0, 0, 0, 2, 1}), true), "2001:db8::2:1");
  // 4.2.2: a single zero group is not compressed.
  EXPECT_EQ(FormatAddress(V6({0x2001, 0xdb8, 0, 1, 1, 1, 1, 1}), true), "2001:db8:0:1:1:1:1:1");
  // 4.2.3: the longest run; the first of equal runs.
  EXPECT_EQ(FormatAddress(V6({0x2001, 0, 0, 1, 0, 0, 0, 1}), true), "2001:0:0:1::1");
  EXPECT_EQ(FormatAddress(V6({0x2001, 0xdb8, 0, 0, 1, 0, 0, 1}), true), "2001:db8::1:0:0:1");
  // 4.3: lowercase.
  EXPECT_EQ(FormatAddress(V6({0x2001, 0xdb8, 0xaaaa, 0xbbbb, 0xcccc, 0xdddd, 0xeeee, 0xAAAA}), true),
            "2001:db8:aaaa:bbbb:cccc:dddd:eeee:aaaa");
  // 5: IPv4-mapped.
  EXPECT_EQ(FormatAddress(V6({0, 0, 0, 0, 0, 0xffff, 0xc000, 0x0201}), true), "::ffff:192.0.2.1");
  // Runs at either end, and all zeros.
  EXPECT_EQ(FormatAddress(V6({0, 0, 0, 0, 0, 0, 0, 0}), true), "::");
  EXPECT_EQ(FormatAddress(V6({0, 0, 0, 0, 0, 0, 0, 1}), true), "::1");
  EXPECT_EQ(FormatAddress(V6({0xfe80, 0, 0, 0, 0, 0, 0, 0}), true), "fe80::");
  EXPECT_EQ(FormatAddress(V6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 0}), true), "2001:db8::");
  EXPECT_EQ(FormatAddress(V6({1, 0, 2, 0, 3, 0, 4, 0}), true), "1:0:2:0:3:0:4:0");
}

TEST(PacketStatusName, Names) {
  EXPECT_STREQ(PacketStatusName(PacketStatus::kOk), "ok");
  EXPECT_STREQ(PacketStatusName(PacketStatus::kNotIp), "not_ip");
  EXPECT_STREQ(PacketStatusName(PacketStatus::kTruncated), "truncated");
  EXPECT_STREQ(PacketStatusName(PacketStatus::kMalformed), "malformed");
  EXPECT_STREQ(PacketStatusName(PacketStatus::kUnsupportedLink), "unsupported_link");
}

}  // namespace
}  // namespace bottleneckd::packet_test
