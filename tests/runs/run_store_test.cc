// The SQLite run store: round trips of runs (optionals unset and set,
// evidence with odd characters) and timelines, ListRuns filters, migrations
// (an empty file, a failed step rolled back, a newer schema refused), the
// errors of a bad or missing file, read-only opens and pruning. Schema 2
// (capture figures, flows) and the migration of a version-1 file are in
// run_store_schema_test.cc; crashes and a full database in
// run_store_crash_test.cc.
#include "runs/run_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "runs/run_store_internal.h"
#include "tests/runs/run_store_test_util.h"
#include "tests/support/test_util.h"

namespace bottleneckd::run_store_test::run_store_test {
namespace {

TEST_F(RunStoreTest, RoundTripsARunWithOptionalsUnset) {
  auto s = OpenOrDie(DbPath());
  RunReport r = MakeRun("plain", 100);
  ASSERT_OK(s->BeginRun(&r));
  EXPECT_GT(r.id, 0);
  EXPECT_EQ(r.state, "active");
  r.end = 112.5;
  r.cpu_busy = 0.25;
  ASSERT_OK(s->FinishRun(&r, {}));
  EXPECT_EQ(r.state, "finished");  // an active run is finished by FinishRun

  RunReport got = Fetch(s.get(), r.id);
  ExpectSameRun(got, r);
  EXPECT_FALSE(got.offered_bits_per_second.has_value());
  EXPECT_FALSE(got.soaker_idle.has_value());
  EXPECT_FALSE(got.bus_utilisation.has_value());
  EXPECT_FALSE(got.exit_code.has_value());
  EXPECT_EQ(got.parent_id, 0);
  EXPECT_TRUE(got.verdict.evidence.empty());

  // Exit code 0 is a value, not "none".
  RunReport zero = MakeRun("exit zero", 200);
  zero.exit_code = 0;
  ASSERT_OK(s->FinishRun(&zero, {}));
  EXPECT_EQ(Fetch(s.get(), zero.id).exit_code, std::optional<int>(0));

  // A NaN figure (SQLite stores it as NULL) reads back as NaN.
  RunReport nan = MakeRun("nan", 300);
  nan.drops_per_second = std::numeric_limits<double>::quiet_NaN();
  ASSERT_OK(s->FinishRun(&nan, {}));
  EXPECT_TRUE(std::isnan(Fetch(s.get(), nan.id).drops_per_second));
}

TEST_F(RunStoreTest, RoundTripsARunWithEveryFieldSet) {
  auto s = OpenOrDie(DbPath());
  RunReport parent = MakeRun("sweep", 1700000000.0);
  ASSERT_OK(s->FinishRun(&parent, {}));

  RunReport r = MakeRun("echo 550M +32 copies \"quoted\" 'single'", 1700000000.25, "segment");
  r.parent_id = parent.id;
  r.command = "sh -c 'udpecho --copies 32\t| tee \"out\"'";
  r.exit_code = 3;
  r.end = 1700000030.75;
  r.offered_bits_per_second = 5.5e8;
  r.offered_packets_per_second = 67138.5;
  r.received_packets_per_second = 61000.25;
  r.received_bits_per_second = 4.99e8;
  r.application_packets_per_second = 60000.125;
  r.cpu_busy = 0.996;
  r.accounting_busy = 0.81;
  r.cpu_seconds_per_second = 1.2;
  r.soaker_idle = 0.003;
  r.interrupts_per_second = 8000;
  r.bus_utilisation = 0.14;
  r.drops_per_second = 31200;
  r.first_losing_rung = "socket";
  r.windows = 25;
  r.verdict.label = Bound::kCpu;
  r.verdict.resource = "thread udpecho";
  r.verdict.confidence = 0.93;
  r.verdict.evidence = {"udpecho thread at 99.6 % of cpu1; soaker idle on cpu1 0.3 %",
                        "quotes ' \" and a tab\there, backslash \\ and percent %s",
                        "unicode: 31.2 k/s — µs per packet ≥ 95 % 🚀", "", "x'); DROP TABLE runs; --"};
  r.verdict.reasons = {"reason one", "reason two"};
  r.verdict.scores = {0.9, 0.2, 0.1, 0.0, 0.05};
  r.verdict_windows = 21;
  r.limited_windows = 22;
  r.light_windows = 3;
  r.light_label = Bound::kUndetermined;
  r.profile_readings = 24;
  r.expected_label = "cpu";
  r.expected_resource = "cpu1";
  r.state = "finished";
  ASSERT_OK(s->BeginRun(&r));
  EXPECT_EQ(r.state, "active");
  r.state = "finished";
  ASSERT_OK(s->FinishRun(&r, {}));

  ExpectSameRun(Fetch(s.get(), r.id), r);
  // Also through a fresh read-only connection.
  s.reset();
  auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
  ExpectSameRun(Fetch(ro.get(), r.id), r);
}

TEST_F(RunStoreTest, TimelineIsOrderedByTAndKeepsEveryField) {
  auto s = OpenOrDie(DbPath());
  RunReport r = MakeRun("timeline", 0);
  ASSERT_OK(s->BeginRun(&r));
  TimelinePoint full = Point(2, 0.75);
  full.offered_packets_per_second = 1;
  full.received_packets_per_second = 2;
  full.received_bits_per_second = 3;
  full.application_packets_per_second = 4;
  full.accounting_busy = 0.5;
  full.cpu_seconds_per_second = 1.5;
  full.soaker_idle = 0.125;
  full.interrupts_per_second = 6;
  full.bus_utilisation = 0.7;
  full.drops_per_second = 7;
  full.first_losing_rung = "backlog";
  full.label = Bound::kInterrupt;
  full.resource = "cpu0";
  full.confidence = 0.66;
  for (double t : {3.0, 1.0}) ASSERT_OK(s->AppendPoint(r.id, Point(t)));
  ASSERT_OK(s->AppendPoint(r.id, full));
  ASSERT_OK(s->AppendPoint(r.id, Point(0.5)));

  std::vector<TimelinePoint> got;
  ASSERT_OK(s->Timeline(r.id, &got));
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].t, 0.5);
  EXPECT_EQ(got[1].t, 1.0);
  EXPECT_EQ(got[2].t, 2.0);
  EXPECT_EQ(got[3].t, 3.0);
  const TimelinePoint& p = got[2];
  EXPECT_EQ(p.offered_packets_per_second, 1);
  EXPECT_EQ(p.received_packets_per_second, 2);
  EXPECT_EQ(p.received_bits_per_second, 3);
  EXPECT_EQ(p.application_packets_per_second, 4);
  EXPECT_EQ(p.cpu_busy, 0.75);
  EXPECT_EQ(p.accounting_busy, 0.5);
  EXPECT_EQ(p.cpu_seconds_per_second, 1.5);
  EXPECT_EQ(p.soaker_idle, 0.125);
  EXPECT_EQ(p.interrupts_per_second, 6);
  EXPECT_EQ(p.bus_utilisation, 0.7);
  EXPECT_EQ(p.drops_per_second, 7);
  EXPECT_EQ(p.first_losing_rung, "backlog");
  EXPECT_EQ(p.label, Bound::kInterrupt);
  EXPECT_EQ(p.resource, "cpu0");
  EXPECT_EQ(p.confidence, 0.66);
  EXPECT_FALSE(got[0].soaker_idle.has_value());
  EXPECT_FALSE(got[0].bus_utilisation.has_value());

  // A point for a run that does not exist is refused (foreign key).
  EXPECT_FALSE(s->AppendPoint(r.id + 100, Point(1)).ok());
  // Finishing a run id the store does not hold is NotFound.
  RunReport ghost = MakeRun("ghost", 5);
  ghost.id = r.id + 100;
  EXPECT_TRUE(s->FinishRun(&ghost, {}).IsNotFound());
}

TEST_F(RunStoreTest, ListRunsHonoursTheQuery) {
  auto s = OpenOrDie(DbPath());
  RunReport a = MakeRun("sweep", 10), b = MakeRun("sweep", 30), c = MakeRun("other", 20, "control");
  for (RunReport* r : {&a, &b, &c}) ASSERT_OK(s->FinishRun(r, {}));
  RunReport seg1 = MakeRun("sweep/1", 31, "segment"), seg2 = MakeRun("sweep/2", 35, "segment");
  seg1.parent_id = seg2.parent_id = b.id;
  RunReport w1 = MakeRun("window", 40, "window"), w2 = MakeRun("window", 50, "window");
  for (RunReport* r : {&seg1, &seg2, &w1, &w2}) ASSERT_OK(s->FinishRun(r, {}));
  using V = std::vector<std::string>;

  RunQuery q;  // defaults: no windows, any parent, newest first
  EXPECT_EQ(Names(s.get(), q), (V{"sweep/2", "sweep/1", "sweep", "other", "sweep"}));
  q.include_windows = true;
  EXPECT_EQ(Names(s.get(), q), (V{"window", "window", "sweep/2", "sweep/1", "sweep", "other", "sweep"}));
  q.limit = 2;
  std::vector<RunReport> runs;
  ASSERT_OK(s->ListRuns(q, &runs));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, w2.id);
  EXPECT_EQ(runs[1].id, w1.id);

  RunQuery by_name;
  by_name.name = "sweep";
  ASSERT_OK(s->ListRuns(by_name, &runs));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, b.id);
  EXPECT_EQ(runs[1].id, a.id);
  by_name.name = "nobody";
  EXPECT_TRUE(Names(s.get(), by_name).empty());

  RunQuery top;
  top.parent_id = 0;
  EXPECT_EQ(Names(s.get(), top), (V{"sweep", "other", "sweep"}));
  RunQuery children;
  children.parent_id = b.id;
  EXPECT_EQ(Names(s.get(), children), (V{"sweep/2", "sweep/1"}));
  children.parent_id = a.id;
  EXPECT_TRUE(Names(s.get(), children).empty());

  // An id names one run, window or not.
  RunQuery one;
  one.id = w1.id;
  ASSERT_OK(s->ListRuns(one, &runs));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].start, 40);
  one.id = 9999;
  EXPECT_TRUE(Names(s.get(), one).empty());

  RunQuery all;
  all.include_windows = true;
  all.limit = 0;  // no limit
  for (int i = 0; i < 25; ++i) {
    RunReport w = MakeRun("w", 100 + i, "window");
    ASSERT_OK(s->FinishRun(&w, {}));
  }
  EXPECT_EQ(Names(s.get(), all).size(), 32u);
  all.limit = 20;
  EXPECT_EQ(Names(s.get(), all).size(), 20u);
}

TEST_F(RunStoreTest, MigratesAnEmptyFileToTheCurrentSchema) {
  dir_.Write("runs.db", "");
  auto s = OpenOrDie(DbPath());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->schema_version(), kRunStoreSchemaVersion);
  EXPECT_EQ(s->schema_version(), 11);
  RunReport r = MakeRun("after migration", 1);
  ASSERT_OK(s->FinishRun(&r, {Point(1), Point(2)}));
  s.reset();
  EXPECT_EQ(UserVersion(DbPath()), kRunStoreSchemaVersion);
  s = OpenOrDie(DbPath());  // a second open applies nothing
  EXPECT_EQ(s->schema_version(), kRunStoreSchemaVersion);
  EXPECT_EQ(Fetch(s.get(), r.id).name, "after migration");
}

TEST_F(RunStoreTest, AFailedMigrationStepIsRolledBackWhole) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(DbPath().c_str(), &db), SQLITE_OK);
  const run_store::Migration bad[] = {{"one", "CREATE TABLE a (x)"},
                                      {"two", "CREATE TABLE b (y); INSERT INTO missing VALUES (1)"}};
  int version = 0;
  Status st = run_store::ApplyMigrations(db, DbPath(), bad, &version);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("schema version 2 (two)"), std::string::npos) << st.message();
  EXPECT_EQ(version, 1);  // step one stays
  EXPECT_EQ(sqlite3_exec(db, "SELECT x FROM a", nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_NE(sqlite3_exec(db, "SELECT y FROM b", nullptr, nullptr, nullptr), SQLITE_OK);  // step two undone

  const run_store::Migration fixed[] = {bad[0], {"two", "CREATE TABLE b (y)"}};
  ASSERT_OK(run_store::ApplyMigrations(db, DbPath(), fixed, &version));
  EXPECT_EQ(version, 2);
  EXPECT_EQ(sqlite3_exec(db, "SELECT y FROM b", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(UserVersion(DbPath()), 2);
}

TEST_F(RunStoreTest, RefusesASchemaNewerThanThisBuild) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(DbPath().c_str(), &db), SQLITE_OK);
  const int newer = kRunStoreSchemaVersion + 1;
  const std::string pragma = "PRAGMA user_version = " + std::to_string(newer);
  ASSERT_EQ(sqlite3_exec(db, pragma.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  for (bool read_only : {false, true}) {
    std::unique_ptr<RunStore> s;
    Status st = RunStore::Open(DbPath(), read_only, &s);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << st.ToString();
    EXPECT_EQ(st.message(), DbPath() + " schema version " + std::to_string(newer) +
                                " is newer than this bottleneckd (" + std::to_string(kRunStoreSchemaVersion) + ")");
    EXPECT_FALSE(s);
  }
  EXPECT_EQ(UserVersion(DbPath()), newer);  // left as it was
}

TEST_F(RunStoreTest, AFileThatIsNotADatabaseIsCorruption) {
  std::string junk;
  for (int i = 0; i < 100; ++i) junk += "this is a text file, not a database\n";
  dir_.Write("runs.db", junk);
  for (bool read_only : {false, true}) {
    std::unique_ptr<RunStore> s;
    Status st = RunStore::Open(DbPath(), read_only, &s);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    EXPECT_NE(st.message().find(DbPath()), std::string::npos) << st.message();
  }
  EXPECT_EQ(testing::ReadFileOrDie(DbPath()), junk);  // not rewritten
}

TEST_F(RunStoreTest, ReadOnlyOpenOfAMissingFileIsNotFound) {
  std::unique_ptr<RunStore> s;
  Status st = RunStore::Open(DbPath(), /*read_only=*/true, &s);
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find(DbPath()), std::string::npos) << st.message();
  EXPECT_FALSE(std::filesystem::exists(DbPath()));  // not created
}

TEST_F(RunStoreTest, ReadOnlyOpenNeitherRecoversNorWrites) {
  auto w = OpenOrDie(DbPath());
  RunReport active = MakeRun("still running", 5);
  ASSERT_OK(w->BeginRun(&active));
  auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
  EXPECT_EQ(ro->recovered(), 0u);
  EXPECT_EQ(ro->schema_version(), kRunStoreSchemaVersion);
  EXPECT_EQ(Fetch(ro.get(), active.id).state, "active");
  RunReport r = MakeRun("refused", 6);
  EXPECT_FALSE(ro->BeginRun(&r).ok());
  EXPECT_EQ(r.id, 0);
}

TEST_F(RunStoreTest, PruneWindowsDeletesOnlyOldWindowRuns) {
  auto s = OpenOrDie(DbPath());
  RunReport old_w = MakeRun("w", 0, "window"), new_w = MakeRun("w", 100, "window");  // end 10 and 110
  RunReport old_cmd = MakeRun("cmd", 0), active_w = MakeRun("w", 1, "window");
  old_w.verdict.evidence = {"gone with its run"};
  for (RunReport* r : {&old_w, &new_w, &old_cmd}) {
    ASSERT_OK(s->FinishRun(r, {Point(r->start + 1), Point(r->start + 2)}));
  }
  ASSERT_OK(s->BeginRun(&active_w));
  size_t deleted = 99;
  ASSERT_OK(s->PruneWindows(50, &deleted));
  EXPECT_EQ(deleted, 1u);
  RunQuery all;
  all.include_windows = true;
  all.limit = 0;
  std::vector<RunReport> runs;
  ASSERT_OK(s->ListRuns(all, &runs));
  ASSERT_EQ(runs.size(), 3u);
  for (const RunReport& r : runs) EXPECT_NE(r.id, old_w.id);
  std::vector<TimelinePoint> tl;
  ASSERT_OK(s->Timeline(old_w.id, &tl));
  EXPECT_TRUE(tl.empty());
  ASSERT_OK(s->Timeline(old_cmd.id, &tl));
  EXPECT_EQ(tl.size(), 2u);
  ASSERT_OK(s->Timeline(new_w.id, &tl));
  EXPECT_EQ(tl.size(), 2u);
  // Its evidence went too.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(DbPath().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM run_evidence", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

}  // namespace
}  // namespace bottleneckd::run_store_test::run_store_test
