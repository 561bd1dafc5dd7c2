// Writes the capture file of the offline benchmark (bench/pcap_compare.sh): N
// frames of UDP echo traffic through libpcap's pcap_dump, Ethernet/IPv4/UDP,
// 64 client ports x 4 server addresses (256 flows), each request answered
// 20-80 us later with the same payload, addresses and ports swapped, except ~1 %
// that are never answered; payloads of 64, 512 or 1024 bytes; snap length 128
// (a headers-only capture: caplen = min(wire length, 128)); timestamps at
// nanosecond (default) or microsecond precision at a fixed frame rate.
// Deterministic (fixed seed). Prints what it wrote as key=value lines so the
// benchmark can check bottleneckd's answer: every request counts as answered,
// lost (unanswered for more than 1 s at the last frame's time) or waiting at
// the end (unanswered, younger than that); `lost_ambiguous` of them were
// within 1 us of the timeout, where a reader's rounding may decide either way.
//
// usage: make_capture --out FILE [--packets N] [--rate PPS] [--micro] [--seed S]
//                     [--loss PERCENT]
#include <pcap/pcap.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <string>
#include <vector>

namespace {

constexpr int kClientPorts = 64;
constexpr int kServers = 4;
constexpr int kFlows = kClientPorts * kServers;
constexpr uint32_t kSnaplen = 128;
constexpr uint16_t kClientPortBase = 40000;
constexpr uint16_t kServerPort = 7;
constexpr size_t kPayloads[] = {64, 512, 1024};
constexpr int64_t kStartSec = 1700000000;
constexpr uint64_t kTimeoutNs = 1000000000;  // bottleneckd's reply timeout (1 s)

// splitmix64: a small deterministic generator.
struct Rng {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return Next() % n; }
};

void Put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void Put32(uint8_t* p, uint32_t v) {
  Put16(p, static_cast<uint16_t>(v >> 16));
  Put16(p + 2, static_cast<uint16_t>(v));
}

// The first kSnaplen bytes of an Ethernet/IPv4/UDP frame (the rest of the
// frame is never written: caplen <= kSnaplen). Returns the wire length.
uint32_t BuildFrame(uint8_t* f, bool request, int flow, size_t payload, uint32_t seq, uint16_t ip_id) {
  const int port = flow % kClientPorts, server = flow / kClientPorts;
  const uint8_t client_ip[4] = {10, 1, 0, 1};
  const uint8_t server_ip[4] = {10, 2, 0, static_cast<uint8_t>(1 + server)};
  const uint16_t client_port = static_cast<uint16_t>(kClientPortBase + port);
  std::memset(f, 0, kSnaplen);
  // Ethernet: locally administered MACs, host 1 = client, 2 + server = server.
  const uint8_t client_mac[6] = {0x02, 0, 0, 0, 0, 1};
  const uint8_t server_mac[6] = {0x02, 0, 0, 0, 1, static_cast<uint8_t>(2 + server)};
  std::memcpy(f, request ? server_mac : client_mac, 6);
  std::memcpy(f + 6, request ? client_mac : server_mac, 6);
  Put16(f + 12, 0x0800);
  uint8_t* ip = f + 14;
  const uint16_t total = static_cast<uint16_t>(20 + 8 + payload);
  ip[0] = 0x45;
  Put16(ip + 2, total);
  Put16(ip + 4, ip_id);
  Put16(ip + 6, 0x4000);  // don't fragment
  ip[8] = 64;
  ip[9] = 17;
  std::memcpy(ip + 12, request ? client_ip : server_ip, 4);
  std::memcpy(ip + 16, request ? server_ip : client_ip, 4);
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += (uint32_t{ip[i]} << 8) | ip[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  Put16(ip + 10, static_cast<uint16_t>(~sum));
  uint8_t* udp = ip + 20;
  Put16(udp, request ? client_port : kServerPort);
  Put16(udp + 2, request ? kServerPort : client_port);
  Put16(udp + 4, static_cast<uint16_t>(8 + payload));
  // checksum 0: none (allowed for IPv4)
  uint8_t* pl = udp + 8;  // 86 payload bytes fit in the snap length
  Put32(pl, seq);
  for (size_t i = 4; i < kSnaplen - 42; ++i) pl[i] = static_cast<uint8_t>('a' + i % 26);
  return 14 + total;
}

struct Pending {
  uint64_t t_ns;  // reply time, from the start
  uint32_t seq;
  int flow;
  uint8_t size_index;
  bool operator>(const Pending& o) const { return t_ns > o.t_ns || (t_ns == o.t_ns && seq > o.seq); }
};

int Usage() {
  std::fprintf(stderr,
               "usage: make_capture --out FILE [--packets N (10000000)] [--rate PPS (500000)] [--micro] "
               "[--seed S] [--loss PERCENT (1)]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  uint64_t packets = 10000000, rate = 500000, seed = 6;
  double loss_percent = 1.0;
  bool nano = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--micro") {
      nano = false;
    } else if (a == "--out" && (v = value())) {
      out = v;
    } else if (a == "--packets" && (v = value())) {
      packets = std::strtoull(v, nullptr, 10);
    } else if (a == "--rate" && (v = value())) {
      rate = std::strtoull(v, nullptr, 10);
    } else if (a == "--seed" && (v = value())) {
      seed = std::strtoull(v, nullptr, 10);
    } else if (a == "--loss" && (v = value())) {
      loss_percent = std::strtod(v, nullptr);
    } else {
      return Usage();
    }
  }
  if (out.empty() || packets == 0 || rate == 0 || loss_percent < 0 || loss_percent > 100) return Usage();

  pcap_t* p = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, kSnaplen,
                                                   nano ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);
  if (!p) {
    std::fprintf(stderr, "make_capture: pcap_open_dead failed\n");
    return 1;
  }
  FILE* fp = std::fopen(out.c_str(), "wb");
  if (!fp) {
    std::perror(out.c_str());
    return 1;
  }
  static char buf[4 << 20];
  std::setvbuf(fp, buf, _IOFBF, sizeof(buf));
  pcap_dumper_t* d = pcap_dump_fopen(p, fp);
  if (!d) {
    std::fprintf(stderr, "make_capture: %s\n", pcap_geterr(p));
    return 1;
  }

  Rng rng{seed};
  // Requests are evenly spaced so that requests + replies come at `rate`
  // frames per second: a request every (1 + answered share) / rate seconds.
  const double answered_share = 1.0 - loss_percent / 100.0;
  const double request_gap_ns = 1e9 * (1.0 + answered_share) / static_cast<double>(rate);
  const uint64_t loss_threshold = static_cast<uint64_t>(loss_percent / 100.0 * 1e6);  // per million

  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> replies;
  std::vector<uint64_t> unanswered_times;  // request times of the unanswered ones
  uint64_t requests = 0, answered = 0, committed = 0, written = 0, bytes = 0;
  uint64_t size_frames[3] = {0, 0, 0};
  uint64_t last_ns = 0;
  uint16_t ip_id = 0;
  uint8_t frame[kSnaplen];
  auto emit = [&](uint64_t t_ns, bool request, int flow, uint8_t size_index, uint32_t seq) {
    uint32_t len = BuildFrame(frame, request, flow, kPayloads[size_index], seq, ip_id++);
    struct pcap_pkthdr h {};
    h.ts.tv_sec = kStartSec + static_cast<time_t>(t_ns / 1000000000);
    h.ts.tv_usec = static_cast<suseconds_t>(nano ? t_ns % 1000000000 : (t_ns % 1000000000) / 1000);
    h.len = len;
    h.caplen = len < kSnaplen ? len : kSnaplen;
    pcap_dump(reinterpret_cast<u_char*>(d), &h, frame);
    ++written;
    ++size_frames[size_index];
    bytes += len;
    last_ns = t_ns;
  };

  while (written < packets) {
    uint64_t next_request_ns = static_cast<uint64_t>(static_cast<double>(requests) * request_gap_ns);
    bool can_request = committed < packets;
    if (!replies.empty() && (!can_request || replies.top().t_ns <= next_request_ns)) {
      Pending r = replies.top();
      replies.pop();
      emit(r.t_ns, false, r.flow, r.size_index, r.seq);
      continue;
    }
    if (!can_request) break;  // cannot happen: committed frames are all written
    int flow = static_cast<int>(rng.Below(kFlows));
    uint8_t size_index = static_cast<uint8_t>(rng.Below(3));
    bool lost = rng.Below(1000000) < loss_threshold;
    uint64_t delay_ns = 20000 + rng.Below(60001);  // 20-80 us
    uint32_t seq = static_cast<uint32_t>(requests);
    ++committed;
    if (committed == packets) lost = true;  // no room for its reply: the N-th frame is a request
    if (!lost) {
      ++committed;
      ++answered;
      replies.push(Pending{next_request_ns + delay_ns, seq, flow, size_index});
    } else {
      unanswered_times.push_back(next_request_ns);
    }
    emit(next_request_ns, true, flow, size_index, seq);
    ++requests;
  }
  if (pcap_dump_flush(d) != 0 || std::ferror(fp)) {
    std::fprintf(stderr, "make_capture: write error on %s\n", out.c_str());
    return 1;
  }
  pcap_dump_close(d);
  pcap_close(p);

  // Lost: unanswered for more than the timeout at the last frame's time;
  // waiting: unanswered and younger (bottleneckd's outstanding_at_end).
  // (At microsecond precision, as bottleneckd reads the truncated times.)
  // Within 1 us of the timeout the outcome depends on the reader's clock
  // arithmetic (bottleneckd's double seconds resolve ~0.24 us at 1.7e9 s):
  // those are counted in `lost_ambiguous` too.
  uint64_t lost = 0, waiting = 0, ambiguous = 0;
  auto seen = [&](uint64_t t) { return nano ? t : t / 1000 * 1000; };
  for (uint64_t t : unanswered_times) {
    uint64_t age = seen(last_ns) - seen(t);
    (age > kTimeoutNs ? lost : waiting) += 1;
    if (age + 1000 >= kTimeoutNs && age <= kTimeoutNs + 1000) ++ambiguous;
  }
  std::printf("file=%s\n", out.c_str());
  std::printf("packets=%" PRIu64 "\n", written);
  std::printf("bytes=%" PRIu64 "\n", bytes);
  std::printf("requests=%" PRIu64 "\n", requests);
  std::printf("replies=%" PRIu64 "\n", answered);
  std::printf("unanswered=%" PRIu64 "\n", requests - answered);
  std::printf("lost=%" PRIu64 "\n", lost);
  std::printf("waiting=%" PRIu64 "\n", waiting);
  std::printf("lost_ambiguous=%" PRIu64 "\n", ambiguous);
  std::printf("flows=%d\n", kFlows);
  std::printf("payload_64=%" PRIu64 "\npayload_512=%" PRIu64 "\npayload_1024=%" PRIu64 "\n", size_frames[0],
              size_frames[1], size_frames[2]);
  std::printf("duration_seconds=%.9f\n", static_cast<double>(last_ns) / 1e9);
  std::printf("precision=%s\n", nano ? "nanosecond" : "microsecond");
  return 0;
}
