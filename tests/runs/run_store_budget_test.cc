// Run store schema version 5: each CPU's time budget. A run's points keep
// their CPUs' budgets and the run its mean per CPU, both round trip (also
// read-only and through the RunTracker), a point rewritten replaces its
// budget, recovery takes the mean from the stored points, pruning a run
// drops its budgets, and a version-4
// file reads with no budget (unknown, not 0) and migrates keeping its runs.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <string>
#include <vector>

#include "runs/run_store.h"
#include "runs/run_store_internal.h"
#include "runs/run_tracker.h"
#include "tests/runs/run_store_test_util.h"
#include "tests/support/test_util.h"

namespace bottleneckd::run_store_test::run_store_budget_test {
namespace {

// A budget whose parts are `scale` times 0.01, 0.02, ... 0.07 with idle the
// rest (distinct values, so a part read into another's place shows).
CpuBudget Budget(int cpu, double scale, bool flags) {
  CpuBudget b;
  b.cpu = cpu;
  double busy = 0;
  for (size_t i = 0; i + 1 < kBudgetPartMembers.size(); ++i) {
    b.*kBudgetPartMembers[i] = scale * 0.01 * static_cast<double>(i + 1);
    busy += b.*kBudgetPartMembers[i];
  }
  b.idle = 1 - busy;
  b.overlap = scale * 0.005;
  b.idle_delivered = b.threads_measured = flags;
  b.interrupts_measured = b.delivery_learned = !flags;
  return b;
}

void ExpectSameBudget(const CpuBudget& a, const CpuBudget& b) {
  EXPECT_EQ(a.cpu, b.cpu);
  for (double CpuBudget::*part : kBudgetPartMembers) EXPECT_EQ(a.*part, b.*part) << "cpu" << a.cpu;
  EXPECT_EQ(a.overlap, b.overlap);
  EXPECT_EQ(a.idle_delivered, b.idle_delivered);
  EXPECT_EQ(a.interrupts_measured, b.interrupts_measured);
  EXPECT_EQ(a.threads_measured, b.threads_measured);
  EXPECT_EQ(a.delivery_learned, b.delivery_learned);
}

TEST_F(RunStoreTest, RoundTripsEachPointsAndTheRunsCpuBudget) {
  auto s = OpenOrDie(DbPath());
  RunReport r = MakeRun("budget", 1700000000);
  ASSERT_OK(s->BeginRun(&r));
  TimelinePoint p1 = Point(1700000001), p2 = Point(1700000002), bare = Point(1700000003);
  p1.cpu_budget = {Budget(0, 1, true), Budget(3, 2, false)};
  p2.cpu_budget = {Budget(3, 3, true)};
  ASSERT_OK(s->AppendPoint(r.id, p1));
  ASSERT_OK(s->AppendPoint(r.id, p2));
  ASSERT_OK(s->AppendPoint(r.id, bare));
  r.cpu_budget = {RunCpuBudget{Budget(0, 1, true), 1}, RunCpuBudget{Budget(3, 2.5, false), 2}};
  ASSERT_OK(s->FinishRun(&r, {}));
  EXPECT_EQ(CountRows(DbPath(), "SELECT count(*) FROM timeline_budget"), 3);
  EXPECT_EQ(CountRows(DbPath(), "SELECT count(*) FROM run_budget"), 2);

  auto check = [&](RunStore* store) {
    std::vector<TimelinePoint> tl;
    ASSERT_OK(store->Timeline(r.id, &tl));
    ASSERT_EQ(tl.size(), 3u);
    ASSERT_EQ(tl[0].cpu_budget.size(), 2u);
    ExpectSameBudget(tl[0].cpu_budget[0], p1.cpu_budget[0]);
    ExpectSameBudget(tl[0].cpu_budget[1], p1.cpu_budget[1]);
    ASSERT_EQ(tl[1].cpu_budget.size(), 1u);
    ExpectSameBudget(tl[1].cpu_budget[0], p2.cpu_budget[0]);
    EXPECT_TRUE(tl[2].cpu_budget.empty());
    RunReport got = Fetch(store, r.id);
    ASSERT_EQ(got.cpu_budget.size(), 2u);
    ExpectSameBudget(got.cpu_budget[0].budget, r.cpu_budget[0].budget);
    EXPECT_EQ(got.cpu_budget[0].windows, 1u);
    ExpectSameBudget(got.cpu_budget[1].budget, r.cpu_budget[1].budget);
    EXPECT_EQ(got.cpu_budget[1].windows, 2u);
  };
  check(s.get());

  // Rewriting the run and its points replaces their budgets, never adds.
  p1.cpu_budget = {Budget(1, 4, true)};
  r.cpu_budget.resize(1);
  ASSERT_OK(s->FinishRun(&r, {p1}));
  EXPECT_EQ(CountRows(DbPath(), "SELECT count(*) FROM timeline_budget"), 2);  // p1's one, p2's one
  EXPECT_EQ(CountRows(DbPath(), "SELECT count(*) FROM run_budget"), 1);
  std::vector<TimelinePoint> tl;
  ASSERT_OK(s->Timeline(r.id, &tl));
  ASSERT_EQ(tl[0].cpu_budget.size(), 1u);
  ExpectSameBudget(tl[0].cpu_budget[0], Budget(1, 4, true));
  p1.cpu_budget = {Budget(0, 1, true), Budget(3, 2, false)};
  r.cpu_budget = {RunCpuBudget{Budget(0, 1, true), 1}, RunCpuBudget{Budget(3, 2.5, false), 2}};
  ASSERT_OK(s->FinishRun(&r, {p1}));

  s.reset();
  auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
  check(ro.get());
}

TEST_F(RunStoreTest, RecoveryTakesTheRunsBudgetFromItsPoints) {
  int64_t id = 0;
  {
    auto s = OpenOrDie(DbPath());
    RunReport r = MakeRun("died", 100);
    ASSERT_OK(s->BeginRun(&r));
    id = r.id;
    for (int i = 1; i <= 3; ++i) {
      TimelinePoint p = Point(100 + i);
      p.cpu_budget = {Budget(2, i, /*flags=*/i != 3)};
      ASSERT_OK(s->AppendPoint(r.id, p));
    }
  }  // closed without finishing: its writer died
  auto s = OpenOrDie(DbPath());
  EXPECT_EQ(s->recovered(), 1u);
  RunReport got = Fetch(s.get(), id);
  EXPECT_EQ(got.windows, 2u);  // 3 points, 1 settling: the means of points 2 and 3
  ASSERT_EQ(got.cpu_budget.size(), 1u);
  const RunCpuBudget& b = got.cpu_budget[0];
  EXPECT_EQ(b.budget.cpu, 2);
  EXPECT_EQ(b.windows, 2u);
  EXPECT_NEAR(b.budget.steal, (0.02 + 0.03) / 2, 1e-12);
  EXPECT_NEAR(b.budget.unexplained, (0.14 + 0.21) / 2, 1e-12);
  EXPECT_NEAR(b.budget.idle, (1 - 2 * 0.28 + 1 - 3 * 0.28) / 2, 1e-12);  // 0.01 + ... + 0.07 = 0.28
  EXPECT_NEAR(b.budget.overlap, (0.010 + 0.015) / 2, 1e-12);
  EXPECT_FALSE(b.budget.idle_delivered);   // point 3 had it from the accounting
  EXPECT_TRUE(b.budget.delivery_learned);  // point 3 applied a learned cost
}

TEST_F(RunStoreTest, PruningAWindowRunDropsItsBudget) {
  auto s = OpenOrDie(DbPath());
  RunReport w = MakeRun("w", 0, "window");  // ends at 10
  w.cpu_budget = {RunCpuBudget{Budget(0, 1, true), 60}};
  ASSERT_OK(s->FinishRun(&w, {}));
  EXPECT_EQ(CountRows(DbPath(), "SELECT count(*) FROM run_budget"), 1);
  size_t deleted = 0;
  ASSERT_OK(s->PruneWindows(50, &deleted));
  EXPECT_EQ(deleted, 1u);
  EXPECT_EQ(CountRows(DbPath(), "SELECT count(*) FROM run_budget"), 0);
}

TEST_F(RunStoreTest, ATrackedRunStoresItsWindowsBudgetsAndItsMean) {
  RunTrackerOptions o;
  o.window_seconds = 0;  // no window runs
  o.segments = false;
  RunTracker tracker(OpenOrDie(DbPath()), o);
  ASSERT_OK(tracker.Start("tracked", "control", "", 1000));
  // 8 windows: the first SettleWindows(8) = 4 settle; cpu1's threads 0.1 * i.
  for (int i = 1; i <= 8; ++i) {
    TimelinePoint p = Point(1000 + i);
    CpuBudget b;
    b.cpu = 1;
    b.threads = 0.1 * i;
    b.idle = 1 - b.threads;
    p.cpu_budget = {b};
    tracker.OnWindow(p, Verdict());
  }
  RunReport out;
  ASSERT_OK(tracker.Stop("tracked", std::nullopt, 1009, &out));
  ASSERT_EQ(out.cpu_budget.size(), 1u);
  EXPECT_NEAR(out.cpu_budget[0].budget.threads, (0.5 + 0.6 + 0.7 + 0.8) / 4, 1e-12);
  auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
  RunReport got = Fetch(ro.get(), out.id);
  ASSERT_EQ(got.cpu_budget.size(), 1u);
  EXPECT_EQ(got.cpu_budget[0].windows, 4u);
  EXPECT_NEAR(got.cpu_budget[0].budget.threads, 0.65, 1e-12);
  EXPECT_NEAR(got.cpu_budget[0].budget.idle, 0.35, 1e-12);
  std::vector<TimelinePoint> tl;
  ASSERT_OK(ro->Timeline(out.id, &tl));
  ASSERT_EQ(tl.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(tl[static_cast<size_t>(i)].cpu_budget.size(), 1u) << i;
    EXPECT_EQ(tl[static_cast<size_t>(i)].cpu_budget[0].threads, 0.1 * (i + 1)) << i;
  }
}

// A version-4 file (the released steps 1 to 4): one finished run with two
// points, written before budgets were kept.
void WriteVersionFourStore(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  int version = 0;
  ASSERT_OK(run_store::ApplyMigrations(db, path, run_store::Migrations().first(4), &version));
  ASSERT_EQ(version, 4);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db,
                         "INSERT INTO runs (id, name, source, state, start, end, windows, label, resource)"
                         " VALUES (4, 'v4 run', 'command', 'finished', 100, 130, 25, 'cpu', 'cpu1');"
                         "INSERT INTO timeline (run_id, t, cpu_busy) VALUES (4, 101, 0.9), (4, 102, 0.95);",
                         nullptr, nullptr, &err),
            SQLITE_OK)
      << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

void ExpectTheVersionFourRunWithoutBudget(RunStore* s) {
  RunReport r = Fetch(s, 4);
  EXPECT_EQ(r.name, "v4 run");
  EXPECT_EQ(r.verdict.resource, "cpu1");
  EXPECT_TRUE(r.cpu_budget.empty());
  std::vector<TimelinePoint> tl;
  ASSERT_OK(s->Timeline(4, &tl));
  ASSERT_EQ(tl.size(), 2u);
  EXPECT_EQ(tl[1].cpu_busy, 0.95);
  EXPECT_TRUE(tl[0].cpu_budget.empty());
  EXPECT_TRUE(tl[1].cpu_budget.empty());
}

TEST_F(RunStoreTest, AVersionFourFileReadsWithoutBudgetAndMigrates) {
  WriteVersionFourStore(DbPath());
  {
    auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
    EXPECT_EQ(ro->schema_version(), 4);
    ExpectTheVersionFourRunWithoutBudget(ro.get());
  }
  EXPECT_EQ(UserVersion(DbPath()), 4);  // a reader does not migrate
  auto s = OpenOrDie(DbPath());
  EXPECT_EQ(s->schema_version(), kRunStoreSchemaVersion);
  ExpectTheVersionFourRunWithoutBudget(s.get());
  // The new tables take a run's budget next to the old run.
  RunReport r = MakeRun("v5 run", 200);
  TimelinePoint p = Point(201);
  p.cpu_budget = {Budget(1, 1, true)};
  r.cpu_budget = {RunCpuBudget{Budget(1, 1, true), 1}};
  ASSERT_OK(s->FinishRun(&r, {p}));
  ASSERT_EQ(Fetch(s.get(), r.id).cpu_budget.size(), 1u);
  ExpectSameBudget(Fetch(s.get(), r.id).cpu_budget[0].budget, Budget(1, 1, true));
  std::vector<TimelinePoint> tl;
  ASSERT_OK(s->Timeline(r.id, &tl));
  ASSERT_EQ(tl.size(), 1u);
  ASSERT_EQ(tl[0].cpu_budget.size(), 1u);
  ExpectSameBudget(tl[0].cpu_budget[0], Budget(1, 1, true));
}

}  // namespace
}  // namespace bottleneckd::run_store_test::run_store_budget_test
