// The bus_model section: its profile and timing keys are the bus model's own
// parameter lists (NicProfileParameters, PciTimingParameters), so a field is
// named once for the config and the estimate's parameters.
#include "bus/bus_model_config.h"

#include <string>
#include <utility>

#include "base/config_fields.h"

namespace bottleneckd {
namespace {

template <typename T>
FieldTable<T> BusFields(const std::vector<BusParameter<T>>& parameters) {
  std::vector<ConfigField<T>> fields;
  for (const BusParameter<T>& p : parameters) {
    fields.push_back(p.whole ? WholeField(p.name, p.whole, p.lo, p.hi) : NumberField(p.name, p.number, p.lo, p.hi));
  }
  return FieldTable<T>(std::move(fields));
}

// The keys of bus_model.pci and bus_model.pcix: one table for both.
const FieldTable<PciTiming>& TimingFields() {
  static const FieldTable<PciTiming> kTiming = BusFields(PciTimingParameters());
  return kTiming;
}

Status ParseProfiles(const ConfigReader& r, const YAML::Node& n, BusModelOptions* out) {
  if (n.IsNull()) return Status::OK();
  if (!n.IsMap()) return At(r.file(), n.Mark(), "bus_model.profiles must map profile names to their parameters");
  static const FieldTable<NicProfile> kProfile = BusFields(NicProfileParameters());
  for (const auto& kv : n) {
    std::string name = kv.first.Scalar();
    if (name.empty()) return At(r.file(), kv.first.Mark(), "a profile needs a name");
    std::string base = out->profiles.count(name) ? name : "simple";
    if (kv.second.IsMap() && kv.second["base"]) {
      BN_RETURN_IF_ERROR(r.Line(kv.second, "base", &base));
      if (!out->profiles.count(base))
        return At(r.file(), kv.second["base"].Mark(), "unknown base profile '" + base + "'");
    }
    NicProfile p = out->profiles.at(base);
    p.name = name;
    BN_RETURN_IF_ERROR(kProfile.Parse(r, kv.second, "bus_model.profiles." + name, &p, {"base"}));
    out->profiles[name] = p;
  }
  return Status::OK();
}

Status ParseInterfaces(const ConfigReader& r, const YAML::Node& ifs, BusModelOptions* out) {
  if (ifs.IsNull()) return Status::OK();
  if (!ifs.IsMap()) return At(r.file(), ifs.Mark(), "bus_model.interfaces must map interface names to profiles");
  for (const auto& kv : ifs) {
    if (!kv.second.IsScalar()) return At(r.file(), kv.second.Mark(), "a profile name must be a string");
    const std::string& profile = kv.second.Scalar();
    if (!out->profiles.count(profile)) {
      std::string list;
      for (const auto& [name, p] : out->profiles) list += (list.empty() ? "" : ", ") + name;
      return At(r.file(), kv.second.Mark(), "unknown profile '" + profile + "' (known: " + list + ")");
    }
    out->interfaces[kv.first.Scalar()] = profile;
  }
  return Status::OK();
}

// MPS and MRRS: a power of two from 128 to 4096 bytes.
ConfigField<BusModelOptions> PowerOfTwoBytes(std::string_view key, int BusModelOptions::*m) {
  return {key, [m](const ConfigReader& r, const YAML::Node& n, std::string_view k, BusModelOptions* o) {
            double v = 0;
            BN_RETURN_IF_ERROR(r.Number(n, k, 128, 4096, true, &v));
            const int bytes = static_cast<int>(v);
            if (bytes & (bytes - 1))
              return At(r.file(), n[std::string(k)].Mark(),
                        std::string(k) + " must be a power of two from 128 to 4096");
            o->*m = bytes;
            return Status::OK();
          }};
}

}  // namespace

Status ParseBusModel(const ConfigReader& r, const YAML::Node& n, BusModelOptions* out) {
  // The profiles first: interfaces may name a profile the config adds.
  static const FieldTable<BusModelOptions> kSection = {
      CustomField<BusModelOptions>("profiles", ParseProfiles),
      CustomField<BusModelOptions>("interfaces", ParseInterfaces),
      CustomField<BusModelOptions>("pci",
                                   [](const ConfigReader& r, const YAML::Node& v, BusModelOptions* o) {
                                     return TimingFields().Parse(r, v, "bus_model.pci", &o->pci);
                                   }),
      CustomField<BusModelOptions>("pcix",
                                   [](const ConfigReader& r, const YAML::Node& v, BusModelOptions* o) {
                                     return TimingFields().Parse(r, v, "bus_model.pcix", &o->pcix);
                                   }),
      CustomField<BusModelOptions>("pcie",
                                   [](const ConfigReader& r, const YAML::Node& v, BusModelOptions* o) {
                                     static const FieldTable<BusModelOptions> kPcie = {
                                         NumberField("dll_overhead", &BusModelOptions::pcie_dll_overhead, 0, 0.5),
                                         PowerOfTwoBytes("assumed_max_payload", &BusModelOptions::assumed_max_payload),
                                         PowerOfTwoBytes("assumed_max_read_request",
                                                         &BusModelOptions::assumed_max_read_request),
                                     };
                                     return kPcie.Parse(r, v, "bus_model.pcie", o);
                                   }),
  };
  return kSection.Parse(r, n, "bus_model", out);
}

}  // namespace bottleneckd
