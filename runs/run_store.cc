// The run store (run_store.h): opening (pragmas, migrations, recovery) and
// the run operations, each write one transaction. Rows are converted in
// run_store_rows.cc, the schema lives in run_store_schema.cc.
#include "runs/run_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <string>

#include "base/log.h"
#include "runs/run_store_internal.h"
#include "runs/wal_syncer.h"

namespace bottleneckd {

using run_store::Exec;
using run_store::SqliteError;
using run_store::Stmt;
using run_store::Transaction;

namespace {

constexpr int kBusyTimeoutMs = 5000;

// Runs the pragmas of a writable connection: WAL (readers never block the
// writer; a commit is one append to the -wal file), synchronous=NORMAL (the
// WAL is synced at checkpoints, not at every commit: a process crash loses
// nothing committed, a power loss may lose the last commits but never
// corrupts), no automatic checkpoint (the writer's thread never syncs: the
// WalSyncer checkpoints, soon after a finished run), foreign keys so
// deleting a run deletes its timeline, evidence and segments.
Status SetWritePragmas(sqlite3* db, const std::string& path) {
  Stmt wal(db, "PRAGMA journal_mode = WAL");
  int rc = wal.Step();
  if (rc != SQLITE_ROW) return SqliteError(db, rc, path, "switching to WAL mode");
  std::string mode = wal.Text(0);
  if (mode != "wal") return Status::IOError(path + ": switching to WAL mode: journal mode stays " + mode);
  rc = Exec(db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA wal_autocheckpoint = 0");
  if (rc != SQLITE_OK) return SqliteError(db, rc, path, "setting pragmas");
  return Status::OK();
}

// "file:" URI of `path` with the query `query`, for sqlite3_open_v2.
std::string FileUri(const std::string& path, const char* query) {
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", c);
      uri += hex;
    }
  }
  return uri + "?" + query;
}

// Opens the connection and reads the schema version (the first read: a file
// that is not a database fails here).
Status Connect(const std::string& path, bool read_only, sqlite3** db, int* version) {
  int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), db, flags, nullptr);
  if (rc != SQLITE_OK) return SqliteError(*db, rc, path, "opening the run store");
  sqlite3_extended_result_codes(*db, 1);
  sqlite3_busy_timeout(*db, kBusyTimeoutMs);
  Status st = run_store::ReadUserVersion(*db, path, version);
  // A reader that may not create the -shm file (a user reading root's state
  // directory) cannot open a WAL database no writer has open. With no -wal
  // file there is nothing but the database file to read: read it as
  // immutable, a snapshot.
  int err = sqlite3_extended_errcode(*db);
  struct stat wal;
  if (read_only && !st.ok() && (err == SQLITE_READONLY_DIRECTORY || err == SQLITE_READONLY_CANTINIT) &&
      stat((path + "-wal").c_str(), &wal) != 0 && errno == ENOENT) {
    sqlite3_close_v2(*db);
    *db = nullptr;
    rc = sqlite3_open_v2(FileUri(path, "immutable=1").c_str(), db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    if (rc != SQLITE_OK) return SqliteError(*db, rc, path, "opening the run store");
    sqlite3_extended_result_codes(*db, 1);
    st = run_store::ReadUserVersion(*db, path, version);
  }
  return st;
}

// SQLite opens a file this user may not write read-only, without a word,
// and the first write (a window run, a minute later) would be the first to
// fail. Said at the open instead: the file's mode, or the write lock a probe
// transaction cannot take (a -wal or -shm file of another user's writer).
Status CheckWritable(sqlite3* db, const std::string& path) {
  auto refuse = [&](const std::string& why) {
    struct stat st {};
    std::string owner;
    if (::stat(path.c_str(), &st) == 0) {
      char mode[8];
      std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
      owner = " (the file is uid " + std::to_string(st.st_uid) + ", mode " + mode + ")";
    }
    return Status::PermissionDenied("run store " + path + " is not writable by uid " + std::to_string(::geteuid()) +
                                    owner + ": " + why +
                                    "; run as the user that owns the state directory, or choose another state_dir");
  };
  if (sqlite3_db_readonly(db, "main") == 1) return refuse("SQLite opened it read-only");
  int rc = Exec(db, "BEGIN IMMEDIATE");
  if (rc == SQLITE_OK) {
    rc = Exec(db, "ROLLBACK");
    return rc == SQLITE_OK ? Status::OK() : SqliteError(db, rc, path, "ending the write check");
  }
  if ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_PERM)
    return refuse(sqlite3_errstr(rc));
  return SqliteError(db, rc, path, "checking that the run store is writable");
}

}  // namespace

Status RunStore::Open(const std::string& path, bool read_only, std::unique_ptr<RunStore>* out) {
  if (read_only) {
    // SQLite would only say "unable to open database file".
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return Status::FromErrno(errno, "run store " + path);
  }
  std::unique_ptr<RunStore> s(new RunStore());
  s->path_ = path;
  int version = 0;
  BN_RETURN_IF_ERROR(Connect(path, read_only, &s->db_, &version));
  if (version > kRunStoreSchemaVersion) {
    return Status::InvalidArgument(path + " schema version " + std::to_string(version) +
                                   " is newer than this bottleneckd (" + std::to_string(kRunStoreSchemaVersion) + ")");
  }
  s->schema_version_ = version;
  if (read_only) {
    // An older file is read as it is (a reader must not migrate it: the
    // daemon that writes it may be an older build still running).
    if (version < kRunStoreOldestReadable) {
      return Status::InvalidArgument(
          path + " schema version " + std::to_string(version) + " is older than this bottleneckd reads (" +
          std::to_string(kRunStoreOldestReadable) + "): open it for writing once (start bottleneckd) to migrate it");
    }
    *out = std::move(s);
    return Status::OK();
  }
  BN_RETURN_IF_ERROR(CheckWritable(s->db_, path));
  BN_RETURN_IF_ERROR(SetWritePragmas(s->db_, path));
  BN_RETURN_IF_ERROR(s->Migrate());
  // Runs left active are dead only when no other writer has the store open:
  // every writer holds the lock file shared; recovery needs it exclusively.
  s->lock_fd_ = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  bool alone = s->lock_fd_ >= 0 && ::flock(s->lock_fd_, LOCK_EX | LOCK_NB) == 0;
  if (alone) {
    // A failed recovery (say the disk is full) leaves the runs active for the
    // next open; the store itself is still usable.
    Status rec = s->Recover();
    if (!rec.ok()) Log(LogLevel::kWarn, "run store: recovering interrupted runs failed", {{"err", rec.ToString()}});
  }
  if (s->lock_fd_ >= 0) ::flock(s->lock_fd_, LOCK_SH);  // from exclusive, or join the other writers
  BN_RETURN_IF_ERROR(WalSyncer::Start(path, &s->syncer_));
  *out = std::move(s);
  return Status::OK();
}

RunStore::~RunStore() {
  syncer_.reset();  // its last checkpoint first
  sqlite3_close_v2(db_);
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

bool RunStore::Sync(double timeout_seconds) { return !syncer_ || syncer_->Flush(timeout_seconds); }

Status RunStore::Migrate() { return run_store::ApplyMigrations(db_, path_, run_store::Migrations(), &schema_version_); }

Status RunStore::Recover() {
  std::vector<int64_t> ids;
  {
    Stmt st(db_, "SELECT id FROM runs WHERE state = 'active' ORDER BY id");
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) ids.push_back(st.Int(0));
    if (rc != SQLITE_DONE) return SqliteError(db_, rc, path_, "finding interrupted runs");
  }
  for (int64_t id : ids) {
    Transaction tx(db_);
    std::string what = "recovering run " + std::to_string(id);
    if (tx.begin_rc() != SQLITE_OK) return SqliteError(db_, tx.begin_rc(), path_, what);
    RunQuery q;
    q.id = id;
    std::vector<RunReport> runs;
    BN_RETURN_IF_ERROR(run_store::SelectRuns(db_, path_, schema_version_, q, &runs));
    if (runs.empty() || runs[0].state != "active") continue;  // another process got there first
    RunReport& r = runs[0];
    std::vector<TimelinePoint> points;
    BN_RETURN_IF_ERROR(run_store::SelectTimeline(db_, path_, schema_version_, id, &points));
    std::vector<TimelinePoint> settled(points.begin() + static_cast<ptrdiff_t>(SettleWindows(points.size())),
                                       points.end());
    Summarise(settled, nullptr, &r);
    r.end = points.empty() ? r.start : points.back().t;
    r.state = "interrupted";
    BN_RETURN_IF_ERROR(run_store::UpdateRun(db_, path_, r));
    int rc = tx.Commit();
    if (rc != SQLITE_OK) return SqliteError(db_, rc, path_, what);
    ++recovered_;
  }
  return Status::OK();
}

Status RunStore::BeginRun(RunReport* r) {
  RunReport row = *r;
  row.state = "active";
  Transaction tx(db_);
  if (tx.begin_rc() != SQLITE_OK) return SqliteError(db_, tx.begin_rc(), path_, "beginning run '" + r->name + "'");
  BN_RETURN_IF_ERROR(run_store::InsertRun(db_, path_, &row));
  int rc = tx.Commit();
  if (rc != SQLITE_OK) return SqliteError(db_, rc, path_, "beginning run '" + r->name + "'");
  r->id = row.id;
  r->state = row.state;
  return Status::OK();
}

Status RunStore::AppendPoint(int64_t run_id, const TimelinePoint& p) {
  // The point and its CPU budget rows: one transaction.
  std::string what = "appending a point to run " + std::to_string(run_id);
  Transaction tx(db_);
  if (tx.begin_rc() != SQLITE_OK) return SqliteError(db_, tx.begin_rc(), path_, what);
  BN_RETURN_IF_ERROR(run_store::WritePoints(db_, path_, run_id, std::span<const TimelinePoint>(&p, 1)));
  int rc = tx.Commit();
  if (rc != SQLITE_OK) return SqliteError(db_, rc, path_, what);
  return Status::OK();
}

Status RunStore::FinishRun(RunReport* r, const std::vector<TimelinePoint>& timeline) {
  RunReport row = *r;
  if (row.state.empty() || row.state == "active") row.state = "finished";
  Transaction tx(db_);
  if (tx.begin_rc() != SQLITE_OK) return SqliteError(db_, tx.begin_rc(), path_, "finishing run '" + r->name + "'");
  if (row.id == 0) {
    BN_RETURN_IF_ERROR(run_store::InsertRun(db_, path_, &row));
  } else {
    BN_RETURN_IF_ERROR(run_store::UpdateRun(db_, path_, row));
  }
  // All the points, also those whose AppendPoint failed; a point already
  // stored is replaced by the same one.
  BN_RETURN_IF_ERROR(run_store::WritePoints(db_, path_, row.id, timeline));
  int rc = tx.Commit();
  if (rc != SQLITE_OK) return SqliteError(db_, rc, path_, "finishing run '" + r->name + "'");
  r->id = row.id;
  r->state = row.state;
  // A finished run is worth an fsync of the WAL (it also makes every point
  // before it durable): it survives a power loss too, not only a crash. The
  // syncer's checkpoint does it, off this thread (runs/wal_syncer.h).
  if (syncer_) syncer_->Request();
  return Status::OK();
}

Status RunStore::ListRuns(const RunQuery& q, std::vector<RunReport>* out) {
  return run_store::SelectRuns(db_, path_, schema_version_, q, out);
}

Status RunStore::Timeline(int64_t run_id, std::vector<TimelinePoint>* out) {
  return run_store::SelectTimeline(db_, path_, schema_version_, run_id, out);
}

Status RunStore::Profile(int64_t run_id, FoldedProfile* out) {
  *out = FoldedProfile();
  if (schema_version_ < 7) return Status::OK();
  return run_store::ReadProfile(db_, path_, run_id, out);
}

Status RunStore::OffCpu(int64_t run_id, FoldedProfile* out) {
  *out = FoldedProfile();
  if (schema_version_ < 10) return Status::OK();
  return run_store::ReadOffCpu(db_, path_, run_id, out);
}

Status RunStore::PruneWindows(double before, size_t* deleted) {
  // Their timelines and evidence go with them (ON DELETE CASCADE).
  Stmt st(db_, "DELETE FROM runs WHERE source = 'window' AND state <> 'active' AND end < ?1");
  st.Bind(1, before);
  int rc = st.Step();
  if (rc != SQLITE_DONE) return SqliteError(db_, rc, path_, "pruning window runs");
  *deleted = static_cast<size_t>(sqlite3_changes(db_));
  return Status::OK();
}

Status RunStore::DeleteRun(int64_t run_id) {
  // Its timeline, evidence and segments go with it (ON DELETE CASCADE).
  Stmt st(db_, "DELETE FROM runs WHERE id = ?1");
  st.Bind(1, run_id);
  int rc = st.Step();
  if (rc != SQLITE_DONE) return SqliteError(db_, rc, path_, "deleting run " + std::to_string(run_id));
  return Status::OK();
}

Status RunStore::LimitPagesForTest(int pages) {
  // PRAGMA takes no bound parameters; `pages` is an integer.
  std::string sql = "PRAGMA max_page_count = " + std::to_string(pages);
  Stmt st(db_, sql);
  int rc = st.Step();
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return SqliteError(db_, rc, path_, "limiting pages");
  return Status::OK();
}

}  // namespace bottleneckd
