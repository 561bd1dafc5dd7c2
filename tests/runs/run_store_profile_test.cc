// Run store schema version 7: a run's merged on-CPU profile (folded stacks,
// sources/profile_fold.h) round trips with its run, goes with it, is empty
// for a run nobody profiled, and a version-6 file (the step undone on a
// current one, as a version-6 bottleneckd left it) reads as unprofiled
// read-only and is migrated by a writable open.
#include <gtest/gtest.h>

#include <string>

#include "runs/run_store.h"
#include "tests/runs/run_store_test_util.h"
#include "tests/support/test_util.h"

namespace bottleneckd::run_store_test::run_store_profile_test {
namespace {

// The steps from version N on undone, as a version N-1 bottleneckd left the file.
constexpr const char* kUndoVersion11 = "ALTER TABLE runs DROP COLUMN offcpu_readings; ";
constexpr const char* kUndoVersion10 = "ALTER TABLE runs DROP COLUMN offcpu_readings; DROP TABLE run_offcpu; ";
constexpr const char* kUndoVersion9 =
    "ALTER TABLE runs DROP COLUMN offcpu_readings; DROP TABLE run_offcpu; ALTER TABLE runs DROP COLUMN wait_class; ";
constexpr const char* kUndoVersion8 =
    "ALTER TABLE runs DROP COLUMN offcpu_readings; "
    "DROP TABLE run_offcpu; ALTER TABLE runs DROP COLUMN wait_class; ALTER TABLE runs DROP COLUMN limited_windows; "
    "ALTER TABLE runs DROP COLUMN light_windows; "
    "ALTER TABLE runs DROP COLUMN light_label; ALTER TABLE runs DROP COLUMN profile_readings; ";

FoldedProfile TwoStacks() {
  FoldedProfile p;
  AddFolded("udpecho;main (udpecho);copy_loop (udpecho)", 71, &p);
  AddFolded("udpecho;main (udpecho);recvfrom (libc.so.6);__udp4_lib_rcv [kernel]", 9, &p);
  return p;
}

TEST_F(RunStoreTest, RoundTripsARunsProfile) {
  auto s = OpenOrDie(DbPath());
  RunReport r = MakeRun("profiled", 1700000000);
  ASSERT_OK(s->BeginRun(&r));
  r.profile = TwoStacks();
  ASSERT_OK(s->FinishRun(&r, {Point(1700000001)}));
  RunReport plain = MakeRun("not profiled", 1700000100);
  ASSERT_OK(s->BeginRun(&plain));
  ASSERT_OK(s->FinishRun(&plain, {}));

  auto ro = OpenOrDie(DbPath(), true);
  FoldedProfile got;
  ASSERT_OK(ro->Profile(r.id, &got));
  EXPECT_EQ(got, TwoStacks());
  EXPECT_EQ(got.samples, 80u);
  ASSERT_OK(ro->Profile(plain.id, &got));
  EXPECT_EQ(got, FoldedProfile());
}

TEST_F(RunStoreTest, AProfileGoesWithItsRun) {
  auto s = OpenOrDie(DbPath());
  RunReport r = MakeRun("window", 1700000000, "window");
  r.state = "finished";
  r.profile = TwoStacks();
  ASSERT_OK(s->FinishRun(&r, {Point(1700000001)}));
  EXPECT_EQ(CountRows(DbPath(), "SELECT COUNT(*) FROM run_profile"), 2);
  size_t deleted = 0;
  ASSERT_OK(s->PruneWindows(1800000000, &deleted));
  EXPECT_EQ(deleted, 1u);
  EXPECT_EQ(CountRows(DbPath(), "SELECT COUNT(*) FROM run_profile"), 0);
}

TEST_F(RunStoreTest, AVersionSixStoreReadsAsUnprofiledAndMigrates) {
  int64_t id = 0;
  {
    auto s = OpenOrDie(DbPath());
    RunReport r = MakeRun("old", 1700000000);
    ASSERT_OK(s->BeginRun(&r));
    ASSERT_OK(s->FinishRun(&r, {}));
    id = r.id;
  }
  ExecOrFail(DbPath(), (std::string(kUndoVersion8) + "DROP TABLE run_profile; PRAGMA user_version = 6;").c_str());
  {
    auto ro = OpenOrDie(DbPath(), true);
    ASSERT_NE(ro, nullptr);
    EXPECT_EQ(ro->schema_version(), 6);
    FoldedProfile got = TwoStacks();
    ASSERT_OK(ro->Profile(id, &got));
    EXPECT_EQ(got, FoldedProfile());
  }
  auto rw = OpenOrDie(DbPath());
  EXPECT_EQ(rw->schema_version(), kRunStoreSchemaVersion);
  FoldedProfile got;
  ASSERT_OK(rw->Profile(id, &got));
  EXPECT_EQ(got.samples, 0u);
}

// Version 8: the profiler's readings a run merged, and its limited and light
// parts. A version-7 row reads them as unknown (readings) and as a run
// judged whole (no limited part), read-only and after the migration.
TEST_F(RunStoreTest, AVersionSevenRunReadsItsReadingsAsUnknownAndMigrates) {
  int64_t id = 0, counted = 0;
  {
    auto s = OpenOrDie(DbPath());
    RunReport r = MakeRun("old", 1700000000);
    ASSERT_OK(s->BeginRun(&r));
    ASSERT_OK(s->FinishRun(&r, {}));
    id = r.id;
  }
  ExecOrFail(DbPath(), (std::string(kUndoVersion8) + "PRAGMA user_version = 7;").c_str());
  auto check_old = [&](RunStore* s) {
    RunReport got = Fetch(s, id);
    EXPECT_FALSE(got.profile_readings.has_value());
    EXPECT_EQ(got.limited_windows, 0u);
    EXPECT_EQ(got.light_windows, 0u);
    EXPECT_EQ(got.light_label, Bound::kNone);
  };
  {
    auto ro = OpenOrDie(DbPath(), true);
    EXPECT_EQ(ro->schema_version(), 7);
    check_old(ro.get());
  }
  auto rw = OpenOrDie(DbPath());
  EXPECT_EQ(rw->schema_version(), kRunStoreSchemaVersion);
  check_old(rw.get());
  // A run written now keeps them.
  RunReport r = MakeRun("new", 1700000100);
  ASSERT_OK(rw->BeginRun(&r));
  r.profile_readings = 0;
  r.limited_windows = 12;
  r.light_windows = 9;
  r.light_label = Bound::kNone;
  ASSERT_OK(rw->FinishRun(&r, {}));
  counted = r.id;
  RunReport got = Fetch(rw.get(), counted);
  EXPECT_EQ(got.profile_readings, std::optional<int>(0));
  EXPECT_EQ(got.limited_windows, 12u);
  EXPECT_EQ(got.light_windows, 9u);
}

// Version 9: a wait run's wait class. A version-8 row reads it as "" (not
// said), read-only and after the migration; a run written now keeps it.
TEST_F(RunStoreTest, AVersionEightRunHasNoWaitClassAndMigrates) {
  int64_t id = 0;
  {
    auto s = OpenOrDie(DbPath());
    RunReport r = MakeRun("old", 1700000000);
    ASSERT_OK(s->BeginRun(&r));
    r.verdict.label = Bound::kWait;
    r.verdict.resource = "thread udpecho";
    r.verdict.wait_class = "peer";
    ASSERT_OK(s->FinishRun(&r, {}));
    id = r.id;
    EXPECT_EQ(Fetch(s.get(), id).verdict.wait_class, "peer");
  }
  ExecOrFail(DbPath(), (std::string(kUndoVersion9) + "PRAGMA user_version = 8;").c_str());
  {
    auto ro = OpenOrDie(DbPath(), true);
    EXPECT_EQ(ro->schema_version(), 8);
    EXPECT_EQ(Fetch(ro.get(), id).verdict.wait_class, "");
  }
  auto rw = OpenOrDie(DbPath());
  EXPECT_EQ(rw->schema_version(), kRunStoreSchemaVersion);
  RunReport old = Fetch(rw.get(), id);
  EXPECT_EQ(old.verdict.label, Bound::kWait);
  EXPECT_EQ(old.verdict.wait_class, "");
  RunReport r = MakeRun("new", 1700000100);
  ASSERT_OK(rw->BeginRun(&r));
  r.verdict.label = Bound::kWait;
  r.verdict.wait_class = "lock";
  ASSERT_OK(rw->FinishRun(&r, {}));
  EXPECT_EQ(Fetch(rw.get(), r.id).verdict.wait_class, "lock");
}

// Version 10: a run's off-CPU stacks (microseconds, window/offcpu_stacks.h)
// round trip beside its on-CPU profile and go with it; a version-9 file
// reads as having none, read-only, and a writable open adds the table.
FoldedProfile TwoWaits() {
  FoldedProfile p;
  AddFolded("udpecho;main (udpecho);recv (libc.so.6);schedule [kernel];[udp 10.0.0.2:7 -> 10.0.0.9:9]", 800000, &p);
  AddFolded("udpecho;main (udpecho);clock_nanosleep (libc.so.6);schedule [kernel]", 150000, &p);
  return p;
}

TEST_F(RunStoreTest, RoundTripsARunsOffCpuStacks) {
  auto s = OpenOrDie(DbPath());
  RunReport r = MakeRun("waiting", 1700000000);
  ASSERT_OK(s->BeginRun(&r));
  r.profile = TwoStacks();
  r.offcpu = TwoWaits();
  ASSERT_OK(s->FinishRun(&r, {Point(1700000001)}));
  auto ro = OpenOrDie(DbPath(), true);
  FoldedProfile got;
  ASSERT_OK(ro->OffCpu(r.id, &got));
  EXPECT_EQ(got, TwoWaits());
  EXPECT_EQ(got.samples, 950000u);
  ASSERT_OK(ro->Profile(r.id, &got));
  EXPECT_EQ(got, TwoStacks());  // the two kept apart
  ro.reset();
  ASSERT_OK(s->DeleteRun(r.id));
  EXPECT_EQ(CountRows(DbPath(), "SELECT COUNT(*) FROM run_offcpu"), 0);
}

TEST_F(RunStoreTest, AVersionNineStoreHasNoOffCpuStacksAndMigrates) {
  int64_t id = 0;
  {
    auto s = OpenOrDie(DbPath());
    RunReport r = MakeRun("old", 1700000000);
    ASSERT_OK(s->BeginRun(&r));
    ASSERT_OK(s->FinishRun(&r, {}));
    id = r.id;
  }
  ExecOrFail(DbPath(), (std::string(kUndoVersion10) + "PRAGMA user_version = 9;").c_str());
  {
    auto ro = OpenOrDie(DbPath(), true);
    EXPECT_EQ(ro->schema_version(), 9);
    FoldedProfile got = TwoWaits();
    ASSERT_OK(ro->OffCpu(id, &got));
    EXPECT_EQ(got, FoldedProfile());
  }
  auto rw = OpenOrDie(DbPath());
  EXPECT_EQ(rw->schema_version(), kRunStoreSchemaVersion);
  RunReport r = MakeRun("new", 1700000100);
  ASSERT_OK(rw->BeginRun(&r));
  r.offcpu = TwoWaits();
  ASSERT_OK(rw->FinishRun(&r, {}));
  FoldedProfile got;
  ASSERT_OK(rw->OffCpu(r.id, &got));
  EXPECT_EQ(got, TwoWaits());
}

// Version 11: how many of offcpu's readings a run merged round trips (0:
// offcpu was not loaded); a version-10 file reads it as unknown, read-only,
// and a writable open adds the column.
TEST_F(RunStoreTest, ARunsOffCpuReadingsRoundTripAndAreUnknownBeforeVersionEleven) {
  int64_t id = 0;
  {
    auto s = OpenOrDie(DbPath());
    RunReport r = MakeRun("followed", 1700000000);
    ASSERT_OK(s->BeginRun(&r));
    r.offcpu_readings = 12;
    ASSERT_OK(s->FinishRun(&r, {}));
    id = r.id;
    EXPECT_EQ(Fetch(s.get(), id).offcpu_readings, std::optional<int>(12));
    RunReport unloaded = MakeRun("not loaded", 1700000050);
    ASSERT_OK(s->BeginRun(&unloaded));
    unloaded.offcpu_readings = 0;
    ASSERT_OK(s->FinishRun(&unloaded, {}));
    EXPECT_EQ(Fetch(s.get(), unloaded.id).offcpu_readings, std::optional<int>(0));
  }
  ExecOrFail(DbPath(), (std::string(kUndoVersion11) + "PRAGMA user_version = 10;").c_str());
  {
    auto ro = OpenOrDie(DbPath(), true);
    EXPECT_EQ(ro->schema_version(), 10);
    EXPECT_FALSE(Fetch(ro.get(), id).offcpu_readings.has_value());
  }
  auto rw = OpenOrDie(DbPath());
  EXPECT_EQ(rw->schema_version(), kRunStoreSchemaVersion);
  EXPECT_FALSE(Fetch(rw.get(), id).offcpu_readings.has_value());
  RunReport r = MakeRun("new", 1700000100);
  ASSERT_OK(rw->BeginRun(&r));
  r.offcpu_readings = 3;
  ASSERT_OK(rw->FinishRun(&r, {}));
  EXPECT_EQ(Fetch(rw.get(), r.id).offcpu_readings, std::optional<int>(3));
}

}  // namespace
}  // namespace bottleneckd::run_store_test::run_store_profile_test
