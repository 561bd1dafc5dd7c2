// Run store schema version 2: the live capture's figures on runs and
// points and each run's flows round trip (with the limits of SQLite's
// signed integers), flows go with their run, and a version-1 file built
// with the released version-1 SQL keeps its runs: read read-only as it is,
// and migrated (and recovered) by a writable open.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runs/run_store.h"
#include "runs/run_store_internal.h"
#include "tests/runs/run_store_test_util.h"
#include "tests/support/test_util.h"

namespace bottleneckd::run_store_test::run_store_schema_test {
namespace {

// Schema version 1 exactly as released (commit e629d3a), to build a
// version-1 file the way an older bottleneckd left it.
constexpr const char* kReleasedV1 = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  parent_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  state TEXT NOT NULL,
  command TEXT NOT NULL DEFAULT '',
  exit_code INTEGER,
  start REAL NOT NULL,
  end REAL NOT NULL,
  offered_bits_per_second REAL,
  offered_packets_per_second REAL,
  delivered_packets_per_second REAL,
  delivered_bits_per_second REAL,
  application_packets_per_second REAL,
  cpu_busy REAL,
  accounting_busy REAL,
  cpu_seconds_per_second REAL,
  soaker_idle REAL,
  interrupts_per_second REAL,
  bus_utilisation REAL,
  drops_per_second REAL,
  first_losing_rung TEXT NOT NULL DEFAULT 'none',
  windows INTEGER NOT NULL DEFAULT 0,
  label TEXT NOT NULL DEFAULT 'undetermined',
  resource TEXT NOT NULL DEFAULT '',
  confidence REAL,
  score_cpu REAL,
  score_interrupt REAL,
  score_bus REAL,
  score_none REAL,
  score_undetermined REAL,
  verdict_windows INTEGER NOT NULL DEFAULT 0,
  expected_label TEXT NOT NULL DEFAULT '',
  expected_resource TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_by_start ON runs(start);
CREATE INDEX runs_by_name ON runs(name, start);
CREATE INDEX runs_by_parent ON runs(parent_id);

CREATE TABLE run_evidence (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('evidence', 'reason')),
  seq INTEGER NOT NULL,
  text TEXT NOT NULL,
  PRIMARY KEY (run_id, kind, seq)
) WITHOUT ROWID;

CREATE TABLE timeline (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  t REAL NOT NULL,
  offered_packets_per_second REAL,
  delivered_packets_per_second REAL,
  delivered_bits_per_second REAL,
  application_packets_per_second REAL,
  cpu_busy REAL,
  accounting_busy REAL,
  cpu_seconds_per_second REAL,
  soaker_idle REAL,
  interrupts_per_second REAL,
  bus_utilisation REAL,
  drops_per_second REAL,
  first_losing_rung TEXT NOT NULL DEFAULT 'none',
  label TEXT NOT NULL DEFAULT 'undetermined',
  resource TEXT NOT NULL DEFAULT '',
  confidence REAL,
  PRIMARY KEY (run_id, t)
) WITHOUT ROWID;
)sql";

void ExpectSameFlows(const std::vector<RunFlow>& a, const std::vector<RunFlow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].flow, b[i].flow) << i;
    EXPECT_EQ(a[i].requests, b[i].requests) << i;
    EXPECT_EQ(a[i].replies, b[i].replies) << i;
    EXPECT_EQ(a[i].paired, b[i].paired) << i;
    EXPECT_EQ(a[i].lost, b[i].lost) << i;
    EXPECT_EQ(a[i].packets, b[i].packets) << i;
    EXPECT_EQ(a[i].bytes, b[i].bytes) << i;
  }
}

void ExpectNoCaptureFigures(const RunReport& r) {
  EXPECT_FALSE(r.applied_per_second);
  EXPECT_FALSE(r.echoed_per_second);
  EXPECT_FALSE(r.echo_loss_ratio);
  EXPECT_FALSE(r.turnaround_p50_seconds);
  EXPECT_FALSE(r.turnaround_p99_seconds);
  EXPECT_FALSE(r.capture_drops_per_second);
  EXPECT_TRUE(r.flows.empty());
}

TEST_F(RunStoreTest, TheReleasedVersionOneStepIsUnchanged) {
  // A released step's SQL never changes (docs/run-store.md, Migrations).
  ASSERT_GE(run_store::Migrations().size(), 2u);
  EXPECT_STREQ(run_store::Migrations()[0].sql, kReleasedV1);
}

TEST_F(RunStoreTest, RoundTripsCaptureFiguresAndFlows) {
  auto s = OpenOrDie(DbPath());
  RunReport r = MakeRun("echo with capture", 1700000000);
  ASSERT_OK(s->BeginRun(&r));
  r.applied_per_second = 61035.5;
  r.echoed_per_second = 59000.25;
  r.echo_loss_ratio = 0.0333;
  r.turnaround_p50_seconds = 0.000125;
  r.turnaround_p99_seconds = 0.0041;
  r.capture_drops_per_second = 0;  // a value, not "none"
  r.flows = {RunFlow{"eth0 udp 10.0.0.1:40000 > 10.0.0.2:7", 610355, 590002, 590000, 20353, 1200357, 1229165568},
             RunFlow{"eth0 udp [2001:db8::1]:40000 > [2001:db8::2]:7 'quoted' \"x\"", 1, 0, 0, 1, 1, 1066},
             RunFlow{"eth1 icmp 10.0.0.3 > 10.0.0.9", 0, 0, 0, 0, uint64_t{1} << 40, (uint64_t{1} << 40) * 64}};
  ASSERT_OK(s->FinishRun(&r, {}));
  RunReport got = Fetch(s.get(), r.id);
  ExpectSameRun(got, r);
  EXPECT_EQ(got.applied_per_second, std::optional<double>(61035.5));
  EXPECT_EQ(got.echoed_per_second, std::optional<double>(59000.25));
  EXPECT_EQ(got.echo_loss_ratio, std::optional<double>(0.0333));
  EXPECT_EQ(got.turnaround_p50_seconds, std::optional<double>(0.000125));
  EXPECT_EQ(got.turnaround_p99_seconds, std::optional<double>(0.0041));
  EXPECT_EQ(got.capture_drops_per_second, std::optional<double>(0));
  ExpectSameFlows(got.flows, r.flows);

  // Rewriting the run replaces its flows (fewer now), not adds to them.
  r.flows.resize(1);
  r.flows[0].packets = 5;
  r.capture_drops_per_second.reset();
  ASSERT_OK(s->FinishRun(&r, {}));
  got = Fetch(s.get(), r.id);
  ExpectSameFlows(got.flows, r.flows);
  EXPECT_FALSE(got.capture_drops_per_second);
  EXPECT_EQ(CountRows(DbPath(), "SELECT count(*) FROM run_flows"), 1);

  // A count beyond SQLite's signed 64 bits is stored as its largest value.
  RunReport big = MakeRun("big", 5);
  big.flows = {RunFlow{"eth0 udp 10.0.0.1:1 > 10.0.0.2:7", 0, 0, 0, 0, UINT64_MAX, 0}};
  ASSERT_OK(s->FinishRun(&big, {}));
  EXPECT_EQ(Fetch(s.get(), big.id).flows.at(0).packets, uint64_t{INT64_MAX});

  // Points carry the figures too; a point without capture reads them unset.
  TimelinePoint p = Point(1700000001);
  p.applied_per_second = 1000;
  p.echoed_per_second = 990;
  p.echo_loss_ratio = 0.01;
  p.turnaround_p50_seconds = 0.0002;
  p.turnaround_p99_seconds = 0.0009;
  p.capture_drops_per_second = 20;
  ASSERT_OK(s->AppendPoint(r.id, p));
  ASSERT_OK(s->AppendPoint(r.id, Point(1700000002)));
  std::vector<TimelinePoint> tl;
  ASSERT_OK(s->Timeline(r.id, &tl));
  ASSERT_EQ(tl.size(), 2u);
  EXPECT_EQ(tl[0].applied_per_second, std::optional<double>(1000));
  EXPECT_EQ(tl[0].echoed_per_second, std::optional<double>(990));
  EXPECT_EQ(tl[0].echo_loss_ratio, std::optional<double>(0.01));
  EXPECT_EQ(tl[0].turnaround_p50_seconds, std::optional<double>(0.0002));
  EXPECT_EQ(tl[0].turnaround_p99_seconds, std::optional<double>(0.0009));
  EXPECT_EQ(tl[0].capture_drops_per_second, std::optional<double>(20));
  EXPECT_FALSE(tl[1].applied_per_second);
  EXPECT_FALSE(tl[1].capture_drops_per_second);

  // Through a read-only connection as well.
  s.reset();
  auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
  got = Fetch(ro.get(), r.id);
  EXPECT_EQ(got.applied_per_second, std::optional<double>(61035.5));
  ExpectSameFlows(got.flows, r.flows);
}

TEST_F(RunStoreTest, RecoveryRecomputesCaptureFiguresAndDropsPerRungFromTheTimeline) {
  int64_t id = 0;
  {
    auto s = OpenOrDie(DbPath());
    RunReport r = MakeRun("died", 100);
    ASSERT_OK(s->BeginRun(&r));
    id = r.id;
    for (int i = 1; i <= 3; ++i) {
      TimelinePoint p = Point(100 + i);
      p.applied_per_second = 100.0 * i;  // 100, 200, 300
      p.rungs.nic = 0;
      p.rungs.socket = 10.0 * i;  // 10, 20, 30 (schema version 3)
      if (i == 3) p.turnaround_p99_seconds = 0.004, p.rungs.application = 7;
      ASSERT_OK(s->AppendPoint(r.id, p));
    }
  }  // closed without finishing: its writer died
  auto s = OpenOrDie(DbPath());
  EXPECT_EQ(s->recovered(), 1u);
  RunReport got = Fetch(s.get(), id);
  EXPECT_EQ(got.state, "interrupted");
  EXPECT_EQ(got.windows, 2u);                                           // 3 points, 1 settling
  EXPECT_EQ(got.applied_per_second, std::optional<double>(250));        // (200 + 300) / 2
  EXPECT_EQ(got.turnaround_p99_seconds, std::optional<double>(0.004));  // the one window that had it
  EXPECT_FALSE(got.echoed_per_second);
  EXPECT_EQ(got.rungs.nic, std::optional<double>(0));
  EXPECT_FALSE(got.rungs.backlog);  // no window had it
  EXPECT_EQ(got.rungs.socket, std::optional<double>(25));
  EXPECT_EQ(got.rungs.application, std::optional<double>(7));
  EXPECT_TRUE(got.flows.empty());  // flows are not in the timeline
}

TEST_F(RunStoreTest, DeletingARunDeletesItsFlows) {
  auto s = OpenOrDie(DbPath());
  RunReport w = MakeRun("w", 0, "window");  // ends at 10
  w.flows = {RunFlow{"eth0 udp 10.0.0.1:1 > 10.0.0.2:7", 1, 1, 1, 0, 2, 200}};
  ASSERT_OK(s->FinishRun(&w, {}));
  EXPECT_EQ(CountRows(DbPath(), "SELECT count(*) FROM run_flows"), 1);
  size_t deleted = 0;
  ASSERT_OK(s->PruneWindows(50, &deleted));
  EXPECT_EQ(deleted, 1u);
  EXPECT_EQ(CountRows(DbPath(), "SELECT count(*) FROM run_flows"), 0);
}

// A version-1 file as an older bottleneckd left it: one finished run with
// evidence and two points.
void WriteVersionOneStore(const std::string& path) {
  ExecOrFail(path, kReleasedV1);
  ExecOrFail(path,
             "INSERT INTO runs (id, name, source, state, command, exit_code, start, end, offered_packets_per_second,"
             " delivered_packets_per_second, cpu_busy, accounting_busy, soaker_idle, first_losing_rung, windows,"
             " label, resource, confidence, verdict_windows)"
             " VALUES (7, 'old sweep', 'command', 'finished', 'udpecho', 0, 100, 130, 40000, 39000, 0.99, 0.81,"
             " 0.01, 'socket', 25, 'cpu', 'cpu1', 0.9, 20);"
             "INSERT INTO run_evidence (run_id, kind, seq, text) VALUES (7, 'evidence', 0, 'cpu1 at 99 %');"
             "INSERT INTO timeline (run_id, t, offered_packets_per_second, delivered_packets_per_second,"
             " delivered_bits_per_second, cpu_busy, label, resource)"
             " VALUES (7, 101, 40000, 39900, 3.2e8, 0.99, 'cpu', 'cpu1'),"
             " (7, 102, 40100, 39800, 3.1e8, 0.98, 'cpu', 'cpu1');"
             "PRAGMA user_version = 1;");
}

void ExpectTheOldRun(RunStore* s) {
  RunReport r = Fetch(s, 7);
  EXPECT_EQ(r.name, "old sweep");
  EXPECT_EQ(r.state, "finished");
  EXPECT_EQ(r.command, "udpecho");
  EXPECT_EQ(r.exit_code, std::optional<int>(0));
  EXPECT_EQ(r.start, 100);
  EXPECT_EQ(r.end, 130);
  EXPECT_EQ(r.offered_packets_per_second, 40000);
  EXPECT_EQ(r.received_packets_per_second, 39000);
  EXPECT_EQ(r.accounting_busy, 0.81);
  EXPECT_EQ(r.soaker_idle, std::optional<double>(0.01));
  EXPECT_EQ(r.first_losing_rung, "socket");
  EXPECT_EQ(r.windows, 25u);
  EXPECT_EQ(r.verdict.label, Bound::kCpu);
  EXPECT_EQ(r.verdict.resource, "cpu1");
  EXPECT_EQ(r.verdict.evidence, std::vector<std::string>{"cpu1 at 99 %"});
  ExpectNoCaptureFigures(r);
  std::vector<TimelinePoint> tl;
  ASSERT_OK(s->Timeline(7, &tl));
  ASSERT_EQ(tl.size(), 2u);
  EXPECT_EQ(tl[0].t, 101);
  EXPECT_EQ(tl[1].offered_packets_per_second, 40100);
  // Stored as delivered_* before schema 6: the same figures, read as received_*.
  EXPECT_EQ(tl[0].received_packets_per_second, 39900);
  EXPECT_EQ(tl[1].received_bits_per_second, 3.1e8);
  EXPECT_EQ(tl[1].cpu_busy, 0.98);
  EXPECT_FALSE(tl[0].applied_per_second);
  EXPECT_FALSE(tl[1].turnaround_p99_seconds);
  EXPECT_FALSE(tl[1].capture_drops_per_second);
}

TEST_F(RunStoreTest, AVersionOneFileIsReadReadOnlyAsItIs) {
  WriteVersionOneStore(DbPath());
  auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
  ASSERT_TRUE(ro);
  EXPECT_EQ(ro->schema_version(), 1);
  ExpectTheOldRun(ro.get());
  std::vector<RunReport> runs;
  ASSERT_OK(ro->ListRuns(RunQuery(), &runs));
  EXPECT_EQ(runs.size(), 1u);
  ro.reset();
  EXPECT_EQ(UserVersion(DbPath()), 1);  // a reader does not migrate
  EXPECT_EQ(CountRows(DbPath(), "SELECT count(*) FROM sqlite_master WHERE name = 'run_flows'"), 0);
}

TEST_F(RunStoreTest, AVersionOneFileMigratesKeepingItsRuns) {
  WriteVersionOneStore(DbPath());
  auto s = OpenOrDie(DbPath());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->schema_version(), kRunStoreSchemaVersion);
  EXPECT_EQ(s->recovered(), 0u);  // a finished run is left as it was
  ExpectTheOldRun(s.get());
  // The new columns and table take writes next to the old run.
  RunReport r = MakeRun("new", 200);
  r.applied_per_second = 5;
  r.flows = {RunFlow{"eth0 udp 10.0.0.1:1 > 10.0.0.2:7", 5, 5, 5, 0, 10, 1000}};
  ASSERT_OK(s->FinishRun(&r, {}));
  RunReport got = Fetch(s.get(), r.id);
  EXPECT_EQ(got.applied_per_second, std::optional<double>(5));
  ExpectSameFlows(got.flows, r.flows);
  s.reset();
  EXPECT_EQ(UserVersion(DbPath()), kRunStoreSchemaVersion);
  auto ro = OpenOrDie(DbPath(), /*read_only=*/true);
  ExpectTheOldRun(ro.get());
}

TEST_F(RunStoreTest, AnActiveRunOfAVersionOneFileIsRecoveredAfterMigration) {
  WriteVersionOneStore(DbPath());
  ExecOrFail(DbPath(),
             "INSERT INTO runs (id, name, source, state, start, end) VALUES (8, 'died', 'control', 'active', 200, 200);"
             "INSERT INTO timeline (run_id, t, offered_packets_per_second, cpu_busy) VALUES (8, 201, 100, 0.5),"
             " (8, 202, 300, 0.7);");
  auto s = OpenOrDie(DbPath());
  EXPECT_EQ(s->recovered(), 1u);
  RunReport r = Fetch(s.get(), 8);
  EXPECT_EQ(r.state, "interrupted");
  EXPECT_EQ(r.end, 202);
  EXPECT_EQ(r.windows, 1u);  // 2 points, 1 settling
  EXPECT_EQ(r.offered_packets_per_second, 300);
  ExpectNoCaptureFigures(r);
}

TEST_F(RunStoreTest, AnEmptyFileOpenedReadOnlyMustBeMigratedFirst) {
  dir_.Write("runs.db", "");
  std::unique_ptr<RunStore> s;
  Status st = RunStore::Open(DbPath(), /*read_only=*/true, &s);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("schema version 0"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("open it for writing once"), std::string::npos) << st.message();
  EXPECT_FALSE(s);
  EXPECT_EQ(testing::ReadFileOrDie(DbPath()), "");  // untouched
}

}  // namespace
}  // namespace bottleneckd::run_store_test::run_store_schema_test
