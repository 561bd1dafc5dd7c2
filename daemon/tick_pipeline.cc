#include "daemon/tick_pipeline.h"

#include "base/log.h"

namespace bottleneckd {

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
  snap->thread_waits = std::move(a.thread_waits);
  snap->thread_wait_seconds = std::move(a.thread_wait_seconds);
  snap->delivery_cost = analyzer->delivery_cost();
}

void SteerProfile(SourceSet* sources, const Snapshot& snap, bool walk_all) {
  auto* profile = dynamic_cast<ProfileSource*>(sources->Find("profile"));
  if (!profile) return;
  std::vector<int> cpus, tids;
  if (snap.sample.threads)
    for (const ThreadSample& t : *snap.sample.threads)
      if (!t.run_only) tids.push_back(t.task.tid);  // a run's command is no target (collectors/threads.h)
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
  if (Status s = profile->SetWalk(cpus, tids, walk_all); !s.ok())
    Log(LogLevel::kWarn, "profile: could not point the stack walks", {{"err", s.ToString()}});
}

SourceConfig SourceConfigOf(const Config& c, const HostFs* fs, bool run_active, bool soaker_calibrating) {
  SourceConfig s;
  s.live = c.roots.procfs == "/proc" && c.roots.sysfs == "/sys";
  s.fs = fs;
  s.collectors = &c.collectors;
  s.capture = &c.collectors.pcap;
  s.soaker = &c.soaker;
  s.irqtime = &c.irqtime;
  s.profile = &c.profile;
  s.run_active = run_active || c.run_active;
  s.soaker_calibrating = soaker_calibrating;
  return s;
}

TickPipeline::TickPipeline(const HostFs* fs, const Config& config, std::shared_ptr<const Snapshot> previous)
    : sampler_(fs, config.collectors),
      analyzer_(std::make_unique<Analyzer>(config.verdict)),
      bus_model_(config.bus_model),
      per_cpu_irq_matrix_(config.collectors.interrupts.per_cpu_matrix),
      prev_(std::move(previous)) {}

std::shared_ptr<Snapshot> TickPipeline::Read() {
  auto snap = std::make_shared<Snapshot>();
  sampler_.Take(&snap->sample, prev_ ? &prev_->sample : nullptr);
  return snap;
}

void TickPipeline::Finish(const std::shared_ptr<Snapshot>& snap, double interval_seconds) {
  snap->interval_seconds = interval_seconds;
  snap->per_cpu_irq_matrix = per_cpu_irq_matrix_;
  CompleteSnapshot(prev_.get(), bus_model_, snap.get());
  analysed_ = false;
  if (prev_ && HasCarriedReadings(snap->sample)) {
    snap->verdict = prev_->verdict;
    snap->window_verdict = prev_->window_verdict;
    snap->plateau = prev_->plateau;
    snap->cpu_budget = prev_->cpu_budget;
    snap->thread_waits = prev_->thread_waits;
    snap->thread_wait_seconds = prev_->thread_wait_seconds;
    snap->delivery_cost = prev_->delivery_cost;
  } else if (prev_) {
    AnalyzeSnapshot(analyzer_.get(), snap.get());
    analysed_ = snap->window.has_value();
  }
  prev_ = snap;
}

}  // namespace bottleneckd
