// pci collector: the PCI topology every NIC's bus path is built from, and the
// AER error counters along those paths. Reads, per function in
// /sys/bus/pci/devices (a symlink into /sys/devices/pci0000:00/.../0000:02:01.0):
// `config` (decoded by pci_config.h), vendor ("0x8086"), device, class
// ("0x020000"), numa_node ("-1"), current_link_speed ("8.0 GT/s PCIe"),
// current_link_width ("8"), max_link_speed, max_link_width, msi_irqs/, driver ->
// ../../bus/pci/drivers/e1000, net/ (the interfaces it backs) and
// aer_dev_{correctable,nonfatal,fatal} ("RxErr 0" lines, then "TOTAL_ERR_COR 0").
//
// The topology is read once and again only when the device list or a NIC's
// net/ listing changes (hotplug, a driver bound, an interface renamed); a tick
// otherwise costs one directory listing plus the AER files of the devices on NIC
// paths.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector.h"
#include "collectors/pci_config.h"

namespace bottleneckd {

struct PciDevice {
  std::string address;                  // "0000:02:01.0"
  std::string parent;                   // nearest upstream PCI function ("0000:01:1d.0"); "" on a root bus
  std::string root_bus;                 // "pci0000:00": the host bridge's sysfs node above it
  std::string driver;                   // "e1000"; "" when no driver is bound
  std::vector<std::string> interfaces;  // network interfaces of this function, sorted
  uint16_t vendor = 0, device = 0;      // from sysfs (readable by anyone)
  uint32_t class_code = 0;              // 0x020000 = Ethernet controller
  int numa_node = -1;
  // Identity attributes (vendor, device, class, numa_node) that exist but
  // could not be read or parsed: their values above are not the device's.
  std::vector<std::string> unread;
  bool Unread(std::string_view attr) const { return std::find(unread.begin(), unread.end(), attr) != unread.end(); }
  // Decode of the bytes `config` gave (config.length of them): the 64-byte
  // standard header for functions off NIC paths; up to 256 bytes (the
  // conventional space, every capability the bus model uses) for the NICs and
  // the bridges and ports above them. Extended space (4 KiB) is never read.
  PciConfig config;
  // sysfs link attributes (PCIe only); speed codes as in PcieInfo, 0 = absent
  // or "Unknown". Linux creates them for every PCIe function (and only for
  // PCIe functions): sysfs_link_attributes says current_link_speed exists,
  // which makes the function PCIe even when it reads "Unknown" (a function
  // with no link: a root-complex integrated endpoint, an event collector, an
  // integrated NIC whose width reads 0).
  bool sysfs_link_attributes = false;
  int sysfs_link_speed = 0, sysfs_link_width = 0;
  int sysfs_max_link_speed = 0, sysfs_max_link_width = 0;
  std::vector<int> msi_irqs;  // msi_irqs/ entries, sorted
  // Facts neither config space nor sysfs could give (config read short without
  // root, or the register absent), for functions on NIC paths, by name: "pcie_max_payload",
  // "pcie_max_read_request", "pcix_status", "pcix_secondary_status",
  // "pci_66mhz_capable". The bus model says what it assumed instead.
  std::vector<std::string> missing;
  // Why `missing` is not empty, for the log line that lists it: "config space
  // past 64 bytes needs root (CAP_SYS_ADMIN)" (a short read), "no config
  // file" (the attribute is absent: some hypervisors' and platforms' functions,
  // whoever reads it), "config unreadable: <status>", or "config space cut
  // short at N bytes" (a read shorter than the header). "" when nothing is missing.
  std::string missing_reason;
  bool config_absent = false;  // `config` does not exist (NotFound)

  bool IsBridge() const { return config.bridge.has_value() || (class_code >> 8) == 0x0604; }
  bool IsNetwork() const { return (class_code >> 16) == 0x02; }
  bool IsPcie() const { return config.pcie.has_value() || sysfs_link_attributes || sysfs_link_speed > 0; }
  // Negotiated and maximum link speed code / width: config space when it has
  // the PCIe capability, else the sysfs attributes; 0 when neither has them
  // (or the function has no link: "Unknown" in sysfs, an integrated endpoint).
  // The sysfs max_link_speed of kernels before 6.13 is LnkCap2's highest
  // speed even where LnkCap's Max Link Speed is lower; config space, when
  // readable, is what the maximum comes from.
  // MaxLinkSpeedFromSysfs(): the maximum is the sysfs attribute's.
  int LinkSpeed() const;
  int LinkWidth() const;
  int MaxLinkSpeed() const;
  int MaxLinkWidth() const;
  bool MaxLinkSpeedFromSysfs() const;
};

struct PciTopology {
  std::vector<PciDevice> devices;  // sorted by address
  // Problems met while reading it (a config file unreadable, a link that does
  // not resolve), for one log line; the devices concerned are still listed.
  std::vector<std::string> problems;

  const PciDevice* Find(std::string_view address) const;
  // The function backing network interface `ifname`, or nullptr.
  const PciDevice* FindInterface(std::string_view ifname) const;
  // `address` first, then each upstream bridge or port up to the root bus.
  // Empty when `address` is unknown; stops at a parent that is not listed.
  std::vector<const PciDevice*> PathToRoot(std::string_view address) const;
  // Functions whose parent is `bridge` ("" = the root bus `root_bus`).
  std::vector<const PciDevice*> Children(std::string_view bridge, std::string_view root_bus = {}) const;
};

// One device's AER counters (cumulative since boot), read every tick.
struct PciAerCounters {
  std::string device;
  NamedCounters correctable, nonfatal, fatal;  // without the TOTAL_ERR_* lines
};

// Parses an aer_dev_* attribute: "NAME VALUE" lines; TOTAL_ERR_COR /
// TOTAL_ERR_FATAL / TOTAL_ERR_NONFATAL are dropped (they are the sums).
// InvalidArgument naming the line on a line that is not NAME + u64.
Status ParseAerCounters(std::string_view text, NamedCounters* out);

class PciCollector : public Collector {
 public:
  std::string_view name() const override { return "pci"; }
  // Fills out->pci (shared with earlier samples while the topology is
  // unchanged) and out->pci_aer. NotSupported when the PCI bus directory does
  // not exist (no PCI: some VMs, containers without /sys/bus/pci).
  Status Collect(const HostFs& fs, HostReadings* out) override;

  // Reads the whole topology: every function's attributes and config header,
  // and the capabilities of the functions on NIC paths.
  // Files that could not be read or parsed (their facts stay unknown) go to
  // *issues when given.
  static Status ReadTopology(const HostFs& fs, PciTopology* out, std::vector<ReadIssue>* issues = nullptr);

 private:
  // True when the device listing or any NIC's net/ listing differs from what
  // the current topology was read from.
  bool Changed(const HostFs& fs, const std::vector<std::string>& names);

  std::shared_ptr<const PciTopology> topology_;
  std::vector<std::string> names_;      // the device listing topology_ came from
  std::vector<std::string> net_names_;  // the class/net listing it came from
  std::vector<std::string> listing_;    // scratch
  std::vector<std::string> aer_paths_;  // devices on NIC paths whose AER files exist
  std::string buf_;
};

}  // namespace bottleneckd
