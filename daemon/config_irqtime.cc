// collectors.irqtime: the eBPF interrupt-time source (sources/irqtime.h).
//   collectors:
//     irqtime:
//       mode: auto        # auto (default) | on | off
//       btf_path: /sys/kernel/btf/vmlinux
#include <yaml-cpp/yaml.h>

#include "base/config_reader.h"
#include "daemon/config.h"

namespace bottleneckd {

Status ParseIrqTime(const ConfigReader& r, const YAML::Node& n, IrqTimeOptions* out) {
  BN_RETURN_IF_ERROR(r.Map(n, "collectors.irqtime", {"enabled", "mode", "btf_path"}));
  if (!n.IsMap()) return Status::OK();
  if (n["mode"]) {
    const YAML::Node v = n["mode"];
    if (!v.IsScalar() || !ParseIrqTimeMode(v.Scalar(), &out->mode))
      return At(r.file(), v.Mark(), "collectors.irqtime.mode must be auto, on or off");
  }
  BN_RETURN_IF_ERROR(r.Line(n, "btf_path", &out->btf_path));
  return Status::OK();
}

IrqTimeMode IrqTimeWanted(const Config& c) {
  return CollectorEnabled(c.collectors, "irqtime", true) ? c.irqtime.mode : IrqTimeMode::kOff;
}

bool IrqTimeToLoad(const Config& c) {
  const IrqTimeMode m = IrqTimeWanted(c);
  const bool live = c.roots.procfs == "/proc" && c.roots.sysfs == "/sys";
  return m == IrqTimeMode::kOn || (m == IrqTimeMode::kAuto && live);
}

}  // namespace bottleneckd
