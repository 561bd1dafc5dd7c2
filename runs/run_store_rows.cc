// RunReport and TimelinePoint to and from rows of the run store. Each table
// is a list of (column, bind, read, since) rows, so a figure is named once
// and the INSERT, UPDATE and SELECT statements are built from the same list
// (a SELECT on an older file reads NULL for columns newer than it); values
// are always bound, never formatted into the SQL. A run's evidence and flows
// and CPU budgets are rows of their own tables, written with the run (the
// budgets in run_store_budget.cc).
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "base/number_text.h"
#include "runs/run_store_internal.h"

namespace bottleneckd::run_store {
namespace {

// Field <-> column conversions, chosen by the field's type.
void Put(Stmt& s, int i, double v) { s.Bind(i, v); }
void Put(Stmt& s, int i, std::optional<double> v) { s.Bind(i, v); }
void Put(Stmt& s, int i, std::optional<int> v) { s.Bind(i, v); }
void Put(Stmt& s, int i, size_t v) { s.Bind(i, static_cast<int64_t>(v)); }
void Put(Stmt& s, int i, const std::string& v) { s.Bind(i, std::string_view(v)); }
void Put(Stmt& s, int i, Bound b) { s.Bind(i, std::string_view(BoundName(b))); }
void Get(const Stmt& s, int i, double* v) { *v = s.Double(i); }
void Get(const Stmt& s, int i, std::optional<double>* v) { *v = s.OptionalDouble(i); }
void Get(const Stmt& s, int i, std::optional<int>* v) { *v = s.OptionalInt(i); }
void Get(const Stmt& s, int i, size_t* v) { *v = static_cast<size_t>(s.Int(i)); }
void Get(const Stmt& s, int i, std::string* v) { *v = s.Text(i); }
void Get(const Stmt& s, int i, Bound* b) {
  // A label this build does not know reads as undetermined.
  if (!ParseBound(s.Text(i), b)) *b = Bound::kUndetermined;
}

template <typename Row>
struct Column {
  const char* name;
  void (*put)(Stmt&, int, const Row&);
  void (*get)(const Stmt&, int, Row*);
  int since = 1;  // the schema version that added the column
  // A renamed column: its name in files older than schema `renamed_in`.
  const char* before = nullptr;
  int renamed_in = 0;
};

#define BN_COLUMN_SINCE(Row, col, member, version)                           \
  Column<Row> {                                                              \
    col, [](Stmt& s, int i, const Row& r) { Put(s, i, r.member); },          \
        [](const Stmt& s, int i, Row* r) { Get(s, i, &r->member); }, version \
  }
#define BN_COLUMN(Row, col, member) BN_COLUMN_SINCE(Row, col, member, 1)
// A column of schema 1 that schema `version` renamed from `old`.
#define BN_COLUMN_RENAMED(Row, member, old, version)                                                           \
  Column<Row> {                                                                                                \
#member, [](Stmt & s, int i,                                                                               \
                const Row& r) { Put(s, i, r.member); }, [](const Stmt& s, int i,                               \
                                                           Row* r) { Get(s, i, &r->member); }, 1, old, version \
  }
constexpr size_t BoundIndex(Bound b) { return static_cast<size_t>(b); }
#define BN_RUN(member) BN_COLUMN(RunReport, #member, member)
#define BN_POINT(member) BN_COLUMN(TimelinePoint, #member, member)
// Columns of schema version 2: the live capture's figures.
#define BN_RUN_V2(member) BN_COLUMN_SINCE(RunReport, #member, member, 2)
#define BN_POINT_V2(member) BN_COLUMN_SINCE(TimelinePoint, #member, member, 2)
// Columns of schema version 3: drops per rung ("nic_drops_per_second" is rungs.nic).
#define BN_RUNGS_V3(Row)                                                  \
  BN_COLUMN_SINCE(Row, "nic_drops_per_second", rungs.nic, 3),             \
      BN_COLUMN_SINCE(Row, "backlog_drops_per_second", rungs.backlog, 3), \
      BN_COLUMN_SINCE(Row, "socket_drops_per_second", rungs.socket, 3),   \
      BN_COLUMN_SINCE(Row, "application_drops_per_second", rungs.application, 3)

const Column<RunReport> kRunColumns[] = {
    {"parent_id",
     [](Stmt& s, int i, const RunReport& r) {
       if (r.parent_id == 0) {
         s.BindNull(i);
       } else {
         s.Bind(i, r.parent_id);
       }
     },
     [](const Stmt& s, int i, RunReport* r) { r->parent_id = s.IsNull(i) ? 0 : s.Int(i); }},
    BN_RUN(name),
    BN_RUN(source),
    BN_RUN(state),
    BN_RUN(command),
    BN_RUN(exit_code),
    BN_RUN(start),
    BN_RUN(end),
    BN_RUN(offered_bits_per_second),
    BN_RUN(offered_packets_per_second),
    // "delivered" before schema 6, where the word meant two things (docs/glossary.md).
    BN_COLUMN_RENAMED(RunReport, received_packets_per_second, "delivered_packets_per_second", 6),
    BN_COLUMN_RENAMED(RunReport, received_bits_per_second, "delivered_bits_per_second", 6),
    BN_RUN(application_packets_per_second),
    BN_RUN(cpu_busy),
    BN_RUN(accounting_busy),
    BN_RUN(cpu_seconds_per_second),
    BN_RUN(soaker_idle),
    BN_RUN(interrupts_per_second),
    BN_RUN(bus_utilisation),
    BN_RUN(drops_per_second),
    BN_RUN(first_losing_rung),
    BN_RUN(windows),
    BN_COLUMN(RunReport, "label", verdict.label),
    BN_COLUMN(RunReport, "resource", verdict.resource),
    BN_COLUMN(RunReport, "confidence", verdict.confidence),
    BN_COLUMN(RunReport, "score_cpu", verdict.scores[BoundIndex(Bound::kCpu)]),
    BN_COLUMN(RunReport, "score_interrupt", verdict.scores[BoundIndex(Bound::kInterrupt)]),
    BN_COLUMN(RunReport, "score_bus", verdict.scores[BoundIndex(Bound::kBus)]),
    BN_COLUMN(RunReport, "score_none", verdict.scores[BoundIndex(Bound::kNone)]),
    BN_COLUMN(RunReport, "score_undetermined", verdict.scores[BoundIndex(Bound::kUndetermined)]),
    BN_RUN(verdict_windows),
    BN_RUN(expected_label),
    BN_RUN(expected_resource),
    BN_RUN_V2(applied_per_second),
    BN_RUN_V2(echoed_per_second),
    BN_RUN_V2(echo_loss_ratio),
    BN_RUN_V2(turnaround_p50_seconds),
    BN_RUN_V2(turnaround_p99_seconds),
    BN_RUN_V2(capture_drops_per_second),
    BN_RUNGS_V3(RunReport),
    // NULL in rows judged before the label existed: a score of 0, not unknown.
    {"score_wait", [](Stmt& s, int i, const RunReport& r) { Put(s, i, r.verdict.scores[BoundIndex(Bound::kWait)]); },
     [](const Stmt& s, int i, RunReport* r) {
       r->verdict.scores[BoundIndex(Bound::kWait)] = s.IsNull(i) ? 0.0 : s.Double(i);
     },
     4},
    BN_COLUMN_SINCE(RunReport, "limited_windows", limited_windows, 8),
    BN_COLUMN_SINCE(RunReport, "light_windows", light_windows, 8),
    // NULL on older rows, and a label this build does not know: none.
    {"light_label", [](Stmt& s, int i, const RunReport& r) { Put(s, i, r.light_label); },
     [](const Stmt& s, int i, RunReport* r) {
       if (s.IsNull(i) || !ParseBound(s.Text(i), &r->light_label)) r->light_label = Bound::kNone;
     },
     8},
    BN_COLUMN_SINCE(RunReport, "profile_readings", profile_readings, 8),
    BN_COLUMN_SINCE(RunReport, "offcpu_readings", offcpu_readings, 11),
    BN_COLUMN_SINCE(RunReport, "wait_class", verdict.wait_class, 9),  // NULL on older rows: ""
};
static_assert(kBoundCount == 6, "one score_<label> column per Bound (a new label needs a migration)");

const Column<TimelinePoint> kPointColumns[] = {
    BN_POINT(t),
    BN_POINT(offered_packets_per_second),
    BN_COLUMN_RENAMED(TimelinePoint, received_packets_per_second, "delivered_packets_per_second", 6),
    BN_COLUMN_RENAMED(TimelinePoint, received_bits_per_second, "delivered_bits_per_second", 6),
    BN_POINT(application_packets_per_second),
    BN_POINT(cpu_busy),
    BN_POINT(accounting_busy),
    BN_POINT(cpu_seconds_per_second),
    BN_POINT(soaker_idle),
    BN_POINT(interrupts_per_second),
    BN_POINT(bus_utilisation),
    BN_POINT(drops_per_second),
    BN_POINT(first_losing_rung),
    BN_POINT(label),
    BN_POINT(resource),
    BN_POINT(confidence),
    BN_POINT_V2(applied_per_second),
    BN_POINT_V2(echoed_per_second),
    BN_POINT_V2(echo_loss_ratio),
    BN_POINT_V2(turnaround_p50_seconds),
    BN_POINT_V2(turnaround_p99_seconds),
    BN_POINT_V2(capture_drops_per_second),
    BN_RUNGS_V3(TimelinePoint),
};

#undef BN_RUNGS_V3
#undef BN_POINT_V2
#undef BN_RUN_V2
#undef BN_POINT
#undef BN_RUN
#undef BN_COLUMN
#undef BN_COLUMN_SINCE

// "a, b, c", with `suffix` after each name.
template <typename Row, size_t N>
std::string ColumnList(const Column<Row> (&cols)[N], const char* suffix = "") {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i) out += ", ";
    out += cols[i].name;
    out += suffix;
  }
  return out;
}

// What a SELECT of schema `version` reads: the column names, NULL for the
// columns newer than the file (so a row reads them unset).
template <typename Row, size_t N>
std::string SelectList(const Column<Row> (&cols)[N], int version) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i) out += ", ";
    if (cols[i].since > version) {
      out += "NULL";
    } else {
      out += cols[i].before && version < cols[i].renamed_in ? cols[i].before : cols[i].name;
    }
  }
  return out;
}

template <typename Row, size_t N>
void PutAll(const Column<Row> (&cols)[N], Stmt& s, int first, const Row& r) {
  for (size_t i = 0; i < N; ++i) cols[i].put(s, first + static_cast<int>(i), r);
}

template <typename Row, size_t N>
void GetAll(const Column<Row> (&cols)[N], const Stmt& s, int first, Row* r) {
  for (size_t i = 0; i < N; ++i) cols[i].get(s, first + static_cast<int>(i), r);
}

constexpr size_t kRunN = std::size(kRunColumns);
constexpr size_t kPointN = std::size(kPointColumns);

Status WriteEvidence(sqlite3* db, std::string_view path, const RunReport& r) {
  Stmt del(db, "DELETE FROM run_evidence WHERE run_id = ?1");
  del.Bind(1, r.id);
  int rc = del.Step();
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, "writing evidence of run " + std::to_string(r.id));
  Stmt ins(db, "INSERT INTO run_evidence (run_id, kind, seq, text) VALUES (?1, ?2, ?3, ?4)");
  auto write = [&](const char* kind, const std::vector<std::string>& lines) {
    for (size_t i = 0; i < lines.size(); ++i) {
      ins.Reset();
      ins.Bind(1, r.id);
      ins.Bind(2, std::string_view(kind));
      ins.Bind(3, static_cast<int64_t>(i));
      ins.Bind(4, std::string_view(lines[i]));
      int rc = ins.Step();
      if (rc != SQLITE_DONE) return rc;
    }
    return SQLITE_DONE;
  };
  rc = write("evidence", r.verdict.evidence);
  if (rc == SQLITE_DONE) rc = write("reason", r.verdict.reasons);
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, "writing evidence of run " + std::to_string(r.id));
  return Status::OK();
}

Status ReadEvidence(sqlite3* db, std::string_view path, RunReport* r) {
  Stmt st(db, "SELECT kind, text FROM run_evidence WHERE run_id = ?1 ORDER BY kind, seq");
  st.Bind(1, r->id);
  r->verdict.evidence.clear();
  r->verdict.reasons.clear();
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    (st.Text(0) == "reason" ? r->verdict.reasons : r->verdict.evidence).push_back(st.Text(1));
  }
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, "reading evidence of run " + std::to_string(r->id));
  return Status::OK();
}

// Counts are unsigned 64-bit in memory, signed in SQLite: a count beyond
// INT64_MAX (never reached in practice) is stored as INT64_MAX.
int64_t SqlCount(uint64_t v) {
  return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                                        : static_cast<int64_t>(v);
}
uint64_t CountOf(int64_t v) { return v < 0 ? 0 : static_cast<uint64_t>(v); }

Status WriteFlows(sqlite3* db, std::string_view path, const RunReport& r) {
  std::string what = "writing the flows of run " + std::to_string(r.id);
  Stmt del(db, "DELETE FROM run_flows WHERE run_id = ?1");
  del.Bind(1, r.id);
  int rc = del.Step();
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, what);
  Stmt ins(db,
           "INSERT INTO run_flows (run_id, seq, flow, requests, replies, paired, lost, packets, bytes) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  for (size_t i = 0; i < r.flows.size(); ++i) {
    const RunFlow& f = r.flows[i];
    ins.Reset();
    ins.Bind(1, r.id);
    ins.Bind(2, static_cast<int64_t>(i));
    ins.Bind(3, std::string_view(f.flow));
    ins.Bind(4, SqlCount(f.requests));
    ins.Bind(5, SqlCount(f.replies));
    ins.Bind(6, SqlCount(f.paired));
    ins.Bind(7, SqlCount(f.lost));
    ins.Bind(8, SqlCount(f.packets));
    ins.Bind(9, SqlCount(f.bytes));
    rc = ins.Step();
    if (rc != SQLITE_DONE) return SqliteError(db, rc, path, what);
  }
  return Status::OK();
}

Status ReadFlows(sqlite3* db, std::string_view path, RunReport* r) {
  Stmt st(db,
          "SELECT flow, requests, replies, paired, lost, packets, bytes FROM run_flows WHERE run_id = ?1 "
          "ORDER BY seq");
  st.Bind(1, r->id);
  r->flows.clear();
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    RunFlow f;
    f.flow = st.Text(0);
    f.requests = CountOf(st.Int(1));
    f.replies = CountOf(st.Int(2));
    f.paired = CountOf(st.Int(3));
    f.lost = CountOf(st.Int(4));
    f.packets = CountOf(st.Int(5));
    f.bytes = CountOf(st.Int(6));
    r->flows.push_back(std::move(f));
  }
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, "reading the flows of run " + std::to_string(r->id));
  return Status::OK();
}

// A table of folded stacks (run_profile: samples; run_offcpu: microseconds).
struct StackTable {
  const char* del;
  const char* ins;
  const char* select;
  const char* what;
};
constexpr StackTable kProfileTable = {"DELETE FROM run_profile WHERE run_id = ?1",
                                      "INSERT INTO run_profile (run_id, stack, samples) VALUES (?1, ?2, ?3)",
                                      "SELECT stack, samples FROM run_profile WHERE run_id = ?1", "profile"};
constexpr StackTable kOffCpuTable = {"DELETE FROM run_offcpu WHERE run_id = ?1",
                                     "INSERT INTO run_offcpu (run_id, stack, microseconds) VALUES (?1, ?2, ?3)",
                                     "SELECT stack, microseconds FROM run_offcpu WHERE run_id = ?1", "off-CPU stacks"};

Status WriteStacks(sqlite3* db, std::string_view path, int64_t run_id, const StackTable& t, const FoldedProfile& p) {
  std::string what = std::string("writing the ") + t.what + " of run " + std::to_string(run_id);
  Stmt del(db, t.del);
  del.Bind(1, run_id);
  int rc = del.Step();
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, what);
  Stmt ins(db, t.ins);
  for (const auto& [stack, samples] : p.stacks) {
    ins.Reset();
    ins.Bind(1, run_id);
    ins.Bind(2, std::string_view(stack));
    ins.Bind(3, SqlCount(samples));
    rc = ins.Step();
    if (rc != SQLITE_DONE) return SqliteError(db, rc, path, what);
  }
  return Status::OK();
}

// The rows a run owns besides its own: evidence, flows, CPU budget and profile.
Status WriteRunRows(sqlite3* db, std::string_view path, const RunReport& r) {
  BN_RETURN_IF_ERROR(WriteEvidence(db, path, r));
  BN_RETURN_IF_ERROR(WriteFlows(db, path, r));
  BN_RETURN_IF_ERROR(WriteRunBudget(db, path, r));
  BN_RETURN_IF_ERROR(WriteStacks(db, path, r.id, kProfileTable, r.profile));
  return WriteStacks(db, path, r.id, kOffCpuTable, r.offcpu);
}

std::string RunLabel(const RunReport& r) { return "run " + std::to_string(r.id) + " '" + r.name + "'"; }

}  // namespace

Status InsertRun(sqlite3* db, std::string_view path, RunReport* r) {
  static const std::string sql =
      "INSERT INTO runs (" + ColumnList(kRunColumns) + ") VALUES (" + SqlParams(1, kRunN) + ")";
  Stmt st(db, sql);
  PutAll(kRunColumns, st, 1, *r);
  int rc = st.Step();
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, "inserting run '" + r->name + "'");
  r->id = sqlite3_last_insert_rowid(db);
  return WriteRunRows(db, path, *r);
}

Status UpdateRun(sqlite3* db, std::string_view path, const RunReport& r) {
  static const std::string sql = "UPDATE runs SET (" + ColumnList(kRunColumns) + ") = (" + SqlParams(1, kRunN) +
                                 ") WHERE id = ?" + std::to_string(kRunN + 1);
  Stmt st(db, sql);
  PutAll(kRunColumns, st, 1, r);
  st.Bind(static_cast<int>(kRunN + 1), r.id);
  int rc = st.Step();
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, "updating " + RunLabel(r));
  if (sqlite3_changes(db) == 0) return Status::NotFound(std::string(path) + ": no " + RunLabel(r));
  return WriteRunRows(db, path, r);
}

Status WritePoints(sqlite3* db, std::string_view path, int64_t run_id, std::span<const TimelinePoint> points) {
  static const std::string sql = "INSERT OR REPLACE INTO timeline (run_id, " + ColumnList(kPointColumns) +
                                 ") VALUES (?1, " + SqlParams(2, kPointN) + ")";
  Stmt st(db, sql);
  for (const TimelinePoint& p : points) {
    st.Reset();
    st.Bind(1, run_id);
    PutAll(kPointColumns, st, 2, p);
    int rc = st.Step();
    if (rc != SQLITE_DONE) {
      return SqliteError(db, rc, path,
                         "writing the point at t " + ExactText(p.t) + " of run " + std::to_string(run_id));
    }
    BN_RETURN_IF_ERROR(WritePointBudget(db, path, run_id, p));
  }
  return Status::OK();
}

Status SelectRuns(sqlite3* db, std::string_view path, int version, const RunQuery& q, std::vector<RunReport>* out) {
  // The WHERE clause is assembled from constant fragments so SQLite can use
  // the name and start indexes; every value is a bound parameter.
  std::string where;
  auto add = [&where](const char* cond) { where += where.empty() ? " WHERE " : " AND ", where += cond; };
  if (q.id != 0) {
    add("id = ?1");  // one run, whatever the other filters say
  } else {
    if (!q.name.empty()) add("name = ?2");
    if (!q.include_windows) add("source <> 'window'");
    if (q.parent_id == 0) add("parent_id IS NULL");
    if (q.parent_id > 0) add("parent_id = ?3");
  }
  std::string sql = "SELECT id, " + SelectList(kRunColumns, version) + " FROM runs" + where +
                    " ORDER BY start DESC, id DESC LIMIT ?4";
  Stmt st(db, sql);
  if (q.id != 0) st.Bind(1, q.id);
  if (q.id == 0 && !q.name.empty()) st.Bind(2, std::string_view(q.name));
  if (q.id == 0 && q.parent_id > 0) st.Bind(3, q.parent_id);
  st.Bind(4, q.limit == 0 ? int64_t{-1} : static_cast<int64_t>(q.limit));
  out->clear();
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    RunReport r;
    r.id = st.Int(0);
    GetAll(kRunColumns, st, 1, &r);
    out->push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, "listing runs");
  for (RunReport& r : *out) {
    BN_RETURN_IF_ERROR(ReadEvidence(db, path, &r));
    if (version >= 2) BN_RETURN_IF_ERROR(ReadFlows(db, path, &r));
    if (version >= 5) BN_RETURN_IF_ERROR(ReadRunBudget(db, path, &r));
  }
  return Status::OK();
}

namespace {

Status ReadStacks(sqlite3* db, std::string_view path, int64_t run_id, const StackTable& t, FoldedProfile* out) {
  Stmt st(db, t.select);
  st.Bind(1, run_id);
  *out = FoldedProfile();
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) AddFolded(st.Text(0), CountOf(st.Int(1)), out);
  if (rc != SQLITE_DONE)
    return SqliteError(db, rc, path, std::string("reading the ") + t.what + " of run " + std::to_string(run_id));
  return Status::OK();
}

}  // namespace

Status ReadProfile(sqlite3* db, std::string_view path, int64_t run_id, FoldedProfile* out) {
  return ReadStacks(db, path, run_id, kProfileTable, out);
}

Status ReadOffCpu(sqlite3* db, std::string_view path, int64_t run_id, FoldedProfile* out) {
  return ReadStacks(db, path, run_id, kOffCpuTable, out);
}

Status SelectTimeline(sqlite3* db, std::string_view path, int version, int64_t run_id,
                      std::vector<TimelinePoint>* out) {
  std::string sql = "SELECT " + SelectList(kPointColumns, version) + " FROM timeline WHERE run_id = ?1 ORDER BY t";
  Stmt st(db, sql);
  st.Bind(1, run_id);
  out->clear();
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    TimelinePoint p;
    GetAll(kPointColumns, st, 0, &p);
    out->push_back(std::move(p));
  }
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, "reading the timeline of run " + std::to_string(run_id));
  if (version >= 5) BN_RETURN_IF_ERROR(ReadPointBudgets(db, path, run_id, out));
  return Status::OK();
}

}  // namespace bottleneckd::run_store
