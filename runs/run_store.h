// Run store: runs and their per-second timelines in SQLite (Debian's
// libsqlite3) at STATE_DIR/runs.db, WAL mode, so a finished run survives a
// daemon restart, SIGKILL or a full disk (docs/run-store.md).
//
// - The schema is versioned (PRAGMA user_version) and migrated in order on
//   open; a database newer than this build is refused, never rewritten.
// - A run is inserted "active" when it starts, each window's point is
//   appended as it is analysed, and the run is rewritten "finished" with its
//   summary (RunReport, verdict with evidence) when it stops; every write is
//   its own transaction.
// - Opened for writing, runs left "active" by a daemon that died are
//   recovered: marked "interrupted", ended at their last point, and
//   summarised from their timeline. Only when no other process has the store
//   open for writing (every writer holds a shared flock on runs.db.lock;
//   recovery needs it exclusively), so two `bottleneckd run` commands never
//   take each other's live runs for dead ones.
// - A write that fails (SQLITE_FULL, I/O error) returns the error and leaves
//   the database as it was; the caller keeps the run in memory and retries.
// - One connection; not thread-safe (the caller serialises).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "runs/run_summary.h"

struct sqlite3;

namespace bottleneckd {

class WalSyncer;

inline constexpr int kRunStoreSchemaVersion = 11;
// The oldest schema a read-only open reads (figures a version lacks read as
// unset, flows and CPU budgets as none); a writable open migrates any older file.
inline constexpr int kRunStoreOldestReadable = 1;

struct RunQuery {
  std::string name;              // exact name; "" any
  int64_t id = 0;                // one run; 0 any
  bool include_windows = false;  // continuous-window runs (source "window")
  int64_t parent_id = -1;        // -1 any; 0 top-level runs only; N: N's segments
  size_t limit = 20;             // newest first, at most this many (0: no limit)
};

class RunStore {
 public:
  // Opens (creating when `create`) the database at `path`. Read-only opens
  // neither create, migrate nor recover: they read a file of an older
  // schema (down to kRunStoreOldestReadable) as it is, the figures it lacks
  // unset and no flows or CPU budgets; an empty file (version 0) is InvalidArgument. Errors
  // name the path and SQLite's message; InvalidArgument for a database from
  // a newer bottleneckd.
  static Status Open(const std::string& path, bool read_only, std::unique_ptr<RunStore>* out);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  // Inserts r (state "active") and sets r->id.
  Status BeginRun(RunReport* r);
  Status AppendPoint(int64_t run_id, const TimelinePoint& p);
  // Writes r's summary, end, state, exit code, evidence and flows (by r.id),
  // one transaction. A run never begun (id 0: the begin failed) is inserted
  // whole with its timeline.
  Status FinishRun(RunReport* r, const std::vector<TimelinePoint>& timeline);

  // Runs matching q, newest first (by start), with evidence and flows.
  Status ListRuns(const RunQuery& q, std::vector<RunReport>* out);
  Status Timeline(int64_t run_id, std::vector<TimelinePoint>* out);
  // The run's merged on-CPU profile (RunReport::profile); empty for a run
  // profiled by no one and in a store older than version 7.
  Status Profile(int64_t run_id, FoldedProfile* out);
  // The run's merged off-CPU stacks in microseconds (RunReport::offcpu);
  // empty for a run no offcpu source followed and in a store older than
  // version 10.
  Status OffCpu(int64_t run_id, FoldedProfile* out);
  // Deletes "window" runs that ended before `before` (Unix seconds).
  Status PruneWindows(double before, size_t* deleted);
  // Deletes the run `run_id` with its timeline, evidence and segments (a run
  // whose command never started: nothing ran to be judged). OK when absent.
  Status DeleteRun(int64_t run_id);

  int schema_version() const { return schema_version_; }
  size_t recovered() const { return recovered_; }  // runs recovered at open
  const std::string& path() const { return path_; }
  // Blocks until a checkpoint of the WAL that began after the call has
  // ended (everything committed before it is then on disk: runs/
  // wal_syncer.h); false after `timeout_seconds`. True at once for a
  // read-only store.
  bool Sync(double timeout_seconds);
  // For tests of a full disk: caps the database at `pages` pages
  // (PRAGMA max_page_count), so writes past it fail with SQLITE_FULL.
  Status LimitPagesForTest(int pages);

 private:
  RunStore() = default;
  Status Migrate();
  Status Recover();
  sqlite3* db_ = nullptr;
  std::string path_;
  int schema_version_ = 0;
  size_t recovered_ = 0;
  int lock_fd_ = -1;  // PATH.lock, shared-locked while open for writing
  // Writable stores: the checkpoints (the fsyncs) off the writer's thread
  // (runs/wal_syncer.h); destroyed before db_ is closed.
  std::unique_ptr<WalSyncer> syncer_;
};

}  // namespace bottleneckd
