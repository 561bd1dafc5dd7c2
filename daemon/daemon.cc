#include "daemon/daemon.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "base/clock.h"
#include "base/log.h"
#include "daemon/tick_schedule.h"

namespace bottleneckd {

Daemon::Daemon(const Config& config, SnapshotStore* store, RunTracker* runs)
    : store_(store),
      runs_(runs),
      config_(config),
      fs_(std::make_unique<HostFs>(config.roots)),
      pipeline_(std::make_unique<TickPipeline>(fs_.get(), config)),
      self_fs_(HostRoots{}),
      self_limit_(config.limits) {
  // The soaker is held back until the first Tick, after
  // CalibrateSoakerInBackground had its chance to keep a calibration off the
  // start-up path.
  SourceConfig c = SourceConfigOf(config_, fs_.get(), false, false);
  SoakerOptions held = config_.soaker;
  held.mode = SoakerMode::kOff;
  c.soaker = &held;
  sources_.Sync(c);
  DropCaptureCapabilitiesOnce();
  RestoreDeliveryCost();
}

Daemon::~Daemon() {
  KeepDeliveryCost();
  calibration_.reset();  // cancelled within a millisecond
  sources_.StopAll();
}

void Daemon::SyncSources() {
  const bool run = runs_ && runs_->active();
  // The processes the runs follow: the threads collector's targets from
  // this tick (offcpu then follows their threads).
  const std::vector<int> followed = runs_ ? runs_->FollowedPids() : std::vector<int>();
  pipeline_->sampler().SetRunPids(followed);
  SourceConfig c = SourceConfigOf(config_, fs_.get(), run, Calibrating());
  c.run_follows = !followed.empty();
  sources_.Sync(c);
  DropCaptureCapabilitiesOnce();
}

void Daemon::DropCaptureCapabilitiesOnce() {
  if (capabilities_dropped_ || !config_.drop_capabilities || !sources_.Find("pcap")) return;
  std::string what;
  Status d = DropCaptureCapabilities(&what);
  capabilities_dropped_ = true;  // tried: said once either way
  if (!d.ok()) {
    Log(LogLevel::kWarn, "could not drop the capture capabilities", {{"err", d.ToString()}});
    return;
  }
  Log(LogLevel::kInfo, "capabilities no longer needed after opening the captures", {{"dropped", what}});
}

namespace {

// Whether a soaker with options `o` over `fs` would have to measure its
// calibration before its first reading: it runs on this host (over recorded
// or fixture trees the soaker measures nothing of theirs) and has no usable
// calibration stored, by the soaker's own rule (what its Start() loads).
bool SoakerNeedsCalibration(const Config& c, const HostFs* fs) {
  if (c.soaker.mode == SoakerMode::kOff) return false;
  if (c.roots.procfs != "/proc" || c.roots.sysfs != "/sys") return false;
  Soaker probe(fs, c.soaker);
  return !probe.StoredCalibrationUsable();
}

}  // namespace

void Daemon::PrepareSoaker() {
  const SoakerOptions& o = config_.soaker;
  if (o.mode != SoakerMode::kRuns || sources_.Find("soaker") || !SoakerNeedsCalibration(config_, fs_.get())) return;
  Log(LogLevel::kInfo,
      "calibrating the soaker before any run (none stored, stale, or older than soaker.calibration_max_age)",
      {{"state_dir", o.state_dir}, {"per_cpu", std::to_string(o.calibration_seconds) + "s"}});
  Soaker calibrator(fs_.get(), o);
  SoakerCalibrationFile f;
  Status s = calibrator.Calibrate(&f);
  if (!s.ok()) Log(LogLevel::kWarn, "soaker calibration", {{"err", s.ToString()}});
}

void Daemon::CalibrateSoakerInBackground() {
  if (sources_.Find("soaker") || calibration_ || !SoakerNeedsCalibration(config_, fs_.get())) return;
  calibration_ = std::make_unique<SoakerBackgroundCalibration>(config_.roots, config_.soaker);
}

void Daemon::Stop() {
  MutexLock l(&mu_);
  stop_ = true;
  cv_.NotifyAll();
}

void Daemon::Reconfigure(const Config& config) {
  MutexLock l(&mu_);
  pending_ = config;
  cv_.NotifyAll();
}

void Daemon::ApplyPending() {
  std::optional<Config> next;
  {
    MutexLock l(&mu_);
    next.swap(pending_);
  }
  if (!next) return;
  bool roots_changed = next->roots.procfs != config_.roots.procfs || next->roots.sysfs != config_.roots.sysfs ||
                       next->roots.ethtool != config_.roots.ethtool;
  bool drop = config_.drop_capabilities;
  config_ = *next;
  config_.drop_capabilities = drop;
  // The soaker reads the old HostFs until SyncSources restarts it over the
  // new one (its calibration is loaded from the state directory, not redone).
  std::unique_ptr<HostFs> old_fs = std::move(fs_);
  fs_ = std::make_unique<HostFs>(config_.roots);
  KeepDeliveryCost();  // what the old analyzer learned, read back below
  state_writer_.Flush();
  pipeline_ = std::make_unique<TickPipeline>(fs_.get(), config_, roots_changed ? nullptr : pipeline_->previous());
  RestoreDeliveryCost();
  self_limit_.SetOptions(config_.limits);
  pipeline_->sampler().SetBackoff(self_limit_.state().backoff);
  SyncSources();
  old_fs.reset();
  Log(LogLevel::kInfo, "configuration applied",
      {{"file", config_.file}, {"interval", std::to_string(config_.interval_seconds) + "s"}});
}

void Daemon::Tick() {
  stages_.Start();
  SyncSources();                                       // a run may have started or stopped since the last tick
  if (runs_ && runs_->starts() != run_starts_seen_) {  // its target may be a process just started
    run_starts_seen_ = runs_->starts();
    pipeline_->sampler().Rescan();
  }
  stages_.Mark("sources' options");
  std::shared_ptr<Snapshot> snap = pipeline_->Read();
  stages_.Mark("collectors");
  sources_.Read(&snap->sample);  // after the collectors: offcpu follows the threads collector's threads
  stages_.Mark("continuous sources");
  for (const CollectorResult& r : snap->sample.results) stages_.Collector(r.name, r.duration_seconds);
  if (Calibrating()) {
    snap->soaker_state = calibration_->note();
    // Its spin is the daemon's, not the host's: the first windows named the
    // calibrated CPUs saturated (lab.echo's light run walked the stacks of
    // the lab's shell tools on the CPU they named).
    if (!snap->sample.soaker) calibration_->Read(&snap->sample.soaker.emplace());
  }
  pipeline_->Finish(snap, config_.interval_seconds);
  stages_.Mark("analysis");
  if (pipeline_->analysed() && ++windows_since_kept_ >= kDeliveryStoreWindows) KeepDeliveryCost();
  stages_.Mark("delivery cost file");
  if (runs_ && snap->verdict && pipeline_->analysed()) {
    double t = static_cast<double>(snap->sample.wall_ns) / 1e9;
    runs_->OnWindow(PointOfWindow(t, pipeline_->analyzer().last_signals(), *snap->verdict, snap->cpu_budget),
                    *snap->verdict, snap->window->captures, snap->sample.profile ? &*snap->sample.profile : nullptr,
                    snap->sample.offcpu ? &snap->window->offcpu_stacks : nullptr);
  }
  if (runs_) snap->active_runs = runs_->ActiveNames();
  stages_.Mark("runs and their store");
  CheckSelfLimit(snap.get());
  SteerProfile(&sources_, *snap, config_.profile.stacks == ProfileStacks::kRuns && runs_ != nullptr && runs_->active());
  store_->Publish(std::move(snap));
  stages_.Mark("self limit and publish");
}

void Daemon::Run() {
  TickSchedule schedule(config_.interval_seconds);
  int64_t k = 0;
  // A tick taken just before Run() (so the first scrape has data) counts as
  // tick 0 of the schedule.
  bool ticked = pipeline_->previous() != nullptr;
  for (;;) {
    if (!ticked) {
      Tick();
      // The skip warning (TickSchedule::After) says that ticks were lost;
      // this one says where the tick that overran spent its time.
      if (stages_.total_seconds() > config_.interval_seconds)
        Log(LogLevel::kWarn, "a tick took longer than its interval",
            {{"took", std::to_string(stages_.total_seconds()) + "s"}, {"slowest", stages_.Slowest()}});
    }
    ticked = false;
    k = schedule.After(k, TickSchedule::Clock::now());
    // Wait for the tick; a reload applies at once but keeps the schedule
    // unless the interval itself changed.
    for (;;) {
      {
        MutexLock l(&mu_);
        bool due = false;
        while (!stop_ && !pending_.has_value() && !due) due = !cv_.WaitUntil(&mu_, schedule.Due(k));
        if (stop_) return;
        if (!pending_.has_value()) break;  // the tick's time came
      }
      ApplyPending();
      if (config_.interval_seconds != schedule.interval()) {
        schedule = TickSchedule(config_.interval_seconds);
        k = 0;
        break;
      }
    }
  }
}

}  // namespace bottleneckd
