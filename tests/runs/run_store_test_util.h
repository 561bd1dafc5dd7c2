// Helpers shared by the run store tests (run_store_test.cc,
// run_store_crash_test.cc): building runs and points, comparing runs field
// by field, listing, a child process that SIGKILLs itself with the store
// open, and a fixture with a fresh directory.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runs/run_store.h"
#include "tests/support/test_util.h"

namespace bottleneckd::run_store_test {

inline std::unique_ptr<RunStore> OpenOrDie(const std::string& path, bool read_only = false) {
  std::unique_ptr<RunStore> s;
  Status st = RunStore::Open(path, read_only, &s);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

// Runs `sql` on the database at `path`; the test fails on an error.
inline void ExecOrFail(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

// The first column of the first row of `sql` (a COUNT), read-only; -1 when
// the query fails.
inline int64_t CountRows(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

inline RunReport MakeRun(const std::string& name, double start, const std::string& source = "command") {
  RunReport r;
  r.name = name;
  r.source = source;
  r.start = start;
  r.end = start + 10;
  return r;
}

inline TimelinePoint Point(double t, double cpu_busy = 0.5) {
  TimelinePoint p;
  p.t = t;
  p.cpu_busy = cpu_busy;
  return p;
}

inline void ExpectSameRun(const RunReport& a, const RunReport& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.parent_id, b.parent_id);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.command, b.command);
  EXPECT_EQ(a.exit_code, b.exit_code);
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.offered_bits_per_second, b.offered_bits_per_second);
  EXPECT_EQ(a.offered_packets_per_second, b.offered_packets_per_second);
  EXPECT_EQ(a.received_packets_per_second, b.received_packets_per_second);
  EXPECT_EQ(a.received_bits_per_second, b.received_bits_per_second);
  EXPECT_EQ(a.application_packets_per_second, b.application_packets_per_second);
  EXPECT_EQ(a.cpu_busy, b.cpu_busy);
  EXPECT_EQ(a.accounting_busy, b.accounting_busy);
  EXPECT_EQ(a.cpu_seconds_per_second, b.cpu_seconds_per_second);
  EXPECT_EQ(a.soaker_idle, b.soaker_idle);
  EXPECT_EQ(a.interrupts_per_second, b.interrupts_per_second);
  EXPECT_EQ(a.bus_utilisation, b.bus_utilisation);
  EXPECT_EQ(a.drops_per_second, b.drops_per_second);
  EXPECT_EQ(a.first_losing_rung, b.first_losing_rung);
  EXPECT_EQ(a.windows, b.windows);
  EXPECT_EQ(a.verdict.label, b.verdict.label);
  EXPECT_EQ(a.verdict.resource, b.verdict.resource);
  EXPECT_EQ(a.verdict.confidence, b.verdict.confidence);
  EXPECT_EQ(a.verdict.evidence, b.verdict.evidence);
  EXPECT_EQ(a.verdict.reasons, b.verdict.reasons);
  EXPECT_EQ(a.verdict.scores, b.verdict.scores);
  EXPECT_EQ(a.verdict_windows, b.verdict_windows);
  EXPECT_EQ(a.limited_windows, b.limited_windows);
  EXPECT_EQ(a.light_windows, b.light_windows);
  EXPECT_EQ(a.light_label, b.light_label);
  EXPECT_EQ(a.profile_readings, b.profile_readings);
  EXPECT_EQ(a.expected_label, b.expected_label);
  EXPECT_EQ(a.expected_resource, b.expected_resource);
}

inline RunReport Fetch(RunStore* s, int64_t id) {
  RunQuery q;
  q.id = id;
  std::vector<RunReport> runs;
  Status st = s->ListRuns(q, &runs);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(runs.size(), 1u) << "run " << id;
  return runs.empty() ? RunReport() : runs[0];
}

inline std::vector<std::string> Names(RunStore* s, const RunQuery& q) {
  std::vector<RunReport> runs;
  Status st = s->ListRuns(q, &runs);
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::vector<std::string> names;
  for (const RunReport& r : runs) names.push_back(r.name);
  return names;
}

// Runs `body` in a child process that then SIGKILLs itself while the store
// `body` opened in *store is still open (no close, no checkpoint); the
// parent checks it died of SIGKILL (a failed step exits with its own code).
inline void InChildThenSigkill(const std::function<int(std::unique_ptr<RunStore>*)>& body) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::unique_ptr<RunStore> store;
    int code = body(&store);
    if (code != 0) _exit(code);
    raise(SIGKILL);
    _exit(99);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "child exited with " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

inline int UserVersion(const std::string& path) {
  sqlite3* db = nullptr;
  int v = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      v = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return v;
}

// A fresh directory per test; the store lives at DbPath().
class RunStoreTest : public ::testing::Test {
 protected:
  std::string DbPath() const { return dir_.path() + "/runs.db"; }
  testing::TempDir dir_;
};

}  // namespace bottleneckd::run_store_test
