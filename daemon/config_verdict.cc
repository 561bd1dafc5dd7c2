// The verdict section of the config: the thresholds of the verdict rules
// (docs/verdict-rules.md), every one optional, with the defaults its
// section 6 lists.
#include <utility>

#include "base/config_reader.h"
#include "daemon/config.h"

namespace bottleneckd {

Status ParseVerdict(const ConfigReader& r, const YAML::Node& n, VerdictThresholds* out) {
  struct Ratio {
    const char* key;
    double VerdictThresholds::*field;
    double lo, hi;
  };
  static const Ratio kFields[] = {
      {"cpu_idle_max", &VerdictThresholds::cpu_idle_max, 0, 1},
      {"thread_busy_min", &VerdictThresholds::thread_busy_min, 0, 1},
      {"interrupt_share_min", &VerdictThresholds::interrupt_share_min, 0, 1},
      {"bus_utilisation_min", &VerdictThresholds::bus_utilisation_min, 0, 10},
      {"bus_cpu_idle_min", &VerdictThresholds::bus_cpu_idle_min, 0, 1},
      {"busy_min_for_none", &VerdictThresholds::busy_min_for_none, 0, 1},
      {"thread_wait_min", &VerdictThresholds::thread_wait_min, 0, 1},
      {"drop_floor_per_second", &VerdictThresholds::drop_floor_per_second, 0, 1e9},
      {"loss_ratio_min", &VerdictThresholds::loss_ratio_min, 0, 1},
      {"margin", &VerdictThresholds::margin, 0, 1},
      {"min_score", &VerdictThresholds::min_score, 0, 1},
      {"switch_confidence", &VerdictThresholds::switch_confidence, 0, 1},
  };
  BN_RETURN_IF_ERROR(
      r.Map(n, "verdict",
            {"cpu_idle_max", "thread_busy_min", "interrupt_share_min", "bus_utilisation_min", "bus_cpu_idle_min",
             "busy_min_for_none", "thread_wait_min", "drop_floor_per_second", "loss_ratio_min", "margin", "min_score",
             "switch_confidence", "hysteresis_windows", "packet_path_interfaces"}));
  if (!n.IsDefined() || n.IsNull()) return Status::OK();
  double v = 0;
  for (const Ratio& f : kFields) {
    if (!n[f.key]) continue;
    BN_RETURN_IF_ERROR(r.Number(n, f.key, f.lo, f.hi, false, &v));
    out->*f.field = v;
  }
  BN_RETURN_IF_ERROR(r.Names(n, "packet_path_interfaces", &out->packet_path_interfaces));
  if (n["hysteresis_windows"]) {
    BN_RETURN_IF_ERROR(r.Number(n, "hysteresis_windows", 1, 100, true, &v));
    out->hysteresis_windows = static_cast<int>(v);
  }
  return Status::OK();
}

}  // namespace bottleneckd
