// The recording's pcap file (docs/recording-format.md, "pcap"): the live
// capture's cumulative reading of each interface at one tick, never a
// packet. Written by CaptureFileText, read back by ParseCaptureFile, in the
// line form of sources/reading_file.h:
//   interface NAME ACTIVE ERROR LINKTYPE DIRECTION_KNOWN OPENED_MONO_NS STATS_OK RECV DROP IFDROP
//   counts PACKETS BYTES RX_PACKETS RX_BYTES TX_PACKETS TX_BYTES REQUESTS REPLIES REQUEST_BYTES
//          REPLY_BYTES PAIRED LOST UNMATCHED TRUNCATED MALFORMED NOT_IP
//   sizes N... (kSizeBuckets)
//   turnaround COUNT MIN MAX SUM [BUCKET N]...
//   flow IPV6 PROTOCOL SRC DST SRC_PORT DST_PORT REQUESTS REPLIES PAIRED LOST BYTES PACKETS PACKETS_ERROR
// counts, sizes, turnaround and flow lines belong to the interface line
// before them; addresses are 32 hex digits.
#include <cstdio>

#include "sources/capture.h"
#include "sources/reading_file.h"

namespace bottleneckd {
namespace {

constexpr int kCaptureFileFormat = 1;

std::string AddressHex(const std::array<uint8_t, 16>& a) {
  std::string s;
  char b[3];
  for (uint8_t x : a) {
    std::snprintf(b, sizeof(b), "%02x", x);
    s += b;
  }
  return s;
}

bool ParseAddressHex(const std::string& s, std::array<uint8_t, 16>* out) {
  if (s.size() != 32) return false;
  for (size_t i = 0; i < 16; ++i) {
    unsigned v = 0;
    for (size_t k = 0; k < 2; ++k) {
      const char c = s[2 * i + k];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return false;
      v = v * 16 + static_cast<unsigned>(d);
    }
    (*out)[i] = static_cast<uint8_t>(v);
  }
  return true;
}

// Reads a port or protocol number no larger than `max`.
bool SmallNumber(ReadingFileReader* r, uint64_t max, uint64_t* v) { return r->U(v) && *v <= max; }

}  // namespace

std::string CaptureFileText(const std::vector<CaptureReading>& readings) {
  ReadingFileWriter w(kCaptureFileFormat);
  for (const CaptureReading& c : readings) {
    w.Line("interface").S(c.interface).B(c.active).S(c.error).I(c.linktype).B(c.direction_known);
    w.I(c.opened_mono_ns).B(c.stats_ok).U(c.pcap_received).U(c.pcap_dropped).U(c.pcap_ifdropped);
    w.Line("counts").U(c.packets).U(c.bytes).U(c.receive_packets).U(c.receive_bytes).U(c.transmit_packets);
    w.U(c.transmit_bytes).U(c.requests).U(c.replies).U(c.request_bytes).U(c.reply_bytes).U(c.paired).U(c.lost);
    w.U(c.unmatched_replies).U(c.truncated).U(c.malformed).U(c.not_ip);
    w.Line("sizes");
    for (uint64_t n : c.sizes) w.U(n);
    const LatencyHistogram& h = c.turnaround;
    w.Line("turnaround").U(h.count()).D(h.Min()).D(h.Max()).D(h.Sum());
    for (const auto& [i, n] : h.NonEmptyBuckets()) w.U(i).U(n);
    for (const FlowStats& f : c.top_flows) {
      w.Line("flow").B(f.key.ipv6).U(f.key.protocol).S(AddressHex(f.key.src)).S(AddressHex(f.key.dst));
      w.U(f.key.src_port).U(f.key.dst_port).U(f.requests).U(f.replies).U(f.paired).U(f.lost).U(f.bytes);
      w.U(f.packets).U(f.packets_error);
    }
  }
  return w.Take();
}

Status ParseCaptureFile(std::string_view text, std::vector<CaptureReading>* out) {
  ReadingFileReader r(text, "pcap");
  int format = 0;
  BN_RETURN_IF_ERROR(r.Format(kCaptureFileFormat, &format));
  std::vector<CaptureReading> readings;
  while (r.Next()) {
    const std::string_view key = r.key();
    if (key == "interface") {
      CaptureReading c;
      uint32_t* pcap[] = {&c.pcap_received, &c.pcap_dropped, &c.pcap_ifdropped};
      if (!r.S(&c.interface) || c.interface.empty() || !r.B(&c.active) || !r.S(&c.error) ||
          !r.Int(&c.linktype, -1, 65535) || !r.B(&c.direction_known) || !r.I(&c.opened_mono_ns) || !r.B(&c.stats_ok))
        return r.Bad("expected 'interface NAME ACTIVE ERROR LINKTYPE DIRECTION_KNOWN OPENED_MONO_NS STATS_OK ...'");
      for (uint32_t* p : pcap) {
        uint64_t v = 0;
        if (!SmallNumber(&r, UINT32_MAX, &v)) return r.Bad("pcap_stats counters are 32-bit whole numbers");
        *p = static_cast<uint32_t>(v);
      }
      if (!r.AtEnd()) return r.Bad("too many fields");
      readings.push_back(std::move(c));
      continue;
    }
    if (readings.empty()) return r.Bad("'" + std::string(key.substr(0, 40)) + "' before any interface line");
    CaptureReading& c = readings.back();
    if (key == "counts") {
      uint64_t* fields[] = {&c.packets,           &c.bytes,          &c.receive_packets, &c.receive_bytes,
                            &c.transmit_packets,  &c.transmit_bytes, &c.requests,        &c.replies,
                            &c.request_bytes,     &c.reply_bytes,    &c.paired,          &c.lost,
                            &c.unmatched_replies, &c.truncated,      &c.malformed,       &c.not_ip};
      for (uint64_t* f : fields)
        if (!r.U(f)) return r.Bad("expected 16 whole numbers after 'counts'");
    } else if (key == "sizes") {
      for (uint64_t& n : c.sizes)
        if (!r.U(&n)) return r.Bad("expected " + std::to_string(kSizeBuckets) + " whole numbers after 'sizes'");
    } else if (key == "turnaround") {
      uint64_t count = 0;
      double min = 0, max = 0, sum = 0;
      if (!r.U(&count) || !r.D(&min) || !r.D(&max) || !r.D(&sum))
        return r.Bad("expected 'turnaround COUNT MIN MAX SUM [BUCKET N]...'");
      std::vector<std::pair<uint32_t, uint64_t>> buckets;
      while (!r.AtEnd()) {
        uint64_t i = 0, n = 0;
        if (!SmallNumber(&r, UINT32_MAX, &i) || !r.U(&n)) return r.Bad("expected bucket and count pairs");
        buckets.emplace_back(static_cast<uint32_t>(i), n);
      }
      if (!LatencyHistogram::FromParts(buckets, count, min, max, sum, &c.turnaround))
        return r.Bad("the turnaround histogram does not add up (bucket out of range or repeated, counts not COUNT)");
    } else if (key == "flow") {
      FlowStats f;
      uint64_t protocol = 0, sport = 0, dport = 0;
      std::string src, dst;
      if (!r.B(&f.key.ipv6) || !SmallNumber(&r, 255, &protocol) || !r.S(&src) || !r.S(&dst) ||
          !ParseAddressHex(src, &f.key.src) || !ParseAddressHex(dst, &f.key.dst) || !SmallNumber(&r, 65535, &sport) ||
          !SmallNumber(&r, 65535, &dport) || !r.U(&f.requests) || !r.U(&f.replies) || !r.U(&f.paired) ||
          !r.U(&f.lost) || !r.U(&f.bytes) || !r.U(&f.packets) || !r.U(&f.packets_error))
        return r.Bad(
            "expected 'flow IPV6 PROTOCOL SRC DST SRC_PORT DST_PORT' (32 hex digits per address) and 7 counts");
      f.key.protocol = static_cast<uint8_t>(protocol);
      f.key.src_port = static_cast<uint16_t>(sport);
      f.key.dst_port = static_cast<uint16_t>(dport);
      c.top_flows.push_back(f);
    } else {
      return r.Bad("unknown key '" + std::string(key.substr(0, 40)) +
                   "' (expected interface, counts, sizes, turnaround or flow)");
    }
    if (!r.AtEnd()) return r.Bad("too many fields");
  }
  *out = std::move(readings);
  return Status::OK();
}

}  // namespace bottleneckd
