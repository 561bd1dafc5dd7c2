// Writes the daemon's state files off the caller's thread: Submit() returns
// at once and a thread of the writer's own writes the text (WriteStateFile:
// a temporary file, fsynced, renamed over the old one). Only the latest text
// of each file is written: one submitted while an older one still waits
// replaces it.
//
// Why: the tick wrote the learned delivery cost itself every few windows,
// and a disk that stalled one fsync for 8.8 s (a fresh-clone CI of 4aabb4f,
// lab.echo's handoff run: "delivery cost file 8.766 s") stalled sampling
// for as long: a skipped tick, its window's rates off by a quarter. A state
// file kept a little later loses nothing; a tick taken late loses a window.
#pragma once

#include <map>
#include <string>
#include <thread>
#include <utility>

#include "base/mutex.h"
#include "base/status.h"

namespace bottleneckd {

class StateFileWriter {
 public:
  StateFileWriter();
  // Writes what is pending, then stops.
  ~StateFileWriter();
  StateFileWriter(const StateFileWriter&) = delete;
  StateFileWriter& operator=(const StateFileWriter&) = delete;

  // Queues `text` for dir/name; a failed write is logged (warn, once per
  // write) by the writer's thread. Called from one thread only.
  void Submit(std::string dir, std::string name, std::string text) LOCKS_EXCLUDED(mu_);
  // Blocks until everything submitted before it is written: tests, and a
  // caller that must read the file back.
  void Flush() LOCKS_EXCLUDED(mu_);
  // Writes done and failed so far.
  int written() const LOCKS_EXCLUDED(mu_);
  int failed() const LOCKS_EXCLUDED(mu_);

 private:
  void Loop() LOCKS_EXCLUDED(mu_);

  mutable Mutex mu_;
  CondVar work_, done_;
  std::map<std::pair<std::string, std::string>, std::string> pending_ GUARDED_BY(mu_);
  bool writing_ GUARDED_BY(mu_) = false;
  bool stop_ GUARDED_BY(mu_) = false;
  int written_ GUARDED_BY(mu_) = 0;
  int failed_ GUARDED_BY(mu_) = 0;
  std::thread thread_;  // started by the first Submit (see there)
};

}  // namespace bottleneckd
