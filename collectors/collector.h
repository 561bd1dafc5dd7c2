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
  std::string error;  // Status::ToString() when !success
};

class Collector {
 public:
  virtual ~Collector() = default;
  virtual std::string_view name() const = 0;
  // Reads this tick's values into *out. NotSupported means the kernel lacks the
  // files (a debug line, not an error); anything else non-OK is a failure.
  virtual Status Collect(const HostFs& fs, HostReadings* out) = 0;
};

struct CollectorInfo {
  std::string name;
  bool default_enabled;
  std::string help;
  std::function<std::unique_ptr<Collector>(const CollectorsConfig&)> make;
};

// All collectors this build knows, in sampling order.
const std::vector<CollectorInfo>& CollectorRegistry();

}  // namespace bottleneckd
