// The run store's schema as an ordered list of migrations (entry i upgrades
// PRAGMA user_version i to i + 1) and the loop that applies them. A step's
// SQL is frozen once released: a new schema is a new entry at the end, and
// kRunStoreSchemaVersion (run_store.h) moves with it. docs/run-store.md
// describes the tables.
#include <string>

#include "runs/run_store_internal.h"

namespace bottleneckd::run_store {
namespace {

// Version 1: runs with every RunReport figure, their evidence and reasons,
// and their per-window timeline. Figures a run may lack are NULL.
constexpr const char* kSchemaV1 = R"sql(
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

// Version 2: the live capture's figures (NULL without a trusted capture)
// on runs and timeline points, and each run's flows (docs/runs.md).
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE runs ADD COLUMN applied_per_second REAL;
ALTER TABLE runs ADD COLUMN echoed_per_second REAL;
ALTER TABLE runs ADD COLUMN echo_loss_ratio REAL;
ALTER TABLE runs ADD COLUMN turnaround_p50_seconds REAL;
ALTER TABLE runs ADD COLUMN turnaround_p99_seconds REAL;
ALTER TABLE runs ADD COLUMN capture_drops_per_second REAL;

ALTER TABLE timeline ADD COLUMN applied_per_second REAL;
ALTER TABLE timeline ADD COLUMN echoed_per_second REAL;
ALTER TABLE timeline ADD COLUMN echo_loss_ratio REAL;
ALTER TABLE timeline ADD COLUMN turnaround_p50_seconds REAL;
ALTER TABLE timeline ADD COLUMN turnaround_p99_seconds REAL;
ALTER TABLE timeline ADD COLUMN capture_drops_per_second REAL;

CREATE TABLE run_flows (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  flow TEXT NOT NULL,
  requests INTEGER NOT NULL DEFAULT 0,
  replies INTEGER NOT NULL DEFAULT 0,
  paired INTEGER NOT NULL DEFAULT 0,
  lost INTEGER NOT NULL DEFAULT 0,
  packets INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
)sql";

// Version 3: drops per second on each rung of the receive drop ladder, on
// runs and timeline points (NULL on rows written before it: unknown, not 0).
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE runs ADD COLUMN nic_drops_per_second REAL;
ALTER TABLE runs ADD COLUMN backlog_drops_per_second REAL;
ALTER TABLE runs ADD COLUMN socket_drops_per_second REAL;
ALTER TABLE runs ADD COLUMN application_drops_per_second REAL;

ALTER TABLE timeline ADD COLUMN nic_drops_per_second REAL;
ALTER TABLE timeline ADD COLUMN backlog_drops_per_second REAL;
ALTER TABLE timeline ADD COLUMN socket_drops_per_second REAL;
ALTER TABLE timeline ADD COLUMN application_drops_per_second REAL;
)sql";

// Version 4: the wait label's score (analysis/verdict.h Bound::kWait); NULL
// on rows written before it.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE runs ADD COLUMN score_wait REAL;
)sql";

// Version 5: each CPU's time budget (analysis/cpu_budget.h): per window of
// a run (the CPUs its point kept) and the run's mean per CPU. A part's
// column is named as BudgetParts names it. A run or point written before it
// has no rows here: its budget reads as unknown.
constexpr const char* kSchemaV5 = R"sql(
CREATE TABLE timeline_budget (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  t REAL NOT NULL,
  cpu INTEGER NOT NULL,
  steal REAL,
  hardirq REAL,
  softirq REAL,
  delivery REAL,
  threads REAL,
  tasks REAL,
  unexplained REAL,
  idle REAL,
  overlap REAL,
  idle_delivered INTEGER NOT NULL DEFAULT 0,
  interrupts_measured INTEGER NOT NULL DEFAULT 0,
  threads_measured INTEGER NOT NULL DEFAULT 0,
  delivery_learned INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, t, cpu)
) WITHOUT ROWID;

CREATE TABLE run_budget (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  cpu INTEGER NOT NULL,
  windows INTEGER NOT NULL DEFAULT 0,
  steal REAL,
  hardirq REAL,
  softirq REAL,
  delivery REAL,
  threads REAL,
  tasks REAL,
  unexplained REAL,
  idle REAL,
  overlap REAL,
  idle_delivered INTEGER NOT NULL DEFAULT 0,
  interrupts_measured INTEGER NOT NULL DEFAULT 0,
  threads_measured INTEGER NOT NULL DEFAULT 0,
  delivery_learned INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, cpu)
) WITHOUT ROWID;
)sql";

// Version 6: one meaning of "delivered" (docs/glossary.md): the NICs'
// received packets and bits, named delivered_* before, are received_*.
constexpr const char* kSchemaV6 = R"sql(
ALTER TABLE runs RENAME COLUMN delivered_packets_per_second TO received_packets_per_second;
ALTER TABLE runs RENAME COLUMN delivered_bits_per_second TO received_bits_per_second;
ALTER TABLE timeline RENAME COLUMN delivered_packets_per_second TO received_packets_per_second;
ALTER TABLE timeline RENAME COLUMN delivered_bits_per_second TO received_bits_per_second;
)sql";

// Version 7: each run's merged on-CPU profile, one row per folded stack
// (sources/profile_fold.h; docs/profile.md).
constexpr const char* kSchemaV7 = R"sql(
CREATE TABLE run_profile (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  stack TEXT NOT NULL,
  samples INTEGER NOT NULL,
  PRIMARY KEY (run_id, stack)
) WITHOUT ROWID;
)sql";

// Version 8: a run judged where it is limited (runs/run_summary.h
// LimitedPart): its limited and light windows and the light part's label,
// and how many profiler readings its profile merged. NULL on older rows:
// judged on every window, the readings unknown.
constexpr const char* kSchemaV8 = R"sql(
ALTER TABLE runs ADD COLUMN limited_windows INTEGER;
ALTER TABLE runs ADD COLUMN light_windows INTEGER;
ALTER TABLE runs ADD COLUMN light_label TEXT;
ALTER TABLE runs ADD COLUMN profile_readings INTEGER;
)sql";

// Version 9: a `wait` run's wait class (analysis/wait_class.h: what its
// thread waited on). NULL on older rows: not said.
constexpr const char* kSchemaV9 = R"sql(
ALTER TABLE runs ADD COLUMN wait_class TEXT;
)sql";

// Version 10: each run's merged off-CPU stacks, one row per folded stack,
// microseconds off the CPU (window/offcpu_stacks.h; docs/offcpu.md).
constexpr const char* kSchemaV10 = R"sql(
CREATE TABLE run_offcpu (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  stack TEXT NOT NULL,
  microseconds INTEGER NOT NULL,
  PRIMARY KEY (run_id, stack)
) WITHOUT ROWID;
)sql";

// Version 11: how many of offcpu's readings a run merged into its off-CPU
// stacks (as profile_readings for the profile): why empty stacks are empty.
// NULL on older rows: unknown.
constexpr const char* kSchemaV11 = R"sql(
ALTER TABLE runs ADD COLUMN offcpu_readings INTEGER;
)sql";

constexpr Migration kMigrations[] = {
    {"create runs, run_evidence and timeline", kSchemaV1},
    {"capture figures on runs and timeline, run_flows", kSchemaV2},
    {"drops per rung on runs and timeline", kSchemaV3},
    {"the wait label's score on runs", kSchemaV4},
    {"each CPU's budget per window and per run", kSchemaV5},
    {"delivered_* columns of NIC-received figures renamed received_*", kSchemaV6},
    {"run_profile: each run's merged on-CPU profile", kSchemaV7},
    {"a run's limited and light parts, its profiler readings", kSchemaV8},
    {"a wait run's wait class", kSchemaV9},
    {"run_offcpu: each run's merged off-CPU stacks", kSchemaV10},
    {"a run's offcpu readings", kSchemaV11},
};
static_assert(std::size(kMigrations) == kRunStoreSchemaVersion,
              "kRunStoreSchemaVersion must equal the number of migrations");

}  // namespace

std::span<const Migration> Migrations() { return kMigrations; }

Status ApplyMigrations(sqlite3* db, std::string_view path, std::span<const Migration> steps, int* version) {
  while (*version < static_cast<int>(steps.size())) {
    Transaction tx(db);
    if (tx.begin_rc() != SQLITE_OK) return SqliteError(db, tx.begin_rc(), path, "migrating");
    // Another process may have migrated between our read and our lock.
    BN_RETURN_IF_ERROR(ReadUserVersion(db, path, version));
    if (*version >= static_cast<int>(steps.size())) break;
    const Migration& m = steps[static_cast<size_t>(*version)];
    int next = *version + 1;
    std::string what = "migrating to schema version " + std::to_string(next) + " (" + m.what + ")";
    int rc = Exec(db, m.sql);
    if (rc != SQLITE_OK) return SqliteError(db, rc, path, what);
    // PRAGMA takes no bound parameters; `next` is our own integer.
    std::string set = "PRAGMA user_version = " + std::to_string(next);
    rc = Exec(db, set.c_str());
    if (rc == SQLITE_OK) rc = tx.Commit();
    if (rc != SQLITE_OK) return SqliteError(db, rc, path, what);
    *version = next;
  }
  return Status::OK();
}

}  // namespace bottleneckd::run_store
