// The live daemon's runs (RunTracker) over a real run store in a scratch
// directory: start/stop by name, windows before a run left out, segments of
// a sweep inside a run, continuous window runs, a full disk that delays but
// does not lose a run, shutdown marking active runs interrupted, and the
// live capture's flows summed per run in a bounded table. Times are Unix
// seconds made up by the test; nothing sleeps.
#include "runs/run_tracker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "tests/support/test_util.h"

namespace bottleneckd::run_tracker_test {
namespace {

using testing::TempDir;

std::unique_ptr<RunStore> OpenStore(const TempDir& dir) {
  std::unique_ptr<RunStore> s;
  Status st = RunStore::Open(dir.path() + "/runs.db", false, &s);
  EXPECT_OK(st);
  return s;
}

TimelinePoint At(double t, double offered, Bound label = Bound::kCpu, const std::string& resource = "cpu1") {
  TimelinePoint p;
  p.t = t;
  p.offered_packets_per_second = p.received_packets_per_second = p.application_packets_per_second = offered;
  p.cpu_busy = 0.9;
  p.accounting_busy = 0.8;
  p.label = label;
  p.resource = resource;
  p.confidence = 0.75;
  return p;
}

Verdict VerdictOf(const TimelinePoint& p) {
  Verdict v;
  v.label = p.label;
  v.resource = p.resource;
  v.confidence = p.confidence;
  v.evidence = {std::string("window at ") + std::to_string(static_cast<int>(p.t))};
  return v;
}

void Feed(RunTracker* t, const TimelinePoint& p) { t->OnWindow(p, VerdictOf(p)); }

RunQuery TopLevel() {
  RunQuery q;
  q.parent_id = 0;  // not the segments steady runs also get
  return q;
}

RunTrackerOptions NoWindows() {
  RunTrackerOptions o;
  o.window_seconds = 0;
  return o;
}

TEST(RunTracker, StopReturnsTheVerdictAndStoresTheRun) {
  TempDir dir;
  RunTracker t(OpenStore(dir), NoWindows());
  Feed(&t, At(1000, 5000));  // before the run: not its window
  ASSERT_OK(t.Start("echo 550M", "command", "udpecho -r 550M", 1000.5));
  EXPECT_TRUE(t.active());
  for (int i = 1; i <= 12; ++i) Feed(&t, At(1000 + i, 40000));
  RunReport r;
  ASSERT_OK(t.Stop("echo 550M", 0, 1012.4, &r));
  EXPECT_FALSE(t.active());
  EXPECT_EQ(r.state, "finished");
  EXPECT_EQ(r.windows, 12u - 5u);  // 12 windows, 5 settling
  EXPECT_EQ(r.verdict.label, Bound::kCpu);
  EXPECT_EQ(r.verdict.resource, "cpu1");
  ASSERT_FALSE(r.verdict.evidence.empty());
  EXPECT_EQ(r.verdict.evidence[0], "window at 1012");  // the latest window's sentence
  EXPECT_DOUBLE_EQ(r.offered_packets_per_second, 40000);
  ASSERT_TRUE(r.exit_code);
  EXPECT_EQ(*r.exit_code, 0);
  EXPECT_NE(r.id, 0);

  std::unique_ptr<RunStore> ro;
  ASSERT_OK(RunStore::Open(dir.path() + "/runs.db", true, &ro));
  std::vector<RunReport> runs;
  RunQuery q;
  q.name = "echo 550M";
  ASSERT_OK(ro->ListRuns(q, &runs));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "finished");
  EXPECT_EQ(runs[0].command, "udpecho -r 550M");
  EXPECT_EQ(runs[0].source, "command");
  EXPECT_DOUBLE_EQ(runs[0].start, 1000.5);
  EXPECT_DOUBLE_EQ(runs[0].end, 1012.4);
  EXPECT_EQ(runs[0].verdict.label, Bound::kCpu);
  std::vector<TimelinePoint> tl;
  ASSERT_OK(ro->Timeline(r.id, &tl));
  ASSERT_EQ(tl.size(), 12u);  // every window inside the run, none before it
  EXPECT_DOUBLE_EQ(tl.front().t, 1001);
  EXPECT_DOUBLE_EQ(tl.back().t, 1012);
}

// A run counts the profiler's readings it merged, so its report can tell a
// profiler that was not loaded from one that walked nothing (issue 49: the
// report said "not loaded" while the daemon's log said it loaded).
TEST(RunTracker, ARunCountsTheProfilerReadingsItMerged) {
  TempDir dir;
  RunTracker t(OpenStore(dir), NoWindows());
  ASSERT_OK(t.Start("walked nothing", "control", "", 1000.5));
  ASSERT_OK(t.Start("not loaded", "control", "", 1000.5));
  ProfileReading empty;  // loaded, no stack walked
  for (int i = 1; i <= 4; ++i) {
    TimelinePoint p = At(1000 + i, 4000);
    t.OnWindow(p, VerdictOf(p), {}, &empty);
  }
  RunReport walked, unloaded;
  ASSERT_OK(t.Stop("walked nothing", 0, 1004.5, &walked));
  EXPECT_EQ(walked.profile_readings, std::optional<int>(4));
  for (int i = 5; i <= 8; ++i) Feed(&t, At(1000 + i, 4000));  // no reading: not loaded
  ASSERT_OK(t.Stop("not loaded", 0, 1008.5, &unloaded));
  EXPECT_EQ(unloaded.profile_readings, std::optional<int>(4));  // the first four windows were its too
  EXPECT_EQ(unloaded.profile.samples, 0u);

  std::unique_ptr<RunStore> ro;
  ASSERT_OK(RunStore::Open(dir.path() + "/runs.db", true, &ro));
  std::vector<RunReport> runs;
  RunQuery q;
  q.name = "walked nothing";
  ASSERT_OK(ro->ListRuns(q, &runs));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].profile_readings, std::optional<int>(4));

  RunTracker u(OpenStore(dir), NoWindows());
  ASSERT_OK(u.Start("never loaded", "control", "", 2000.5));
  for (int i = 1; i <= 3; ++i) Feed(&u, At(2000 + i, 4000));
  RunReport never;
  ASSERT_OK(u.Stop("never loaded", 0, 2003.5, &never));
  EXPECT_EQ(never.profile_readings, std::optional<int>(0));
  EXPECT_EQ(never.offcpu_readings, std::optional<int>(0));
}

// Likewise offcpu's readings (one a window while it was loaded, whether or
// not a followed thread left the CPU): an empty off-CPU picture says which.
TEST(RunTracker, ARunCountsOffCpuReadingsItMerged) {
  TempDir dir;
  RunTracker t(OpenStore(dir), NoWindows());
  ASSERT_OK(t.Start("followed", "control", "", 1000.5));
  FoldedProfile nothing_off;  // loaded, no thread off the CPU
  for (int i = 1; i <= 3; ++i) {
    TimelinePoint p = At(1000 + i, 4000);
    t.OnWindow(p, VerdictOf(p), {}, nullptr, &nothing_off);
  }
  Feed(&t, At(1004, 4000));  // not loaded that window
  RunReport r;
  ASSERT_OK(t.Stop("followed", 0, 1004.5, &r));
  EXPECT_EQ(r.offcpu_readings, std::optional<int>(3));
  EXPECT_EQ(r.offcpu.samples, 0u);
  std::unique_ptr<RunStore> ro;
  ASSERT_OK(RunStore::Open(dir.path() + "/runs.db", true, &ro));
  std::vector<RunReport> runs;
  RunQuery q;
  q.name = "followed";
  ASSERT_OK(ro->ListRuns(q, &runs));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].offcpu_readings, std::optional<int>(3));
}

// A run whose command never started is discarded: gone from the active runs
// and from the store (it stayed in --report and /report as an empty run).
TEST(RunTracker, DiscardForgetsTheRunAndDeletesItFromTheStore) {
  TempDir dir;
  RunTracker t(OpenStore(dir), NoWindows());
  ASSERT_OK(t.Start("kept", "command", "true", 1000));
  ASSERT_OK(t.Start("never ran", "command", "./no-such-benchmark", 1000.5));
  Feed(&t, At(1001, 5000));
  ASSERT_OK(t.Discard("never ran"));
  EXPECT_TRUE(t.Discard("never ran").IsNotFound());
  RunReport r;
  EXPECT_TRUE(t.Stop("never ran", 127, 1002, &r).IsNotFound());
  ASSERT_OK(t.Stop("kept", 0, 1002, &r));
  std::unique_ptr<RunStore> ro;
  ASSERT_OK(RunStore::Open(dir.path() + "/runs.db", true, &ro));
  std::vector<RunReport> runs;
  ASSERT_OK(ro->ListRuns(RunQuery(), &runs));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, "kept");
}

TEST(RunTracker, NamesMustBeUniqueWhileActiveAndKnownToStop) {
  RunTracker t(nullptr, NoWindows());
  ASSERT_OK(t.Start("a", "control", "", 1));
  Status dup = t.Start("a", "control", "", 2);
  EXPECT_EQ(dup.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(dup.message().find("already active"), std::string::npos);
  RunReport r;
  Status unknown = t.Stop("b", std::nullopt, 3, &r);
  EXPECT_TRUE(unknown.IsNotFound());
  EXPECT_NE(unknown.message().find("'b'"), std::string::npos);
  ASSERT_OK(t.Stop("a", std::nullopt, 3, &r));
  EXPECT_OK(t.Start("a", "control", "", 4));  // free again
  EXPECT_EQ(t.starts(), 2u);                  // the refused start does not count: the daemon rescans on each one
}

TEST(RunTracker, AtMostMaxActiveRuns) {
  RunTrackerOptions o = NoWindows();
  o.max_active = 2;
  RunTracker t(nullptr, o);
  EXPECT_OK(t.Start("a", "control", "", 1));
  EXPECT_OK(t.Start("b", "control", "", 1));
  EXPECT_FALSE(t.Start("c", "control", "", 1).ok());
}

TEST(RunTracker, ARunShorterThanAWindowSaysSo) {
  RunTracker t(nullptr, NoWindows());
  ASSERT_OK(t.Start("blink", "command", "true", 10.2));
  RunReport r;
  ASSERT_OK(t.Stop("blink", 0, 10.4, &r));
  EXPECT_EQ(r.windows, 0u);
  EXPECT_EQ(r.verdict.label, Bound::kUndetermined);
  ASSERT_FALSE(r.verdict.reasons.empty());
  EXPECT_NE(r.verdict.reasons[0].find("shorter than the sampling interval"), std::string::npos);
}

TEST(RunTracker, ASweepInsideARunBecomesSegments) {
  TempDir dir;
  RunTracker t(OpenStore(dir), NoWindows());
  ASSERT_OK(t.Start("sweep", "command", "sweep.sh", 0.5));
  // Three steady phases of 20 windows (the seeds' 40k, 44k, 48k pps).
  double levels[] = {40000, 44000, 48000};
  int w = 0;
  for (double level : levels)
    for (int i = 0; i < 20; ++i) Feed(&t, At(++w, level));
  RunReport r;
  std::vector<RunReport> segments;
  ASSERT_OK(t.Stop("sweep", 0, w + 0.5, &r, &segments));
  ASSERT_EQ(segments.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(segments[i].offered_packets_per_second, levels[i], 1e-6) << i;
    EXPECT_EQ(segments[i].source, "segment");
    EXPECT_EQ(segments[i].parent_id, r.id);
    EXPECT_NE(segments[i].id, 0);
    EXPECT_EQ(segments[i].name.rfind("sweep step " + std::to_string(i + 1), 0), 0u) << segments[i].name;
  }
  std::unique_ptr<RunStore> ro;
  ASSERT_OK(RunStore::Open(dir.path() + "/runs.db", true, &ro));
  RunQuery q;
  q.parent_id = r.id;
  std::vector<RunReport> stored;
  ASSERT_OK(ro->ListRuns(q, &stored));
  EXPECT_EQ(stored.size(), 3u);
}

TEST(RunTracker, WindowRunsCloseEveryWindowSeconds) {
  TempDir dir;
  RunTrackerOptions o;
  o.window_seconds = 10;
  RunTracker t(OpenStore(dir), o);
  // Windows ending at 101..125: the 10 s windows [100,110] and [110,120]
  // close at 110 and 120; [120,130] is still open.
  for (int s = 101; s <= 125; ++s) Feed(&t, At(s, 1000, s < 110 ? Bound::kNone : Bound::kCpu, s < 110 ? "" : "cpu1"));
  std::unique_ptr<RunStore> ro;
  ASSERT_OK(RunStore::Open(dir.path() + "/runs.db", true, &ro));
  RunQuery q;
  q.include_windows = true;
  std::vector<RunReport> runs;
  ASSERT_OK(ro->ListRuns(q, &runs));
  ASSERT_EQ(runs.size(), 2u);
  // Newest first.
  EXPECT_DOUBLE_EQ(runs[0].start, 110);
  EXPECT_DOUBLE_EQ(runs[0].end, 120);
  EXPECT_EQ(runs[0].verdict.label, Bound::kCpu);
  EXPECT_DOUBLE_EQ(runs[1].start, 100);
  EXPECT_DOUBLE_EQ(runs[1].end, 110);
  EXPECT_EQ(runs[1].verdict.label, Bound::kNone);  // 9 of its 10 windows
  EXPECT_EQ(runs[1].windows, 10u);
  // Window runs are not listed as runs unless asked for.
  q.include_windows = false;
  ASSERT_OK(ro->ListRuns(q, &runs));
  EXPECT_TRUE(runs.empty());
}

TEST(RunTracker, AFullDiskDelaysTheRunButLosesNothing) {
  TempDir dir;
  auto store = OpenStore(dir);
  RunStore* raw = store.get();
  RunTracker t(std::move(store), NoWindows());
  ASSERT_OK(t.Start("before", "control", "", 0.5));
  for (int i = 1; i <= 6; ++i) Feed(&t, At(i, 1000));
  RunReport before;
  ASSERT_OK(t.Stop("before", std::nullopt, 6.5, &before));
  EXPECT_EQ(t.unsaved(), 0u);

  // The disk fills: no page can be added.
  ASSERT_OK(t.Start("during", "control", "", 6.6));
  ASSERT_OK(raw->LimitPagesForTest(1));
  for (int i = 7; i <= 400; ++i) Feed(&t, At(i, 2000));
  RunReport during;
  ASSERT_OK(t.Stop("during", std::nullopt, 400.5, &during));
  EXPECT_EQ(t.unsaved(), 1u);  // kept in memory
  EXPECT_EQ(during.windows, 394u - 5u);

  // Space again: the next window stores it, whole.
  ASSERT_OK(raw->LimitPagesForTest(1 << 30));
  Feed(&t, At(401, 0));
  EXPECT_EQ(t.unsaved(), 0u);
  std::unique_ptr<RunStore> ro;
  ASSERT_OK(RunStore::Open(dir.path() + "/runs.db", true, &ro));
  std::vector<RunReport> runs;
  ASSERT_OK(ro->ListRuns(TopLevel(), &runs));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "during");
  EXPECT_EQ(runs[0].state, "finished");
  EXPECT_NEAR(runs[0].offered_packets_per_second, 2000, 1e-6);
  std::vector<TimelinePoint> tl;
  ASSERT_OK(ro->Timeline(runs[0].id, &tl));
  EXPECT_EQ(tl.size(), 394u);  // every window from 7 to 400
  EXPECT_EQ(runs[1].name, "before");
}

TEST(RunTracker, CloseNamesTheRunsTheStoreWouldNotTake) {
  TempDir dir;
  auto store = OpenStore(dir);
  RunStore* raw = store.get();
  RunTracker t(std::move(store), NoWindows());
  ASSERT_OK(t.Start("saved", "control", "", 0.5));
  for (int i = 1; i <= 4; ++i) Feed(&t, At(i, 1000));
  RunReport r;
  ASSERT_OK(t.Stop("saved", std::nullopt, 4.5, &r));
  ASSERT_OK(t.Start("cut short", "control", "", 4.6));
  ASSERT_OK(t.Start("finished", "control", "", 4.7));
  ASSERT_OK(raw->LimitPagesForTest(1));  // the disk fills
  for (int i = 5; i <= 300; ++i) Feed(&t, At(i, 2000));
  ASSERT_OK(t.Stop("finished", 0, 300.5, &r));
  std::vector<std::string> lost = t.Close(300.6);
  ASSERT_EQ(lost.size(), 2u);
  std::sort(lost.begin(), lost.end());
  // Windows 5..300 are 296, of which 5 settling are left out of the figures.
  EXPECT_EQ(lost[0], "'cut short' (interrupted, 291 windows, started 4.600)");
  EXPECT_EQ(lost[1], "'finished' (finished, 291 windows, started 4.700)");
}

TEST(RunTracker, CloseWithEverythingStoredLosesNothing) {
  TempDir dir;
  RunTracker t(OpenStore(dir), NoWindows());
  ASSERT_OK(t.Start("stored at close", "control", "", 0.5));
  for (int i = 1; i <= 4; ++i) Feed(&t, At(i, 1000));
  EXPECT_TRUE(t.Close(4.2).empty());
}

TEST(RunTracker, CloseMarksActiveRunsInterrupted) {
  TempDir dir;
  {
    RunTracker t(OpenStore(dir), NoWindows());
    ASSERT_OK(t.Start("cut short", "control", "", 0.5));
    for (int i = 1; i <= 8; ++i) Feed(&t, At(i, 3000));
    t.Close(8.2);
    EXPECT_FALSE(t.active());
  }
  std::unique_ptr<RunStore> ro;
  ASSERT_OK(RunStore::Open(dir.path() + "/runs.db", true, &ro));
  std::vector<RunReport> runs;
  ASSERT_OK(ro->ListRuns(TopLevel(), &runs));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "interrupted");
  EXPECT_DOUBLE_EQ(runs[0].end, 8.2);
  EXPECT_EQ(runs[0].windows, 8u - 4u);  // 8 windows, 4 settling (half)
}

// A UDP flow 10.0.0.1:src_port > 10.0.0.2:7 of one window.
FlowStats Flow(uint16_t src_port, uint64_t requests, uint64_t replies, uint64_t lost) {
  FlowStats f;
  f.key.protocol = 17;
  f.key.src = {10, 0, 0, 1};
  f.key.dst = {10, 0, 0, 2};
  f.key.src_port = src_port;
  f.key.dst_port = 7;
  f.requests = requests;
  f.replies = replies;
  f.paired = replies;
  f.lost = lost;
  f.packets = requests + replies;
  f.bytes = 100 * f.packets;
  return f;
}

CaptureWindow CaptureOf(const std::string& interface, bool trusted, std::vector<FlowStats> flows) {
  CaptureWindow c;
  c.interface = interface;
  c.seconds = 1;
  c.buffer_drops = trusted ? 0 : 5;
  c.interface_drops = 0;
  c.trusted = trusted;
  c.top_flows = std::move(flows);
  return c;
}

void FeedWith(RunTracker* t, const TimelinePoint& p, const std::vector<CaptureWindow>& captures) {
  t->OnWindow(p, VerdictOf(p), captures);
}

TEST(RunTracker, FlowsAreSummedAcrossWindowsByInterfaceAndKey) {
  TempDir dir;
  RunTracker t(OpenStore(dir), NoWindows());
  // Before the run: not its window, not its flows.
  FeedWith(&t, At(1000, 100), {CaptureOf("eth0", true, {Flow(40000, 5000, 5000, 0)})});
  ASSERT_OK(t.Start("echo", "command", "udpecho", 1000.5));
  for (int i = 1; i <= 3; ++i) {
    FeedWith(&t, At(1000 + i, 100),
             {CaptureOf("eth0", true, {Flow(40000, 100, 98, 2), Flow(40001, 10, 10, 0)}),
              // The same 5-tuple seen on another interface is another flow.
              CaptureOf("eth1", true, {Flow(40000, 7, 7, 0)}),
              // A capture that dropped frames this window: its flows undercount, left out.
              CaptureOf("eth2", false, {Flow(50000, 1000000, 0, 1000000)})});
  }
  // A window without capture adds nothing.
  Feed(&t, At(1004, 100));
  std::vector<RunReport> active = t.Active();
  ASSERT_EQ(active.size(), 1u);
  ASSERT_EQ(active[0].flows.size(), 3u);  // so far, while it runs
  RunReport r;
  ASSERT_OK(t.Stop("echo", 0, 1004.5, &r));
  ASSERT_EQ(r.flows.size(), 3u);
  // Most packets first: 3 x 198, 3 x 20, 3 x 14.
  EXPECT_EQ(r.flows[0].flow, "eth0 udp 10.0.0.1:40000 > 10.0.0.2:7");
  EXPECT_EQ(r.flows[0].requests, 300u);
  EXPECT_EQ(r.flows[0].replies, 294u);
  EXPECT_EQ(r.flows[0].paired, 294u);
  EXPECT_EQ(r.flows[0].lost, 6u);
  EXPECT_EQ(r.flows[0].packets, 594u);
  EXPECT_EQ(r.flows[0].bytes, 59400u);
  EXPECT_EQ(r.flows[1].flow, "eth0 udp 10.0.0.1:40001 > 10.0.0.2:7");
  EXPECT_EQ(r.flows[1].packets, 60u);
  EXPECT_EQ(r.flows[2].flow, "eth1 udp 10.0.0.1:40000 > 10.0.0.2:7");
  EXPECT_EQ(r.flows[2].packets, 42u);
  EXPECT_EQ(r.flows[2].lost, 0u);

  // Stored with the run and read back with it.
  std::unique_ptr<RunStore> ro;
  ASSERT_OK(RunStore::Open(dir.path() + "/runs.db", true, &ro));
  RunQuery q;
  q.id = r.id;
  std::vector<RunReport> runs;
  ASSERT_OK(ro->ListRuns(q, &runs));
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_EQ(runs[0].flows.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(runs[0].flows[i].flow, r.flows[i].flow) << i;
    EXPECT_EQ(runs[0].flows[i].requests, r.flows[i].requests) << i;
    EXPECT_EQ(runs[0].flows[i].replies, r.flows[i].replies) << i;
    EXPECT_EQ(runs[0].flows[i].paired, r.flows[i].paired) << i;
    EXPECT_EQ(runs[0].flows[i].lost, r.flows[i].lost) << i;
    EXPECT_EQ(runs[0].flows[i].packets, r.flows[i].packets) << i;
    EXPECT_EQ(runs[0].flows[i].bytes, r.flows[i].bytes) << i;
  }
}

// Flow i of 1000 has i + 1 packets, fed in a scrambled order (i x 7919 mod
// 1000 visits every i once: 7919 is prime to 1000).
std::vector<uint16_t> ScrambledFlows() {
  std::vector<uint16_t> order;
  for (int k = 0; k < 1000; ++k) order.push_back(static_cast<uint16_t>((k * 7919) % 1000));
  return order;
}

TEST(RunFlowTable, StaysBoundedAndKeepsTheBiggest) {
  RunFlowTable table;
  size_t most = 0;
  for (uint16_t i : ScrambledFlows()) {
    FlowStats f = Flow(static_cast<uint16_t>(10000 + i), i + 1, 0, 0);  // i + 1 packets
    table.Add("eth0", {f});
    most = std::max(most, table.size());
  }
  EXPECT_EQ(table.size(), 256u);
  EXPECT_EQ(most, 256u);  // never more, at any point
  std::vector<RunFlow> top = table.Top();
  ASSERT_EQ(top.size(), 16u);
  for (size_t j = 0; j < 16; ++j) {
    // The 16 biggest: flows 999 (1000 packets) down to 984 (985 packets).
    char want[64];
    std::snprintf(want, sizeof want, "eth0 udp 10.0.0.1:%zu > 10.0.0.2:7", 10999 - j);
    EXPECT_EQ(top[j].flow, want) << j;
    EXPECT_EQ(top[j].packets, 1000u - j) << j;
  }
  // Everything kept: the 256 biggest, 745..1000 packets.
  std::vector<RunFlow> all = table.Top(1000);
  ASSERT_EQ(all.size(), 256u);
  EXPECT_EQ(all.back().packets, 745u);
}

TEST(RunFlowTable, AFullTableDropsTheFlowWithFewestPackets) {
  RunFlowTable table(2);
  table.Add("eth0", {Flow(1, 5, 5, 0), Flow(2, 1, 1, 0)});  // 10 and 2 packets
  table.Add("eth0", {Flow(3, 2, 2, 0)});                    // 4 packets: flow 2 (2) goes
  std::vector<RunFlow> top = table.Top();
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].flow, "eth0 udp 10.0.0.1:1 > 10.0.0.2:7");
  EXPECT_EQ(top[1].flow, "eth0 udp 10.0.0.1:3 > 10.0.0.2:7");
  table.Add("eth0", {Flow(4, 1, 0, 1)});  // 1 packet, fewest of all: it goes itself
  top = table.Top();
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[1].packets, 4u);
  table.Add("eth0", {Flow(3, 10, 10, 0)});  // a kept flow grows: 4 + 20
  top = table.Top();
  EXPECT_EQ(top[0].flow, "eth0 udp 10.0.0.1:3 > 10.0.0.2:7");
  EXPECT_EQ(top[0].packets, 24u);
}

TEST(RunTracker, ARunKeepsTheSixteenBiggestOfAThousandFlows) {
  RunTracker t(nullptr, NoWindows());
  ASSERT_OK(t.Start("flood", "control", "", 0.5));
  // 100 windows of 10 new flows each.
  std::vector<uint16_t> order = ScrambledFlows();
  for (int w = 0; w < 100; ++w) {
    std::vector<FlowStats> flows;
    for (int k = 0; k < 10; ++k) {
      uint16_t i = order[static_cast<size_t>(w * 10 + k)];
      flows.push_back(Flow(static_cast<uint16_t>(10000 + i), i + 1, 0, 0));
    }
    FeedWith(&t, At(w + 1, 1000), {CaptureOf("eth0", true, flows)});
  }
  RunReport r;
  ASSERT_OK(t.Stop("flood", std::nullopt, 100.5, &r));
  ASSERT_EQ(r.flows.size(), 16u);
  EXPECT_EQ(r.flows.front().flow, "eth0 udp 10.0.0.1:10999 > 10.0.0.2:7");
  EXPECT_EQ(r.flows.front().packets, 1000u);
  EXPECT_EQ(r.flows.back().flow, "eth0 udp 10.0.0.1:10984 > 10.0.0.2:7");
  EXPECT_EQ(r.flows.back().packets, 985u);
}

TEST(RunTracker, WindowRunsKeepTheirOwnFlows) {
  TempDir dir;
  RunTrackerOptions o;
  o.window_seconds = 10;
  RunTracker t(OpenStore(dir), o);
  // [100,110] sees flow 1 in every window; [110,120] flow 2 only.
  for (int s = 101; s <= 120; ++s)
    FeedWith(&t, At(s, 1000), {CaptureOf("eth0", true, {Flow(s <= 110 ? 1 : 2, 1, 1, 0)})});
  std::unique_ptr<RunStore> ro;
  ASSERT_OK(RunStore::Open(dir.path() + "/runs.db", true, &ro));
  RunQuery q;
  q.include_windows = true;
  std::vector<RunReport> runs;
  ASSERT_OK(ro->ListRuns(q, &runs));
  ASSERT_EQ(runs.size(), 2u);
  ASSERT_EQ(runs[1].flows.size(), 1u);  // [100,110], older
  EXPECT_EQ(runs[1].flows[0].flow, "eth0 udp 10.0.0.1:1 > 10.0.0.2:7");
  EXPECT_EQ(runs[1].flows[0].packets, 20u);  // 10 windows x 2
  ASSERT_EQ(runs[0].flows.size(), 1u);
  EXPECT_EQ(runs[0].flows[0].flow, "eth0 udp 10.0.0.1:2 > 10.0.0.2:7");
  EXPECT_EQ(runs[0].flows[0].packets, 20u);
}

TEST(RunTracker, SegmentsHaveNoFlows) {
  RunTracker t(nullptr, NoWindows());
  ASSERT_OK(t.Start("sweep", "command", "", 0.5));
  int w = 0;
  for (double level : {40000.0, 48000.0})
    for (int i = 0; i < 10; ++i) FeedWith(&t, At(++w, level), {CaptureOf("eth0", true, {Flow(1, 1, 1, 0)})});
  RunReport r;
  std::vector<RunReport> segments;
  ASSERT_OK(t.Stop("sweep", 0, w + 0.5, &r, &segments));
  ASSERT_EQ(segments.size(), 2u);
  for (const RunReport& s : segments) EXPECT_TRUE(s.flows.empty()) << s.name;
  ASSERT_EQ(r.flows.size(), 1u);
  EXPECT_EQ(r.flows[0].packets, 40u);  // 20 windows x 2
}

TEST(RunTracker, ActiveListsRunsInProgress) {
  RunTracker t(nullptr, NoWindows());
  ASSERT_OK(t.Start("x", "control", "", 0.5));
  Feed(&t, At(1, 10));
  Feed(&t, At(2, 10));
  std::vector<RunReport> a = t.Active();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].name, "x");
  EXPECT_DOUBLE_EQ(a[0].end, 2);
  EXPECT_EQ(a[0].windows, 1u);  // 2 windows, 1 settling
}

}  // namespace
}  // namespace bottleneckd::run_tracker_test
