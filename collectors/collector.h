// Collector: one source of readings (a kernel file family) filling its part of a
// tick's HostReadings. A collector never derives rates (that is window/) and never
// throws; Collect returns a Status and leaves its part unset on
// failure. Collectors are created by name from the registry below; each keeps
// reusable buffers, so one instance must not be used from two threads at once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "collectors/host_fs.h"

namespace bottleneckd {

struct HostReadings;
struct CollectorsConfig;

// How one collector (or continuous source) did this tick, for
// bottleneckd_collector_success / _duration_seconds.
struct CollectorResult {
  std::string name;
  bool success = false;
  double duration_seconds = 0;
  std::string error;               // Status::ToString() when !success
  uint64_t read_errors = 0;        // files left out this tick (degraded when > 0)
  uint64_t read_errors_total = 0;  // since the daemon started
  // When its part of the sample was read (CLOCK_MONOTONIC), set only when
  // `carried`; otherwise it is the sample's own time. A collector backed off by the self-limit watchdog
  // (collectors/self_limit.h) is not read every tick: on a tick it skips, its
  // last reading is carried into the sample (`carried`) with its old time,
  // and window/ differences it over the time it really spans.
  int64_t read_mono_ns = 0;
  bool carried = false;
};

// A file a collector could not read or parse while the rest of its data
// stood: the values it holds are left out of the readings, never guessed
// (a garbled rx_packets, an unreadable AER file, a vendor that is not hex).
struct ReadIssue {
  std::string file;
  std::string reason;
};

// Appends `file` left out because of `why` to *issues, unless `why` is
// NotFound: a file that is not there has nothing to say.
inline void AddReadIssue(std::vector<ReadIssue>* issues, std::string file, const Status& why) {
  if (issues && !why.IsNotFound()) issues->push_back({std::move(file), why.ToString()});
}

class Collector {
 public:
  virtual ~Collector() = default;
  virtual std::string_view name() const = 0;
  // Reads this tick's values into *out. NotSupported means the kernel lacks the
  // files (a debug line, not an error); anything else non-OK is a failure.
  // Files left out of an otherwise good read go to read_issues().
  virtual Status Collect(const HostFs& fs, HostReadings* out) = 0;
  // A run started: what the collector learned of the host's processes may be
  // stale (its target may have started since), so its next Collect looks
  // again. Most collectors keep nothing of the kind.
  virtual void Rescan() {}
  // The processes the active runs follow (RunTracker::FollowedPids: the
  // commands `bottleneckd run` started), from the next Collect on. Only the
  // threads collector reads them: as pid targets beside its configured ones.
  virtual void SetRunPids(const std::vector<int>& pids) { (void)pids; }

  // This tick's left-out files; the Sampler counts them
  // (bottleneckd_collector_read_errors_total), logs each file once, marks
  // the collector degraded for the tick, and clears the list.
  std::vector<ReadIssue>* read_issues() { return &read_issues_; }

 protected:
  // Notes that `file` was left out because of `why` (NotFound is not an
  // issue: a file that is not there has nothing to say).
  void LeftOut(std::string file, const Status& why) { AddReadIssue(&read_issues_, std::move(file), why); }

 private:
  std::vector<ReadIssue> read_issues_;
};

struct CollectorInfo {
  std::string name;
  bool default_enabled;
  std::string help;
  std::function<std::unique_ptr<Collector>(const CollectorsConfig&)> make;
  // Set for the expensive collectors, the ones the self-limit watchdog may
  // read less often: copies this collector's part of `from` into `to`.
  std::function<void(const HostReadings& from, HostReadings* to)> carry;
};

// All collectors this build knows, in sampling order.
const std::vector<CollectorInfo>& CollectorRegistry();

}  // namespace bottleneckd
