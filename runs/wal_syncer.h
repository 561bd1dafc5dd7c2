// The run store's syncs, off the writer's thread. The daemon writes the
// store from its tick (each window's point, a finished run); a commit in WAL
// mode with synchronous=NORMAL is an append to the -wal file, but a checkpoint
// and a FULL commit are fsyncs, and on a VM whose disk the host shares an
// fsync can take seconds: the fresh-clone CI of 2697f13 logged "a tick took
// longer than its interval ... runs and their store 7.620 s" in lab.echo's
// tcppeer run, where lab.irqtime had lost 13 and 21 s of ticks the same way
// (docs/run-store.md, Durability).
//
// So the writer's connection never syncs (synchronous=NORMAL, no automatic
// checkpoint), and this thread, with its own connection, checkpoints the WAL
// (PASSIVE: it never waits for the writer or a reader; with synchronous=
// NORMAL it syncs the WAL first, so everything committed before it is
// durable): soon after Request (a finished run) and every kIdleSeconds while
// the WAL has frames. A crash of the process loses nothing committed; a
// power loss may lose what was committed since the last checkpoint, a
// second or so after a finished run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "base/mutex.h"
#include "base/status.h"

struct sqlite3;

namespace bottleneckd {

class WalSyncer {
 public:
  static constexpr double kIdleSeconds = 30;

  // Opens its own connection to the store at `path` (already in WAL mode)
  // and starts the thread.
  static Status Start(const std::string& path, std::unique_ptr<WalSyncer>* out);
  // A last checkpoint, then the thread ends and the connection closes.
  ~WalSyncer();
  WalSyncer(const WalSyncer&) = delete;
  WalSyncer& operator=(const WalSyncer&) = delete;

  // Checkpoint soon (a finished run); returns at once.
  void Request() LOCKS_EXCLUDED(mu_);
  // Blocks until a checkpoint that began after this call has ended (tests,
  // and whoever must know a run is on disk); false after `timeout_seconds`.
  bool Flush(double timeout_seconds) LOCKS_EXCLUDED(mu_);
  // Checkpoints done, and the last one's result code (SQLITE_OK, or
  // SQLITE_BUSY when a reader held frames back: retried at the next one).
  uint64_t checkpoints() const LOCKS_EXCLUDED(mu_);
  int last_rc() const LOCKS_EXCLUDED(mu_);

 private:
  WalSyncer() = default;
  void Loop() LOCKS_EXCLUDED(mu_);
  int Checkpoint();

  std::string path_;
  sqlite3* db_ = nullptr;
  mutable Mutex mu_;
  CondVar cv_;  // waited on with mu_: requested_, stop_ or a checkpoint done
  bool stop_ GUARDED_BY(mu_) = false;
  uint64_t requested_ GUARDED_BY(mu_) = 0;  // requests so far
  uint64_t started_ GUARDED_BY(mu_) = 0;    // requests the checkpoint in progress covers
  uint64_t covered_ GUARDED_BY(mu_) = 0;    // requests a finished checkpoint covered
  uint64_t checkpoints_ GUARDED_BY(mu_) = 0;
  int last_rc_ GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace bottleneckd
