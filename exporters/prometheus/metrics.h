// Prometheus exposition of a Snapshot (docs/metrics.md). Raw kernel
// counters are exported as `_total` counters straight from the latest Sample;
// window ratios as `_ratio` gauges. Nothing is mirrored into prometheus-cpp
// Counter objects: families are built at scrape time from the snapshot
// (prometheus-cpp's custom Collectable pattern). Nothing here throws.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis/snapshot.h"

namespace bottleneckd {

struct BuildInfo {
  std::string version;
  std::string revision;
};

BuildInfo GetBuildInfo();

// All metric families for one snapshot, in a fixed order. A null snapshot
// (before the first sample) gives only build_info.
std::vector<prometheus::MetricFamily> BuildMetricFamilies(const Snapshot* snap, const BuildInfo& build);

// The same families as exposition text (text_format.h), written straight
// from the builders and appended to *text: what /metrics serves, equal to
// AppendTextFormat(BuildMetricFamilies(...)) byte for byte.
void AppendMetricsText(const Snapshot* snap, const BuildInfo& build, std::string* text);

// The Collectable registered with the HTTP endpoint: reads the latest
// snapshot from the store at each scrape.
class SnapshotCollectable : public prometheus::Collectable {
 public:
  explicit SnapshotCollectable(const SnapshotStore* store) : store_(store), build_(GetBuildInfo()) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const SnapshotStore* store_;
  BuildInfo build_;
};

// The HTTP listener's web config at work (exporters/http/web_security.h):
// its counters since start, appended after the snapshot's families while a
// web config is on (docs/metrics.md "The listener's web config").
struct ListenerSecurity {
  bool tls = false;
  bool auth = false;
  uint64_t tls_failed = 0;                                    // handshakes refused or broken
  uint64_t auth_checks = 0;                                   // bcrypt checks run (credentials not in the cache)
  std::vector<std::pair<std::string, uint64_t>> auth_failed;  // 401s by reason
  uint64_t reloads = 0;                                       // changed files taken
  uint64_t failed_reloads = 0;  // changed files refused (the previous configuration stayed)
};
void AppendListenerMetrics(const ListenerSecurity& s, std::string* text);

// Every metric name this exporter can emit, for start-up validation
// (prometheus::CheckMetricName) and the docs' metrics reference test.
const std::vector<std::string>& ExportedMetricNames();

// Validates ExportedMetricNames() and label names once; false with the
// offending name in *bad.
bool ValidateMetricNames(std::string* bad);

}  // namespace bottleneckd
