// Sampler: runs every enabled collector once per tick, timing each, and turns
// failures into CollectorResult entries (success 0 + one log line when a
// collector's state changes) so one broken kernel file never stops sampling.
// Under the self-limit watchdog's back-off (collectors/self_limit.h) the expensive
// collectors (CollectorInfo::carry) are read only every backoff-th tick; on
// the others their last reading is carried from the previous sample.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "collectors/collectors_config.h"
#include "collectors/host_fs.h"
#include "sources/sample.h"

namespace bottleneckd {

class Sampler {
 public:
  // `fs` must outlive the Sampler.
  Sampler(const HostFs* fs, const CollectorsConfig& config);

  // Fills *out with this tick's readings (out is reset first). `prev` is the
  // previous tick's sample (null: none, every collector is read): a backed-off
  // collector that skips this tick gets its part and its CollectorResult from
  // it, marked carried, with the time it was really read.
  void Take(Sample* out, const Sample* prev = nullptr);
  // Every collector's Rescan (collectors/collector.h): a run started.
  void Rescan() {
    for (Entry& e : entries_) e.collector->Rescan();
  }
  // Every collector's SetRunPids (collectors/collector.h).
  void SetRunPids(const std::vector<int>& pids) {
    for (Entry& e : entries_) e.collector->SetRunPids(pids);
  }

  // From the next Take, the expensive collectors are read every `factor`-th
  // tick (1: every tick).
  void SetBackoff(int factor) { backoff_ = factor < 1 ? 1 : factor; }
  int backoff() const { return backoff_; }

  std::vector<std::string> CollectorNames() const;
  // The enabled collectors that back off (in sampling order).
  std::vector<std::string> BackoffCollectorNames() const;

 private:
  struct Entry {
    std::unique_ptr<Collector> collector;
    const CollectorInfo* info;
    int last_state = -1;  // -1 unknown, 0 failing, 1 ok: log only on changes
    uint64_t read_errors_total = 0;
  };
  // Logs each left-out file once (bounded: past kMaxLoggedFiles, once more
  // saying so), with the collector and the reason.
  void LogReadIssues(const std::string& collector, const std::vector<ReadIssue>& issues);
  static constexpr size_t kMaxLoggedFiles = 4096;

  const HostFs* fs_;
  std::vector<Entry> entries_;
  std::set<std::string> logged_files_;
  int backoff_ = 1;
  uint64_t ticks_ = 0;  // Take calls
};

}  // namespace bottleneckd
