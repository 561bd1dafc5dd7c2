// AnalysePcapFile on capture files the tests write themselves
// (tests/support/pcap_test_util.h): pcap at micro- and nanosecond precision, pcapng,
// Ethernet, VLAN, IPv6, raw IP, short snap lengths, and the errors (cut,
// not a capture, missing, unsupported link type).
#include "traffic/pcap_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/pcap_test_util.h"
#include "tests/support/test_util.h"
#include "tests/traffic/traffic_test_util.h"

namespace bottleneckd::pcap_file_test {
namespace {

using testing::ArpFrame;
using testing::EchoFrames;
using testing::EchoSpec;
using testing::TempDir;
using testing::TestFrame;

constexpr int64_t kS = 1700000000;  // a capture's first Unix second

// The main fixture: 200 requests every 10 ms from S + 0.4999 s, replies
// 300 us later, the reply of every 20th request (i = 19, 39, ..., 199)
// missing, then one ARP frame at S + 3.9999 s, 1.51 s after the last request
// (so that its loss is decided before the end with the 1 s timeout).
std::vector<TestFrame> MainEcho(EchoSpec e = {}) {
  e.start_sec = kS;
  e.start_nsec = 499900000;
  std::vector<TestFrame> f = EchoFrames(e);
  f.push_back(TestFrame{kS + 3, 999900000, ArpFrame()});
  return f;
}

double Rel(double got, double want) { return std::abs(got - want) / want; }

const TrafficSecond* FindSecond(const TrafficSummary& s, int64_t second) {
  for (const TrafficSecond& x : s.seconds)
    if (x.second == second) return &x;
  return nullptr;
}

// Checks the summary of MainEcho, derived by hand:
// requests in second 0 are i = 0..50 (0.4999 + 0.01 i < 1), in second 1
// i = 51..150, in second 2 i = 151..199; replies (at +0.0003 s) in second 0
// i = 0..49 less 19, 39 (48), in second 1 i = 50..149 less 59, 79, 99, 119,
// 139 (95), in second 2 i = 150..199 less 159, 179, 199 (47). A request or
// reply frame is 14 + 20 + 8 + 64 = 106 bytes on the wire, the ARP frame 42.
void ExpectMainEcho(const TrafficSummary& s, uint32_t frame_bytes = 106) {
  EXPECT_EQ(s.packets, 391u);
  EXPECT_EQ(s.bytes, 390u * frame_bytes + 42);
  EXPECT_EQ(s.not_ip, 1u);
  EXPECT_EQ(s.requests, 200u);
  EXPECT_EQ(s.replies, 190u);
  EXPECT_EQ(s.paired, 190u);
  EXPECT_EQ(s.lost, 10u);
  EXPECT_EQ(s.unmatched_replies, 0u);
  EXPECT_NEAR(s.first_ts, kS + 0.4999, 1e-6);
  EXPECT_NEAR(s.last_ts, kS + 3.9999, 1e-6);
  const uint64_t want[3][2] = {{51, 48}, {100, 95}, {49, 47}};
  for (int i = 0; i < 3; ++i) {
    const TrafficSecond* sec = FindSecond(s, kS + i);
    ASSERT_NE(sec, nullptr) << "second " << i;
    EXPECT_EQ(sec->requests, want[i][0]) << "second " << i;
    EXPECT_EQ(sec->replies, want[i][1]) << "second " << i;
    EXPECT_EQ(sec->request_bytes, want[i][0] * frame_bytes) << "second " << i;
    EXPECT_EQ(sec->reply_bytes, want[i][1] * frame_bytes) << "second " << i;
  }
  ASSERT_EQ(s.turnaround.count(), 190u);
  EXPECT_LT(Rel(s.turnaround.Percentile(50), 300e-6), 0.01);
  EXPECT_LT(Rel(s.turnaround.Percentile(99), 300e-6), 0.01);
  EXPECT_LT(Rel(s.turnaround.Max(), 300e-6), 0.01);
  ASSERT_EQ(s.lossy_flows.size(), 1u);
  EXPECT_EQ(s.lossy_flows[0].key.src_port, 40000);
  EXPECT_EQ(s.lossy_flows[0].key.dst_port, 7);
  EXPECT_EQ(s.lossy_flows[0].lost, 10u);
  EXPECT_EQ(s.sizes[0], 1u);  // the ARP frame
}

TEST(PcapFile, UdpEchoOverEthernetIpv4) {
  TempDir d;
  std::string path = d.path() + "/echo.pcap";
  ASSERT_EQ(testing::WritePcap(path, 1, 65535, MainEcho()), "");
  TrafficAnalyzer a;
  PcapFileInfo info;
  Status st = AnalysePcapFile(path, &a, &info);
  ASSERT_OK(st);
  EXPECT_EQ(info.path, path);
  EXPECT_EQ(info.linktype, 1);
  EXPECT_EQ(info.linktype_name, "EN10MB");
  EXPECT_EQ(info.snaplen, 65535u);
  EXPECT_EQ(info.frames, 391u);
  EXPECT_TRUE(info.nanosecond);
  TrafficSummary s = a.Finish();
  ExpectMainEcho(s);
  EXPECT_EQ(s.sizes[1], 390u);  // 106 bytes: 65-128
  EXPECT_EQ(s.udp, 390u);
}

TEST(PcapFile, MicrosecondPcapReadsTheSame) {
  TempDir d;
  std::string path = d.path() + "/echo-us.pcap";
  ASSERT_EQ(testing::WritePcap(path, 1, 65535, MainEcho(), /*nanosecond=*/false), "");
  TrafficAnalyzer a;
  PcapFileInfo info;
  ASSERT_OK(AnalysePcapFile(path, &a, &info));
  ExpectMainEcho(a.Finish());
}

TEST(PcapFile, Ipv6WithVlanEcho) {
  // 20 requests every 1 ms over 2001:db8::1 -> ::2 in VLAN 100, replies 50 us
  // later, those of i = 9 and i = 19 missing: 20 + 18 frames, the last one
  // request 19 at 19 ms. With a 5 ms reply timeout request 9 (9 ms) is lost
  // by 14 ms; request 19 is still waiting when the capture ends (left out).
  EchoSpec e;
  e.requests = 20;
  e.start_sec = kS;
  e.interval_ns = 1000000;
  e.turnaround_ns = 50000;
  e.drop_every = 10;
  e.ipv6 = true;
  e.vlans = {100};
  std::vector<TestFrame> frames = EchoFrames(e);
  ASSERT_EQ(frames.size(), 38u);
  TempDir d;
  std::string path = d.path() + "/v6.pcap";
  ASSERT_EQ(testing::WritePcap(path, 1, 65535, frames), "");
  TrafficOptions o;
  o.reply_timeout_seconds = 0.005;
  TrafficAnalyzer a(o);
  PcapFileInfo info;
  ASSERT_OK(AnalysePcapFile(path, &a, &info));
  TrafficSummary s = a.Finish();
  // 14 + 4 (tag) + 40 + 8 + 64 = 130 bytes a frame.
  EXPECT_EQ(s.packets, 38u);
  EXPECT_EQ(s.bytes, 38u * 130);
  EXPECT_EQ(s.ipv6, 38u);
  EXPECT_EQ(s.vlan_tagged, 38u);
  EXPECT_EQ(s.requests, 20u);
  EXPECT_EQ(s.replies, 18u);
  EXPECT_EQ(s.paired, 18u);
  EXPECT_EQ(s.lost, 1u);
  EXPECT_EQ(s.sizes[2], 38u);  // 129-256
  ASSERT_EQ(s.turnaround.count(), 18u);
  EXPECT_LT(Rel(s.turnaround.Percentile(50), 50e-6), 0.01);
  ASSERT_FALSE(s.top_flows.empty());
  const FlowKey& k = s.top_flows[0].key;
  EXPECT_TRUE(k.ipv6);
  EXPECT_EQ(k.protocol, 17);
  EXPECT_EQ(k.src[15], 1);  // 2001:db8::1 requests
  EXPECT_EQ(k.dst[15], 2);
  EXPECT_EQ(FormatAddress(k.src, true), "2001:db8::1");
}

TEST(PcapFile, CutLastRecordIsCorruptionWithItsNumber) {
  TempDir d;
  std::string path = d.path() + "/cut.pcap";
  std::vector<TestFrame> frames = MainEcho();
  ASSERT_EQ(testing::WritePcap(path, 1, 65535, frames), "");
  // The last record (the ARP frame: 16-byte header + 42 bytes) cut in half.
  uintmax_t size = std::filesystem::file_size(path);
  EXPECT_EQ(size, 24u + 390 * (16 + 106) + (16 + 42));
  std::filesystem::resize_file(path, size - testing::PcapRecordSize(frames.back(), 65535) / 2);
  TrafficAnalyzer a;
  PcapFileInfo info;
  Status st = AnalysePcapFile(path, &a, &info);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find(path + ": packet 391: "), std::string::npos) << st.message();
  EXPECT_EQ(info.frames, 390u);
  EXPECT_EQ(a.current().packets, 390u);
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.requests, 200u);
  EXPECT_EQ(s.replies, 190u);
}

// bottleneckd reads classic pcap files in chunks (1 MiB, one ahead on a
// second thread); a record a chunk's end cuts is put together. Chunks of
// every size from one byte cut headers and payloads at every place: the
// analysis is the same, and a file cut short is still the same error.
TEST(PcapFile, RecordsSpanningReadsOfAnySize) {
  TempDir d;
  std::string path = d.path() + "/echo.pcap";
  ASSERT_EQ(testing::WritePcap(path, 1, 65535, MainEcho()), "");
  std::string cut = d.path() + "/cut.pcap";
  ASSERT_EQ(testing::WritePcap(cut, 1, 65535, MainEcho()), "");
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) - 21);  // into the ARP frame
  for (size_t chunk : {1, 2, 7, 15, 16, 17, 121, 122, 123, 4096, 1 << 20}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    TrafficAnalyzer a;
    PcapFileInfo info;
    ASSERT_OK(AnalysePcapFile(path, &a, &info, nullptr, chunk));
    EXPECT_EQ(info.frames, 391u);
    ExpectMainEcho(a.Finish());
    TrafficAnalyzer b;
    Status st = AnalysePcapFile(cut, &b, &info, nullptr, chunk);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    EXPECT_NE(st.message().find(cut + ": packet 391: "), std::string::npos) << st.message();
    EXPECT_EQ(info.frames, 390u);
  }
}

TEST(PcapFile, CutRecordHeaderInTheMiddle) {
  // Frames 1..3 whole, then 8 bytes of the 4th record's 16-byte header.
  TempDir d;
  std::string path = d.path() + "/cut-header.pcap";
  std::vector<TestFrame> frames = MainEcho();
  frames.resize(4);
  ASSERT_EQ(testing::WritePcap(path, 1, 65535, frames), "");
  std::filesystem::resize_file(path, 24 + 3 * (16 + 106) + 8);
  TrafficAnalyzer a;
  PcapFileInfo info;
  Status st = AnalysePcapFile(path, &a, &info);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("packet 4: "), std::string::npos) << st.message();
  EXPECT_EQ(info.frames, 3u);
}

TEST(PcapFile, NotACaptureFile) {
  TempDir d;
  std::string bytes;
  uint32_t x = 12345;
  for (int i = 0; i < 4096; ++i) {
    x = x * 1103515245u + 12345u;  // a fixed LCG: same bytes every run
    bytes.push_back(static_cast<char>(x >> 24));
  }
  ASSERT_NE(bytes.substr(0, 4), std::string("\xd4\xc3\xb2\xa1", 4));
  d.Write("random.bin", bytes);
  std::string path = d.path() + "/random.bin";
  TrafficAnalyzer a;
  PcapFileInfo info;
  Status st = AnalysePcapFile(path, &a, &info);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
  EXPECT_EQ(info.frames, 0u);
}

TEST(PcapFile, EmptyFileIsCorruption) {
  TempDir d;
  d.Write("empty.pcap", "");
  TrafficAnalyzer a;
  PcapFileInfo info;
  Status st = AnalysePcapFile(d.path() + "/empty.pcap", &a, &info);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("empty.pcap"), std::string::npos);
}

TEST(PcapFile, MissingFileIsNotFound) {
  TempDir d;
  std::string path = d.path() + "/nope.pcap";
  TrafficAnalyzer a;
  PcapFileInfo info;
  Status st = AnalysePcapFile(path, &a, &info);
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find(path), std::string::npos);
}

TEST(PcapFile, DirectoryIsNotACapture) {
  TempDir d;
  TrafficAnalyzer a;
  PcapFileInfo info;
  Status st = AnalysePcapFile(d.path(), &a, &info);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(d.path()), std::string::npos);
}

TEST(PcapFile, PcapngNanosecondEpbs) {
  TempDir d;
  std::string path = d.path() + "/echo.pcapng";
  ASSERT_EQ(testing::WritePcapng(path, 1, 65535, MainEcho()), "");
  TrafficAnalyzer a;
  PcapFileInfo info;
  Status st = AnalysePcapFile(path, &a, &info);
  ASSERT_OK(st);
  EXPECT_EQ(info.linktype, 1);
  EXPECT_EQ(info.snaplen, 65535u);
  EXPECT_EQ(info.frames, 391u);
  ExpectMainEcho(a.Finish());
}

TEST(PcapFile, PcapngTimestampResolution) {
  // One request at 1000 s + 123 ns and its reply 300 us later. Near 1000 s a
  // double resolves 1e-13 s, so the nanoseconds survive; without
  // if_tsresol (microsecond units) they are cut to the microsecond.
  EchoSpec e;
  e.requests = 1;
  e.start_sec = 1000;
  e.start_nsec = 123;
  e.drop_every = 0;
  TempDir d;
  for (bool nano : {true, false}) {
    std::string path = d.path() + (nano ? "/ns.pcapng" : "/us.pcapng");
    ASSERT_EQ(testing::WritePcapng(path, 1, 65535, EchoFrames(e), nano), "");
    TrafficAnalyzer a;
    PcapFileInfo info;
    ASSERT_TRUE(AnalysePcapFile(path, &a, &info).ok()) << path;
    TrafficSummary s = a.Finish();
    EXPECT_EQ(s.packets, 2u);
    EXPECT_NEAR(s.first_ts, nano ? 1000.000000123 : 1000.0, 1e-12) << path;
    EXPECT_NEAR(s.last_ts, nano ? 1000.000300123 : 1000.0003, 1e-12) << path;
    EXPECT_EQ(s.paired, 1u);
  }
}

TEST(PcapFile, SnapLength64StillPairs) {
  // 106-byte frames cut to 64: the headers (42 bytes) and 22 payload bytes,
  // which start with each request's own sequence number.
  TempDir d;
  std::string path = d.path() + "/snap64.pcap";
  ASSERT_EQ(testing::WritePcap(path, 1, 64, MainEcho()), "");
  TrafficAnalyzer a;
  PcapFileInfo info;
  ASSERT_OK(AnalysePcapFile(path, &a, &info));
  EXPECT_EQ(info.snaplen, 64u);
  TrafficSummary s = a.Finish();
  ExpectMainEcho(s);  // sizes and bytes are wire lengths: unchanged
  EXPECT_EQ(s.truncated, 0u);
}

TEST(PcapFile, SnapLength40CutsUdpHeaders) {
  // 40 bytes end inside the UDP header (at 42): every IP frame is truncated
  // and none is a request or a reply; the 42-byte ARP frame is still not IP.
  TempDir d;
  std::string path = d.path() + "/snap40.pcap";
  ASSERT_EQ(testing::WritePcap(path, 1, 40, MainEcho()), "");
  TrafficAnalyzer a;
  PcapFileInfo info;
  ASSERT_OK(AnalysePcapFile(path, &a, &info));
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.packets, 391u);
  EXPECT_EQ(s.truncated, 390u);
  EXPECT_EQ(s.not_ip, 1u);
  EXPECT_EQ(s.requests, 0u);
  EXPECT_EQ(s.replies, 0u);
}

TEST(PcapFile, RawIpLinkTypes) {
  // DLT_RAW is stored as LINKTYPE_RAW (101) and read back as DLT_RAW;
  // DLT_IPV4 (228) is raw IPv4 too.
  EchoSpec e;
  e.requests = 10;
  e.start_sec = kS;
  e.drop_every = 0;
  e.ethernet = false;
  TempDir d;
  for (int dlt : {DLT_RAW, 228}) {
    std::string path = d.path() + "/raw" + std::to_string(dlt) + ".pcap";
    ASSERT_EQ(testing::WritePcap(path, dlt, 65535, EchoFrames(e)), "");
    TrafficAnalyzer a;
    PcapFileInfo info;
    Status st = AnalysePcapFile(path, &a, &info);
    ASSERT_OK(st);
    EXPECT_EQ(info.linktype, dlt);
    TrafficSummary s = a.Finish();
    EXPECT_EQ(s.requests, 10u) << dlt;
    EXPECT_EQ(s.replies, 10u) << dlt;
    EXPECT_EQ(s.paired, 10u) << dlt;
    EXPECT_EQ(s.bytes, 20u * (20 + 8 + 64)) << dlt;
  }
}

// LINKTYPE_IPV4 (228) holds IPv4 only and LINKTYPE_IPV6 (229) IPv6 only: a
// packet of the other IP version is malformed (as tcpdump and Wireshark
// flag it), never a UDP flow. LINKTYPE_RAW (101) holds either.
TEST(PcapFile, RawIpLinkTypeMustMatchTheIpVersion) {
  struct Case {
    int dlt;
    bool ipv6;
    bool valid;
  };
  TempDir d;
  for (Case c : {Case{228, true, false}, Case{229, false, false}, Case{229, true, true}, Case{DLT_RAW, true, true}}) {
    EchoSpec e;
    e.requests = 10;
    e.start_sec = kS;
    e.drop_every = 0;
    e.ethernet = false;
    e.ipv6 = c.ipv6;
    const std::string what = std::to_string(c.dlt) + (c.ipv6 ? " ipv6" : " ipv4");
    std::string path = d.path() + "/raw" + std::to_string(c.dlt) + (c.ipv6 ? "v6" : "v4") + ".pcap";
    ASSERT_EQ(testing::WritePcap(path, c.dlt, 65535, EchoFrames(e)), "");
    TrafficAnalyzer a;
    PcapFileInfo info;
    Status st = AnalysePcapFile(path, &a, &info);
    ASSERT_OK(st);
    EXPECT_EQ(info.frames, 20u) << what;
    TrafficSummary s = a.Finish();
    EXPECT_EQ(s.packets, 20u) << what;
    EXPECT_EQ(s.malformed, c.valid ? 0u : 20u) << what;
    EXPECT_EQ(s.ip_packets, c.valid ? 20u : 0u) << what;
    EXPECT_EQ(s.udp, c.valid ? 20u : 0u) << what;
    EXPECT_EQ(s.ipv6, c.valid && c.ipv6 ? 20u : 0u) << what;
    EXPECT_EQ(s.requests, c.valid ? 10u : 0u) << what;
    EXPECT_EQ(s.paired, c.valid ? 10u : 0u) << what;
    EXPECT_EQ(s.top_flows.size(), c.valid ? 1u : 0u) << what;
  }
}

// The file path pairs as the live one (traffic/traffic.h) on the same echo
// (traffic_testing::IdenticalPayloadEchoWithLoss).
TEST(PcapFile, IdenticalPayloadEchoWithLoss) {
  const testing::Ip4 c = {10, 0, 0, 1}, v = {10, 0, 0, 2};
  const testing::Bytes payload = testing::Payload(7, 64);
  const testing::Bytes request = testing::Ethernet(0x0800, testing::Ipv4Udp(c, v, 40000, 7, payload), {}, 1, 2);
  const testing::Bytes reply = testing::Ethernet(0x0800, testing::Ipv4Udp(v, c, 7, 40000, payload), {}, 2, 1);
  std::vector<TestFrame> frames;
  for (const traffic_testing::EchoEvent& e : traffic_testing::IdenticalPayloadEchoWithLoss())
    frames.push_back(testing::At(kS, e.ns, e.reply ? reply : request));
  TempDir d;
  std::string path = d.path() + "/same.pcap";
  ASSERT_EQ(testing::WritePcap(path, 1, 65535, frames, true), "");
  TrafficAnalyzer a;
  PcapFileInfo info;
  ASSERT_OK(AnalysePcapFile(path, &a, &info));
  // Packet times are double seconds: near 1.7e9 s they resolve 2^-22 s
  // (0.24 us), so a 5 us difference is exact to about 0.5 us. (Pairing with
  // the oldest identical request put p90 at tens of milliseconds.)
  traffic_testing::ExpectIdenticalPayloadEchoWithLoss(a.Finish(), 0.5e-6);
}

TEST(PcapFile, UnsupportedLinkTypeCountsFrames) {
  std::vector<TestFrame> frames;
  for (int i = 0; i < 5; ++i) frames.push_back(TestFrame{kS + i, 0, testing::Bytes(20, 0x42)});
  TempDir d;
  std::string path = d.path() + "/user0.pcap";
  ASSERT_EQ(testing::WritePcap(path, 147, 65535, frames), "");  // DLT_USER0
  TrafficAnalyzer a;
  PcapFileInfo info;
  Status st = AnalysePcapFile(path, &a, &info);
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
  EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("147"), std::string::npos) << st.message();
  EXPECT_EQ(info.linktype, 147);
  EXPECT_EQ(info.frames, 5u);
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.packets, 5u);
  EXPECT_EQ(s.bytes, 100u);
  EXPECT_EQ(s.requests, 0u);
}

TEST(PcapFile, Counters) {
  using testing::Ipv4;
  using testing::Udp;
  const testing::Ip4 c = {10, 0, 0, 1}, sv = {10, 0, 0, 2};
  const testing::Ip6 c6 = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  const testing::Ip6 s6 = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  // A 48-byte UDP datagram (8 + 40) in two fragments of 24 bytes.
  testing::Bytes udp = Udp(40000, 7, testing::Payload(1, 40));
  testing::Bytes head(udp.begin(), udp.begin() + 24), tail(udp.begin() + 24, udp.end());
  testing::Ip4Options first, second, bad;
  first.id = second.id = 77;
  first.more_fragments = true;
  second.fragment_offset = 3;  // 24 bytes
  bad.ihl = 3;                 // below the 20-byte minimum
  std::vector<TestFrame> frames = {
      {kS, 0, ArpFrame()},
      {kS, 1000, testing::Ethernet(testing::kEtherIpv4, Ipv4(c, sv, 17, head, first))},
      {kS, 2000, testing::Ethernet(testing::kEtherIpv4, Ipv4(c, sv, 17, tail, second))},
      {kS, 3000, testing::Ethernet(testing::kEtherIpv4, Ipv4(c, sv, 17, udp, bad))},
      {kS, 4000,
       testing::Ethernet(testing::kEtherIpv4, testing::Ipv4Udp(c, sv, 1, 2, testing::Payload(2, 8)), {100, 200})},
      {kS, 5000, testing::Ethernet(testing::kEtherIpv6, testing::Ipv6Udp(c6, s6, 1, 2, testing::Payload(3, 8)))},
  };
  TempDir d;
  std::string path = d.path() + "/mix.pcap";
  ASSERT_EQ(testing::WritePcap(path, 1, 65535, frames), "");
  TrafficAnalyzer a;
  PcapFileInfo info;
  ASSERT_OK(AnalysePcapFile(path, &a, &info));
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.packets, 6u);
  EXPECT_EQ(s.not_ip, 1u);
  EXPECT_EQ(s.fragments, 2u);
  EXPECT_EQ(s.malformed, 1u);
  EXPECT_EQ(s.vlan_tagged, 1u);
  EXPECT_EQ(s.ipv6, 1u);
  EXPECT_EQ(s.truncated, 0u);
}

TEST(PcapFile, ProgressEveryMillionFrames) {
  TempDir d;
  std::string path = d.path() + "/many.pcap";
  pcap_t* p = pcap_open_dead(1, 65535);
  ASSERT_NE(p, nullptr);
  pcap_dumper_t* w = pcap_dump_open(p, path.c_str());
  ASSERT_NE(w, nullptr);
  testing::Bytes frame = ArpFrame();
  const uint64_t n = 1000001;
  for (uint64_t i = 0; i < n; ++i) {
    struct pcap_pkthdr h {};
    h.ts.tv_sec = kS + static_cast<int64_t>(i / 1000000);
    h.ts.tv_usec = static_cast<suseconds_t>(i % 1000000);
    h.caplen = h.len = static_cast<uint32_t>(frame.size());
    pcap_dump(reinterpret_cast<u_char*>(w), &h, frame.data());
  }
  pcap_dump_close(w);
  pcap_close(p);
  std::vector<uint64_t> calls;
  TrafficAnalyzer a;
  PcapFileInfo info;
  ASSERT_OK(AnalysePcapFile(path, &a, &info, [&](uint64_t f) { calls.push_back(f); }));
  EXPECT_EQ(info.frames, n);
  EXPECT_EQ(calls, std::vector<uint64_t>{1000000});
  EXPECT_EQ(a.Finish().not_ip, n);
}

}  // namespace
}  // namespace bottleneckd::pcap_file_test
