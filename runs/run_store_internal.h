// Run store internals shared by run_store.cc, run_store_sqlite.cc (the thin
// sqlite3 wrappers), run_store_schema.cc (the migrations) and
// run_store_rows.cc (RunReport and TimelinePoint <-> rows). Not a public
// interface: only the run store and its tests include it.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "runs/run_store.h"
#include "runs/run_summary.h"

namespace bottleneckd::run_store {

// A Status for SQLite result `rc` on `db`: "<path>: <what>: <SQLite's
// message>". SQLITE_NOTADB and SQLITE_CORRUPT give Corruption,
// SQLITE_CONSTRAINT gives InvalidArgument, everything else IOError. An I/O
// error also names the system error when SQLite recorded one.
Status SqliteError(sqlite3* db, int rc, std::string_view path, std::string_view what);

// One prepared statement, finalized on destruction. Values are only ever
// bound (?NNN parameters, 1-based); a bind error is kept and returned by
// the next Step.
class Stmt {
 public:
  Stmt(sqlite3* db, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  int rc() const { return rc_; }  // SQLITE_OK once prepared without error
  void Bind(int i, double v);     // NaN is stored as NULL (SQLite's own rule)
  void Bind(int i, int64_t v);
  void Bind(int i, std::string_view v);
  void Bind(int i, std::optional<double> v);  // nullopt: NULL
  void Bind(int i, std::optional<int> v);
  void BindNull(int i);
  // SQLITE_ROW, SQLITE_DONE or an error code (also a pending bind error).
  int Step();
  void Reset();  // for binding and stepping again; bindings stay

  bool IsNull(int col) const;
  double Double(int col) const;  // NULL reads as NaN
  int64_t Int(int col) const;
  std::string Text(int col) const;
  std::optional<double> OptionalDouble(int col) const;
  std::optional<int> OptionalInt(int col) const;

 private:
  void Check(int rc);
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

// BEGIN IMMEDIATE on construction; rolls back on destruction unless
// Commit() succeeded. Rolling back is skipped when SQLite already ended the
// transaction (it may, on SQLITE_FULL or an I/O error).
class Transaction {
 public:
  explicit Transaction(sqlite3* db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  int begin_rc() const { return begin_rc_; }
  int Commit();

 private:
  sqlite3* db_;
  int begin_rc_;
  bool done_ = false;
};

// Runs constant SQL (one or more statements, no values); SQLite's code.
int Exec(sqlite3* db, const char* sql);

// n numbered parameters from `first`: "?first, ?(first + 1), ..., ?(first + n - 1)".
std::string SqlParams(size_t first, size_t n);

// Reads PRAGMA user_version.
Status ReadUserVersion(sqlite3* db, std::string_view path, int* version);

// --- Schema (run_store_schema.cc) ---

// One migration step: run in a transaction, it upgrades the schema from
// user_version i to i + 1 (i its index in the list).
struct Migration {
  const char* what;  // what it changes, for error messages
  const char* sql;   // constant DDL/DML, one or more statements
};

// The list: entry i upgrades version i to i + 1; its size is
// kRunStoreSchemaVersion.
std::span<const Migration> Migrations();

// Applies the steps of `steps` the database at `*version` lacks, each in its
// own transaction that also sets user_version, and updates *version after
// each. A step that fails is rolled back whole and its error returned; the
// steps before it stay applied. Re-reads user_version inside each
// transaction, so two processes migrating at once apply each step once.
Status ApplyMigrations(sqlite3* db, std::string_view path, std::span<const Migration> steps, int* version);

// --- Rows (run_store_rows.cc) ---

// Writes go to a database at kRunStoreSchemaVersion (a writable open
// migrates first). Reads take the file's `version`: columns added after it
// read as NULL (unset), before version 2 there are no flows and before
// version 5 no CPU budgets.

// Inserts r's row (a new id chosen by SQLite, whatever r->id holds), its
// evidence and its flows; sets r->id. Does not touch the timeline.
Status InsertRun(sqlite3* db, std::string_view path, RunReport* r);
// Rewrites the row r.id, its evidence and its flows. NotFound when there is
// no such run.
Status UpdateRun(sqlite3* db, std::string_view path, const RunReport& r);
// Inserts (or replaces, by t) timeline points of run `run_id`, with their
// CPU budgets (several statements: the caller's transaction makes them one).
Status WritePoints(sqlite3* db, std::string_view path, int64_t run_id, std::span<const TimelinePoint> points);
// Runs matching q, newest first, with their evidence, reasons and flows.
Status SelectRuns(sqlite3* db, std::string_view path, int version, const RunQuery& q, std::vector<RunReport>* out);
Status SelectTimeline(sqlite3* db, std::string_view path, int version, int64_t run_id, std::vector<TimelinePoint>* out);
// A run's profile rows (schema version 7 on).
Status ReadProfile(sqlite3* db, std::string_view path, int64_t run_id, FoldedProfile* out);
// A run's off-CPU stack rows (schema version 10 on).
Status ReadOffCpu(sqlite3* db, std::string_view path, int64_t run_id, FoldedProfile* out);

// --- CPU budgets (run_store_budget.cc), schema version 5 on ---

// Replaces the budget rows of run `run_id`'s point at p.t with p.cpu_budget.
Status WritePointBudget(sqlite3* db, std::string_view path, int64_t run_id, const TimelinePoint& p);
// Sets each point's cpu_budget from run `run_id`'s rows (points sorted by
// t; a point without rows keeps an empty budget).
Status ReadPointBudgets(sqlite3* db, std::string_view path, int64_t run_id, std::vector<TimelinePoint>* points);
// Replaces run r.id's budget rows with r.cpu_budget.
Status WriteRunBudget(sqlite3* db, std::string_view path, const RunReport& r);
Status ReadRunBudget(sqlite3* db, std::string_view path, RunReport* r);

}  // namespace bottleneckd::run_store
