// Run store schema version 4: the wait label's score. A wait run round trips
// with its label and every score in its Bound's column; a version-3 file
// (the released steps 1 to 3) keeps its rows when migrated, each old score
// still read as its label's (none's was the fourth Bound before wait), and
// its rows' wait score reads 0: the label did not exist when they were judged.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "runs/run_store.h"
#include "runs/run_store_internal.h"
#include "tests/runs/run_store_test_util.h"
#include "tests/support/test_util.h"

namespace bottleneckd::run_store_test::run_store_wait_test {
namespace {

double Score(const RunReport& r, Bound b) { return r.verdict.scores[static_cast<size_t>(b)]; }

TEST_F(RunStoreTest, RoundTripsAWaitRunAndEveryScore) {
  auto s = OpenOrDie(DbPath());
  RunReport r = MakeRun("waiting echo", 1700000000);
  ASSERT_OK(s->BeginRun(&r));
  r.verdict.label = Bound::kWait;
  r.verdict.resource = "thread udpecho";
  const double scores[kBoundCount] = {0.1, 0.2, 0.3, 0.9, 0.05, 0};
  for (int i = 0; i < kBoundCount; ++i) r.verdict.scores[static_cast<size_t>(i)] = scores[i];
  ASSERT_OK(s->FinishRun(&r, {}));
  s.reset();
  auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
  RunReport got = Fetch(ro.get(), r.id);
  EXPECT_EQ(got.verdict.label, Bound::kWait);
  EXPECT_EQ(got.verdict.resource, "thread udpecho");
  for (int i = 0; i < kBoundCount; ++i)
    EXPECT_EQ(got.verdict.scores[static_cast<size_t>(i)], scores[i]) << BoundName(static_cast<Bound>(i));
}

// A version-3 file: one finished run with its scores as that version wrote
// them (score_none, score_undetermined).
void WriteVersionThreeStore(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  int version = 0;
  ASSERT_OK(run_store::ApplyMigrations(db, path, run_store::Migrations().first(3), &version));
  ASSERT_EQ(version, 3);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db,
                         "INSERT INTO runs (id, name, source, state, start, end, windows, label, resource,"
                         " score_cpu, score_interrupt, score_bus, score_none, score_undetermined)"
                         " VALUES (4, 'v3 light', 'command', 'finished', 100, 130, 25, 'none', '',"
                         " 0.1, 0.2, 0.3, 0.8, 0);",
                         nullptr, nullptr, &err),
            SQLITE_OK)
      << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

TEST_F(RunStoreTest, AVersionThreeFileMigratesWithItsScoresInPlace) {
  WriteVersionThreeStore(DbPath());
  {
    auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
    EXPECT_EQ(ro->schema_version(), 3);
    EXPECT_EQ(Score(Fetch(ro.get(), 4), Bound::kNone), 0.8);  // read as it is, no score_wait column
  }
  auto s = OpenOrDie(DbPath());
  EXPECT_EQ(s->schema_version(), kRunStoreSchemaVersion);
  RunReport r = Fetch(s.get(), 4);
  EXPECT_EQ(r.verdict.label, Bound::kNone);
  EXPECT_EQ(Score(r, Bound::kCpu), 0.1);
  EXPECT_EQ(Score(r, Bound::kInterrupt), 0.2);
  EXPECT_EQ(Score(r, Bound::kBus), 0.3);
  EXPECT_EQ(Score(r, Bound::kNone), 0.8);
  EXPECT_EQ(Score(r, Bound::kWait), 0);
  s.reset();
  EXPECT_EQ(UserVersion(DbPath()), kRunStoreSchemaVersion);
}

}  // namespace
}  // namespace bottleneckd::run_store_test::run_store_wait_test
