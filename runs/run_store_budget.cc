// Each CPU's time budget in the run store (schema version 5): a run's
// points' budgets in timeline_budget, its mean per CPU in run_budget. The
// part columns are BudgetParts' names, then the overlap and the flags, so
// the parts are listed once (analysis/cpu_budget.h).
#include <algorithm>
#include <string>

#include "runs/run_store_internal.h"

namespace bottleneckd::run_store {
namespace {

// The flags' columns, in the order they follow the overlap.
constexpr bool CpuBudget::*kFlags[] = {&CpuBudget::idle_delivered, &CpuBudget::interrupts_measured,
                                       &CpuBudget::threads_measured, &CpuBudget::delivery_learned};
constexpr const char* kFlagNames[] = {"idle_delivered", "interrupts_measured", "threads_measured", "delivery_learned"};
constexpr int kBudgetColumns = static_cast<int>(kBudgetPartMembers.size() + 1 + std::size(kFlags));

// "steal, hardirq, ..., idle, overlap, idle_delivered, ..., delivery_learned"
std::string BudgetColumns() {
  std::string out;
  for (const BudgetPart& part : BudgetParts(CpuBudget())) out += std::string(part.name) + ", ";
  out += "overlap";
  for (const char* flag : kFlagNames) out += std::string(", ") + flag;
  return out;
}

void PutBudget(Stmt& s, int first, const CpuBudget& b) {
  int i = first;
  for (const BudgetPart& part : BudgetParts(b)) s.Bind(i++, part.ratio);
  s.Bind(i++, b.overlap);
  for (bool CpuBudget::*flag : kFlags) s.Bind(i++, int64_t{b.*flag ? 1 : 0});
}

// A NULL part (never written by this build) reads as NaN: unknown, not 0.
CpuBudget GetBudget(const Stmt& s, int first, int cpu) {
  CpuBudget b;
  b.cpu = cpu;
  int i = first;
  for (double CpuBudget::*part : kBudgetPartMembers) b.*part = s.Double(i++);
  b.overlap = s.Double(i++);
  for (bool CpuBudget::*flag : kFlags) b.*flag = s.Int(i++) != 0;
  return b;
}

}  // namespace

Status WritePointBudget(sqlite3* db, std::string_view path, int64_t run_id, const TimelinePoint& p) {
  static const std::string sql = "INSERT INTO timeline_budget (run_id, t, cpu, " + BudgetColumns() +
                                 ") VALUES (?1, ?2, ?3, " + SqlParams(4, kBudgetColumns) + ")";
  std::string what = "writing the CPU budget of run " + std::to_string(run_id);
  Stmt del(db, "DELETE FROM timeline_budget WHERE run_id = ?1 AND t = ?2");
  del.Bind(1, run_id);
  del.Bind(2, p.t);
  int rc = del.Step();
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, what);
  Stmt ins(db, sql);
  for (const CpuBudget& b : p.cpu_budget) {
    ins.Reset();
    ins.Bind(1, run_id);
    ins.Bind(2, p.t);
    ins.Bind(3, int64_t{b.cpu});
    PutBudget(ins, 4, b);
    rc = ins.Step();
    if (rc != SQLITE_DONE) return SqliteError(db, rc, path, what);
  }
  return Status::OK();
}

Status ReadPointBudgets(sqlite3* db, std::string_view path, int64_t run_id, std::vector<TimelinePoint>* points) {
  static const std::string sql =
      "SELECT t, cpu, " + BudgetColumns() + " FROM timeline_budget WHERE run_id = ?1 ORDER BY t, cpu";
  Stmt st(db, sql);
  st.Bind(1, run_id);
  auto point = points->begin();
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    double t = st.Double(0);
    // Both in t order: walk the points along the rows.
    point = std::lower_bound(point, points->end(), t, [](const TimelinePoint& p, double v) { return p.t < v; });
    if (point == points->end()) break;
    if (point->t != t) continue;  // a budget without its point (never written so)
    point->cpu_budget.push_back(GetBudget(st, 2, static_cast<int>(st.Int(1))));
  }
  if (rc != SQLITE_DONE && rc != SQLITE_ROW)
    return SqliteError(db, rc, path, "reading the CPU budget of run " + std::to_string(run_id));
  return Status::OK();
}

Status WriteRunBudget(sqlite3* db, std::string_view path, const RunReport& r) {
  static const std::string sql = "INSERT INTO run_budget (run_id, cpu, windows, " + BudgetColumns() +
                                 ") VALUES (?1, ?2, ?3, " + SqlParams(4, kBudgetColumns) + ")";
  std::string what = "writing the CPU budget of run " + std::to_string(r.id);
  Stmt del(db, "DELETE FROM run_budget WHERE run_id = ?1");
  del.Bind(1, r.id);
  int rc = del.Step();
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, what);
  Stmt ins(db, sql);
  for (const RunCpuBudget& b : r.cpu_budget) {
    ins.Reset();
    ins.Bind(1, r.id);
    ins.Bind(2, int64_t{b.budget.cpu});
    ins.Bind(3, static_cast<int64_t>(b.windows));
    PutBudget(ins, 4, b.budget);
    rc = ins.Step();
    if (rc != SQLITE_DONE) return SqliteError(db, rc, path, what);
  }
  return Status::OK();
}

Status ReadRunBudget(sqlite3* db, std::string_view path, RunReport* r) {
  static const std::string sql =
      "SELECT cpu, windows, " + BudgetColumns() + " FROM run_budget WHERE run_id = ?1 ORDER BY cpu";
  Stmt st(db, sql);
  st.Bind(1, r->id);
  r->cpu_budget.clear();
  int rc;
  while ((rc = st.Step()) == SQLITE_ROW) {
    RunCpuBudget b;
    b.budget = GetBudget(st, 2, static_cast<int>(st.Int(0)));
    b.windows = static_cast<size_t>(std::max<int64_t>(st.Int(1), 0));
    r->cpu_budget.push_back(b);
  }
  if (rc != SQLITE_DONE) return SqliteError(db, rc, path, "reading the CPU budget of run " + std::to_string(r->id));
  return Status::OK();
}

}  // namespace bottleneckd::run_store
