#include "collectors/pci.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "base/parse_util.h"
#include "collectors/host_readings.h"
#include "collectors/sysfs_path.h"

namespace bottleneckd {
namespace {

constexpr std::string_view kDevices = "bus/pci/devices";
constexpr std::string_view kNet = "class/net";
constexpr size_t kHeaderBytes = 64, kConventionalBytes = 256;
constexpr const char* kAerFiles[] = {"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal"};

// "0x8086\n" -> 0x8086.
bool ParseHexAttribute(std::string_view text, uint64_t* out) {
  text = Trim(text);
  if (StartsWith(text, "0x") || StartsWith(text, "0X")) text.remove_prefix(2);
  return ParseHexU64(text, out);
}

// Reads the attribute; a file that is there but cannot be read or parsed
// is a read issue (its value stays unknown), an absent one is not.
bool ReadAttr(const HostFs& fs, const std::string& path, std::string* buf, std::vector<ReadIssue>* issues) {
  Status s = fs.ReadSys(path, buf);
  if (!s.ok() && !s.IsNotFound() && issues) issues->push_back({fs.SysPath(path), s.ToString()});
  return s.ok();
}

void Unparsable(const HostFs& fs, const std::string& path, const std::string& text, const char* what,
                std::vector<ReadIssue>* issues) {
  if (issues) issues->push_back({fs.SysPath(path), "'" + std::string(Trim(text)) + "' is not " + what});
}

template <typename T>
void ReadHex(const HostFs& fs, const std::string& dir, std::string_view attr, std::string* buf, T* out,
             std::vector<ReadIssue>* issues) {
  uint64_t v = 0;
  const std::string path = dir + "/" + std::string(attr);
  if (!ReadAttr(fs, path, buf, issues)) return;
  if (ParseHexAttribute(*buf, &v) && v <= std::numeric_limits<T>::max()) {
    *out = static_cast<T>(v);
  } else {
    Unparsable(fs, path, *buf, "a hex number of the attribute's size", issues);
  }
}

int ReadInt(const HostFs& fs, const std::string& dir, std::string_view attr, std::string* buf, int fallback,
            std::vector<ReadIssue>* issues) {
  int64_t v = 0;
  const std::string path = dir + "/" + std::string(attr);
  if (!ReadAttr(fs, path, buf, issues)) return fallback;
  if (!ParseI64(Trim(*buf), &v) || v < -1 || v > 1 << 20) {
    Unparsable(fs, path, *buf, "a number from -1 to 2^20", issues);
    return fallback;
  }
  return static_cast<int>(v);
}

// Where the function sits: its parent function and root bus, from the
// resolved device directory "devices/pci0000:00/0000:00:02.0/0000:01:1d.0".
void PlaceDevice(std::string_view dir, PciDevice* d) {
  std::string_view rest = dir;
  std::string_view prev_pci;
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view c = rest.substr(0, slash);
    rest.remove_prefix(slash == std::string_view::npos ? rest.size() : slash + 1);
    if (d->root_bus.empty() && StartsWith(c, "pci") && c.find(':') != std::string_view::npos) d->root_bus.assign(c);
    if (c == d->address) break;
    if (IsPciAddress(c)) prev_pci = c;
  }
  d->parent.assign(prev_pci);
}

// Facts the decode could not give, for a device whose config read was short
// or unreadable.
void NoteMissing(PciDevice* d, const Status& read) {
  const PciConfig& c = d->config;
  bool caps_unknown = c.length < 256 && (c.length < 0x40 || (c.status & 0x10));
  if (c.length < 0x40) d->missing.push_back("pci_66mhz_capable");
  if (caps_unknown) {
    if (d->IsPcie()) {
      d->missing.push_back("pcie_max_payload");
      d->missing.push_back("pcie_max_read_request");
    } else if (d->IsBridge()) {
      d->missing.push_back("pcix_secondary_status");
    } else {
      d->missing.push_back("pcix_status");
    }
  }
  if (d->missing.empty()) return;
  // Why: only a 64-byte read of an existing file is the no-root case.
  if (d->config_absent) {
    d->missing_reason = "no config file";
  } else if (!read.ok()) {
    d->missing_reason = "config unreadable: " + read.ToString();
  } else if (c.length == kHeaderBytes) {
    d->missing_reason = "config space past 64 bytes needs root (CAP_SYS_ADMIN)";
  } else {
    d->missing_reason = "config space cut short at " + std::to_string(c.length) + " bytes";
  }
}

Status ReadDevice(const HostFs& fs, const std::string& name, std::string* buf, PciDevice* d,
                  std::vector<std::string>* problems, std::vector<ReadIssue>* issues) {
  d->address = name;
  std::string link = std::string(kDevices) + "/" + name;
  std::string dir;
  Status s = ResolveSysLink(fs, link, &dir);
  if (s.IsNotFound() && !fs.ReadSys(link + "/vendor", buf).ok()) return s;  // vanished
  if (!s.ok()) {
    dir = link;  // a copied tree: a directory, not a link; the parent is unknown
    problems->push_back(name + ": " + s.ToString());
  }
  PlaceDevice(dir, d);
  // An identity attribute that is there but cannot be read stays unknown
  // (d->unread), not 0: its label is "" rather than a made-up 0x0000.
  std::vector<ReadIssue> identity;
  auto unread_if_said = [&](const char* attr, size_t before) {
    if (identity.size() > before) d->unread.emplace_back(attr);
  };
  size_t n = identity.size();
  ReadHex(fs, dir, "vendor", buf, &d->vendor, &identity);
  unread_if_said("vendor", n);
  n = identity.size();
  ReadHex(fs, dir, "device", buf, &d->device, &identity);
  unread_if_said("device", n);
  n = identity.size();
  ReadHex(fs, dir, "class", buf, &d->class_code, &identity);
  unread_if_said("class", n);
  n = identity.size();
  d->numa_node = ReadInt(fs, dir, "numa_node", buf, -1, &identity);
  unread_if_said("numa_node", n);
  if (issues) issues->insert(issues->end(), identity.begin(), identity.end());
  // Present for every PCIe function; "Unknown" (speed 0) when it has no link.
  if (fs.ReadSys(dir + "/current_link_speed", buf).ok()) {
    d->sysfs_link_attributes = true;
    d->sysfs_link_speed = ParsePcieSpeedAttribute(*buf);
  }
  if (fs.ReadSys(dir + "/max_link_speed", buf).ok()) d->sysfs_max_link_speed = ParsePcieSpeedAttribute(*buf);
  d->sysfs_link_width = std::max(0, ReadInt(fs, dir, "current_link_width", buf, 0, issues));
  d->sysfs_max_link_width = std::max(0, ReadInt(fs, dir, "max_link_width", buf, 0, issues));
  std::string target;
  if (fs.ReadLinkSys(dir + "/driver", &target).ok()) d->driver.assign(Basename(target));
  std::vector<std::string> irqs;
  if (fs.ListSys(dir + "/msi_irqs", &irqs).ok()) {
    for (const std::string& i : irqs)
      if (uint64_t v; ParseU64(i, &v) && v < (1u << 30)) d->msi_irqs.push_back(static_cast<int>(v));
    std::sort(d->msi_irqs.begin(), d->msi_irqs.end());
  }
  // The standard header only: every function's class, status (66 MHz) and
  // bridge fields. Capabilities are read for the functions on NIC paths
  // (ReadCapabilities): on a VM every config dword read is a trap to the
  // hypervisor, on bare metal 4 KiB of extended space per function adds up.
  Status c = fs.ReadSysPrefix(dir + "/config", buf, kHeaderBytes);
  if (c.ok()) {
    d->config = DecodePciConfig(*buf);
    if (d->config.device_gone) problems->push_back(name + ": config space reads all ones (device gone?)");
  } else if (c.IsNotFound()) {
    d->config_absent = true;  // its own reason, root or not
    problems->push_back(name + ": no config file");
  } else {
    problems->push_back(name + ": config: " + c.ToString());
  }
  return Status::OK();
}

// Re-reads the conventional config space (256 bytes: every capability the bus
// model uses) of a function on a NIC path, and notes what is still missing.
void ReadCapabilities(const HostFs& fs, std::string* buf, PciDevice* d, std::vector<std::string>* problems) {
  Status c = Status::NotFound("no config file");
  if (!d->config_absent)
    c = fs.ReadSysPrefix(std::string(kDevices) + "/" + d->address + "/config", buf, kConventionalBytes);
  if (c.ok()) {
    d->config = DecodePciConfig(*buf);
  } else if (!d->config.device_gone && !d->config_absent) {
    problems->push_back(d->address + ": config: " + c.ToString());
  }
  NoteMissing(d, c);
}

// Maps each network interface to the PCI function behind it.
void MapInterfaces(const HostFs& fs, const std::vector<std::string>& ifnames, PciTopology* topo) {
  std::string real, dev;
  for (const std::string& ifname : ifnames) {
    std::string self = std::string(kNet) + "/" + ifname;
    if (!ResolveSysLink(fs, self, &real).ok()) real = self;          // a directory in a copied tree
    if (!ResolveSysLink(fs, real + "/device", &dev).ok()) continue;  // virtual interface
    std::string fn = PciFunctionOf(dev);
    auto it = std::lower_bound(topo->devices.begin(), topo->devices.end(), fn,
                               [](const PciDevice& d, const std::string& a) { return d.address < a; });
    if (it != topo->devices.end() && it->address == fn) it->interfaces.push_back(ifname);
  }
  for (PciDevice& d : topo->devices) std::sort(d.interfaces.begin(), d.interfaces.end());
}

}  // namespace

int PciDevice::LinkSpeed() const {
  return config.pcie && config.pcie->has_link && config.pcie->link_speed > 0 ? config.pcie->link_speed
                                                                             : sysfs_link_speed;
}
int PciDevice::LinkWidth() const {
  return config.pcie && config.pcie->has_link && config.pcie->link_width > 0 ? config.pcie->link_width
                                                                             : sysfs_link_width;
}
int PciDevice::MaxLinkSpeed() const {
  return config.pcie && config.pcie->has_link && config.pcie->link_max_speed > 0 ? config.pcie->link_max_speed
                                                                                 : sysfs_max_link_speed;
}
bool PciDevice::MaxLinkSpeedFromSysfs() const {
  return !(config.pcie && config.pcie->has_link && config.pcie->link_max_speed > 0) && sysfs_max_link_speed > 0;
}
int PciDevice::MaxLinkWidth() const {
  return config.pcie && config.pcie->has_link && config.pcie->link_max_width > 0 ? config.pcie->link_max_width
                                                                                 : sysfs_max_link_width;
}

const PciDevice* PciTopology::Find(std::string_view address) const {
  auto it = std::lower_bound(devices.begin(), devices.end(), address,
                             [](const PciDevice& d, std::string_view a) { return d.address < a; });
  return it != devices.end() && it->address == address ? &*it : nullptr;
}

const PciDevice* PciTopology::FindInterface(std::string_view ifname) const {
  for (const PciDevice& d : devices)
    if (std::find(d.interfaces.begin(), d.interfaces.end(), ifname) != d.interfaces.end()) return &d;
  return nullptr;
}

std::vector<const PciDevice*> PciTopology::PathToRoot(std::string_view address) const {
  std::vector<const PciDevice*> path;
  for (const PciDevice* d = Find(address); d != nullptr; d = d->parent.empty() ? nullptr : Find(d->parent)) {
    if (path.size() > devices.size()) break;  // a parent cycle in a malformed tree
    path.push_back(d);
  }
  return path;
}

std::vector<const PciDevice*> PciTopology::Children(std::string_view bridge, std::string_view root_bus) const {
  std::vector<const PciDevice*> out;
  for (const PciDevice& d : devices)
    if (d.parent == bridge && (!bridge.empty() || d.root_bus == root_bus)) out.push_back(&d);
  return out;
}

Status ParseAerCounters(std::string_view text, NamedCounters* out) {
  out->clear();
  std::string_view line;
  int n = 0;
  while (NextLine(&text, &line)) {
    ++n;
    std::string_view rest = line;
    std::string_view name = NextToken(&rest);
    if (name.empty()) continue;
    std::string_view value = NextToken(&rest);
    uint64_t v = 0;
    if (!ParseU64(value, &v) || !NextToken(&rest).empty()) {
      return Status::InvalidArgument("line " + std::to_string(n) + ": expected NAME COUNT, got '" +
                                     std::string(line.substr(0, 80)) + "'");
    }
    if (StartsWith(name, "TOTAL_ERR_")) continue;
    out->emplace_back(std::string(name), v);
  }
  return Status::OK();
}

Status PciCollector::ReadTopology(const HostFs& fs, PciTopology* out, std::vector<ReadIssue>* issues) {
  *out = PciTopology();
  std::vector<std::string> names;
  Status s = fs.ListSys(kDevices, &names);
  if (s.IsNotFound()) return Status::NotSupported("no PCI bus in sysfs");
  BN_RETURN_IF_ERROR(s);
  std::string buf;
  for (const std::string& name : names) {
    if (!IsPciAddress(name)) continue;
    PciDevice d;
    if (!ReadDevice(fs, name, &buf, &d, &out->problems, issues).ok()) continue;
    out->devices.push_back(std::move(d));
  }
  std::sort(out->devices.begin(), out->devices.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.address < b.address; });
  std::vector<std::string> ifnames;
  if (fs.ListSys(kNet, &ifnames).ok()) MapInterfaces(fs, ifnames, out);
  std::vector<std::string> on_paths;
  for (const PciDevice& d : out->devices) {
    if (d.interfaces.empty()) continue;
    for (const PciDevice* p : out->PathToRoot(d.address)) on_paths.push_back(p->address);
  }
  std::sort(on_paths.begin(), on_paths.end());
  on_paths.erase(std::unique(on_paths.begin(), on_paths.end()), on_paths.end());
  for (PciDevice& d : out->devices)
    if (std::binary_search(on_paths.begin(), on_paths.end(), d.address)) ReadCapabilities(fs, &buf, &d, &out->problems);
  return Status::OK();
}

bool PciCollector::Changed(const HostFs& fs, const std::vector<std::string>& names) {
  if (!topology_ || names != names_) return true;
  if (!fs.ListSys(kNet, &listing_).ok()) listing_.clear();
  return listing_ != net_names_;
}

Status PciCollector::Collect(const HostFs& fs, HostReadings* out) {
  std::vector<std::string> names;
  Status s = fs.ListSys(kDevices, &names);
  if (s.IsNotFound()) return Status::NotSupported("no PCI bus in sysfs (" + fs.SysPath(kDevices) + ")");
  BN_RETURN_IF_ERROR(s);
  if (Changed(fs, names)) {
    auto topo = std::make_shared<PciTopology>();
    BN_RETURN_IF_ERROR(ReadTopology(fs, topo.get(), read_issues()));
    names_ = std::move(names);
    if (!fs.ListSys(kNet, &net_names_).ok()) net_names_.clear();
    // AER counters are read every tick for the devices on NIC paths only.
    aer_paths_.clear();
    for (const PciDevice& d : topo->devices) {
      if (d.interfaces.empty()) continue;
      for (const PciDevice* p : topo->PathToRoot(d.address)) {
        std::string dir = std::string(kDevices) + "/" + p->address;
        if (std::find(aer_paths_.begin(), aer_paths_.end(), dir) == aer_paths_.end() &&
            fs.ReadSys(dir + "/" + kAerFiles[0], &buf_).ok()) {
          aer_paths_.push_back(dir);
        }
      }
    }
    std::sort(aer_paths_.begin(), aer_paths_.end());
    topology_ = std::move(topo);
  }
  out->pci = topology_;
  out->pci_aer.clear();
  for (const std::string& dir : aer_paths_) {
    PciAerCounters c;
    c.device.assign(Basename(dir));
    NamedCounters* parts[] = {&c.correctable, &c.nonfatal, &c.fatal};
    bool any = false;
    for (int i = 0; i < 3; ++i) {
      // One unreadable or garbled file leaves its counters out, not the
      // collector's whole reading.
      const std::string path = dir + "/" + kAerFiles[i];
      if (Status r = fs.ReadSys(path, &buf_); !r.ok()) {
        LeftOut(fs.SysPath(path), r);
        continue;
      }
      if (Status p = ParseAerCounters(buf_, parts[i]); !p.ok()) {
        parts[i]->clear();
        LeftOut(fs.SysPath(path), p);
        continue;
      }
      any = true;
    }
    if (any) out->pci_aer.push_back(std::move(c));
  }
  return Status::OK();
}

}  // namespace bottleneckd
