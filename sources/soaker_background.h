// SoakerBackgroundCalibration: the soaker's calibration measured on a thread
// of its own (0.6 s idle, up to 16 s on a loaded host), so the daemon
// listens at once; the soaker's entry waits for it (SourceConfig::
// soaker_calibrating) and "/" says why the soaker does not run yet (note()).
// The destructor cancels it within a millisecond and joins.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "collectors/host_fs.h"
#include "sources/soaker.h"

namespace bottleneckd {

class SoakerBackgroundCalibration {
 public:
  // Starts measuring over its own HostFs of `roots` (the daemon's may be
  // replaced by a reload meanwhile). Logs that it started and, from the
  // thread, how it ended.
  SoakerBackgroundCalibration(const HostRoots& roots, const SoakerOptions& options);
  ~SoakerBackgroundCalibration();
  SoakerBackgroundCalibration(const SoakerBackgroundCalibration&) = delete;
  SoakerBackgroundCalibration& operator=(const SoakerBackgroundCalibration&) = delete;

  bool running() const { return running_.load(); }
  // The calibration's CPU time on each CPU so far (SoakerReading::running
  // false): the tick's soaker reading until the soaker starts, so the
  // window takes the daemon's own spin out of each CPU's busy time.
  void Read(SoakerReading* out) { calibrator_.Read(out); }
  // What "/" says while it runs: since when, how long it takes, what the
  // daemon does meanwhile.
  const std::string& note() const { return note_; }

 private:
  HostFs fs_;
  Soaker calibrator_;
  std::string note_;
  std::atomic<bool> running_{true};
  std::thread thread_;  // last: started once the members it reads exist
};

}  // namespace bottleneckd
