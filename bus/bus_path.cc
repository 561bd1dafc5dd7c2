#include "bus/bus_path.h"

#include <algorithm>
#include <set>

namespace bottleneckd {
namespace {

constexpr uint16_t kVirtioVendor = 0x1af4;

bool IsBridgeClass(const PciDevice& d) { return (d.class_code >> 16) == 0x06; }

// Bytes per second per direction of a PCIe link after line encoding.
double PcieRaw(int speed, int width) {
  double gts = PcieSpeedGts(speed);
  double encoding = speed <= 2 ? 8.0 / 10 : speed <= 5 ? 128.0 / 130 : 1.0;
  return gts * 1e9 * encoding * width / 8;
}

// Number of PCIe bridges above `d` (root port = 0 for the first): upstream
// switch ports sit at odd depths. Used when the port type is not readable.
int PcieBridgeDepth(const PciTopology& topo, const PciDevice& d) {
  int depth = 0;
  std::vector<const PciDevice*> path = topo.PathToRoot(d.address);
  for (size_t i = 1; i < path.size(); ++i)
    if (path[i]->IsBridge() && path[i]->IsPcie()) ++depth;
  return depth;
}

// Whether a PCIe function is the downstream end of a link of its own.
bool OwnsPcieLink(const PciTopology& topo, const PciDevice& d) {
  if (d.config.pcie) {
    switch (d.config.pcie->type()) {
      case PcieType::kRootPort:
      case PcieType::kDownstreamPort:
      case PcieType::kRcIntegratedEndpoint:
      case PcieType::kRcEventCollector: return false;
      default: return true;
    }
  }
  // Type unknown (config read short or absent). A function that is not a
  // bridge is an endpoint: its sysfs link attributes are its own link's (an
  // integrated endpoint has none: they read "Unknown", and the caller drops a
  // link of speed 0), on a root bus too (a hypervisor's or platform's endpoint
  // whose root port is not visible). A bridge on a root bus is a root port;
  // PCIe bridges below alternate downstream and upstream ports.
  if (!d.IsBridge()) return true;
  if (d.parent.empty()) return false;
  return PcieBridgeDepth(topo, d) % 2 == 1;
}

BusLink PcieLink(const PciTopology& topo, const PciDevice& d) {
  BusLink l;
  l.kind = BusKind::kPcie;
  l.full_duplex = true;
  // Named by its upstream end, the port whose secondary side it is: the
  // functions of a multi-function device share it.
  l.device = d.parent.empty() ? d.root_bus : d.parent;
  l.speed = d.LinkSpeed();
  l.width = d.LinkWidth();
  l.max_speed = d.MaxLinkSpeed();
  l.max_width = d.MaxLinkWidth();
  // Trained below the lower of the two ends' capabilities.
  if (const PciDevice* port = topo.Find(d.parent)) {
    if (port->MaxLinkSpeed() > 0) l.max_speed = std::min(l.max_speed, port->MaxLinkSpeed());
    if (port->MaxLinkWidth() > 0) l.max_width = std::min(l.max_width, port->MaxLinkWidth());
  }
  l.downtrained = l.speed > 0 && l.width > 0 && (l.speed < l.max_speed || l.width < l.max_width);
  const PciDevice* port = topo.Find(d.parent);
  if (l.downtrained && l.speed < l.max_speed &&
      (d.MaxLinkSpeedFromSysfs() || (port && port->MaxLinkSpeedFromSysfs()))) {
    l.assumptions.push_back(
        "maximum link speed from sysfs max_link_speed (config space unreadable): kernels before 6.13 report "
        "LnkCap2's highest speed there even when LnkCap's Max Link Speed is lower");
  }
  l.raw_bytes_per_second = PcieRaw(l.speed, l.width);
  l.emulated = d.vendor == kVirtioVendor;
  // Everything below the port crosses the link.
  for (const PciDevice& other : topo.devices) {
    std::vector<const PciDevice*> up = topo.PathToRoot(other.address);
    if (other.address != l.device &&
        std::any_of(up.begin(), up.end(), [&](const PciDevice* p) { return p->address == l.device; }))
      l.members.push_back(other.address);
  }
  return l;
}

// Why the kind, clock or width of the segment under `bridge` (functions
// `on`) cannot be known, or "" when they can. Without a readable, consistent
// bridge config nothing tells PCI-X 133 (1066 MB/s) from PCI 33 (133 MB/s):
// no capacity is modelled rather than a guessed one.
std::string SegmentUnknown(const PciDevice* bridge, const std::vector<const PciDevice*>& on) {
  const std::string tail = ": the bus's kind, clock and width are unknown, no capacity modelled";
  if (bridge != nullptr) {
    const PciConfig& c = bridge->config;
    const std::string why = bridge->missing_reason.empty() ? "" : " (" + bridge->missing_reason + ")";
    if (c.length < 0x40) return bridge->address + " config unreadable" + why + tail;
    if (c.device_gone) return bridge->address + " config reads all ones" + tail;
    if ((bridge->vendor != 0 && c.vendor != bridge->vendor) || !c.bridge)
      return bridge->address + " config does not decode as a bridge (garbage?)" + tail;
    if (std::find(bridge->missing.begin(), bridge->missing.end(), "pcix_secondary_status") != bridge->missing.end())
      return bridge->address + " PCI-X secondary status unreadable" + why + tail;
    // A capability list that loops or points into the header may hide the
    // PCI-X capability: not proof of conventional PCI.
    if (!c.problems.empty()) return bridge->address + " config: " + c.problems.front() + tail;
  }
  for (const PciDevice* s : on)
    if (s->config.length < 0x40) return s->address + " status register unreadable (66 MHz capability)" + tail;
  return "";
}

// The conventional PCI or PCI-X segment `d` sits on.
BusLink SegmentLink(const PciTopology& topo, const PciDevice& d) {
  BusLink l;
  const PciDevice* bridge = topo.Find(d.parent);
  std::vector<const PciDevice*> on = topo.Children(d.parent, d.root_bus);
  l.device = bridge ? bridge->address : d.root_bus;
  l.segment = std::string(d.address.substr(0, d.address.find(':', d.address.find(':') + 1)));
  for (const PciDevice* s : on) l.members.push_back(s->address);
  const PciXInfo* x = bridge && bridge->config.pcix && bridge->config.pcix->bridge ? &*bridge->config.pcix : nullptr;
  if (std::string unknown = SegmentUnknown(bridge, on); !unknown.empty()) {
    l.kind = BusKind::kPci;
    l.unknown = true;
    l.clock_mhz = 0;  // no raw capacity: utilisation is not computed on it
    l.width_bits = 0;
    l.assumptions.push_back(std::move(unknown));
  } else if (x && x->SecondaryClockMhz() > 0) {
    l.kind = BusKind::kPciX;
    l.clock_mhz = x->SecondaryClockMhz();
    l.transfers_per_clock = x->SecondaryTransfersPerClock();
    bool dev64 = !d.config.pcix || d.config.pcix->is_64bit;
    l.width_bits = x->secondary_64bit && dev64 ? 64 : 32;
    if (!d.config.pcix) l.assumptions.push_back(d.address + " PCI-X status unreadable: assumed a 64-bit device");
  } else {
    l.kind = BusKind::kPci;
    bool fast = bridge ? bridge->config.bridge && bridge->config.bridge->secondary_66mhz : true;
    for (const PciDevice* s : on) fast = fast && s->config.capable_66mhz;
    l.clock_mhz = fast ? 66 : 33;
    l.width_bits = 32;
    l.assumptions.push_back("bus width assumed 32-bit: conventional PCI does not show it in config space");
  }
  l.raw_bytes_per_second = BusClockHz(l.clock_mhz) * l.width_bits / 8 * l.transfers_per_clock;
  bool any_device = false, all_virtio = true;
  for (const PciDevice* s : on) {
    if (IsBridgeClass(*s)) continue;
    any_device = true;
    all_virtio = all_virtio && s->vendor == kVirtioVendor;
  }
  l.emulated = any_device && all_virtio;
  return l;
}

// True when every function on the segment `d` sits on is a bridge: a chipset
// hub link or a bridge's internal bus, not a PCI bus devices contend on.
bool OnlyBridgesOnSegment(const PciTopology& topo, const PciDevice& d) {
  for (const PciDevice* s : topo.Children(d.parent, d.root_bus))
    if (!IsBridgeClass(*s)) return false;
  return true;
}

BusPath BuildPath(const PciTopology& topo, const PciDevice& nic, const std::string& ifname) {
  BusPath p;
  p.interface = ifname;
  p.device = nic.address;
  p.driver = nic.driver;
  if (nic.config.pcie) {
    p.max_payload = nic.config.pcie->max_payload;
    p.max_read_request = nic.config.pcie->max_read_request;
  }
  std::set<std::string> seen;
  for (const PciDevice* d : topo.PathToRoot(nic.address)) {
    BusLink l;
    if (d->IsPcie()) {
      // No link, or its speed or width unknown ("Unknown", x0): no link is
      // modelled rather than one with a guessed capacity. A PCIe function is
      // never taken for a conventional PCI segment.
      if (!OwnsPcieLink(topo, *d) || d->LinkSpeed() == 0 || d->LinkWidth() == 0) continue;
      l = PcieLink(topo, *d);
    } else {
      // The root bus above a bridge is the host's internal fabric.
      if (d != &nic && (d->parent.empty() || OnlyBridgesOnSegment(topo, *d))) continue;
      l = SegmentLink(topo, *d);
    }
    if (!seen.insert(l.device).second) continue;
    p.links.push_back(std::move(l));
  }
  // The narrowest of the links with a known capacity.
  for (size_t i = 1; i < p.links.size(); ++i) {
    const double raw = p.links[i].raw_bytes_per_second, best = p.links[p.narrowest].raw_bytes_per_second;
    if (raw > 0 && (best <= 0 || raw < best)) p.narrowest = i;
  }
  return p;
}

// "8.0 GT/s" -> "8.0GT/s": label values without blanks.
std::string CompactSpeed(int code) {
  std::string name = PcieSpeedName(code);
  name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
  return name;
}

}  // namespace

double BusClockHz(int mhz) {
  switch (mhz) {
    case 33: return 100e6 / 3;
    case 66: return 200e6 / 3;
    case 133: return 400e6 / 3;
    default: return mhz > 0 ? mhz * 1e6 : 0;
  }
}

const char* BusKindName(BusKind kind) {
  switch (kind) {
    case BusKind::kPci: return "pci";
    case BusKind::kPciX: return "pcix";
    case BusKind::kPcie: return "pcie";
  }
  return "unknown";
}

std::string BusLink::SpeedLabel() const {
  if (unknown) return "unknown";
  if (kind != BusKind::kPcie) {
    std::string s = std::to_string(clock_mhz) + "MHz";
    if (transfers_per_clock > 1) s += "x" + std::to_string(transfers_per_clock);
    return s;
  }
  std::string name = CompactSpeed(speed);
  return name.empty() ? "unknown" : name;
}

std::string BusLink::MaxSpeedLabel() const { return kind == BusKind::kPcie ? CompactSpeed(max_speed) : ""; }

std::string BusLink::WidthLabel() const {
  if (unknown) return "unknown";
  if (kind == BusKind::kPcie) return "x" + std::to_string(width);
  return std::to_string(width_bits) + "bit";
}

std::vector<BusPath> BuildBusPaths(const PciTopology& topo) {
  std::vector<BusPath> paths;
  for (const PciDevice& d : topo.devices)
    for (const std::string& ifname : d.interfaces) paths.push_back(BuildPath(topo, d, ifname));
  std::sort(paths.begin(), paths.end(), [](const BusPath& a, const BusPath& b) { return a.interface < b.interface; });
  return paths;
}

}  // namespace bottleneckd
