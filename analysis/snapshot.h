// Snapshot: what the exporters read — the latest Sample, the Window ending at
// it, the analysis of that window, and cumulative daemon facts. Published
// whole by the sampling loop and read by scrapes without blocking it (a
// shared_ptr swap under a mutex). Here, with the stage whose answer it
// completes, so exporters/ and control/ read it without knowing daemon/.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/cpu_budget.h"
#include "analysis/delivery_cost.h"
#include "analysis/plateau.h"
#include "analysis/verdict.h"
#include "analysis/wait_class.h"
#include "base/mutex.h"
#include "bus/bus_model.h"
#include "bus/bus_path.h"
#include "collectors/self_limit.h"
#include "collectors/self_process.h"
#include "sources/sample.h"
#include "window/window.h"

namespace bottleneckd {

struct Snapshot {
  Sample sample;
  std::optional<Window> window;
  uint64_t samples_total = 0;
  // Counter wraps/resets seen since start, by (source, "wrap"|"reset").
  std::map<std::pair<std::string, std::string>, uint64_t> counter_anomalies_total;
  // Live capture drops since start, by (interface, "buffer"|"interface"):
  // the windows' pcap_stats deltas (32-bit wraps handled), summed.
  std::map<std::pair<std::string, std::string>, uint64_t> capture_drops_total;
  double interval_seconds = 1;
  bool per_cpu_irq_matrix = false;
  // Every NIC's bus path, built from sample.pci (shared while it is unchanged).
  std::shared_ptr<const std::vector<BusPath>> bus_paths;
  // The bus model over the window's NIC rates (bus/bus_model.h); set with
  // the window when the pci collector gave a topology.
  std::optional<BusEstimate> bus;
  // The verdict of the window (after hysteresis) and the plateau detector
  // over the recent windows; unset until there is a window.
  std::optional<Verdict> verdict;
  // The window's own classification before hysteresis (Analysis::window):
  // its scores are bottleneckd_verdict_score_ratio.
  std::optional<Verdict> window_verdict;
  std::optional<Plateau> plateau;
  // The names of the runs active at this tick (RunTracker::ActiveNames; not
  // the window run nor segments): bottleneckd_run_active.
  std::vector<std::string> active_runs;
  // Each CPU's time budget over the window (analysis/cpu_budget.h); empty
  // until there is an analysed window.
  std::vector<CpuBudget> cpu_budget;
  // Each target thread's time off the CPU by wait class (analysis/
  // wait_class.h); empty until there is an analysed window.
  std::vector<ThreadWaitShares> thread_waits;
  // And their seconds by class since the analysis first saw each thread
  // (bottleneckd_thread_wait_seconds_total).
  std::vector<ThreadWaitSeconds> thread_wait_seconds;
  // The host's learned interrupt delivery cost after the window
  // (analysis/delivery_cost.h); unset until there is an analysed window.
  std::optional<DeliveryCost> delivery_cost;
  // What the daemon says of its soaker beyond its reading, e.g. that it is
  // still calibrating in the background (shown on "/"); "" when nothing.
  std::string soaker_state;
  // The daemon's own usage (the real /proc/self; process_* metrics) and the
  // self-limit watchdog's view of it; unset in replays and when unreadable.
  std::optional<SelfProcess> self;
  struct SelfLimitReport {
    SelfLimitOptions budget;
    SelfLimitState state;
    std::vector<std::string> collectors;  // the ones that back off by state.backoff
  };
  std::optional<SelfLimitReport> self_limit;
};

// The latest Snapshot. Thread-safe: the sampling loop publishes, any number of
// scrapes read at the same time.
class SnapshotStore {
 public:
  void Publish(std::shared_ptr<const Snapshot> s) LOCKS_EXCLUDED(mu_) {
    MutexLock l(&mu_);
    latest_ = std::move(s);
  }
  // Null until the first sample.
  std::shared_ptr<const Snapshot> Latest() const LOCKS_EXCLUDED(mu_) {
    MutexLock l(&mu_);
    return latest_;
  }

 private:
  mutable Mutex mu_;
  std::shared_ptr<const Snapshot> latest_ GUARDED_BY(mu_);
};

}  // namespace bottleneckd
