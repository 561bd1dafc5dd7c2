// The limits section: the self-limit watchdog's budgets (collectors/self_limit.h,
// docs/architecture.md "Self-limit watchdog").
//   limits:
//     cpu_percent: 10     # of one CPU, averaged over cpu_window
//     cpu_window: 60s
//     memory_bytes: 512MiB  # resident set size; a whole number of bytes, or KiB/MiB/GiB
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "base/config_fields.h"
#include "base/parse_util.h"
#include "daemon/config.h"

namespace bottleneckd {
namespace {

constexpr double kMinMemory = 1 << 20;                // 1 MiB: below it the daemon cannot run at all
constexpr double kMaxMemory = 1024.0 * (1ull << 30);  // 1 TiB

// "536870912", "512MiB", "64KiB", "2GiB" in bytes; false on anything else.
bool ParseBytes(std::string_view s, double* out) {
  s = Trim(s);
  struct Unit {
    std::string_view suffix;
    double bytes;
  };
  static constexpr Unit kUnits[] = {{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}};
  double scale = 1;
  for (const Unit& u : kUnits) {
    if (s.size() > u.suffix.size() && s.substr(s.size() - u.suffix.size()) == u.suffix) {
      scale = u.bytes;
      s.remove_suffix(u.suffix.size());
      break;
    }
  }
  uint64_t v = 0;
  if (!ParseU64(Trim(s), &v)) return false;
  *out = static_cast<double>(v) * scale;
  return true;
}

Status MemoryBytes(const ConfigReader& r, const YAML::Node& v, SelfLimitOptions* o) {
  double b = 0;
  if (!v.IsScalar() || !ParseBytes(v.Scalar(), &b) || b < kMinMemory || b > kMaxMemory)
    return At(r.file(), v.Mark(),
              "limits.memory_bytes must be a size from 1MiB to 1024GiB, in bytes or with KiB, MiB or GiB, got '" +
                  (v.IsScalar() ? v.Scalar() : std::string("a non-scalar")) + "'");
  o->memory_bytes = static_cast<uint64_t>(b);
  return Status::OK();
}

}  // namespace

Status ParseLimits(const ConfigReader& r, const YAML::Node& n, SelfLimitOptions* out) {
  using L = SelfLimitOptions;
  static const FieldTable<L> kFields = {
      // Up to all of 4096 CPUs; 0.0001 % lets a test trip it.
      NumberField("cpu_percent", &L::cpu_percent, 0.0001, 409600),
      DurationField("cpu_window", &L::cpu_window_seconds, {"limits.cpu_window", 1, 3600, "60s"}),
      CustomField<L>("memory_bytes", MemoryBytes),
  };
  SelfLimitOptions o = *out;
  BN_RETURN_IF_ERROR(kFields.Parse(r, n, "limits", &o));
  *out = o;
  return Status::OK();
}

}  // namespace bottleneckd
