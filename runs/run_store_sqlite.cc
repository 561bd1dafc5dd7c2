// Thin sqlite3 C API wrappers for the run store (run_store_internal.h).
#include <cmath>
#include <cstring>
#include <limits>

#include "runs/run_store_internal.h"

namespace bottleneckd::run_store {

Status SqliteError(sqlite3* db, int rc, std::string_view path, std::string_view what) {
  std::string msg(path);
  msg += ": ";
  msg += what;
  msg += ": ";
  // sqlite3_errmsg describes the most recent failure on db; when that is not
  // rc's (e.g. a bind error kept for later), use rc's generic text.
  if (db != nullptr && sqlite3_extended_errcode(db) == rc) {
    msg += sqlite3_errmsg(db);
  } else {
    msg += sqlite3_errstr(rc);
  }
  int primary = rc & 0xff;
  if (db != nullptr && (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN || primary == SQLITE_FULL)) {
    int err = sqlite3_system_errno(db);
    if (err != 0) {
      msg += " (";
      msg += std::strerror(err);
      msg += ")";
    }
  }
  switch (primary) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT: return Status::Corruption(msg);
    case SQLITE_CONSTRAINT: return Status::InvalidArgument(msg);
    default: return Status::IOError(msg);
  }
}

Stmt::Stmt(sqlite3* db, std::string_view sql) {
  rc_ = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

void Stmt::Check(int rc) {
  if (rc_ == SQLITE_OK && rc != SQLITE_OK) rc_ = rc;
}

void Stmt::Bind(int i, double v) {
  if (stmt_) Check(sqlite3_bind_double(stmt_, i, v));
}

void Stmt::Bind(int i, int64_t v) {
  if (stmt_) Check(sqlite3_bind_int64(stmt_, i, v));
}

void Stmt::Bind(int i, std::string_view v) {
  if (stmt_) Check(sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
}

void Stmt::Bind(int i, std::optional<double> v) {
  if (v) {
    Bind(i, *v);
  } else {
    BindNull(i);
  }
}

void Stmt::Bind(int i, std::optional<int> v) {
  if (v) {
    Bind(i, static_cast<int64_t>(*v));
  } else {
    BindNull(i);
  }
}

void Stmt::BindNull(int i) {
  if (stmt_) Check(sqlite3_bind_null(stmt_, i));
}

int Stmt::Step() {
  if (rc_ != SQLITE_OK) return rc_;
  return sqlite3_step(stmt_);
}

void Stmt::Reset() {
  if (stmt_) sqlite3_reset(stmt_);
}

bool Stmt::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

double Stmt::Double(int col) const {
  return IsNull(col) ? std::numeric_limits<double>::quiet_NaN() : sqlite3_column_double(stmt_, col);
}

int64_t Stmt::Int(int col) const { return sqlite3_column_int64(stmt_, col); }

std::string Stmt::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

std::optional<double> Stmt::OptionalDouble(int col) const {
  if (IsNull(col)) return std::nullopt;
  return sqlite3_column_double(stmt_, col);
}

std::optional<int> Stmt::OptionalInt(int col) const {
  if (IsNull(col)) return std::nullopt;
  return sqlite3_column_int(stmt_, col);
}

int Exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr); }

std::string SqlParams(size_t first, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += (i ? ", ?" : "?") + std::to_string(first + i);
  return out;
}

Transaction::Transaction(sqlite3* db) : db_(db), begin_rc_(Exec(db, "BEGIN IMMEDIATE")) {
  done_ = begin_rc_ != SQLITE_OK;
}

Transaction::~Transaction() {
  if (!done_ && !sqlite3_get_autocommit(db_)) Exec(db_, "ROLLBACK");
}

int Transaction::Commit() {
  int rc = Exec(db_, "COMMIT");
  if (rc == SQLITE_OK) done_ = true;
  return rc;
}

Status ReadUserVersion(sqlite3* db, std::string_view path, int* version) {
  Stmt st(db, "PRAGMA user_version");
  if (st.rc() != SQLITE_OK) return SqliteError(db, st.rc(), path, "reading the schema version");
  int rc = st.Step();
  if (rc != SQLITE_ROW) return SqliteError(db, rc, path, "reading the schema version");
  *version = static_cast<int>(st.Int(0));
  return Status::OK();
}

}  // namespace bottleneckd::run_store
