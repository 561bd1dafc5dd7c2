// PCI topology and bus model metric families: each NIC's bus path with its
// links' capacity and modelled utilisation, the model's method and
// parameters, AER counters and the facts config space could not give.
#include <algorithm>
#include <cstdio>
#include <string>

#include "bus/bus_model.h"
#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics_internal.h"

namespace bottleneckd::internal {
namespace {

using prometheus::MetricType;

std::string Hex(unsigned v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
  return buf;
}

// "descriptor_bytes=16,descriptor_fetch_batch=4,...".
std::string ParameterText(const std::vector<std::pair<std::string, double>>& params) {
  std::string s;
  for (const auto& [name, v] : params) {
    char num[32];
    std::snprintf(num, sizeof num, "%g", v);
    s += (s.empty() ? "" : ",") + name + "=" + num;
  }
  return s;
}

void AddPathFamilies(const Snapshot& s, MetricsOut* out) {
  const std::vector<BusPath>& paths = *s.bus_paths;
  {
    FamilyBuilder info(out, metric::kPciLinkInfo,
                       "Each link on each NIC's bus path, from its own link up to the root complex; value 1. "
                       "bus: pci, pcix or pcie; speed and width as trained; downtrained: a PCIe link below what "
                       "both ends support; emulated: a hypervisor's device, not a physical limit.",
                       MetricType::Gauge);
    for (const BusPath& p : paths)
      for (size_t i = 0; i < p.links.size(); ++i) {
        const BusLink& l = p.links[i];
        std::vector<prometheus::ClientMetric::Label> labels = {{"interface", p.interface},
                                                               {"device", l.device},
                                                               {"bus", l.KindLabel()},
                                                               {"speed", l.SpeedLabel()},
                                                               {"width", l.WidthLabel()},
                                                               {"downtrained", l.downtrained ? "true" : "false"},
                                                               {"emulated", l.emulated ? "true" : "false"},
                                                               {"narrowest", i == p.narrowest ? "true" : "false"},
                                                               {"hop", std::to_string(i)}};
        if (l.kind == BusKind::kPcie) {
          labels.push_back({"max_speed", l.MaxSpeedLabel()});
          std::string max_width = "x";  // appended, not "x" + ...: GCC 12 -O3 -Wrestrict false positive
          max_width += std::to_string(l.max_width);
          labels.push_back({"max_width", max_width});
        }
        info.Add(1, std::move(labels));
      }
  }
  FamilyBuilder cap(out, metric::kBusCapacityBytesPerSecond,
                    "Raw capacity of each link on a NIC's bus path: PCI/PCI-X width x clock for the whole "
                    "(shared, half-duplex) segment; PCIe rate x lanes after line encoding, per direction.",
                    MetricType::Gauge);
  // A link whose capacity is unknown (0: its kind, clock, width or rate
  // could not be read) has no series rather than a 0; its assumption says why.
  for (const BusPath& p : paths)
    for (const BusLink& l : p.links)
      if (l.raw_bytes_per_second > 0)
        cap.Add(l.raw_bytes_per_second, {{"interface", p.interface}, {"device", l.device}});
  FamilyBuilder assumed(out, metric::kBusAssumptionInfo,
                        "What the bus model assumed for a fact the topology lacks, per link; value 1.",
                        MetricType::Gauge);
  for (const BusPath& p : paths)
    for (const BusLink& l : p.links)
      for (const std::string& a : l.assumptions)
        assumed.Add(1, {{"interface", p.interface}, {"device", l.device}, {"assumption", a}});
}

void AddEstimateFamilies(const Snapshot& s, const BusEstimate& bus, MetricsOut* out) {
  const std::vector<BusPath>& paths = *s.bus_paths;
  FamilyBuilder eff(out, metric::kBusEffectiveCapacityBytesPerSecond,
                    "What each link can carry after protocol overhead: PCIe raw x (1 - DLLP share), per "
                    "direction; PCI/PCI-X bus-time bytes per second of the whole segment.",
                    MetricType::Gauge);
  FamilyBuilder util(out, metric::kBusUtilisationRatio,
                     "Modelled traffic of every NIC crossing each link of this NIC's bus path over the link's "
                     "effective capacity (PCIe: the busier direction). 1 is a full link.",
                     MetricType::Gauge);
  for (const BusPath& p : paths)
    for (const BusLink& l : p.links)
      if (const BusLinkEstimate* e = bus.FindLink(l.device)) {
        if (e->effective_bytes_per_second > 0)
          eff.Add(e->effective_bytes_per_second, {{"interface", p.interface}, {"device", l.device}});
        if (e->known()) util.Add(e->load.utilisation, {{"interface", p.interface}, {"device", l.device}});
      }
  FamilyBuilder path(out, metric::kBusPathUtilisationRatio,
                     "The busiest link on each NIC's bus path (bottleneckd_bus_utilisation_ratio's maximum); "
                     "device names that link.",
                     MetricType::Gauge);
  FamilyBuilder traffic(out, metric::kBusTrafficBytesPerSecond,
                        "This NIC's own modelled traffic on each link of its path: payload, descriptors, "
                        "doorbells, interrupts and protocol overhead. direction: up (device to host), down, or "
                        "shared (a half-duplex PCI/PCI-X segment, in bus-time bytes).",
                        MetricType::Gauge);
  FamilyBuilder model(out, metric::kBusModelInfo,
                      "How each NIC's bus traffic was estimated: method, NIC profile and every parameter used; "
                      "value 1.",
                      MetricType::Gauge);
  for (const BusNicEstimate& n : bus.nics) {
    // No link of known capacity on the path (a link-less integrated function,
    // an "Unknown" link speed): the utilisation is unknown, so no series
    // rather than a 0.
    if (!n.bottleneck_device.empty())
      path.Add(n.path_utilisation, {{"interface", n.interface}, {"device", n.bottleneck_device}});
    model.Add(1, {{"interface", n.interface},
                  {"method", n.method},
                  {"profile", n.profile},
                  {"parameters", ParameterText(n.parameters)}});
    const BusPath* bp = nullptr;
    for (const BusPath& p : paths)
      if (p.interface == n.interface) bp = &p;
    if (bp == nullptr || !n.measured) continue;  // no packet rates: its traffic is unknown, not 0
    for (size_t i = 0; i < n.own.size() && i < bp->links.size(); ++i) {
      const BusLink& l = bp->links[i];
      if (l.kind == BusKind::kPcie) {
        traffic.Add(n.own[i].up_bytes_per_second,
                    {{"interface", n.interface}, {"device", l.device}, {"direction", "up"}});
        traffic.Add(n.own[i].down_bytes_per_second,
                    {{"interface", n.interface}, {"device", l.device}, {"direction", "down"}});
      } else {
        traffic.Add(n.own[i].up_bytes_per_second,
                    {{"interface", n.interface}, {"device", l.device}, {"direction", "shared"}});
      }
    }
  }
}

void AddDeviceFamilies(const Snapshot& s, MetricsOut* out) {
  const PciTopology& topo = *s.sample.pci;
  // Devices on NIC paths only: a host's other hundred functions say nothing here.
  std::vector<const PciDevice*> on_paths;
  for (const PciDevice& d : topo.devices) {
    if (d.interfaces.empty()) continue;
    for (const PciDevice* p : topo.PathToRoot(d.address))
      if (std::find(on_paths.begin(), on_paths.end(), p) == on_paths.end()) on_paths.push_back(p);
  }
  std::sort(on_paths.begin(), on_paths.end(), [](auto* a, auto* b) { return a->address < b->address; });
  {
    FamilyBuilder info(out, metric::kPciDeviceInfo,
                       "PCI functions on NIC bus paths: IDs, class, driver, parent and NUMA node; value 1.",
                       MetricType::Gauge);
    for (const PciDevice* d : on_paths)
      // An attribute that could not be read is "" (unknown), never a 0.
      info.Add(1, {{"device", d->address},
                   {"vendor_id", d->Unread("vendor") ? "" : Hex(d->vendor, 4)},
                   {"device_id", d->Unread("device") ? "" : Hex(d->device, 4)},
                   {"class_id", d->Unread("class") ? "" : Hex(d->class_code, 6)},
                   {"driver", d->driver},
                   {"parent", d->parent.empty() ? d->root_bus : d->parent},
                   {"numa_node", d->Unread("numa_node") ? "" : std::to_string(d->numa_node)}});
  }
  {
    FamilyBuilder miss(out, metric::kPciFactMissing,
                       "A bus fact config space could not give for a function on a NIC path (config space past "
                       "64 bytes is readable by root only); value 1. The model assumes a default instead.",
                       MetricType::Gauge);
    for (const PciDevice* d : on_paths)
      for (const std::string& f : d->missing) miss.Add(1, {{"device", d->address}, {"fact", f}});
  }
  FamilyBuilder aer(out, metric::kPciAerErrorsTotal,
                    "PCIe Advanced Error Reporting counters of the functions on NIC paths, by severity "
                    "(correctable, nonfatal, fatal) and error (sysfs aer_dev_* names).",
                    MetricType::Counter);
  for (const PciAerCounters& c : s.sample.pci_aer) {
    for (const auto& [name, v] : c.correctable)
      aer.Add(static_cast<double>(v), {{"device", c.device}, {"severity", "correctable"}, {"error", name}});
    for (const auto& [name, v] : c.nonfatal)
      aer.Add(static_cast<double>(v), {{"device", c.device}, {"severity", "nonfatal"}, {"error", name}});
    for (const auto& [name, v] : c.fatal)
      aer.Add(static_cast<double>(v), {{"device", c.device}, {"severity", "fatal"}, {"error", name}});
  }
}

}  // namespace

void AddBusFamilies(const Snapshot& s, MetricsOut* out) {
  if (!s.sample.pci) return;
  AddDeviceFamilies(s, out);
  if (!s.bus_paths) return;
  AddPathFamilies(s, out);
  if (s.window && s.bus) AddEstimateFamilies(s, *s.bus, out);
}

}  // namespace bottleneckd::internal
