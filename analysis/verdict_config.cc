// The verdict section: one field per threshold, in VerdictThresholds' order.
#include "analysis/verdict_config.h"

#include <string>

#include "base/config_fields.h"
#include "sources/soaker.h"

namespace bottleneckd {
namespace {

// verdict.cpus: "" (every CPU), "affinity" (the CPUs the daemon may run on
// when it reads its config: a container's cpuset, a taskset) or a CPU list
// as in /sys/devices/system/cpu/online ("0-3,8").
Status ParseCpus(const ConfigReader& r, const YAML::Node& v, VerdictThresholds* out) {
  const char* kWhat = "verdict.cpus must be a CPU list (\"0-3,8\"), \"affinity\" or \"\"";
  if (!v.IsScalar()) return At(r.file(), v.Mark(), kWhat);
  const std::string text = v.Scalar();
  if (text == "affinity") {
    out->cpus = AllowedCpus();
    if (out->cpus.empty())
      return At(r.file(), v.Mark(), "verdict.cpus: the kernel did not give this daemon's CPU affinity");
    return Status::OK();
  }
  Status st = ParseCpuList(text, &out->cpus);
  if (!st.ok()) return At(r.file(), v.Mark(), std::string(kWhat) + ": " + st.message());
  return Status::OK();
}

}  // namespace

Status ParseVerdict(const ConfigReader& r, const YAML::Node& n, VerdictThresholds* out) {
  using V = VerdictThresholds;
  static const FieldTable<V> kFields = {
      NumberField("cpu_idle_max", &V::cpu_idle_max, 0, 1),
      NumberField("thread_busy_min", &V::thread_busy_min, 0, 1),
      NumberField("interrupt_share_min", &V::interrupt_share_min, 0, 1),
      NumberField("bus_utilisation_min", &V::bus_utilisation_min, 0, 10),
      NumberField("bus_cpu_idle_min", &V::bus_cpu_idle_min, 0, 1),
      NumberField("busy_min_for_none", &V::busy_min_for_none, 0, 1),
      NumberField("thread_wait_min", &V::thread_wait_min, 0, 1),
      NumberField("drop_floor_per_second", &V::drop_floor_per_second, 0, 1e9),
      NumberField("loss_ratio_min", &V::loss_ratio_min, 0, 1),
      NumberField("margin", &V::margin, 0, 1),
      NumberField("min_score", &V::min_score, 0, 1),
      WholeField("hysteresis_windows", &V::hysteresis_windows, 1, 100),
      NumberField("switch_confidence", &V::switch_confidence, 0, 1),
      NamesField("packet_path_interfaces", &V::packet_path_interfaces),
      CustomField<V>("cpus", ParseCpus),
  };
  return kFields.Parse(r, n, "verdict", out);
}

}  // namespace bottleneckd
