// Daemon: the sampling loop. Every `interval` on a drift-free schedule
// (tick k fires at start + k * interval on CLOCK_MONOTONIC; a late tick is
// taken at once and missed ticks are skipped, never bunched) it takes a Sample,
// computes the Window from the previous one, and publishes a Snapshot.
// Stop() and Reconfigure() may be called from any thread (signal handling).
// The daemon owns the soaker: it runs in mode "always", or in mode "runs" while
// a run is active (checked every tick), and is read once per tick like a
// collector. The daemon also owns the live capture (sources/capture.h),
// opened at construction (before any other thread, so the capabilities it
// needs can be dropped from the whole process right after) and read once per
// tick. Every analysed window goes to the RunTracker, when there is one.
// Each tick the daemon reads its own usage from the real /proc/self and feeds
// the self-limit watchdog (daemon/self_limit.h), whose back-off factor says
// how often the expensive collectors are read from the next tick.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "analysis/analyzer.h"
#include "base/log.h"
#include "base/mutex.h"
#include "daemon/config.h"
#include "daemon/delivery_cost_file.h"
#include "daemon/sampler.h"
#include "daemon/snapshot.h"
#include "runs/run_tracker.h"
#include "sources/offcpu.h"
#include "sources/profile.h"

namespace bottleneckd {

// Completes a Snapshot whose sample is taken (the tick's step after the
// collectors and the soaker, shared by Daemon::Tick and replays):
// bus_paths (prev's while sample.pci is the same topology object, else built
// anew and logged once), samples_total and counter_anomalies_total carried on
// from prev, and the Window from prev with its bus estimate. prev may be null
// (the first tick: no window).
void CompleteSnapshot(const Snapshot* prev, const BusModelOptions& bus_model, Snapshot* snap);

// Sets snap->verdict and snap->plateau from analyzer over snap's window;
// leaves them unset without a window.
void AnalyzeSnapshot(Analyzer* analyzer, Snapshot* snap);

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

  // Why the irqtime source is not loaded in mode "on" (the daemon should not
  // start: the user asked for measured interrupt time); OK otherwise,
  // including mode "auto" where a refusal is only logged.
  const Status& irqtime_error() const { return irqtime_error_; }
  // Likewise for the profiler in mode "on" (collectors.profile.mode).
  const Status& profile_error() const { return profile_error_; }

 private:
  void ApplyPending() LOCKS_EXCLUDED(mu_);
  // Creates, starts or stops the soaker to match config_ (mode, run_active).
  void SyncSoaker();
  // Loads or unloads the offcpu source to match config_: loaded when the
  // threads collector has targets on the live host and neither it nor
  // offcpu is disabled; a refusal is said once and the waits are sampled.
  void SyncOffCpu();
  // Loads or unloads the irqtime source to match config_ (IrqTimeWanted);
  // logs one line saying what it did or why it could not.
  void SyncIrqTime();
  // Loads or unloads the profiler to match config_ (ProfileToLoad); logs one
  // line saying what it did or why it could not.
  void SyncProfile();
  // Points the profiler's stack walks for the next tick: the CPU the
  // snapshot's verdict names and the target threads, and every CPU during a
  // run with collectors.profile.stacks: runs.
  void SteerProfile(const Snapshot& snap);
  // Opens the live capture when configured, logs each interface it could not
  // open, and drops the capture capabilities when config_ asks.
  void StartCapture();
  // Reads a source (soaker, capture; none when null) into the sample, timed
  // as its CollectorResult.
  void ReadSource(Source* source, Sample* sample);
  // Reads the capture into the sample (and logs an interface whose state changed).
  void ReadCapture(Sample* sample);
  // After a reload: restarts the capture when its options changed (and it can:
  // once the capabilities are dropped, new captures cannot open).
  void ReconfigureCapture(const CaptureOptions& old, bool was_enabled);
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
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<Analyzer> analyzer_;             // verdicts and plateau over the ticks
  std::optional<DeliveryCostHost> delivery_host_;  // unset: the host could not be read, nothing kept
  int windows_since_kept_ = 0;
  std::unique_ptr<Soaker> soaker_;
  std::string soaker_caveat_;           // last caveat logged
  RepeatLimiter soaker_failure_{3600};  // a soaker that cannot start, retried each tick
  // The background calibration (CalibrateSoakerInBackground): its own HostFs
  // (a reload replaces fs_), its Soaker, its thread, and what "/" says.
  std::unique_ptr<HostFs> calibration_fs_;
  std::unique_ptr<Soaker> calibrator_;
  std::thread calibration_thread_;
  std::atomic<bool> calibrating_{false};
  std::string calibration_note_;  // set before the thread starts, read by ticks
  bool said_soaker_waits_ = false;
  std::unique_ptr<CaptureSource> capture_;
  // Measured waits of the target threads (sources/offcpu.h): loaded while
  // there are targets, on the live host; tried once per reason to change.
  std::unique_ptr<OffCpuSource> offcpu_;
  bool offcpu_tried_ = false;
  std::unique_ptr<IrqTimeSource> irqtime_;
  IrqTimeOptions irqtime_options_;  // what irqtime_ (or the last refusal) was made with
  bool irqtime_tried_ = false;
  Status irqtime_error_;
  // The on-CPU profiler (sources/profile.h), loaded per ProfileToLoad.
  std::unique_ptr<ProfileSource> profile_;
  ProfileOptions profile_options_;  // what profile_ (or the last refusal) was made with
  bool profile_tried_ = false;
  Status profile_error_;
  std::vector<std::string> capture_errors_;  // last error logged per interface
  bool capabilities_dropped_ = false;
  std::shared_ptr<const Snapshot> prev_;
  HostFs self_fs_;  // the live /proc (default roots) whatever config_.roots says
  SelfLimit self_limit_;
  std::string self_error_;             // last error reading /proc/self, logged once
  SelfProcessState self_state_;        // the live host's boot time (read once), kept descriptors
  bool soaker_at_last_check_ = false;  // the soaker ran at the previous CheckSelfLimit

  Mutex mu_;
  CondVar cv_;  // waited on with mu_: stop_ set or pending_ filled
  bool stop_ GUARDED_BY(mu_) = false;
  std::optional<Config> pending_ GUARDED_BY(mu_);
};

}  // namespace bottleneckd
