// libFuzzer target: the first byte picks a link type (every supported one and
// one unsupported), the rest is the captured frame. Besides the sanitizers,
// checks what ParsePacket promises: payload bounds inside the capture, ports
// only with a transport header, lengths from the headers, a stable result on a
// reused PacketInfo, and FormatAddress on whatever addresses came out.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "traffic/packet.h"

namespace {

constexpr int kLinkTypes[] = {
    bottleneckd::kLinkNull, bottleneckd::kLinkEthernet, bottleneckd::kLinkRaw,       12 /* DLT_RAW */,
    bottleneckd::kLinkLoop, bottleneckd::kLinkLinuxSll, bottleneckd::kLinkLinuxSll2, 105 /* 802.11: unsupported */};

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using bottleneckd::PacketInfo;
  using bottleneckd::PacketStatus;
  if (size == 0) return 0;
  const int linktype = kLinkTypes[data[0] % (sizeof kLinkTypes / sizeof kLinkTypes[0])];
  const uint32_t caplen = static_cast<uint32_t>(size - 1);
  // An exact-size heap copy so that any read past caplen is an ASan report.
  std::unique_ptr<uint8_t[]> frame(new uint8_t[caplen]);
  for (uint32_t i = 0; i < caplen; ++i) frame[i] = data[i + 1];
  const uint32_t wirelen = caplen + data[0];

  PacketInfo info;
  const PacketStatus s = bottleneckd::ParsePacket(linktype, frame.get(), caplen, wirelen, &info);
  Check(info.caplen == caplen && info.wirelen == wirelen);
  Check(std::string(bottleneckd::PacketStatusName(s)) != "");
  if (linktype == 105) Check(s == PacketStatus::kUnsupportedLink);
  if (s != PacketStatus::kOk) Check(!info.has_ports);
  if (info.has_ports) {
    Check(info.protocol == 6 || info.protocol == 17);
    Check(info.payload_offset <= caplen);
    Check(info.payload_offset + info.payload_captured <= caplen);
    Check(info.payload_captured <= info.payload_length);
    Check(!info.fragment || info.first_fragment);
  } else {
    Check(info.src_port == 0 && info.dst_port == 0 && info.payload_offset == 0 && info.payload_captured == 0);
  }
  if (info.first_fragment) Check(info.fragment);
  if (info.vlan_tags == 0) Check(info.vlan == 0);
  if (s == PacketStatus::kOk) Check(info.ip_length >= (info.ipv6 ? 40u : 20u));

  // Parsing again into the used struct gives the same answer.
  PacketInfo again = info;
  again.has_ports = !info.has_ports;
  Check(bottleneckd::ParsePacket(linktype, frame.get(), caplen, wirelen, &again) == s);
  Check(again.has_ports == info.has_ports && again.payload_offset == info.payload_offset &&
        again.payload_captured == info.payload_captured && again.src == info.src);

  const std::string src = bottleneckd::FormatAddress(info.src, info.ipv6);
  Check(!src.empty() && src.size() <= 45);
  return 0;
}
