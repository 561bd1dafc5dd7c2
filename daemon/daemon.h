// Daemon: the sampling loop. Every `interval` on a drift-free schedule
// (tick k fires at start + k * interval on CLOCK_MONOTONIC; a late tick is
// taken at once and missed ticks are skipped, never bunched) it runs one
// tick of the pipeline (daemon/tick_pipeline.h: the collectors and the
// continuous sources into a Sample, the Window from the previous one, the
// verdict) and publishes the Snapshot. Stop() and Reconfigure() may be
// called from any thread (signal handling).
// The continuous sources (sources/source_registry.h) are a SourceSet synced
// to the config at construction, at each reload and at each tick (the
// soaker in mode "runs" follows the runs); the capture is the first, so the
// capabilities it needs are dropped from the whole process right after it
// opened. Every analysed window goes to the RunTracker, when there is one.
// Each tick the daemon reads its own usage from the real /proc/self and feeds
// the self-limit watchdog (collectors/self_limit.h), whose back-off factor says
// how often the expensive collectors are read from the next tick.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "analysis/analyzer.h"
#include "analysis/snapshot.h"
#include "base/log.h"
#include "base/mutex.h"
#include "base/state_file_writer.h"
#include "daemon/config.h"
#include "daemon/delivery_cost_file.h"
#include "daemon/tick_pipeline.h"
#include "daemon/tick_stages.h"
#include "runs/run_tracker.h"
#include "sources/soaker_background.h"
#include "sources/source_set.h"

namespace bottleneckd {

class Daemon {
 public:
  // `runs`, when given (the daemon and `bottleneckd run`; not tests or
  // --once), gets every analysed window, and its active runs start the
  // soaker in mode "runs". It must outlive the Daemon.
  Daemon(const Config& config, SnapshotStore* store, RunTracker* runs = nullptr);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Samples until Stop(). Returns after the current tick finishes.
  void Run() LOCKS_EXCLUDED(mu_);
  void Stop() LOCKS_EXCLUDED(mu_);
  // Applies a new config (collectors, interval, paths) from the next tick.
  void Reconfigure(const Config& config) LOCKS_EXCLUDED(mu_);

  // One tick, for tests and `--once`: sample, window, publish.
  void Tick();

  // In soaker mode "runs": makes sure a usable calibration is stored, so a
  // run's first windows measure the workload and not the soaker calibrating
  // (the first start on a host calibrates for a second or so). Logs what it
  // did; a failure is logged and left to the soaker's own start. Blocks
  // (`bottleneckd run` in-process, before its command starts).
  void PrepareSoaker();
  // The daemon's start: when the soaker (mode "runs" or "always", on the
  // real host) has no usable calibration stored, measures it in a thread of
  // its own (0.6 s idle, up to 16 s on a loaded host) so the HTTP server
  // listens at once. Until it is done the soaker does not start (CPU idle
  // comes from accounting only) and each snapshot's soaker_state says so,
  // shown on "/". The destructor cancels it within a millisecond.
  void CalibrateSoakerInBackground();

  // Why a source in mode "on" (collectors.irqtime.mode, collectors.profile.mode)
  // did not load: the daemon should not start, the user asked for it; OK
  // otherwise, including mode "auto" where a refusal is only logged.
  Status source_error() const { return sources_.fatal_error(); }

 private:
  void ApplyPending() LOCKS_EXCLUDED(mu_);
  // Loads, restarts or unloads the continuous sources to match config_ and
  // the runs (SourceSet::Sync); after the capture first opened, drops the
  // capabilities it needed when config_ asks.
  void SyncSources();
  void DropCaptureCapabilitiesOnce();
  bool Calibrating() const { return calibration_ && calibration_->running(); }
  // Reads the daemon's own usage into snap, steps the watchdog, logs and acts
  // (malloc_trim past the memory budget) on a change of its factor, and sets
  // the sampler's back-off for the next tick.
  void CheckSelfLimit(Snapshot* snap);
  // The learned interrupt delivery cost (daemon/delivery_cost_file.h):
  // restored into analyzer_ from the state directory when learned on this
  // host, and kept there every kDeliveryStoreWindows analysed windows and
  // at exit.
  void RestoreDeliveryCost();
  void KeepDeliveryCost();
  // A minute of windows at the default interval: a crash loses at most that
  // much learning.
  static constexpr int kDeliveryStoreWindows = 60;
  SnapshotStore* store_;
  RunTracker* runs_;
  uint64_t run_starts_seen_ = 0;
  Config config_;
  std::unique_ptr<HostFs> fs_;
  std::unique_ptr<TickPipeline> pipeline_;  // sampler, analyzer, previous snapshot
  SourceSet sources_;
  std::optional<DeliveryCostHost> delivery_host_;  // unset: the host could not be read, nothing kept
  int windows_since_kept_ = 0;
  StateFileWriter state_writer_;                              // the delivery cost file, off the tick's thread
  std::unique_ptr<SoakerBackgroundCalibration> calibration_;  // CalibrateSoakerInBackground's
  bool capabilities_dropped_ = false;
  HostFs self_fs_;  // the live /proc (default roots) whatever config_.roots says
  SelfLimit self_limit_;
  std::string self_error_;             // last error reading /proc/self, logged once
  SelfProcessState self_state_;        // the live host's boot time (read once), kept descriptors
  bool soaker_at_last_check_ = false;  // the soaker ran at the previous CheckSelfLimit
  TickStages stages_;                  // where the last tick's time went (said when it overran)

  Mutex mu_;
  CondVar cv_;  // waited on with mu_: stop_ set or pending_ filled
  bool stop_ GUARDED_BY(mu_) = false;
  std::optional<Config> pending_ GUARDED_BY(mu_);
};

}  // namespace bottleneckd
