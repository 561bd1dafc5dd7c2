// Packet headers: a pure parser of one captured frame into what the traffic
// analysis needs (addresses, ports, protocol, lengths, the start of the UDP
// payload), for the link types libpcap gives on Linux. Never reads past
// `caplen`; a frame cut by the snap length is parsed as far as it goes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace bottleneckd {

// libpcap link types handled (pcap/dlt.h values).
inline constexpr int kLinkNull = 0;         // DLT_NULL: 4-byte host-order family (BSD loopback)
inline constexpr int kLinkEthernet = 1;     // DLT_EN10MB
inline constexpr int kLinkRaw = 101;        // LINKTYPE_RAW (DLT_RAW): starts at the IP header, v4 or v6
inline constexpr int kLinkIpv4 = 228;       // LINKTYPE_IPV4 (DLT_IPV4): raw IPv4 only
inline constexpr int kLinkIpv6 = 229;       // LINKTYPE_IPV6 (DLT_IPV6): raw IPv6 only
inline constexpr int kLinkLinuxSll = 113;   // DLT_LINUX_SLL ("any" device, cooked v1)
inline constexpr int kLinkLoop = 108;       // DLT_LOOP: 4-byte network-order family
inline constexpr int kLinkLinuxSll2 = 276;  // DLT_LINUX_SLL2 (cooked v2)

enum class PacketStatus : uint8_t {
  kOk,         // IPv4/IPv6 parsed; ports set when `has_ports`
  kNotIp,      // ARP, LLDP, ...: counted, not analysed
  kTruncated,  // the snap length cut a header we needed (fields parsed so far are set)
  kMalformed,  // a header contradicts itself (bad IHL, length below header size, an IP version the link type
               // excludes, ...)
  kUnsupportedLink,
};
const char* PacketStatusName(PacketStatus s);

struct PacketInfo {
  uint32_t caplen = 0, wirelen = 0;  // captured and on-the-wire frame lengths
  uint16_t vlan = 0;                 // outermost 802.1Q/802.1ad VLAN id, 0 when untagged
  uint8_t vlan_tags = 0;             // how many tags (QinQ: 2)
  bool ipv6 = false;
  std::array<uint8_t, 16> src{}, dst{};  // IPv4 in the first 4 bytes
  uint8_t protocol = 0;         // 17 UDP, 6 TCP, 1 ICMP, 58 ICMPv6, ...; the upper layer after IPv6 extension headers
  bool fragment = false;        // part of a fragmented datagram
  bool first_fragment = false;  // the fragment at offset 0 (the one with the ports)
  uint32_t fragment_id = 0;     // IPv4 identification or IPv6 fragment header id
  bool has_ports = false;       // UDP/TCP header present (not a later fragment, not truncated)
  uint16_t src_port = 0, dst_port = 0;
  uint32_t ip_length = 0;         // IP datagram length from its header (IPv4 total length, IPv6 40 + payload length)
  uint32_t payload_length = 0;    // UDP: from its length field minus 8; TCP: IP length minus headers
  size_t payload_offset = 0;      // where the payload starts in the frame (valid when has_ports)
  uint32_t payload_captured = 0;  // payload bytes actually in the capture
  uint8_t sll_pkttype = 255;  // cooked captures: the packet type (0 to us, 1 broadcast, 2 multicast, 3 to another host,
                              // 4 sent by us); 255 when the link type has none
};

// Parses one frame of link type `linktype`. `out` is reset first.
PacketStatus ParsePacket(int linktype, const uint8_t* frame, uint32_t caplen, uint32_t wirelen, PacketInfo* out);

// "10.0.0.1" / "2001:db8::1" (RFC 5952 compressed) of an address in PacketInfo.
std::string FormatAddress(const std::array<uint8_t, 16>& a, bool ipv6);

}  // namespace bottleneckd
