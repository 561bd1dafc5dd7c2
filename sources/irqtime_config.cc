// collectors.irqtime: the eBPF interrupt-time source (sources/irqtime.h).
//   collectors:
//     irqtime:
//       mode: auto        # auto (default) | on | off
//       btf_path: /sys/kernel/btf/vmlinux
#include "base/config_fields.h"
#include "sources/source_config.h"

namespace bottleneckd {

Status ParseIrqTime(const ConfigReader& r, const YAML::Node& n, IrqTimeOptions* out) {
  static const FieldTable<IrqTimeOptions> kFields = {
      CustomField<IrqTimeOptions>("mode",
                                  [](const ConfigReader& r, const YAML::Node& v, IrqTimeOptions* o) {
                                    if (!v.IsScalar() || !ParseLoadMode(v.Scalar(), &o->mode))
                                      return At(r.file(), v.Mark(), "collectors.irqtime.mode must be auto, on or off");
                                    return Status::OK();
                                  }),
      LineField("btf_path", &IrqTimeOptions::btf_path),
  };
  return kFields.Parse(r, n, "collectors.irqtime", out, {"enabled"});
}

}  // namespace bottleneckd
