// Capture windows (window/capture_window.h) and capture evidence
// (analysis/capture_evidence.h): pure arithmetic over hand-built
// readings; every expected value is worked out from the readings here.
#include "window/capture_window.h"

#include <gtest/gtest.h>

#include "analysis/capture_evidence.h"
#include "window/window.h"

namespace bottleneckd::capture_window_test {
namespace {

CaptureReading Reading(const std::string& interface) {
  CaptureReading r;
  r.interface = interface;
  r.active = true;
  r.stats_ok = true;
  r.direction_known = true;
  r.opened_mono_ns = 1000;
  return r;
}

FlowStats Flow(uint16_t src_port, uint64_t packets, uint64_t requests, uint64_t replies, uint64_t lost) {
  FlowStats f;
  f.key.protocol = 17;
  f.key.src = {10, 0, 0, 1};
  f.key.dst = {10, 0, 0, 2};
  f.key.src_port = src_port;
  f.key.dst_port = 7;
  f.packets = packets;
  f.requests = requests;
  f.replies = replies;
  f.lost = lost;
  return f;
}

TEST(CaptureWindow, RatesLossAndOfferedOverTwoSeconds) {
  CaptureReading a = Reading("eth0"), b = Reading("eth0");
  a.packets = 1000, b.packets = 5000;                   // 4000 frames in 2 s: 2000/s
  a.bytes = 100000, b.bytes = 600000;                   // 500 000 bytes: 2 Mbit/s
  a.receive_packets = 400, b.receive_packets = 2400;    // 1000/s in
  a.transmit_packets = 600, b.transmit_packets = 2600;  // 1000/s out
  a.requests = 500, b.requests = 2500;                  // applied 1000/s
  a.replies = 490, b.replies = 2390;                    // echoed 950/s
  a.paired = 490, b.paired = 2390;                      // 1900 paired
  a.lost = 0, b.lost = 100;                             // 100 lost: 100 / 2000 = 5 %
  a.sizes[1] = 10, b.sizes[1] = 4010;                   // 4000 frames of 65..128 bytes
  NicWindow nic;
  nic.interface = "eth0";
  nic.nic_drops_per_second = 50;
  std::vector<CaptureWindow> out;
  std::vector<CounterIssue> issues;
  ComputeCaptureWindows({a}, {b}, 2.0, {nic}, &issues, &out);
  ASSERT_EQ(out.size(), 1u);
  const CaptureWindow& w = out[0];
  EXPECT_DOUBLE_EQ(w.packets_per_second, 2000);
  EXPECT_DOUBLE_EQ(w.bits_per_second, 2e6);
  EXPECT_DOUBLE_EQ(*w.receive_packets_per_second, 1000);
  EXPECT_DOUBLE_EQ(*w.transmit_packets_per_second, 1000);
  EXPECT_DOUBLE_EQ(*w.offered_packets_per_second, 1050);  // received + NIC drops
  EXPECT_DOUBLE_EQ(w.requests_per_second, 1000);
  EXPECT_DOUBLE_EQ(w.replies_per_second, 950);
  EXPECT_DOUBLE_EQ(w.lost_per_second, 50);
  EXPECT_DOUBLE_EQ(*w.loss_ratio, 0.05);
  EXPECT_EQ(w.sizes[1], 4000u);
  EXPECT_TRUE(w.trusted);
  EXPECT_EQ(*w.buffer_drops, 0u);
  EXPECT_TRUE(issues.empty());
}

TEST(CaptureWindow, PcapDropsWrapAt32BitsAndMakeTheWindowUntrusted) {
  CaptureReading a = Reading("eth0"), b = Reading("eth0");
  a.pcap_dropped = 0xFFFFFFF0u;  // 16 below the top
  b.pcap_dropped = 0x00000010u;  // wrapped: 16 + 16 = 32 drops
  a.pcap_ifdropped = b.pcap_ifdropped = 7;
  std::vector<CaptureWindow> out;
  std::vector<CounterIssue> issues;
  ComputeCaptureWindows({a}, {b}, 1.0, {}, &issues, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(*out[0].buffer_drops, 32u);
  EXPECT_EQ(*out[0].interface_drops, 0u);
  EXPECT_FALSE(out[0].trusted);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, CounterAnomaly::kWrap);
  EXPECT_EQ(issues[0].source, "pcap");
  // No NIC window for it: the offered rate is unknown, not 0.
  EXPECT_FALSE(out[0].offered_packets_per_second.has_value());
}

TEST(CaptureWindow, StatsUnavailableIsNotTrusted) {
  CaptureReading a = Reading("eth0"), b = Reading("eth0");
  b.stats_ok = false;
  std::vector<CaptureWindow> out;
  ComputeCaptureWindows({a}, {b}, 1.0, {}, nullptr, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].buffer_drops.has_value());
  EXPECT_FALSE(out[0].trusted);
}

TEST(CaptureWindow, NoWindowAcrossAReopenedInactiveOrMissingCapture) {
  CaptureReading a = Reading("eth0"), b = Reading("eth0");
  b.opened_mono_ns = 2000;  // opened again: its counters restarted
  CaptureReading down = Reading("eth1");
  down.active = false;
  CaptureReading only_now = Reading("eth2");
  std::vector<CaptureWindow> out;
  ComputeCaptureWindows({a, down}, {b, down, only_now}, 1.0, {}, nullptr, &out);
  EXPECT_TRUE(out.empty());
  ComputeCaptureWindows({a}, {a}, 0.0, {}, nullptr, &out);  // zero-length window
  EXPECT_TRUE(out.empty());
}

TEST(CaptureWindow, DirectionUnknownLeavesDirectionalRatesUnset) {
  CaptureReading a = Reading("lo"), b = Reading("lo");
  a.direction_known = b.direction_known = false;
  b.packets = 10;
  std::vector<CaptureWindow> out;
  ComputeCaptureWindows({a}, {b}, 1.0, {}, nullptr, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(out[0].packets_per_second, 10);
  EXPECT_FALSE(out[0].receive_packets_per_second.has_value());
  EXPECT_FALSE(out[0].offered_packets_per_second.has_value());
  EXPECT_FALSE(out[0].loss_ratio.has_value());  // nothing paired or lost
}

TEST(CaptureWindow, TurnaroundPercentilesOfTheWindowOnly) {
  CaptureReading a = Reading("eth0");
  for (int i = 0; i < 1000; ++i) a.turnaround.Add(1e-3);  // before the window: 1 ms
  CaptureReading b = a;
  for (int i = 0; i < 99; ++i) b.turnaround.Add(20e-6);  // the window: 99 x 20 us
  b.turnaround.Add(5e-3);                                // and one 5 ms
  std::vector<CaptureWindow> out;
  ComputeCaptureWindows({a}, {b}, 1.0, {}, nullptr, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].turnarounds, 100u);
  EXPECT_NEAR(*out[0].turnaround_p50_seconds, 20e-6, 20e-6 * 0.011);  // 1 % histogram error
  EXPECT_NEAR(*out[0].turnaround_p99_seconds, 20e-6, 20e-6 * 0.011);  // rank 99 of 100
  // p100 would be the 5 ms one; the 1 ms values before the window are gone.
}

TEST(CaptureWindow, TopFlowsAreTheWindowsDeltasMostPacketsFirst) {
  CaptureReading a = Reading("eth0"), b = Reading("eth0");
  a.top_flows = {Flow(1000, 100, 50, 50, 0), Flow(1001, 10, 5, 5, 0)};
  // 1000: +20 packets; 1001: +60 packets, 3 more lost; 1002: new, 40 packets.
  b.top_flows = {Flow(1000, 120, 60, 60, 0), Flow(1001, 70, 35, 32, 3), Flow(1002, 40, 20, 20, 0)};
  std::vector<CaptureWindow> out;
  ComputeCaptureWindows({a}, {b}, 1.0, {}, nullptr, &out);
  ASSERT_EQ(out.size(), 1u);
  const auto& f = out[0].top_flows;
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].key.src_port, 1001);
  EXPECT_EQ(f[0].packets, 60u);
  EXPECT_EQ(f[0].lost, 3u);
  EXPECT_EQ(f[1].key.src_port, 1002);
  EXPECT_EQ(f[1].packets, 40u);
  EXPECT_EQ(f[2].key.src_port, 1000);
  EXPECT_EQ(f[2].packets, 20u);
  EXPECT_EQ(f[2].requests, 10u);
}

TEST(CaptureEvidence, TrustedCaptureGivesAppliedEchoedLossAndTurnaround) {
  CaptureWindow w;
  w.interface = "eth0";
  w.trusted = true;
  w.packets_per_second = 40000;
  w.requests_per_second = 20000;
  w.replies_per_second = 19500;
  w.loss_ratio = 0.025;
  w.turnaround_p50_seconds = 33e-6;
  w.turnaround_p99_seconds = 1.5e-3;
  std::vector<std::string> e = CaptureEvidence({w});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0],
            "capture eth0: applied 20.0 k/s, echoed 19.5 k/s, echo loss 2.5 %, turnaround p50 33.0 us, p99 1.50 ms");
}

TEST(CaptureEvidence, DroppingCaptureIsNotTrustedAndIdleOneSaysNothing) {
  CaptureWindow dropping;
  dropping.interface = "eth0";
  dropping.buffer_drops = 1200;
  dropping.interface_drops = 34;
  CaptureWindow idle;
  idle.interface = "eth1";
  idle.trusted = true;
  std::vector<std::string> e = CaptureEvidence({dropping, idle});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(
      e[0],
      "capture eth0 dropped 1234 frames (pcap buffer 1200, interface 34): its figures are not trusted this window");
}

TEST(FormatLatency, PicksTheUnit) {
  EXPECT_EQ(FormatLatency(33e-6), "33.0 us");
  EXPECT_EQ(FormatLatency(1.25e-3), "1.25 ms");
  EXPECT_EQ(FormatLatency(2.1), "2.10 s");
}

}  // namespace
}  // namespace bottleneckd::capture_window_test
