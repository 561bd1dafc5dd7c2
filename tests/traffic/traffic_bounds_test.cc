// Tests of the bounds of the traffic analysis (traffic/traffic.h): the
// outstanding queue per pair, LRU eviction of flow pairs, the per-second
// table's cap, a flood of unique flows, and the space-saving top flows.
// Expected values are derived from the constructed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/traffic/traffic_test_util.h"
#include "traffic/traffic.h"

namespace bottleneckd::traffic_bounds_test {
namespace {

using traffic_testing::End;
using traffic_testing::Feed;
using traffic_testing::FindFlow;
using traffic_testing::Frame;
using traffic_testing::kA;
using traffic_testing::kB;
using traffic_testing::kC;
using traffic_testing::kD;
using traffic_testing::Make;
using traffic_testing::V4;

TEST(TrafficBoundsTest, OutstandingQueueBound) {
  TrafficOptions o;
  o.max_outstanding = 2;
  TrafficAnalyzer a(o);
  Feed(&a, 0.000, Make(kA, kB, "a"));
  Feed(&a, 0.001, Make(kA, kB, "b"));
  Feed(&a, 0.002, Make(kA, kB, "c"));  // full: "a" counted lost
  EXPECT_EQ(a.current().lost, 1u);
  Feed(&a, 0.003, Make(kB, kA, "a"));  // too late: unmatched
  Feed(&a, 0.004, Make(kB, kA, "b"));
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.lost, 1u);
  EXPECT_EQ(s.unmatched_replies, 1u);
  EXPECT_EQ(s.paired, 1u);
  EXPECT_EQ(s.outstanding_at_end, 1u);  // "c"
  EXPECT_EQ(s.requests, s.paired + s.lost + s.evicted_outstanding + s.outstanding_at_end);
}

TEST(TrafficBoundsTest, OutstandingTotalBoundEvictsTheLeastRecentPair) {
  TrafficOptions o;
  o.max_outstanding_total = 4;
  TrafficAnalyzer a(o);
  for (double t : {0.0, 0.001, 0.002}) Feed(&a, t, Make(kA, kB, "a"));
  Feed(&a, 0.003, Make(kC, kD, "c"));
  EXPECT_EQ(a.tracked_flows(), 2u);
  Feed(&a, 0.004, Make(kB, kC, "b"));  // a third pair: the table of 4 is full
  EXPECT_EQ(a.tracked_flows(), 2u);    // A-B (least recently seen) evicted
  EXPECT_EQ(a.current().evicted_outstanding, 3u);
  for (double t : {0.005, 0.006, 0.007, 0.008}) Feed(&a, t, Make(kB, kC, "b"));
  // 1 (C-D) + 1 (B-C) + 3 more of B-C: at B-C's fourth the least recent
  // pair C-D goes; at its fifth B-C is the only pair and holds all 4: its
  // oldest is lost.
  EXPECT_EQ(a.current().evicted_outstanding, 4u);
  EXPECT_EQ(a.current().lost, 1u);
  Feed(&a, 0.009, Make(kB, kC, "b"));
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.lost, 2u);
  EXPECT_EQ(s.outstanding_at_end, 4u);
  EXPECT_EQ(s.requests, s.paired + s.lost + s.evicted_outstanding + s.outstanding_at_end);
}

TEST(TrafficBoundsTest, EvictedPairsLoseOnlyTimedOutRequests) {
  TrafficOptions o;
  o.max_tracked_flows = 1;
  TrafficAnalyzer a(o);
  Feed(&a, 0.0, Make(kA, kB, "a"));
  Feed(&a, 0.1, Make(kC, kD, "c"));  // evicts A-B; its request is 0.1 s old
  EXPECT_EQ(a.current().evicted_outstanding, 1u);
  EXPECT_EQ(a.tracked_flows(), 1u);
  Feed(&a, 5.0, Make(kA, kB, "e"));  // evicts C-D; its request is 4.9 s old: lost
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.evicted_outstanding, 1u);
  EXPECT_EQ(s.lost, 1u);
  EXPECT_EQ(s.outstanding_at_end, 1u);
  EXPECT_EQ(s.requests, s.paired + s.lost + s.evicted_outstanding + s.outstanding_at_end);
  ASSERT_EQ(s.lossy_flows.size(), 1u);  // remembered after eviction
  EXPECT_NE(FindFlow(s.lossy_flows, kC, kD), nullptr);
}

TEST(TrafficBoundsTest, PerSecondTableIsBounded) {
  TrafficOptions o;
  o.max_seconds = 4;
  TrafficAnalyzer a(o);
  Frame f = Make(kA, kB, "z");
  for (double t : {10.5, 11.5, 12.5, 13.5, 14.5}) Feed(&a, t, f);
  ASSERT_EQ(a.current().seconds.size(), 4u);  // 11..14: second 10 dropped
  EXPECT_EQ(a.current().seconds.front().second, 11);
  EXPECT_EQ(a.current().untabled_packets, 1u);
  Feed(&a, 100.5, f);  // a silence longer than the table: starts afresh
  ASSERT_EQ(a.current().seconds.size(), 1u);
  EXPECT_EQ(a.current().untabled_packets, 5u);
  Feed(&a, 98.2, f);  // a step back that fits: rows 98, 99 prepended
  ASSERT_EQ(a.current().seconds.size(), 3u);
  EXPECT_EQ(a.current().seconds[0].second, 98);
  EXPECT_EQ(a.current().seconds[0].packets, 1u);
  EXPECT_EQ(a.current().seconds[1].packets, 0u);
  Feed(&a, 90.0, f);  // does not fit: counted, not tabled
  TrafficSummary s = a.Finish();
  EXPECT_EQ(s.seconds.size(), 3u);
  EXPECT_EQ(s.untabled_packets, 6u);
  EXPECT_EQ(s.packets, 8u);
  EXPECT_DOUBLE_EQ(s.first_ts, 10.5);
  EXPECT_DOUBLE_EQ(s.last_ts, 100.5);
}

TEST(TrafficBoundsTest, PerSecondTableDropsAnEighthAtOnceAndCapsLongGaps) {
  TrafficOptions o;
  o.max_seconds = 16;
  TrafficAnalyzer a(o);
  Frame f = Make(kA, kB, "z");
  for (int t = 0; t <= 16; ++t) Feed(&a, t, f);
  EXPECT_EQ(a.current().seconds.size(), 15u);  // 17 seconds: 16/8 = 2 dropped
  EXPECT_EQ(a.current().seconds.front().second, 2);

  TrafficAnalyzer days;  // default: 1e6 rows
  Feed(&days, 0.5, f);
  Feed(&days, 2 * 86400 + 0.5, f);  // two days: every second present
  EXPECT_EQ(days.current().seconds.size(), 2u * 86400 + 1);
  Feed(&days, 40 * 86400 + 0.5, f);  // 38 more days would exceed 1e6 rows
  TrafficSummary s = days.Finish();
  EXPECT_EQ(s.seconds.size(), 1u);
  EXPECT_EQ(s.untabled_packets, 2u);
}

// A million flows of one packet each: tables stay at their bounds.
TEST(TrafficBoundsTest, FloodOfUniqueFlowsStaysBounded) {
  TrafficOptions o;
  TrafficAnalyzer a(o);
  Frame f = Make(kA, kB, "flood");
  const uint32_t n = 1000000;
  for (uint32_t i = 0; i < n; ++i) {
    f.info.src = V4(11, uint8_t(i >> 16), uint8_t(i >> 8), uint8_t(i));
    Feed(&a, i * 1e-6, f);
    if (i % 100000 == 0) {
      ASSERT_LE(a.tracked_flows(), o.max_tracked_flows);
    }
  }
  EXPECT_EQ(a.tracked_flows(), o.max_tracked_flows);
  EXPECT_EQ(a.Snapshot().top_flows.size(), o.top_flows);
  TrafficSummary s = a.Finish();
  EXPECT_LE(s.top_flows.size(), o.top_flows);
  EXPECT_EQ(s.requests, n);
  // Evicted at most 4096 us after their request: not timed out.
  EXPECT_EQ(s.evicted_outstanding, n - o.max_tracked_flows);
  EXPECT_EQ(s.outstanding_at_end, o.max_tracked_flows);
  EXPECT_EQ(s.lost, 0u);
  // 1000000 - 4096 evicted pairs of one packet went through 16 counters:
  // 995904 / 16 = 62244 each, taken over by a pair seen once since. A
  // tracked pair (one packet) may have had such a counter before (the
  // flood set every bit of the evicted-pairs filter), so it reads 62244 + 1
  // with error 62244: the largest bound, listed first.
  ASSERT_EQ(s.top_flows.size(), o.top_flows);
  for (const FlowStats& t : s.top_flows) {
    EXPECT_EQ(t.packets - t.packets_error, 1u);
    EXPECT_GT(t.packets_error, 0u);  // after such a flood no count is exact
  }
  EXPECT_EQ(s.top_flows[0].packets, (n - o.max_tracked_flows) / o.top_flows + 1);
}

// Three flows of 2 packets (request, reply) per round and one new flow per
// round, 4 tracked pairs and 4 counters: each round's new flow evicts the
// last round's, so 999 one-packet pairs churn through the counters while
// the heavy ones stay tracked, counted exactly (count = 2 x round).
TEST(TrafficBoundsTest, SpaceSavingKeepsHeavyHittersExactly) {
  TrafficOptions o;
  o.top_flows = 4;
  o.max_tracked_flows = 4;
  TrafficAnalyzer a(o);
  const End heavy[] = {{V4(10, 1, 0, 1), 1001}, {V4(10, 1, 0, 2), 1002}, {V4(10, 1, 0, 3), 1003}};
  const int rounds = 1000;
  for (int r = 0; r < rounds; ++r) {
    double t = r * 0.001;
    for (const End& h : heavy) {
      Feed(&a, t, Make(h, kB, "h"));
      Feed(&a, t + 0.0001, Make(kB, h, "h"));
    }
    Feed(&a, t + 0.0002, Make({V4(10, 2, uint8_t(r >> 8), uint8_t(r)), 2000}, kB, "u"));
  }
  TrafficSummary s = a.Finish();
  ASSERT_EQ(s.top_flows.size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    const FlowStats* f = FindFlow(s.top_flows, heavy[i], kB);
    ASSERT_NE(f, nullptr) << i;
    EXPECT_EQ(f->packets, 2u * rounds);
    EXPECT_EQ(f->packets_error, 0u);
    EXPECT_EQ(f->paired, static_cast<uint64_t>(rounds));
  }
  // 999 evicted pairs of one packet in 4 counters: 250, 250, 250 and 249,
  // each counter's last pair seen once since it took it over.
  EXPECT_EQ(s.top_flows[3].packets, 250u);
  EXPECT_EQ(s.top_flows[3].packets_error, 249u);
  EXPECT_EQ(s.top_flows[3].key.ToString().rfind("udp 10.2.", 0), 0u) << s.top_flows[3].key.ToString();
}

// 256 pairs of equal weight, 16 counters, every pair tracked (the capture
// bench's shape): the top flows are exact, not space-saving's bound of
// N / 16 packets each.
TEST(TrafficBoundsTest, TopFlowsAreExactWhileEveryPairIsTracked) {
  TrafficOptions o;
  TrafficAnalyzer a(o);
  const int rounds = 50;
  for (int r = 0; r < rounds; ++r) {
    for (int f = 0; f < 256; ++f) {
      const End c{V4(10, 3, 0, uint8_t(f)), 3000};
      Feed(&a, r * 0.01 + f * 1e-5, Make(c, kB, "q"));
      Feed(&a, r * 0.01 + f * 1e-5 + 5e-6, Make(kB, c, "q"));
    }
  }
  TrafficSummary s = a.Finish();
  ASSERT_EQ(s.top_flows.size(), o.top_flows);
  for (size_t i = 0; i < s.top_flows.size(); ++i) {
    const FlowStats& t = s.top_flows[i];
    EXPECT_EQ(t.packets, 2u * rounds);
    EXPECT_EQ(t.packets_error, 0u);
    EXPECT_EQ(t.paired, static_cast<uint64_t>(rounds));
    // Ties go by key: 10.3.0.0 to 10.3.0.15.
    EXPECT_EQ(t.key.ToString(), "udp 10.3.0." + std::to_string(i) + ":3000 > 10.0.0.2:7");
  }
}

// A pair evicted and seen again: its counter (from the eviction) and its
// tracked counts add up, both exact while no counter was taken over; seen
// again the other way round, requests and replies keep their meaning.
TEST(TrafficBoundsTest, APairEvictedAndSeenAgainAddsUp) {
  TrafficOptions o;
  o.top_flows = 4;
  o.max_tracked_flows = 1;
  TrafficAnalyzer a(o);
  for (int i = 0; i < 3; ++i) Feed(&a, i * 0.001, Make(kA, kB, "x"));  // A is the requester
  Feed(&a, 0.01, Make(kC, kD, "y"));                                   // evicts A-B
  Feed(&a, 0.02, Make(kB, kA, "z"));                                   // A-B again, evicting C-D: now B asks
  Feed(&a, 0.03, Make(kA, kB, "z"));
  TrafficSummary s = a.Finish();
  const FlowStats* ab = FindFlow(s.top_flows, kB, kA);
  ASSERT_NE(ab, nullptr);
  EXPECT_EQ(ab->packets, 5u);
  EXPECT_EQ(ab->packets_error, 0u);
  EXPECT_EQ(ab->requests, 1u + 0u);  // B's one, and none of A's earlier three as B's
  EXPECT_EQ(ab->replies, 1u + 3u);   // A's reply, and A's three requests seen from B's side
  const FlowStats* cd = FindFlow(s.top_flows, kC, kD);
  ASSERT_NE(cd, nullptr);
  EXPECT_EQ(cd->packets, 1u);
  EXPECT_EQ(s.top_flows[0].packets, 5u);
}

}  // namespace
}  // namespace bottleneckd::traffic_bounds_test
