// TickPipeline: one tick, read -> sample -> window -> analysis, the one path
// of the live daemon (Daemon::Tick), `bottleneckd record` and `--replay`
// (daemon/replay.h), so a recording replays to the windows and verdicts the
// recorder computed:
//
//   auto snap = pipeline.Read();          // the polled collectors (Sampler)
//   sources.Read(&snap->sample);           // live: SourceSet; replay: ReadRecordedSources
//   pipeline.Finish(snap, interval);       // bus paths, window, verdict, plateau
//
// What differs between the three is only where the readings come from: the
// live host (HostFs), the host while it is written down (RecordingFs and each
// source's codec), or a recording (ReplayFs and the same codecs).
#pragma once

#include <memory>

#include "analysis/analyzer.h"
#include "analysis/snapshot.h"
#include "bus/bus_model.h"
#include "collectors/host_fs.h"
#include "daemon/config.h"
#include "daemon/sampler.h"
#include "sources/source_set.h"

namespace bottleneckd {

// Completes a Snapshot whose sample is taken (TickPipeline::Finish):
// bus_paths (prev's while sample.pci is the same topology object, else built
// anew and logged once), samples_total and counter_anomalies_total carried on
// from prev, and the Window from prev with its bus estimate. prev may be null
// (the first tick: no window).
void CompleteSnapshot(const Snapshot* prev, const BusModelOptions& bus_model, Snapshot* snap);

// Sets snap->verdict and snap->plateau from analyzer over snap's window;
// leaves them unset without a window.
void AnalyzeSnapshot(Analyzer* analyzer, Snapshot* snap);

// The SourceConfig (sources/source_entry.h) of a config: its sources'
// options, whether its roots are the live host's, over `fs`.
SourceConfig SourceConfigOf(const Config& c, const HostFs* fs, bool run_active, bool soaker_calibrating);

// Points the profiler's stack walks (when it runs in `sources`) for the
// next tick: the CPU the snapshot's verdict names and the target threads,
// and every CPU when walk_all (a run with collectors.profile.stacks: runs).
void SteerProfile(SourceSet* sources, const Snapshot& snap, bool walk_all);

class TickPipeline {
 public:
  // `fs` (the collectors' files) must outlive the pipeline. `previous`: the
  // snapshot the first window starts from (a reload keeps the daemon's).
  TickPipeline(const HostFs* fs, const Config& config, std::shared_ptr<const Snapshot> previous = nullptr);

  // A new snapshot holding the polled collectors' sample (a backed-off
  // collector's reading carried from the previous snapshot).
  std::shared_ptr<Snapshot> Read();
  // Completes snap (CompleteSnapshot), analyses its window unless the
  // window lacks the backed-off collectors' rates (then the last verdict,
  // plateau and budget are kept: runs get only whole windows), and makes it
  // the previous snapshot.
  void Finish(const std::shared_ptr<Snapshot>& snap, double interval_seconds);
  // Whether the last Finish analysed a window.
  bool analysed() const { return analysed_; }

  // A window across different roots would difference unrelated counters.
  void ForgetPrevious() { prev_.reset(); }
  const std::shared_ptr<const Snapshot>& previous() const { return prev_; }
  Sampler& sampler() { return sampler_; }
  Analyzer& analyzer() { return *analyzer_; }

 private:
  Sampler sampler_;
  std::unique_ptr<Analyzer> analyzer_;
  BusModelOptions bus_model_;
  bool per_cpu_irq_matrix_;
  std::shared_ptr<const Snapshot> prev_;
  bool analysed_ = false;
};

}  // namespace bottleneckd
