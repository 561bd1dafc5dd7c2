// The bus_model section of the config: NIC profiles (overrides of the
// built-ins, or new ones built on a `base`), which interface uses which, and
// the PCI/PCI-X/PCIe timing parameters. Every field is listed in
// etc/bottleneckd.yaml and docs/bus-model.md.
#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/config_reader.h"
#include "daemon/config.h"

namespace bottleneckd {
namespace {

// One numeric field: its key, range, whether whole, and where it goes.
template <typename T>
struct Field {
  const char* key;
  double lo, hi;
  bool integer;
  std::function<void(T*, double)> set;
};

template <typename T>
std::vector<Field<T>> IntFields(std::initializer_list<std::pair<const char*, int T::*>> members, double lo, double hi) {
  std::vector<Field<T>> out;
  for (const auto& member : members) {
    int T::*m = member.second;
    out.push_back({member.first, lo, hi, true, [m](T* t, double v) { t->*m = static_cast<int>(v); }});
  }
  return out;
}

std::vector<Field<NicProfile>> ProfileFields() {
  auto f = IntFields<NicProfile>({{"descriptor_bytes", &NicProfile::descriptor_bytes},
                                  {"rx_writeback_bytes", &NicProfile::rx_writeback_bytes},
                                  {"tx_writeback_bytes", &NicProfile::tx_writeback_bytes},
                                  {"doorbell_bytes", &NicProfile::doorbell_bytes},
                                  {"msi_bytes", &NicProfile::msi_bytes}},
                                 0, 4096);
  auto batches = IntFields<NicProfile>({{"descriptor_fetch_batch", &NicProfile::descriptor_fetch_batch},
                                        {"writeback_batch", &NicProfile::writeback_batch},
                                        {"rx_doorbell_batch", &NicProfile::rx_doorbell_batch},
                                        {"tx_doorbell_batch", &NicProfile::tx_doorbell_batch}},
                                       1, 65536);
  f.insert(f.end(), batches.begin(), batches.end());
  f.push_back({"mmio_reads_per_interrupt", 0, 64, true,
               [](NicProfile* p, double v) { p->mmio_reads_per_interrupt = static_cast<int>(v); }});
  f.push_back(
      {"descriptors_per_packet", 0.01, 64, false, [](NicProfile* p, double v) { p->descriptors_per_packet = v; }});
  return f;
}

std::vector<Field<PciTiming>> TimingFields() {
  auto f = IntFields<PciTiming>({{"address_clocks", &PciTiming::address_clocks},
                                 {"attribute_clocks", &PciTiming::attribute_clocks},
                                 {"write_wait_clocks", &PciTiming::write_wait_clocks},
                                 {"read_wait_clocks", &PciTiming::read_wait_clocks},
                                 {"turnaround_clocks", &PciTiming::turnaround_clocks},
                                 {"mmio_read_wait_clocks", &PciTiming::mmio_read_wait_clocks}},
                                0, 1024);
  auto bursts = IntFields<PciTiming>(
      {{"max_write_burst", &PciTiming::max_write_burst}, {"max_read_burst", &PciTiming::max_read_burst}}, 4, 65536);
  f.insert(f.end(), bursts.begin(), bursts.end());
  return f;
}

template <typename T>
Status ApplyFields(const ConfigReader& r, const YAML::Node& n, std::string_view what,
                   const std::vector<Field<T>>& fields, std::initializer_list<std::string_view> extra, T* out) {
  // An absent key gives an invalid node, which must not be asked its type.
  if (!n.IsDefined() || n.IsNull()) return Status::OK();
  if (!n.IsMap()) return At(r.file(), n.Mark(), std::string(what) + " must be a mapping");
  std::vector<std::string_view> keys(extra);
  for (const auto& f : fields) keys.push_back(f.key);
  for (const auto& kv : n) {
    std::string key = kv.first.Scalar();
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      std::string list;
      for (auto k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
      return At(r.file(), kv.first.Mark(),
                "unknown key '" + key + "' in " + std::string(what) + " (known: " + list + ")");
    }
  }
  for (const auto& f : fields) {
    double v = 0;
    if (!n[f.key]) continue;
    BN_RETURN_IF_ERROR(r.Number(n, f.key, f.lo, f.hi, f.integer, &v));
    f.set(out, v);
  }
  return Status::OK();
}

Status ParseProfiles(const ConfigReader& r, const YAML::Node& n, BusModelOptions* out) {
  if (!n.IsDefined() || n.IsNull()) return Status::OK();
  if (!n.IsMap()) return At(r.file(), n.Mark(), "bus_model.profiles must map profile names to their parameters");
  const auto fields = ProfileFields();
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
    BN_RETURN_IF_ERROR(ApplyFields(r, kv.second, "bus_model.profiles." + name, fields, {"base"}, &p));
    out->profiles[name] = p;
  }
  return Status::OK();
}

}  // namespace

Status ParseBusModel(const ConfigReader& r, const YAML::Node& n, BusModelOptions* out) {
  BN_RETURN_IF_ERROR(r.Map(n, "bus_model", {"profiles", "interfaces", "pci", "pcix", "pcie"}));
  if (!n.IsDefined() || n.IsNull()) return Status::OK();
  BN_RETURN_IF_ERROR(ParseProfiles(r, n["profiles"], out));
  const YAML::Node ifs = n["interfaces"];
  if (ifs.IsDefined() && !ifs.IsNull()) {
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
  }
  const auto timing = TimingFields();
  BN_RETURN_IF_ERROR(ApplyFields(r, n["pci"], "bus_model.pci", timing, {}, &out->pci));
  BN_RETURN_IF_ERROR(ApplyFields(r, n["pcix"], "bus_model.pcix", timing, {}, &out->pcix));
  const YAML::Node pcie = n["pcie"];
  BN_RETURN_IF_ERROR(
      r.Map(pcie, "bus_model.pcie", {"dll_overhead", "assumed_max_payload", "assumed_max_read_request"}));
  double v = 0;
  if (pcie.IsMap() && pcie["dll_overhead"]) {
    BN_RETURN_IF_ERROR(r.Number(pcie, "dll_overhead", 0, 0.5, false, &v));
    out->pcie_dll_overhead = v;
  }
  for (auto [key, field] : {std::pair{"assumed_max_payload", &BusModelOptions::assumed_max_payload},
                            std::pair{"assumed_max_read_request", &BusModelOptions::assumed_max_read_request}}) {
    if (!pcie.IsMap() || !pcie[key]) continue;
    BN_RETURN_IF_ERROR(r.Number(pcie, key, 128, 4096, true, &v));
    int bytes = static_cast<int>(v);
    if (bytes & (bytes - 1))
      return At(r.file(), pcie[key].Mark(), std::string(key) + " must be a power of two from 128 to 4096");
    out->*field = bytes;
  }
  return Status::OK();
}

}  // namespace bottleneckd
