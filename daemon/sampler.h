// Sampler: runs every enabled collector once per tick, timing each, and turns
// failures into CollectorResult entries (success 0 + one log line when a
// collector's state changes) so one broken kernel file never stops sampling.
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

  // Fills *out with this tick's readings (out is reset first).
  void Take(Sample* out);

  std::vector<std::string> CollectorNames() const;

 private:
  struct Entry {
    std::unique_ptr<Collector> collector;
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
};

}  // namespace bottleneckd
