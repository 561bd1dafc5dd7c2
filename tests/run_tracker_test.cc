// The live daemon's runs (RunTracker) over a real run store in a scratch
// directory: start/stop by name, windows before a run left out, segments of
// a sweep inside a run, continuous window runs, a full disk that delays but
// does not lose a run, and shutdown marking active runs interrupted. Times
// are Unix seconds made up by the test; nothing sleeps.
#include "daemon/run_tracker.h"

#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace bottleneckd {
namespace {

using testing::TempDir;

std::unique_ptr<RunStore> OpenStore(const TempDir& dir) {
  std::unique_ptr<RunStore> s;
  Status st = RunStore::Open(dir.path() + "/runs.db", false, &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

TimelinePoint At(double t, double offered, Bound label = Bound::kCpu, const std::string& resource = "cpu1") {
  TimelinePoint p;
  p.t = t;
  p.offered_packets_per_second = p.delivered_packets_per_second = p.application_packets_per_second = offered;
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
  ASSERT_TRUE(t.Start("echo 550M", "command", "udpecho -r 550M", 1000.5).ok());
  EXPECT_TRUE(t.active());
  for (int i = 1; i <= 12; ++i) Feed(&t, At(1000 + i, 40000));
  RunReport r;
  ASSERT_TRUE(t.Stop("echo 550M", 0, 1012.4, &r).ok());
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
  ASSERT_TRUE(RunStore::Open(dir.path() + "/runs.db", true, &ro).ok());
  std::vector<RunReport> runs;
  RunQuery q;
  q.name = "echo 550M";
  ASSERT_TRUE(ro->ListRuns(q, &runs).ok());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "finished");
  EXPECT_EQ(runs[0].command, "udpecho -r 550M");
  EXPECT_EQ(runs[0].source, "command");
  EXPECT_DOUBLE_EQ(runs[0].start, 1000.5);
  EXPECT_DOUBLE_EQ(runs[0].end, 1012.4);
  EXPECT_EQ(runs[0].verdict.label, Bound::kCpu);
  std::vector<TimelinePoint> tl;
  ASSERT_TRUE(ro->Timeline(r.id, &tl).ok());
  ASSERT_EQ(tl.size(), 12u);  // every window inside the run, none before it
  EXPECT_DOUBLE_EQ(tl.front().t, 1001);
  EXPECT_DOUBLE_EQ(tl.back().t, 1012);
}

TEST(RunTracker, NamesMustBeUniqueWhileActiveAndKnownToStop) {
  RunTracker t(nullptr, NoWindows());
  ASSERT_TRUE(t.Start("a", "control", "", 1).ok());
  Status dup = t.Start("a", "control", "", 2);
  EXPECT_EQ(dup.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(dup.message().find("already active"), std::string::npos);
  RunReport r;
  Status unknown = t.Stop("b", std::nullopt, 3, &r);
  EXPECT_TRUE(unknown.IsNotFound());
  EXPECT_NE(unknown.message().find("'b'"), std::string::npos);
  ASSERT_TRUE(t.Stop("a", std::nullopt, 3, &r).ok());
  EXPECT_TRUE(t.Start("a", "control", "", 4).ok());  // free again
}

TEST(RunTracker, AtMostMaxActiveRuns) {
  RunTrackerOptions o = NoWindows();
  o.max_active = 2;
  RunTracker t(nullptr, o);
  EXPECT_TRUE(t.Start("a", "control", "", 1).ok());
  EXPECT_TRUE(t.Start("b", "control", "", 1).ok());
  EXPECT_FALSE(t.Start("c", "control", "", 1).ok());
}

TEST(RunTracker, ARunShorterThanAWindowSaysSo) {
  RunTracker t(nullptr, NoWindows());
  ASSERT_TRUE(t.Start("blink", "command", "true", 10.2).ok());
  RunReport r;
  ASSERT_TRUE(t.Stop("blink", 0, 10.4, &r).ok());
  EXPECT_EQ(r.windows, 0u);
  EXPECT_EQ(r.verdict.label, Bound::kUndetermined);
  ASSERT_FALSE(r.verdict.reasons.empty());
  EXPECT_NE(r.verdict.reasons[0].find("shorter than the sampling interval"), std::string::npos);
}

TEST(RunTracker, ASweepInsideARunBecomesSegments) {
  TempDir dir;
  RunTracker t(OpenStore(dir), NoWindows());
  ASSERT_TRUE(t.Start("sweep", "command", "sweep.sh", 0.5).ok());
  // Three steady phases of 20 windows (the seeds' 40k, 44k, 48k pps).
  double levels[] = {40000, 44000, 48000};
  int w = 0;
  for (double level : levels)
    for (int i = 0; i < 20; ++i) Feed(&t, At(++w, level));
  RunReport r;
  std::vector<RunReport> segments;
  ASSERT_TRUE(t.Stop("sweep", 0, w + 0.5, &r, &segments).ok());
  ASSERT_EQ(segments.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(segments[i].offered_packets_per_second, levels[i], 1e-6) << i;
    EXPECT_EQ(segments[i].source, "segment");
    EXPECT_EQ(segments[i].parent_id, r.id);
    EXPECT_NE(segments[i].id, 0);
    EXPECT_EQ(segments[i].name.rfind("sweep step " + std::to_string(i + 1), 0), 0u) << segments[i].name;
  }
  std::unique_ptr<RunStore> ro;
  ASSERT_TRUE(RunStore::Open(dir.path() + "/runs.db", true, &ro).ok());
  RunQuery q;
  q.parent_id = r.id;
  std::vector<RunReport> stored;
  ASSERT_TRUE(ro->ListRuns(q, &stored).ok());
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
  ASSERT_TRUE(RunStore::Open(dir.path() + "/runs.db", true, &ro).ok());
  RunQuery q;
  q.include_windows = true;
  std::vector<RunReport> runs;
  ASSERT_TRUE(ro->ListRuns(q, &runs).ok());
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
  ASSERT_TRUE(ro->ListRuns(q, &runs).ok());
  EXPECT_TRUE(runs.empty());
}

TEST(RunTracker, AFullDiskDelaysTheRunButLosesNothing) {
  TempDir dir;
  auto store = OpenStore(dir);
  RunStore* raw = store.get();
  RunTracker t(std::move(store), NoWindows());
  ASSERT_TRUE(t.Start("before", "control", "", 0.5).ok());
  for (int i = 1; i <= 6; ++i) Feed(&t, At(i, 1000));
  RunReport before;
  ASSERT_TRUE(t.Stop("before", std::nullopt, 6.5, &before).ok());
  EXPECT_EQ(t.unsaved(), 0u);

  // The disk fills: no page can be added.
  ASSERT_TRUE(t.Start("during", "control", "", 6.6).ok());
  ASSERT_TRUE(raw->LimitPagesForTest(1).ok());
  for (int i = 7; i <= 400; ++i) Feed(&t, At(i, 2000));
  RunReport during;
  ASSERT_TRUE(t.Stop("during", std::nullopt, 400.5, &during).ok());
  EXPECT_EQ(t.unsaved(), 1u);  // kept in memory
  EXPECT_EQ(during.windows, 394u - 5u);

  // Space again: the next window stores it, whole.
  ASSERT_TRUE(raw->LimitPagesForTest(1 << 30).ok());
  Feed(&t, At(401, 0));
  EXPECT_EQ(t.unsaved(), 0u);
  std::unique_ptr<RunStore> ro;
  ASSERT_TRUE(RunStore::Open(dir.path() + "/runs.db", true, &ro).ok());
  std::vector<RunReport> runs;
  ASSERT_TRUE(ro->ListRuns(TopLevel(), &runs).ok());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "during");
  EXPECT_EQ(runs[0].state, "finished");
  EXPECT_NEAR(runs[0].offered_packets_per_second, 2000, 1e-6);
  std::vector<TimelinePoint> tl;
  ASSERT_TRUE(ro->Timeline(runs[0].id, &tl).ok());
  EXPECT_EQ(tl.size(), 394u);  // every window from 7 to 400
  EXPECT_EQ(runs[1].name, "before");
}

TEST(RunTracker, CloseMarksActiveRunsInterrupted) {
  TempDir dir;
  {
    RunTracker t(OpenStore(dir), NoWindows());
    ASSERT_TRUE(t.Start("cut short", "control", "", 0.5).ok());
    for (int i = 1; i <= 8; ++i) Feed(&t, At(i, 3000));
    t.Close(8.2);
    EXPECT_FALSE(t.active());
  }
  std::unique_ptr<RunStore> ro;
  ASSERT_TRUE(RunStore::Open(dir.path() + "/runs.db", true, &ro).ok());
  std::vector<RunReport> runs;
  ASSERT_TRUE(ro->ListRuns(TopLevel(), &runs).ok());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, "interrupted");
  EXPECT_DOUBLE_EQ(runs[0].end, 8.2);
  EXPECT_EQ(runs[0].windows, 8u - 4u);  // 8 windows, 4 settling (half)
}

TEST(RunTracker, ActiveListsRunsInProgress) {
  RunTracker t(nullptr, NoWindows());
  ASSERT_TRUE(t.Start("x", "control", "", 0.5).ok());
  Feed(&t, At(1, 10));
  Feed(&t, At(2, 10));
  std::vector<RunReport> a = t.Active();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].name, "x");
  EXPECT_DOUBLE_EQ(a[0].end, 2);
  EXPECT_EQ(a[0].windows, 1u);  // 2 windows, 1 settling
}

}  // namespace
}  // namespace bottleneckd
