// Run store schema version 3: drops per second on each rung of the drop
// ladder, on runs and timeline points, round trip (unknown stays unknown,
// 0 stays 0; recovery recomputing them is in run_store_schema_test), and a
// version-2 file (built with the released steps 1 and 2) keeps its rows:
// read read-only as it is, migrated by a writable open with its old rows'
// rungs unknown, never 0.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <optional>
#include <string>
#include <vector>

#include "runs/run_store.h"
#include "runs/run_store_internal.h"
#include "tests/runs/run_store_test_util.h"
#include "tests/support/test_util.h"

namespace bottleneckd::run_store_test::run_store_rungs_test {
namespace {

void ExpectRungs(const RungDrops& got, std::optional<double> nic, std::optional<double> backlog,
                 std::optional<double> socket, std::optional<double> application) {
  EXPECT_EQ(got.nic, nic);
  EXPECT_EQ(got.backlog, backlog);
  EXPECT_EQ(got.socket, socket);
  EXPECT_EQ(got.application, application);
}

TEST_F(RunStoreTest, RoundTripsDropsPerRung) {
  auto s = OpenOrDie(DbPath());
  RunReport r = MakeRun("losing", 1700000000);
  ASSERT_OK(s->BeginRun(&r));
  r.rungs = {0.0, 12.5, 31200.25, std::nullopt};  // no capture: the application rung is unknown
  ASSERT_OK(s->FinishRun(&r, {}));
  ExpectRungs(Fetch(s.get(), r.id).rungs, 0.0, 12.5, 31200.25, std::nullopt);

  TimelinePoint p = Point(1700000001);
  p.rungs = {1.0, 2.0, 3.0, 4.0};
  ASSERT_OK(s->AppendPoint(r.id, p));
  ASSERT_OK(s->AppendPoint(r.id, Point(1700000002)));
  std::vector<TimelinePoint> tl;
  ASSERT_OK(s->Timeline(r.id, &tl));
  ASSERT_EQ(tl.size(), 2u);
  ExpectRungs(tl[0].rungs, 1.0, 2.0, 3.0, 4.0);
  ExpectRungs(tl[1].rungs, std::nullopt, std::nullopt, std::nullopt, std::nullopt);

  s.reset();
  auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
  ExpectRungs(Fetch(ro.get(), r.id).rungs, 0.0, 12.5, 31200.25, std::nullopt);
}

// A version-2 file as bottleneckd left it before drops per rung were kept:
// the released steps 1 and 2, one finished run with capture figures and two
// points.
void WriteVersionTwoStore(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  int version = 0;
  ASSERT_OK(run_store::ApplyMigrations(db, path, run_store::Migrations().first(2), &version));
  ASSERT_EQ(version, 2);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db,
                         "INSERT INTO runs (id, name, source, state, start, end, offered_packets_per_second,"
                         " drops_per_second, first_losing_rung, windows, label, resource, applied_per_second)"
                         " VALUES (3, 'v2 sweep', 'command', 'finished', 100, 130, 40000, 1200, 'socket', 25,"
                         " 'cpu', 'cpu1', 39000);"
                         "INSERT INTO timeline (run_id, t, offered_packets_per_second, drops_per_second,"
                         " first_losing_rung, echoed_per_second)"
                         " VALUES (3, 101, 40000, 1200, 'socket', 38000), (3, 102, 40100, 0, 'none', NULL);",
                         nullptr, nullptr, &err),
            SQLITE_OK)
      << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

void ExpectTheVersionTwoRun(RunStore* s) {
  RunReport r = Fetch(s, 3);
  EXPECT_EQ(r.name, "v2 sweep");
  EXPECT_EQ(r.offered_packets_per_second, 40000);
  EXPECT_EQ(r.drops_per_second, 1200);
  EXPECT_EQ(r.first_losing_rung, "socket");
  EXPECT_EQ(r.windows, 25u);
  EXPECT_EQ(r.applied_per_second, std::optional<double>(39000));
  ExpectRungs(r.rungs, std::nullopt, std::nullopt, std::nullopt, std::nullopt);  // unknown, not 0
  std::vector<TimelinePoint> tl;
  ASSERT_OK(s->Timeline(3, &tl));
  ASSERT_EQ(tl.size(), 2u);
  EXPECT_EQ(tl[0].drops_per_second, 1200);
  EXPECT_EQ(tl[0].first_losing_rung, "socket");
  EXPECT_EQ(tl[0].echoed_per_second, std::optional<double>(38000));
  EXPECT_EQ(tl[1].offered_packets_per_second, 40100);
  for (const TimelinePoint& p : tl) ExpectRungs(p.rungs, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
}

TEST_F(RunStoreTest, AVersionTwoFileIsReadReadOnlyAsItIs) {
  WriteVersionTwoStore(DbPath());
  auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
  ASSERT_TRUE(ro);
  EXPECT_EQ(ro->schema_version(), 2);
  ExpectTheVersionTwoRun(ro.get());
  ro.reset();
  EXPECT_EQ(UserVersion(DbPath()), 2);  // a reader does not migrate
}

TEST_F(RunStoreTest, AVersionTwoFileMigratesKeepingItsRows) {
  WriteVersionTwoStore(DbPath());
  auto s = OpenOrDie(DbPath());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->schema_version(), kRunStoreSchemaVersion);
  EXPECT_EQ(s->recovered(), 0u);
  ExpectTheVersionTwoRun(s.get());
  // The new columns take writes next to the old rows.
  RunReport r = MakeRun("new", 200);
  r.rungs = {5.0, 0.0, 0.0, std::nullopt};
  TimelinePoint p = Point(201);
  p.rungs = {5.0, 0.0, 0.0, 1.0};
  ASSERT_OK(s->FinishRun(&r, {p}));
  ExpectRungs(Fetch(s.get(), r.id).rungs, 5.0, 0.0, 0.0, std::nullopt);
  s.reset();
  EXPECT_EQ(UserVersion(DbPath()), kRunStoreSchemaVersion);
  auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
  ExpectTheVersionTwoRun(ro.get());
  std::vector<TimelinePoint> tl;
  ASSERT_OK(ro->Timeline(r.id, &tl));
  ASSERT_EQ(tl.size(), 1u);
  ExpectRungs(tl[0].rungs, 5.0, 0.0, 0.0, 1.0);
}

}  // namespace
}  // namespace bottleneckd::run_store_test::run_store_rungs_test
