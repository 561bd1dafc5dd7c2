// Packet headers: link layer -> IPv4/IPv6 (with IPv6 extension headers) ->
// UDP/TCP ports and payload bounds. Every read is checked against `caplen`
// first; lengths come from the IP and UDP headers, never from caplen, so
// Ethernet padding and snap-length cuts do not change them.
#include "traffic/packet.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace bottleneckd {
namespace {

// pcap/dlt.h: DLT_RAW is 12 on Linux (what pcap_datalink() returns for raw IP,
// live and from a file whose header says LINKTYPE_RAW = 101).
constexpr int kLinkRawDlt = 12;

constexpr uint16_t kEtherIpv4 = 0x0800;
constexpr uint16_t kEtherIpv6 = 0x86DD;
constexpr uint16_t kEther8021Q = 0x8100;
constexpr uint16_t kEther8021AD = 0x88A8;
constexpr uint16_t kEtherQinQLegacy = 0x9100;  // pre-802.1ad QinQ outer tag
constexpr int kMaxVlanTags = 4;

constexpr size_t kEthernetHeader = 14;
constexpr size_t kSllHeader = 16;
constexpr size_t kSll2Header = 20;
constexpr size_t kSll2PacketType = 10;  // offset of the 1-byte packet type in a cooked v2 header
constexpr size_t kAfHeader = 4;
constexpr size_t kIpv4MinHeader = 20;
constexpr size_t kIpv6Header = 40;
constexpr size_t kIpv6MinExtHeader = 8;
constexpr size_t kUdpHeader = 8;
constexpr size_t kTcpMinHeader = 20;
constexpr int kMaxIpv6ExtHeaders = 8;

constexpr uint8_t kProtoHopByHop = 0;
constexpr uint8_t kProtoTcp = 6;
constexpr uint8_t kProtoUdp = 17;
constexpr uint8_t kProtoRouting = 43;
constexpr uint8_t kProtoFragment = 44;
constexpr uint8_t kProtoAh = 51;
constexpr uint8_t kProtoDestOpts = 60;

// Address family values in DLT_NULL / DLT_LOOP headers: AF_INET is 2
// everywhere; AF_INET6 is 10 (Linux), 24 (NetBSD, OpenBSD), 28 (FreeBSD),
// 30 (macOS).
constexpr uint32_t kAfInet = 2;
constexpr uint32_t kAfInet6Values[] = {10, 24, 28, 30};

uint16_t Be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

uint32_t Be32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 | static_cast<uint32_t>(p[2]) << 8 |
         p[3];
}

// The captured bytes of one frame; every read goes through Has().
struct Frame {
  const uint8_t* data;
  size_t caplen;
  // True when [off, off + len) lies inside the capture.
  bool Has(size_t off, size_t len) const { return off <= caplen && len <= caplen - off; }
};

// The transport header at `off`; the IP datagram ends at `end` (which may lie
// past caplen; off <= end). Sets ports and payload bounds when the header is
// whole in both the datagram and the capture.
PacketStatus ParseTransport(const Frame& f, size_t off, size_t end, PacketInfo* out) {
  const size_t in_datagram = end - off;
  size_t header = 0;
  uint32_t payload_length = 0;
  if (out->protocol == kProtoUdp) {
    if (in_datagram < kUdpHeader) return PacketStatus::kMalformed;
    if (!f.Has(off, kUdpHeader)) return PacketStatus::kTruncated;
    const uint16_t udp_length = Be16(f.data + off + 4);
    if (udp_length < kUdpHeader) return PacketStatus::kMalformed;
    // A first fragment carries only part of the datagram the UDP length covers.
    if (!out->fragment && udp_length > in_datagram) return PacketStatus::kMalformed;
    header = kUdpHeader;
    payload_length = udp_length - kUdpHeader;
    // Payload bytes in this datagram: bounded by the UDP length and, for a
    // first fragment, by the fragment's end.
    const size_t here = std::min<size_t>(udp_length, in_datagram) - kUdpHeader;
    out->payload_captured = static_cast<uint32_t>(std::min(here, f.caplen - off - header));
  } else if (out->protocol == kProtoTcp) {
    if (in_datagram < kTcpMinHeader) return PacketStatus::kMalformed;
    if (!f.Has(off, kTcpMinHeader)) return PacketStatus::kTruncated;
    header = static_cast<size_t>(f.data[off + 12] >> 4) * 4;
    if (header < kTcpMinHeader || header > in_datagram) return PacketStatus::kMalformed;
    if (!f.Has(off, header)) return PacketStatus::kTruncated;
    payload_length = static_cast<uint32_t>(in_datagram - header);
    out->payload_captured = static_cast<uint32_t>(std::min<size_t>(payload_length, f.caplen - off - header));
  } else {
    return PacketStatus::kOk;  // ICMP, ESP, ...: no ports
  }
  out->has_ports = true;
  out->src_port = Be16(f.data + off);
  out->dst_port = Be16(f.data + off + 2);
  out->payload_length = payload_length;
  out->payload_offset = off + header;
  return PacketStatus::kOk;
}

PacketStatus ParseIpv4(const Frame& f, size_t off, PacketInfo* out) {
  out->ipv6 = false;
  if (!f.Has(off, 1)) return PacketStatus::kTruncated;
  const uint8_t* ip = f.data + off;
  if (ip[0] >> 4 != 4) return PacketStatus::kMalformed;
  const size_t header = static_cast<size_t>(ip[0] & 0x0F) * 4;
  if (header < kIpv4MinHeader) return PacketStatus::kMalformed;
  if (!f.Has(off, kIpv4MinHeader)) return PacketStatus::kTruncated;
  const uint16_t total_length = Be16(ip + 2);
  const uint16_t flags_offset = Be16(ip + 6);
  const uint16_t fragment_offset = flags_offset & 0x1FFF;
  const bool more_fragments = (flags_offset & 0x2000) != 0;
  out->ip_length = total_length;
  out->fragment_id = Be16(ip + 4);
  out->fragment = more_fragments || fragment_offset != 0;
  out->first_fragment = out->fragment && fragment_offset == 0;
  out->protocol = ip[9];
  std::memcpy(out->src.data(), ip + 12, 4);
  std::memcpy(out->dst.data(), ip + 16, 4);
  if (total_length < header) return PacketStatus::kMalformed;
  if (!f.Has(off, header)) return PacketStatus::kTruncated;  // options cut
  if (fragment_offset != 0) return PacketStatus::kOk;        // no transport header here
  return ParseTransport(f, off + header, off + total_length, out);
}

bool IsIpv6Extension(uint8_t type) {
  return type == kProtoHopByHop || type == kProtoRouting || type == kProtoDestOpts || type == kProtoFragment ||
         type == kProtoAh;
}

// Length of the IPv6 extension header `type` at `p` (two bytes readable).
size_t Ipv6ExtensionLength(uint8_t type, const uint8_t* p) {
  if (type == kProtoFragment) return 8;
  if (type == kProtoAh) return (static_cast<size_t>(p[1]) + 2) * 4;
  return (static_cast<size_t>(p[1]) + 1) * 8;  // hop-by-hop, routing, destination options
}

PacketStatus ParseIpv6(const Frame& f, size_t off, PacketInfo* out) {
  out->ipv6 = true;
  if (!f.Has(off, 1)) return PacketStatus::kTruncated;
  if (f.data[off] >> 4 != 6) return PacketStatus::kMalformed;
  if (!f.Has(off, kIpv6Header)) return PacketStatus::kTruncated;
  const uint8_t* ip = f.data + off;
  const uint16_t payload_length = Be16(ip + 4);
  uint8_t next = ip[6];
  std::memcpy(out->src.data(), ip + 8, 16);
  std::memcpy(out->dst.data(), ip + 24, 16);
  out->ip_length = kIpv6Header + payload_length;
  out->protocol = next;
  const size_t end = off + kIpv6Header + payload_length;
  size_t cur = off + kIpv6Header;
  // Up to the upper layer (or 59, no next header; or ESP, whose contents are opaque).
  for (int walked = 0; IsIpv6Extension(next); ++walked) {
    if (walked == kMaxIpv6ExtHeaders) return PacketStatus::kMalformed;
    if (end - cur < kIpv6MinExtHeader) return PacketStatus::kMalformed;
    if (!f.Has(cur, kIpv6MinExtHeader)) return PacketStatus::kTruncated;
    const uint8_t* ext = f.data + cur;
    const size_t length = Ipv6ExtensionLength(next, ext);
    if (length > end - cur) return PacketStatus::kMalformed;
    if (!f.Has(cur, length)) return PacketStatus::kTruncated;
    if (next == kProtoFragment) {
      const uint16_t offset_flags = Be16(ext + 2);
      const uint16_t fragment_offset = offset_flags >> 3;
      out->fragment_id = Be32(ext + 4);
      // Offset 0 without M is an atomic fragment (RFC 6946): the whole datagram.
      out->fragment = fragment_offset != 0 || (offset_flags & 1) != 0;
      out->first_fragment = out->fragment && fragment_offset == 0;
      if (fragment_offset != 0) {
        out->protocol = ext[0];
        return PacketStatus::kOk;  // no transport header here
      }
    }
    next = ext[0];
    out->protocol = next;
    cur += length;
  }
  return ParseTransport(f, cur, end, out);
}

// After the link header: VLAN tags (802.1Q, 802.1ad, QinQ stacks) at `off`,
// then the network layer named by the innermost EtherType.
PacketStatus ParseEthertype(const Frame& f, size_t off, uint16_t type, PacketInfo* out) {
  while (type == kEther8021Q || type == kEther8021AD || type == kEtherQinQLegacy) {
    if (out->vlan_tags == kMaxVlanTags) return PacketStatus::kMalformed;
    if (!f.Has(off, 4)) return PacketStatus::kTruncated;
    if (out->vlan_tags == 0) out->vlan = Be16(f.data + off) & 0x0FFF;
    ++out->vlan_tags;
    type = Be16(f.data + off + 2);
    off += 4;
  }
  if (type == kEtherIpv4) return ParseIpv4(f, off, out);
  if (type == kEtherIpv6) return ParseIpv6(f, off, out);
  return PacketStatus::kNotIp;  // ARP, LLDP, 802.3 length field, ...
}

// Raw IP: the version nibble says which.
PacketStatus ParseRawIp(const Frame& f, size_t off, PacketInfo* out) {
  if (!f.Has(off, 1)) return PacketStatus::kTruncated;
  switch (f.data[off] >> 4) {
    case 4: return ParseIpv4(f, off, out);
    case 6: return ParseIpv6(f, off, out);
    default: return PacketStatus::kMalformed;
  }
}

// DLT_NULL / DLT_LOOP: a 4-byte address family, then the IP header.
PacketStatus ParseAddressFamily(const Frame& f, uint32_t family, PacketInfo* out) {
  if (family == kAfInet) return ParseIpv4(f, kAfHeader, out);
  for (uint32_t v6 : kAfInet6Values) {
    if (family == v6) return ParseIpv6(f, kAfHeader, out);
  }
  return PacketStatus::kNotIp;
}

// DLT_NULL's family is in the byte order of the host that captured, which
// need not be this one: families are small, so a value with bits in the upper
// half was written in the other order.
uint32_t NullFamily(const uint8_t* p) {
  uint32_t v = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
               static_cast<uint32_t>(p[3]) << 24;
  if ((v & 0xFFFF0000u) != 0) v = Be32(p);
  return v;
}

void FormatIpv4(const uint8_t* a, std::string* out) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
  out->append(buf);
}

}  // namespace

const char* PacketStatusName(PacketStatus s) {
  switch (s) {
    case PacketStatus::kOk: return "ok";
    case PacketStatus::kNotIp: return "not_ip";
    case PacketStatus::kTruncated: return "truncated";
    case PacketStatus::kMalformed: return "malformed";
    case PacketStatus::kUnsupportedLink: return "unsupported_link";
  }
  return "unknown";
}

PacketStatus ParsePacket(int linktype, const uint8_t* frame, uint32_t caplen, uint32_t wirelen, PacketInfo* out) {
  *out = PacketInfo{};
  out->caplen = caplen;
  out->wirelen = wirelen;
  const Frame f{frame, frame == nullptr ? 0 : caplen};
  switch (linktype) {
    case kLinkEthernet:
      if (!f.Has(0, kEthernetHeader)) return PacketStatus::kTruncated;
      return ParseEthertype(f, kEthernetHeader, Be16(frame + 12), out);
    case kLinkLinuxSll:
      // 16 bits on the wire, 0..4 in practice; a larger value stays out of that range.
      if (f.Has(0, 2)) out->sll_pkttype = static_cast<uint8_t>(std::min<uint16_t>(Be16(frame), 254));
      if (!f.Has(0, kSllHeader)) return PacketStatus::kTruncated;
      return ParseEthertype(f, kSllHeader, Be16(frame + 14), out);
    case kLinkLinuxSll2:
      if (f.Has(kSll2PacketType, 1)) out->sll_pkttype = frame[kSll2PacketType];
      if (!f.Has(0, kSll2Header)) return PacketStatus::kTruncated;
      return ParseEthertype(f, kSll2Header, Be16(frame), out);
    case kLinkRaw:
    case kLinkRawDlt: return ParseRawIp(f, 0, out);
    // One version only: a packet of the other version is malformed (as
    // tcpdump and Wireshark flag it), never a flow.
    case kLinkIpv4: return ParseIpv4(f, 0, out);
    case kLinkIpv6: return ParseIpv6(f, 0, out);
    case kLinkNull:
      if (!f.Has(0, kAfHeader)) return PacketStatus::kTruncated;
      return ParseAddressFamily(f, NullFamily(frame), out);
    case kLinkLoop:
      if (!f.Has(0, kAfHeader)) return PacketStatus::kTruncated;
      return ParseAddressFamily(f, Be32(frame), out);
    default: return PacketStatus::kUnsupportedLink;
  }
}

std::string FormatAddress(const std::array<uint8_t, 16>& a, bool ipv6) {
  std::string out;
  if (!ipv6) {
    FormatIpv4(a.data(), &out);
    return out;
  }
  // IPv4-mapped (RFC 5952 section 5): ::ffff:a.b.c.d
  static constexpr uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  if (std::memcmp(a.data(), kMappedPrefix, sizeof kMappedPrefix) == 0) {
    out = "::ffff:";
    FormatIpv4(a.data() + 12, &out);
    return out;
  }
  uint16_t groups[8];
  for (int i = 0; i < 8; ++i) groups[i] = Be16(a.data() + 2 * i);
  // The longest run of two or more zero groups, the leftmost on ties, becomes "::".
  int best_start = -1, best_len = 1;
  for (int i = 0; i < 8;) {
    if (groups[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && groups[j] == 0) ++j;
    if (j - i > best_len) {
      best_start = i;
      best_len = j - i;
    }
    i = j;
  }
  char buf[8];
  for (int i = 0; i < 8; ++i) {
    if (i == best_start) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (i > 0 && i != best_start + best_len) out += ':';
    std::snprintf(buf, sizeof buf, "%x", groups[i]);
    out += buf;
  }
  return out;
}

}  // namespace bottleneckd
