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
      sampler_(std::make_unique<Sampler>(fs_.get(), config.collectors)),
      analyzer_(std::make_unique<Analyzer>(config.verdict)),
      self_fs_(HostRoots{}),
      self_limit_(config.limits) {
  StartCapture();  // first: it may drop capabilities, which later threads then never hold
  SyncIrqTime();
  SyncOffCpu();
  SyncProfile();
  RestoreDeliveryCost();
  // The soaker starts at the first Tick, after CalibrateSoakerInBackground
  // had its chance to keep a calibration off the start-up path.
}

Daemon::~Daemon() {
  KeepDeliveryCost();
  if (calibrator_) calibrator_->CancelCalibration();
  if (calibration_thread_.joinable()) calibration_thread_.join();
  if (soaker_) soaker_->Stop();
  if (irqtime_) irqtime_->Stop();
  if (offcpu_) offcpu_->Stop();
  if (profile_) profile_->Stop();
  if (capture_) capture_->Stop();
}

void Daemon::SyncSoaker() {
  const SoakerOptions& o = config_.soaker;
  bool run = config_.run_active || (runs_ && runs_->active());
  bool want = o.mode == SoakerMode::kAlways || (o.mode == SoakerMode::kRuns && run);
  if (!want) {
    if (soaker_) {
      soaker_->Stop();
      soaker_.reset();
      Log(LogLevel::kInfo, "soaker stopped");
    }
    return;
  }
  if (soaker_ && soaker_->running()) return;
  if (calibrating_.load()) {  // it starts on the calibration being measured
    if (!said_soaker_waits_) Log(LogLevel::kInfo, "the soaker starts when its calibration is done");
    said_soaker_waits_ = true;
    return;
  }
  soaker_ = std::make_unique<Soaker>(fs_.get(), o);
  Status s = soaker_->Start();
  if (!s.ok()) {
    // Retried every tick (the cause may go away); said once, then hourly.
    uint64_t held_back = 0;
    if (soaker_failure_.Admit(s.ToString(), static_cast<double>(MonotonicNanos()) / 1e9, &held_back)) {
      if (held_back == 0)
        Log(LogLevel::kError, "soaker did not start; CPU idle comes from accounting only", {{"err", s.ToString()}});
      else
        Log(LogLevel::kWarn, "soaker still does not start; CPU idle comes from accounting only",
            {{"err", s.ToString()}, {"failed_ticks_not_logged", std::to_string(held_back)}});
    }
    soaker_.reset();
    return;
  }
  soaker_failure_.Reset();
  Log(LogLevel::kInfo, "soaker started", {{"mode", SoakerModeName(o.mode)}, {"state_dir", o.state_dir}});
}

void Daemon::SyncIrqTime() {
  IrqTimeOptions o = config_.irqtime;
  o.mode = IrqTimeWanted(config_);
  if (!IrqTimeToLoad(config_)) {
    if (irqtime_) Log(LogLevel::kInfo, "irqtime unloaded", {{"mode", LoadModeName(o.mode)}});
    irqtime_.reset();
    irqtime_tried_ = false;
    irqtime_error_ = Status::OK();
    return;
  }
  const bool same = irqtime_options_.btf_path == o.btf_path && irqtime_options_.mode == o.mode;
  if (irqtime_tried_ && same) return;  // loaded, or refused once and said so
  irqtime_.reset();
  irqtime_options_ = o;
  irqtime_tried_ = true;
  auto src = std::make_unique<IrqTimeSource>(o);
  Status s = src->Start();
  if (!s.ok()) {
    irqtime_error_ = o.mode == IrqTimeMode::kOn ? s : Status::OK();
    Log(o.mode == IrqTimeMode::kOn ? LogLevel::kError : LogLevel::kInfo,
        "irqtime off: interrupt time is not measured; it comes from /proc/stat and the soaker",
        {{"err", s.ToString()}, {"mode", LoadModeName(o.mode)}});
    return;
  }
  irqtime_error_ = Status::OK();
  Log(LogLevel::kInfo, "irqtime loaded: measuring hardirq and softirq time with eBPF",
      {{"attach", src->attach_note()}});
  irqtime_ = std::move(src);
}

void Daemon::SyncOffCpu() {
  const CollectorsSection& c = config_.collectors;
  const bool live = config_.roots.procfs == "/proc" && config_.roots.sysfs == "/sys";
  const bool want =
      live && CollectorEnabled(c, "offcpu", true) && CollectorEnabled(c, "threads", true) && !c.threads.targets.empty();
  if (!want) {
    if (offcpu_) Log(LogLevel::kInfo, "offcpu unloaded: no target threads to follow");
    offcpu_.reset();
    offcpu_tried_ = false;
    return;
  }
  if (offcpu_tried_) return;  // loaded, or refused once and said so
  offcpu_tried_ = true;
  auto src = std::make_unique<OffCpuSource>();
  if (Status s = src->Start(); !s.ok()) {
    Log(LogLevel::kInfo, "offcpu off: where the target threads wait is sampled from /proc (wchan, syscall)",
        {{"err", s.ToString()}});
    return;
  }
  Log(LogLevel::kInfo, "offcpu loaded: measuring where the target threads wait with eBPF (sched_switch)");
  offcpu_ = std::move(src);
}

void Daemon::SyncProfile() {
  const ProfileOptions o = config_.profile;
  if (!ProfileToLoad(config_)) {
    if (profile_) Log(LogLevel::kInfo, "profile unloaded", {{"mode", LoadModeName(o.mode)}});
    profile_.reset();
    profile_tried_ = false;
    profile_error_ = Status::OK();
    return;
  }
  if (profile_tried_ && profile_options_ == o) return;  // loaded, or refused once and said so
  profile_.reset();
  profile_options_ = o;
  profile_tried_ = true;
  auto src = std::make_unique<ProfileSource>(o);
  if (Status s = src->Start(); !s.ok()) {
    profile_error_ = o.mode == ProfileMode::kOn ? s : Status::OK();
    Log(o.mode == ProfileMode::kOn ? LogLevel::kError : LogLevel::kInfo,
        "profile off: no on-CPU stacks in the evidence", {{"err", s.ToString()}, {"mode", LoadModeName(o.mode)}});
    return;
  }
  profile_error_ = Status::OK();
  Log(LogLevel::kInfo, "profile loaded: sampling on-CPU stacks with eBPF",
      {{"frequency_hz", std::to_string(o.frequency_hz)}, {"stacks", ProfileStacksName(o.stacks)}});
  profile_ = std::move(src);
}

void Daemon::SteerProfile(const Snapshot& snap) {
  if (!profile_) return;
  std::vector<int> cpus, tids;
  if (snap.sample.threads)
    for (const ThreadSample& t : *snap.sample.threads) tids.push_back(t.task.tid);
  // The CPU the published verdict names, while the last window's own
  // classification still has its label: hysteresis holds a label for a few
  // windows after its load is gone, and walking that CPU then kept the
  // stacks of whatever ran there next (lab.irqtime's light run after the
  // softirq run's interrupt cpu1: the lab's bash, awk and sed, 19 of 24 of
  // the run's stacks). Not the window's CPU alone: a window of the wait run
  // naming the generator's cpu0 had its stacks walked and named on the
  // echo's CPU, queueing the echo thread (runnable 12 %, two lab.echo runs).
  int cpu = -1;
  const bool held = snap.verdict && snap.window_verdict && snap.window_verdict->label != snap.verdict->label;
  if (snap.verdict && !held && ResourceCpu(snap.verdict->resource, &cpu)) cpus.push_back(cpu);
  const bool all = config_.profile.stacks == ProfileStacks::kRuns && runs_ != nullptr && runs_->active();
  if (Status s = profile_->SetWalk(cpus, tids, all); !s.ok())
    Log(LogLevel::kWarn, "profile: could not point the stack walks", {{"err", s.ToString()}});
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
  if (o.mode != SoakerMode::kRuns || soaker_ || !SoakerNeedsCalibration(config_, fs_.get())) return;
  Log(LogLevel::kInfo,
      "calibrating the soaker before any run (none stored, stale, or older than soaker.calibration_max_age)",
      {{"state_dir", o.state_dir}, {"per_cpu", std::to_string(o.calibration_seconds) + "s"}});
  Soaker calibrator(fs_.get(), o);
  SoakerCalibrationFile f;
  Status s = calibrator.Calibrate(&f);
  if (!s.ok()) Log(LogLevel::kWarn, "soaker calibration", {{"err", s.ToString()}});
}

void Daemon::CalibrateSoakerInBackground() {
  if (soaker_ || calibration_thread_.joinable() || !SoakerNeedsCalibration(config_, fs_.get())) return;
  const SoakerOptions& o = config_.soaker;
  calibration_fs_ = std::make_unique<HostFs>(config_.roots);
  calibrator_ = std::make_unique<Soaker>(calibration_fs_.get(), o);
  char per_cpu[32];
  std::snprintf(per_cpu, sizeof(per_cpu), "%gs", o.calibration_seconds);
  calibration_note_ = "calibrating since " + FormatUtc(WallSeconds()) + " (" + per_cpu +
                      " of CPU time per CPU, longer on a loaded host); until it is done the soaker does not run "
                      "and CPU idle comes from accounting only";
  Log(LogLevel::kInfo,
      "calibrating the soaker in the background (none stored, stale, or older than soaker.calibration_max_age); "
      "the soaker starts when it is done",
      {{"state_dir", o.state_dir}, {"per_cpu", per_cpu}});
  calibrating_.store(true);
  calibration_thread_ = std::thread([this] {
    int64_t t0 = MonotonicNanos();
    SoakerCalibrationFile f;
    Status s = calibrator_->Calibrate(&f);
    char took[32];
    std::snprintf(took, sizeof(took), "%.1fs", static_cast<double>(MonotonicNanos() - t0) / 1e9);
    if (s.ok()) {
      Log(LogLevel::kInfo, "soaker calibrated", {{"cpus", std::to_string(f.cpus.size())}, {"took", took}});
    } else {
      // Start() measures again (in the tick) when nothing usable was stored.
      Log(LogLevel::kWarn, "soaker calibration", {{"err", s.ToString()}, {"took", took}});
    }
    calibrating_.store(false);
  });
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
  // The soaker holds the old HostFs: stop it first; it restarts with the new
  // options (its calibration is loaded from the state directory, not redone).
  if (soaker_) {
    soaker_->Stop();
    soaker_.reset();
  }
  CaptureOptions old_capture = config_.collectors.pcap;
  bool capture_was_enabled = CaptureEnabled(config_.collectors);
  bool drop = config_.drop_capabilities;
  config_ = *next;
  config_.drop_capabilities = drop;
  ReconfigureCapture(old_capture, capture_was_enabled);
  fs_ = std::make_unique<HostFs>(config_.roots);
  sampler_ = std::make_unique<Sampler>(fs_.get(), config_.collectors);
  KeepDeliveryCost();  // what the old analyzer learned, read back below
  analyzer_ = std::make_unique<Analyzer>(config_.verdict);
  RestoreDeliveryCost();
  self_limit_.SetOptions(config_.limits);
  sampler_->SetBackoff(self_limit_.state().backoff);
  SyncIrqTime();
  SyncOffCpu();
  SyncProfile();
  SyncSoaker();
  // A window across different roots would difference unrelated counters.
  if (roots_changed) prev_.reset();
  Log(LogLevel::kInfo, "configuration applied",
      {{"file", config_.file}, {"interval", std::to_string(config_.interval_seconds) + "s"}});
}

void Daemon::ReadSource(Source* source, Sample* sample) {
  if (!source) return;
  int64_t t0 = MonotonicNanos();
  Status s = source->Read(sample);
  CollectorResult r;
  r.name = source->name();
  r.success = s.ok();
  if (!s.ok()) r.error = s.message();
  r.duration_seconds = static_cast<double>(MonotonicNanos() - t0) / 1e9;
  sample->results.push_back(std::move(r));
}

void Daemon::Tick() {
  SyncSoaker();                                        // a run may have started or stopped since the last tick
  if (runs_ && runs_->starts() != run_starts_seen_) {  // its target may be a process just started
    run_starts_seen_ = runs_->starts();
    sampler_->Rescan();
  }
  auto snap = std::make_shared<Snapshot>();
  sampler_->Take(&snap->sample, prev_ ? &prev_->sample : nullptr);
  ReadSource(soaker_.get(), &snap->sample);
  ReadSource(irqtime_.get(), &snap->sample);
  ReadSource(offcpu_.get(), &snap->sample);  // after the threads collector: it follows its threads
  ReadSource(profile_.get(), &snap->sample);
  if (snap->sample.soaker && snap->sample.soaker->caveat != soaker_caveat_) {  // say it once, when it changes
    soaker_caveat_ = snap->sample.soaker->caveat;
    if (!soaker_caveat_.empty()) Log(LogLevel::kWarn, "soaker caveat", {{"caveat", soaker_caveat_}});
  }
  ReadCapture(&snap->sample);
  if (calibrating_.load()) snap->soaker_state = calibration_note_;
  snap->interval_seconds = config_.interval_seconds;
  snap->per_cpu_irq_matrix = config_.collectors.interrupts.per_cpu_matrix;
  CompleteSnapshot(prev_.get(), config_.bus_model, snap.get());
  // A window that lacks the backed-off collectors' rates is not analysed: the
  // verdict stays the last one made from every collector, and runs get only
  // whole windows.
  const bool partial = HasCarriedReadings(snap->sample);
  if (prev_ && partial) {
    snap->verdict = prev_->verdict;
    snap->window_verdict = prev_->window_verdict;
    snap->plateau = prev_->plateau;
    snap->cpu_budget = prev_->cpu_budget;
    snap->delivery_cost = prev_->delivery_cost;
  } else if (prev_) {
    AnalyzeSnapshot(analyzer_.get(), snap.get());
    if (++windows_since_kept_ >= kDeliveryStoreWindows) KeepDeliveryCost();
  }
  if (runs_ && snap->verdict && !partial) {
    double t = static_cast<double>(snap->sample.wall_ns) / 1e9;
    runs_->OnWindow(PointOfWindow(t, analyzer_->last_signals(), *snap->verdict, snap->cpu_budget), *snap->verdict,
                    snap->window->captures, snap->sample.profile ? &*snap->sample.profile : nullptr);
  }
  if (runs_) snap->active_runs = runs_->ActiveNames();
  CheckSelfLimit(snap.get());
  SteerProfile(*snap);
  prev_ = snap;
  store_->Publish(std::move(snap));
}

namespace {

// Sets snap->bus_paths: the previous snapshot's while the PCI topology is
// the same object, else built anew (and logged once).
void UpdateBusPaths(const Snapshot* prev, Snapshot* snap) {
  const auto& topo = snap->sample.pci;
  if (!topo) return;
  if (prev && prev->sample.pci == topo && prev->bus_paths) {
    snap->bus_paths = prev->bus_paths;
    return;
  }
  auto paths = std::make_shared<std::vector<BusPath>>(BuildBusPaths(*topo));
  // Said once per topology: what each NIC's path is, and what is unknown.
  for (const std::string& p : topo->problems) Log(LogLevel::kWarn, "pci topology", {{"problem", p}});
  for (const BusPath& p : *paths) {
    for (const PciDevice* d : topo->PathToRoot(p.device)) {
      if (d->missing.empty()) continue;
      std::string facts;
      for (const std::string& f : d->missing) facts += (facts.empty() ? "" : ",") + f;
      // Why: no config file, unreadable, cut short, or past 64 bytes without root.
      const std::string why = d->missing_reason.empty() ? "config space incomplete" : d->missing_reason;
      Log(LogLevel::kWarn, "PCI facts unknown: " + why,
          {{"interface", p.interface}, {"device", d->address}, {"missing", facts}});
    }
    if (p.links.empty()) {
      Log(LogLevel::kInfo, "bus path", {{"interface", p.interface}, {"device", p.device}, {"links", "none"}});
      continue;
    }
    const BusLink& n = p.links[p.narrowest];
    Log(LogLevel::kInfo, "bus path",
        {{"interface", p.interface},
         {"device", p.device},
         {"links", std::to_string(p.links.size())},
         {"narrowest", n.device},
         {"bus", n.KindLabel()},
         {"speed", n.SpeedLabel()},
         {"width", n.WidthLabel()},
         {"emulated", n.emulated ? "true" : "false"}});
    for (const BusLink& l : p.links) {
      if (l.downtrained)
        Log(LogLevel::kWarn, "PCIe link trained below its capability",
            {{"interface", p.interface},
             {"device", l.device},
             {"speed", l.SpeedLabel()},
             {"width", l.WidthLabel()},
             {"max_speed", PcieSpeedName(l.max_speed)},
             {"max_width", std::string("x").append(std::to_string(l.max_width))}});
      for (const std::string& a : l.assumptions)
        Log(LogLevel::kInfo, "bus model assumption",
            {{"interface", p.interface}, {"device", l.device}, {"assumed", a}});
    }
  }
  snap->bus_paths = std::move(paths);
}

}  // namespace

void CompleteSnapshot(const Snapshot* prev, const BusModelOptions& bus_model, Snapshot* snap) {
  UpdateBusPaths(prev, snap);
  if (prev) {
    snap->samples_total = prev->samples_total;
    snap->counter_anomalies_total = prev->counter_anomalies_total;
    snap->capture_drops_total = prev->capture_drops_total;
    Window w;
    if (ComputeWindow(prev->sample, snap->sample, &w)) {
      for (const CounterIssue& i : w.issues) {
        const char* kind = i.kind == CounterAnomaly::kWrap ? "wrap" : "reset";
        ++snap->counter_anomalies_total[{i.source, kind}];
        Log(i.kind == CounterAnomaly::kWrap ? LogLevel::kDebug : LogLevel::kInfo, "counter went backwards",
            {{"source", i.source}, {"counter", i.key}, {"kind", kind}});
      }
      for (const CaptureWindow& c : w.captures) {
        snap->capture_drops_total[{c.interface, "buffer"}] += c.buffer_drops.value_or(0);
        snap->capture_drops_total[{c.interface, "interface"}] += c.interface_drops.value_or(0);
      }
      // A tick whose NIC readings were carried has no NIC rates: the bus
      // estimate stays the last one made from real readings (not zero traffic).
      if (snap->bus_paths && snap->sample.pci && HasCarriedReadings(snap->sample))
        snap->bus = prev->bus;
      else if (snap->bus_paths && snap->sample.pci)
        snap->bus = EstimateBus(*snap->bus_paths, w.nics, *snap->sample.pci, bus_model);
      snap->window = std::move(w);
    }
  }
  ++snap->samples_total;
}

void AnalyzeSnapshot(Analyzer* analyzer, Snapshot* snap) {
  if (!snap->window) return;
  Analysis a =
      analyzer->Analyze({*snap->window, snap->sample, snap->bus_paths.get(), snap->bus ? &*snap->bus : nullptr});
  snap->verdict = std::move(a.verdict);
  snap->window_verdict = std::move(a.window);
  snap->plateau = std::move(a.plateau);
  snap->cpu_budget = std::move(a.cpu_budget);
  snap->delivery_cost = analyzer->delivery_cost();
}

void Daemon::Run() {
  TickSchedule schedule(config_.interval_seconds);
  int64_t k = 0;
  // A tick taken just before Run() (so the first scrape has data) counts as
  // tick 0 of the schedule.
  bool ticked = prev_ != nullptr;
  for (;;) {
    if (!ticked) Tick();
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
