// Tests of the traffic analysis (traffic/traffic.h) on frames built by
// hand (tests/traffic/traffic_test_util.h): counting, the per-second table, direction
// and UDP echo pairing, loss and timeouts. Bounds: traffic_bounds_test.cc.
// Expected values are derived from the constructed input.
#include "traffic/traffic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/traffic/traffic_test_util.h"

namespace bottleneckd::traffic_test {
namespace {

using traffic_testing::Doc6;
using traffic_testing::EchoEvent;
using traffic_testing::End;
using traffic_testing::ExpectIdenticalPayloadEchoWithLoss;
using traffic_testing::Feed;
using traffic_testing::FindFlow;
using traffic_testing::Frame;
using traffic_testing::IdenticalPayloadEchoWithLoss;
using traffic_testing::kA;
using traffic_testing::kB;
using traffic_testing::kC;
using traffic_testing::kD;
using traffic_testing::Make;
using traffic_testing::Seq;

// Requests every 1 ms for 1 s, replies 250 us later except every 10th
// (i % 10 == 0): 900 paired, 100 lost (each missing one is > 5 ms old when a
// later packet of the pair arrives), turnaround 250 us.
TEST(TrafficTest, UdpEchoWithEveryTenthReplyMissing) {
  TrafficOptions o;
  o.reply_timeout_seconds = 0.005;
  TrafficAnalyzer a(o);
  for (uint32_t i = 0; i < 1000; ++i) {
    double t = i * 0.001;
    ASSERT_EQ(Seq(i).size(), 8u);
    Feed(&a, t, Make(kA, kB, Seq(i)));
    if (i % 10 != 0) Feed(&a, t + 0.00025, Make(kB, kA, Seq(i)));
  }
  EXPECT_EQ(a.current().lost, 100u);  // all expired before the end, lazily
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.packets, 1900u);
  EXPECT_EQ(s.bytes, 1900u * 50);  // 42 header bytes + 8 payload
  EXPECT_EQ(s.sizes[0], 1900u);
  EXPECT_EQ(s.udp, 1900u);
  EXPECT_EQ(s.requests, 1000u);
  EXPECT_EQ(s.replies, 900u);
  EXPECT_EQ(s.paired, 900u);
  EXPECT_EQ(s.lost, 100u);
  EXPECT_EQ(s.unmatched_replies, 0u);
  EXPECT_EQ(s.outstanding_at_end, 0u);
  EXPECT_EQ(s.request_bytes, 50000u);
  EXPECT_EQ(s.reply_bytes, 45000u);
  EXPECT_EQ(s.turnaround.count(), 900u);
  EXPECT_NEAR(s.turnaround.Percentile(50), 250e-6, 2.5e-6);
  EXPECT_NEAR(s.turnaround.Percentile(99), 250e-6, 2.5e-6);
  EXPECT_DOUBLE_EQ(s.first_ts, 0.0);
  EXPECT_NEAR(s.last_ts, 0.99925, 1e-12);
  ASSERT_EQ(s.seconds.size(), 1u);
  const TrafficSecond& r = s.seconds[0];
  EXPECT_EQ(r.second, 0);
  EXPECT_EQ(r.packets, 1900u);
  EXPECT_EQ(r.requests, 1000u);
  EXPECT_EQ(r.replies, 900u);
  EXPECT_EQ(r.paired, 900u);
  EXPECT_EQ(r.request_bytes, 50000u);
  EXPECT_EQ(r.reply_bytes, 45000u);
  ASSERT_EQ(s.top_flows.size(), 1u);
  const FlowStats& f = s.top_flows[0];
  EXPECT_EQ(f.key.ToString(), "udp 10.0.0.1:40000 > 10.0.0.2:7");
  EXPECT_EQ(f.packets, 1900u);
  EXPECT_EQ(f.packets_error, 0u);
  EXPECT_EQ(f.bytes, 95000u);
  EXPECT_EQ(f.requests, 1000u);
  EXPECT_EQ(f.replies, 900u);
  EXPECT_EQ(f.paired, 900u);
  EXPECT_EQ(f.lost, 100u);
  ASSERT_EQ(s.lossy_flows.size(), 1u);
  EXPECT_EQ(s.lossy_flows[0].lost, 100u);
  // Finish leaves the analyzer empty.
  EXPECT_EQ(a.current().packets, 0u);
  EXPECT_EQ(a.tracked_flows(), 0u);
}

// Flow Y's first packet goes from the responder-looking end (port 7, higher
// address): it is the requester all the same. Same payloads on both flows
// must not cross-match.
TEST(TrafficTest, TwoFlowsOneReversedFirst) {
  TrafficAnalyzer a;
  Feed(&a, 0.0000, Make(kA, kB, "p"));
  Feed(&a, 0.0001, Make(kD, kC, "p"));
  Feed(&a, 0.0003, Make(kB, kA, "p"));
  Feed(&a, 0.0005, Make(kC, kD, "p"));
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.paired, 2u);
  EXPECT_EQ(s.requests, 2u);
  EXPECT_EQ(s.replies, 2u);
  EXPECT_NEAR(s.turnaround.Percentile(0), 0.0003, 3e-6);  // 1 %
  EXPECT_NEAR(s.turnaround.Percentile(100), 0.0004, 4e-6);
  ASSERT_EQ(s.top_flows.size(), 2u);
  const FlowStats* x = FindFlow(s.top_flows, kA, kB);
  const FlowStats* y = FindFlow(s.top_flows, kD, kC);
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  for (const FlowStats* f : {x, y}) {
    EXPECT_EQ(f->requests, 1u);
    EXPECT_EQ(f->replies, 1u);
    EXPECT_EQ(f->paired, 1u);
    EXPECT_EQ(f->packets, 2u);
  }
  EXPECT_EQ(y->key.ToString(), "udp 10.0.0.9:7 > 10.0.0.3:50000");
}

TEST(TrafficTest, OutOfOrderRepliesWithDistinctPayloads) {
  TrafficAnalyzer a;
  Feed(&a, 0.000, Make(kA, kB, "aaaa"));
  Feed(&a, 0.001, Make(kA, kB, "bbbb"));
  Feed(&a, 0.002, Make(kA, kB, "cccc"));
  Feed(&a, 0.0021, Make(kB, kA, "cccc"));  // 0.1 ms
  Feed(&a, 0.0022, Make(kB, kA, "aaaa"));  // 2.2 ms
  Feed(&a, 0.0023, Make(kB, kA, "bbbb"));  // 1.3 ms
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.paired, 3u);
  EXPECT_EQ(s.unmatched_replies, 0u);
  EXPECT_NEAR(s.turnaround.Percentile(0), 0.0001, 1e-6);
  EXPECT_NEAR(s.turnaround.Percentile(50), 0.0013, 13e-6);  // rank ceil(1.5) = 2
  EXPECT_NEAR(s.turnaround.Percentile(100), 0.0022, 22e-6);
  EXPECT_NEAR(s.turnaround.Max(), 0.0022, 1e-12);
}

// An echo answers the request it has just seen: a reply pairs with the
// newest outstanding request of its fingerprint; the older identical ones it
// passes over stay outstanding (they may still be answered: replies to a
// burst) and are lost at the timeout, or at the end when nothing answered
// them. A reply that could answer several is paired but not timed.
TEST(TrafficTest, IdenticalPayloadsPairTheNewest) {
  TrafficAnalyzer a;
  for (double t : {0.000, 0.001, 0.002}) Feed(&a, t, Make(kA, kB, "same"));
  Feed(&a, 0.0025, Make(kB, kA, "same"));  // the request at 2 ms, or another: ambiguous
  EXPECT_EQ(a.current().lost, 0u);         // 0 and 1 ms passed over, not lost before their timeout
  Feed(&a, 0.003, Make(kB, kA, "same"));   // one passed over: the oldest (0 ms), ambiguous
  Feed(&a, 0.004, Make(kA, kB, "same"));
  Feed(&a, 0.0041, Make(kB, kA, "same"));  // fresh and alone: 0.1 ms, timed
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.requests, 4u);
  EXPECT_EQ(s.paired, 3u);
  EXPECT_EQ(s.lost, 1u);  // the request at 1 ms: passed over, answered by nothing
  EXPECT_EQ(s.unmatched_replies, 0u);
  EXPECT_EQ(s.outstanding_at_end, 0u);
  EXPECT_EQ(s.ambiguous_pairs, 2u);
  EXPECT_EQ(s.paired + s.lost + s.evicted_outstanding + s.outstanding_at_end, s.requests);
  ASSERT_EQ(s.turnaround.count(), 1u);
  EXPECT_NEAR(s.turnaround.Max(), 0.0001, 1e-9);
}

// The README's benchmark (lab/udp_echo.py before it numbered its payloads):
// one payload sent in bursts, every request echoed in order. It read "lost
// 2035" and 2035 unmatched replies where nothing was lost: each reply passed
// over the rest of its burst. Requests equal to replies with none past the
// timeout is lost 0, and no turnaround is made up.
TEST(TrafficTest, BurstsOfOnePayloadAllAnsweredLoseNothing) {
  TrafficAnalyzer a;
  double t = 0;
  uint64_t sent = 0;
  for (int burst = 0; burst < 200; ++burst) {
    const int n = 1 + burst % 9;
    for (int i = 0; i < n; ++i, ++sent) Feed(&a, t += 0.00001, Make(kA, kB, "one payload"));
    for (int i = 0; i < n; ++i) Feed(&a, t += 0.00002, Make(kB, kA, "one payload"));
  }
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.requests, sent);
  EXPECT_EQ(s.replies, sent);
  EXPECT_EQ(s.paired, sent);
  EXPECT_EQ(s.lost, 0u);
  EXPECT_EQ(s.unmatched_replies, 0u);
  EXPECT_EQ(s.outstanding_at_end, 0u);
  // Bursts of one are timed; every reply to a longer burst could answer
  // any request of it.
  EXPECT_EQ(s.turnaround.count(), 23u);  // bursts 0, 9, 18, ... 198: n = 1
  EXPECT_EQ(s.ambiguous_pairs, sent - 23u);
}

// Pipelined identical requests (about 4 in flight) with every 7th request
// unanswered and the last replies still in flight when the capture ends:
// what is not answered is lost or still in flight, exactly
// (lost + outstanding_at_end = requests - replies), and no reply is left
// unmatched. Which of the last requests were still in flight cannot be told
// from identical payloads: a request some reply followed counts lost (an echo
// answers in order), one sent after the last reply in flight; so lost is the
// unanswered requests plus at most the pipeline's depth, at the end only.
TEST(TrafficTest, PipelinedIdenticalPayloadsLoseWhatWasNotAnswered) {
  TrafficAnalyzer a;
  std::vector<double> due;  // reply times of the requests answered, in order
  double t = 0, last_reply = 0;
  std::vector<double> sent;
  uint64_t unanswered = 0;
  size_t next_reply = 0;
  for (int i = 0; i < 700; ++i) {
    t += 0.0001;
    // Replies due by now first (each 0.35 ms after its request).
    for (; next_reply < due.size() && due[next_reply] <= t; ++next_reply)
      Feed(&a, last_reply = due[next_reply], Make(kB, kA, "same"));
    Feed(&a, t, Make(kA, kB, "same"));
    sent.push_back(t);
    if (i % 7 == 3) {
      ++unanswered;
    } else {
      due.push_back(t + 0.00035);
    }
  }
  const uint64_t in_flight = due.size() - next_reply;  // their replies come after the capture ends
  const uint64_t after_last_reply =
      static_cast<uint64_t>(std::count_if(sent.begin(), sent.end(), [&](double ts) { return ts > last_reply; }));
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.requests, 700u);
  EXPECT_EQ(s.replies, 700u - unanswered - in_flight);
  EXPECT_EQ(s.paired, s.replies);
  EXPECT_EQ(s.unmatched_replies, 0u);
  EXPECT_EQ(s.lost + s.outstanding_at_end, s.requests - s.replies);
  EXPECT_EQ(s.outstanding_at_end, after_last_reply);
  EXPECT_GE(s.lost, unanswered);
  EXPECT_LE(s.lost, unanswered + in_flight);
  EXPECT_GE(in_flight, 3u);  // the capture really ends mid-pipeline
}

// The echo (IdenticalPayloadEchoWithLoss). (Pairing with the oldest
// identical request instead gave turnarounds of whole periods after the first
// loss and left 20 requests "outstanding at the end" with lost 0.)
TEST(TrafficTest, IdenticalPayloadEchoWithLossPairsEachReplyWithItsRequest) {
  TrafficAnalyzer a;  // timeout 1 s: longer than the whole capture
  const std::string same = "identical payload";
  for (const EchoEvent& e : IdenticalPayloadEchoWithLoss())
    Feed(&a, static_cast<double>(e.ns) / 1e9, e.reply ? Make(kB, kA, same) : Make(kA, kB, same));
  EXPECT_EQ(a.current().lost, 0u);  // passed over, younger than the 1 s timeout: judged at the end
  TrafficSummary s = a.Finish();
  ExpectIdenticalPayloadEchoWithLoss(s, 5e-8);  // 5 us within the histogram's 1 % resolution
  const FlowStats* top = FindFlow(s.top_flows, kA, kB);
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->lost, 20u);
}

TEST(TrafficTest, ReplyWithoutRequestIsUnmatched) {
  TrafficAnalyzer a;
  Feed(&a, 0.0, Make(kA, kB, "ping"));
  Feed(&a, 0.0001, Make(kB, kA, "pong!"));  // another length: another fingerprint
  Feed(&a, 0.0002, Make(kB, kA, "pong!"));
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.replies, 2u);
  EXPECT_EQ(s.unmatched_replies, 2u);
  EXPECT_EQ(s.paired, 0u);
  EXPECT_EQ(s.lost, 0u);  // 0.2 ms old at the end: not lost, left out
  EXPECT_EQ(s.outstanding_at_end, 1u);
}

TEST(TrafficTest, ReplyAfterTheTimeoutCountsLossAndUnmatched) {
  TrafficAnalyzer a;  // timeout 1 s
  Feed(&a, 0.0, Make(kA, kB, "x"));
  Feed(&a, 2.0, Make(kB, kA, "x"));
  Feed(&a, 10.0, Make(kA, kB, "y"));
  Feed(&a, 11.0, Make(kB, kA, "y"));  // exactly 1 s: not over the timeout
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.lost, 1u);
  EXPECT_EQ(s.unmatched_replies, 1u);
  EXPECT_EQ(s.paired, 1u);
  EXPECT_EQ(s.turnaround.count(), 1u);
  ASSERT_EQ(s.lossy_flows.size(), 1u);
  EXPECT_EQ(s.lossy_flows[0].lost, 1u);
}

// A live collector expires silent pairs at the end of each window.
TEST(TrafficTest, ExpireCountsSilentPairsLoss) {
  TrafficAnalyzer a;
  Feed(&a, 0.0, Make(kA, kB, "x"));
  Feed(&a, 0.5, Make(kA, kB, "y"));
  a.Expire(1.2);  // "x" is 1.2 s old, "y" 0.7 s
  EXPECT_EQ(a.current().lost, 1u);
  a.Expire(1.2);
  EXPECT_EQ(a.current().lost, 1u);  // counted once
  a.Expire(1.6);
  EXPECT_EQ(a.current().lost, 2u);
  ASSERT_EQ(a.Snapshot().lossy_flows.size(), 1u);
  EXPECT_EQ(a.Snapshot().lossy_flows[0].lost, 2u);
  EXPECT_TRUE(a.current().lossy_flows.empty());  // current() leaves flows to Snapshot/Finish
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.lost, 2u);
  EXPECT_EQ(s.outstanding_at_end, 0u);
}

// The worked example of docs/traffic-analysis.md.
TEST(TrafficTest, DocsWorkedExample) {
  TrafficAnalyzer a;
  Feed(&a, 100.0000, Make(kA, kB, "seq1"));
  Feed(&a, 100.0002, Make(kB, kA, "seq1"));
  Feed(&a, 100.5000, Make(kA, kB, "seq2"));
  Feed(&a, 100.6000, Make(kA, kB, "seq3"));
  Feed(&a, 100.6003, Make(kB, kA, "seq3"));
  Feed(&a, 101.2000, Make(kB, kA, "seq9"));
  EXPECT_EQ(a.current().lost, 0u);  // seq2 is 0.7 s old
  Feed(&a, 102.0000, Make(kA, kB, "seq4"));
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.packets, 7u);
  EXPECT_EQ(s.requests, 4u);
  EXPECT_EQ(s.replies, 3u);
  EXPECT_EQ(s.paired, 2u);
  EXPECT_EQ(s.lost, 1u);
  EXPECT_EQ(s.unmatched_replies, 1u);
  EXPECT_EQ(s.outstanding_at_end, 1u);
  EXPECT_NEAR(s.turnaround.Percentile(50), 200e-6, 2e-6);
  EXPECT_NEAR(s.turnaround.Percentile(100), 300e-6, 3e-6);
  ASSERT_EQ(s.seconds.size(), 3u);
  EXPECT_EQ(s.seconds[0].packets, 5u);
  EXPECT_EQ(s.seconds[0].requests, 3u);
  EXPECT_EQ(s.seconds[0].replies, 2u);
  EXPECT_EQ(s.seconds[0].paired, 2u);
  EXPECT_EQ(s.seconds[1].replies, 1u);
  EXPECT_EQ(s.seconds[1].paired, 0u);
  EXPECT_EQ(s.seconds[2].requests, 1u);
  ASSERT_EQ(s.lossy_flows.size(), 1u);
  EXPECT_EQ(s.lossy_flows[0].key.ToString(), "udp 10.0.0.1:40000 > 10.0.0.2:7");
  EXPECT_EQ(s.lossy_flows[0].lost, 1u);
  EXPECT_EQ(s.lossy_flows[0].packets, 7u);
}

TEST(TrafficTest, OutstandingAtTheEndIsLostOnlyPastTheTimeout) {
  for (double last : {0.5, 1.5}) {
    TrafficAnalyzer a;
    Feed(&a, 0.0, Make(kA, kB, "x"));
    Feed(&a, last, Make(kC, kD, "other flow"));
    EXPECT_EQ(a.current().lost, 0u);  // another flow's packet does not expire it
    TrafficSummary s = a.Finish();
    EXPECT_EQ(s.lost, last > 1 ? 1u : 0u) << last;
    EXPECT_EQ(s.outstanding_at_end, last > 1 ? 1u : 2u) << last;  // plus the other flow's request
  }
}

TEST(TrafficTest, PerSecondTableFillsGaps) {
  TrafficAnalyzer a;
  Feed(&a, 100.2, Make(kA, kB, "q"));
  Feed(&a, 100.7, Make(kB, kA, "q"));
  Feed(&a, 103.5, Make(kA, kB, "r"));
  TrafficSummary s = a.Finish();
  ASSERT_EQ(s.seconds.size(), 4u);
  const uint64_t packets[] = {2, 0, 0, 1}, requests[] = {1, 0, 0, 1}, replies[] = {1, 0, 0, 0};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(s.seconds[i].second, 100 + static_cast<int64_t>(i));
    EXPECT_EQ(s.seconds[i].packets, packets[i]) << i;
    EXPECT_EQ(s.seconds[i].bytes, packets[i] * 43) << i;
    EXPECT_EQ(s.seconds[i].requests, requests[i]) << i;
    EXPECT_EQ(s.seconds[i].replies, replies[i]) << i;
    EXPECT_EQ(s.seconds[i].paired, replies[i]) << i;
  }
  EXPECT_EQ(s.untabled_packets, 0u);
}

TEST(TrafficTest, SizeHistogramEdgesAndStatuses) {
  TrafficAnalyzer a;
  for (uint32_t len : {64u, 65u, 128u, 1518u, 1519u, 9018u, 9019u}) {
    PacketInfo i;
    i.caplen = std::min(len, 96u), i.wirelen = len;
    a.Add(1.0, PacketStatus::kNotIp, i, nullptr);
  }
  PacketInfo tagged;
  tagged.wirelen = tagged.caplen = 60;
  tagged.vlan_tags = 1;
  a.Add(1.0, PacketStatus::kTruncated, tagged, nullptr);
  a.Add(1.0, PacketStatus::kMalformed, tagged, nullptr);
  a.Add(1.0, PacketStatus::kUnsupportedLink, PacketInfo{.caplen = 60, .wirelen = 60}, nullptr);
  TrafficSummary s = a.Finish();
  const uint64_t want[kSizeBuckets] = {4, 2, 0, 0, 0, 1, 2, 1};
  for (size_t b = 0; b < kSizeBuckets; ++b) EXPECT_EQ(s.sizes[b], want[b]) << b;
  EXPECT_EQ(s.packets, 10u);
  EXPECT_EQ(s.bytes, 64u + 65 + 128 + 1518 + 1519 + 9018 + 9019 + 180);
  EXPECT_EQ(s.not_ip, 7u);
  EXPECT_EQ(s.truncated, 1u);
  EXPECT_EQ(s.malformed, 1u);
  EXPECT_EQ(s.unsupported_link, 1u);
  EXPECT_EQ(s.vlan_tagged, 2u);
  EXPECT_EQ(s.ip_packets, 0u);
  EXPECT_EQ(s.requests + s.replies, 0u);
  ASSERT_EQ(s.seconds.size(), 1u);
  EXPECT_EQ(s.seconds[0].packets, 10u);
  EXPECT_TRUE(s.top_flows.empty());
}

TEST(TrafficTest, FragmentsPairByTheFirstFragment) {
  TrafficAnalyzer a;
  auto first = [](End src, End dst) {
    Frame f = Make(src, dst, std::string(1472, 'f'));
    f.info.wirelen = 1514;
    f.info.fragment = f.info.first_fragment = true;
    f.info.payload_length = 2992;  // the UDP length field: the whole datagram
    return f;
  };
  PacketInfo later;
  later.caplen = later.wirelen = 1000;
  later.src = kA.addr, later.dst = kB.addr, later.protocol = 17, later.fragment = true;
  Feed(&a, 0.0, first(kA, kB));
  a.Add(0.0, PacketStatus::kOk, later, nullptr);
  Feed(&a, 0.001, first(kB, kA));
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.fragments, 3u);
  EXPECT_EQ(s.udp, 3u);
  EXPECT_EQ(s.paired, 1u);
  EXPECT_EQ(s.requests + s.replies, 2u);  // the later fragment has no ports: no flow
  ASSERT_EQ(s.top_flows.size(), 1u);
  EXPECT_EQ(s.top_flows[0].bytes, 2u * 1514);
}

TEST(TrafficTest, Ipv6FlowsPair) {
  const End a6{Doc6(1), 40000}, b6{Doc6(2), 7};
  TrafficAnalyzer a;
  Feed(&a, 0.0, Make(a6, b6, "six", 17, true));
  Feed(&a, 0.0005, Make(b6, a6, "six", 17, true));
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.ipv6, 2u);
  EXPECT_EQ(s.paired, 1u);
  EXPECT_NEAR(s.turnaround.Percentile(50), 0.0005, 5e-6);
  ASSERT_EQ(s.top_flows.size(), 1u);
  EXPECT_EQ(s.top_flows[0].key.ToString(), "udp [2001:db8::1]:40000 > [2001:db8::2]:7");
  EXPECT_EQ(s.top_flows[0].bytes, 2u * (62 + 3));
}

TEST(TrafficTest, TcpAndIcmpAreCountedNotPaired) {
  TrafficAnalyzer a;
  Feed(&a, 0.0, Make(kA, kB, "abcd", 6));
  Feed(&a, 0.001, Make(kB, kA, "abcd", 6));
  Frame icmp = Make(kA, kB, "echo", 1);
  icmp.info.has_ports = false;
  Feed(&a, 0.002, icmp);
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.tcp, 2u);
  EXPECT_EQ(s.other, 1u);
  EXPECT_EQ(s.requests, 2u);
  EXPECT_EQ(s.replies, 1u);
  EXPECT_EQ(s.paired + s.lost + s.unmatched_replies + s.outstanding_at_end, 0u);
  EXPECT_EQ(s.turnaround.count(), 0u);
  ASSERT_EQ(s.top_flows.size(), 2u);
  const FlowStats* tcp = FindFlow(s.top_flows, kA, kB);
  ASSERT_NE(tcp, nullptr);
  EXPECT_EQ(tcp->key.ToString(), "tcp 10.0.0.1:40000 > 10.0.0.2:7");
  EXPECT_EQ(tcp->requests, 1u);
  EXPECT_EQ(tcp->replies, 1u);
  EXPECT_EQ(s.top_flows[1].key.ToString(), "icmp 10.0.0.1 > 10.0.0.2");
}

// With the payload cut by the snap length the fingerprint is the length
// alone: a stop-and-wait echo still pairs, whatever the (uncaptured) bytes.
TEST(TrafficTest, HeadersOnlyCapturePairsByLength) {
  TrafficAnalyzer a;
  Frame r1 = Make(kA, kB, "1111"), r2 = Make(kA, kB, "2222");
  Frame p2 = Make(kB, kA, "2222"), p1 = Make(kB, kA, "1111");
  for (Frame* f : {&r1, &r2, &p2, &p1}) f->info.payload_captured = 0;  // snap length cut the payload
  Feed(&a, 0.000, r1);
  Feed(&a, 0.003, p2);  // same length: answers r1, 3 ms
  Feed(&a, 0.010, r2);
  Feed(&a, 0.012, p1);  // answers r2, 2 ms
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.paired, 2u);
  EXPECT_EQ(s.lost, 0u);
  EXPECT_NEAR(s.turnaround.Percentile(0), 0.002, 1e-9);
  EXPECT_NEAR(s.turnaround.Percentile(100), 0.003, 1e-9);
}

// At the end every outstanding request older than the timeout at the last
// frame's time (whatever that frame is) is lost, even one that sits behind a
// younger request because the capture's timestamps stepped back; the
// younger ones are outstanding at the end.
TEST(TrafficTest, FinishJudgesEveryRequestByTheLastFrame) {
  TrafficAnalyzer a;  // timeout 1 s
  Feed(&a, 10.0, Make(kA, kB, "x"));
  Feed(&a, 8.0, Make(kA, kB, "y"));  // the clock stepped back 2 s
  Feed(&a, 9.9, Make(kA, kB, "z"));
  PacketInfo arp;
  arp.caplen = arp.wirelen = 42;
  a.Add(10.5, PacketStatus::kNotIp, arp, nullptr);  // the last frame: "y" is 2.5 s old, "z" 0.6 s, "x" 0.5 s
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.requests, 3u);
  EXPECT_EQ(s.lost, 1u);
  EXPECT_EQ(s.outstanding_at_end, 2u);
  ASSERT_EQ(s.lossy_flows.size(), 1u);
  EXPECT_EQ(s.lossy_flows[0].lost, 1u);
}

}  // namespace
}  // namespace bottleneckd::traffic_test
