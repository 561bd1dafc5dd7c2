// Bus paths: for every network interface backed by a PCI function, the links
// its DMA crosses from the NIC up to the root complex, each with its kind,
// clock or rate, width and raw capacity (docs/bus-model.md section 1).
// Derived from a PciTopology alone; no rates here.
//
// Links, each named by its upstream end: the bridge or port whose secondary
// side it is (a root bus's name for devices directly on one):
// - PCIe: one per physical link, named by the root or switch downstream port
//   above it; functions of one multi-function device share it. Root ports,
//   downstream ports and integrated endpoints own no link of their own
//   (their link is the one to the device below); a switch's internal bus is
//   not a link.
// - Conventional PCI and PCI-X: one per segment (a bridge's secondary bus, or a
//   root bus), shared and half duplex: every function on it is a member. PCI-X
//   mode and clock come from the bridge's PCI-X secondary status, as Linux's
//   pci_set_bus_speed reads them; 66 MHz conventional only when the bridge and
//   every function on the segment are 66 MHz capable. A segment holding only
//   bridges (a chipset hub link, a PCIe-to-PCI bridge's internal bus) is not a
//   link: nothing there is a PCI bus a device contends on.
// - Facts the topology lacks (no root: 64-byte config reads) are assumed and
//   the assumption is written in the link's `assumptions`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/pci.h"

namespace bottleneckd {

enum class BusKind : uint8_t { kPci, kPciX, kPcie };
// "pci", "pcix", "pcie": the `bus` label of bottleneckd_pci_link_info.
const char* BusKindName(BusKind kind);

// The real clock behind a nominal PCI/PCI-X frequency in MHz: 33 MHz is
// 33.333 MHz, 66 is 66.667, 133 is 133.333; others as given; 0 for <= 0.
double BusClockHz(int mhz);

struct BusLink {
  BusKind kind = BusKind::kPci;
  // A PCI/PCI-X segment whose kind, clock and width could not be read
  // (SegmentUnknown: its bridge's config is unreadable, short, garbage or
  // loops): kind stays kPci for the model but the labels say "unknown" and
  // it has no capacity.
  bool unknown = false;
  // The link's upstream end: the PCIe port above it ("0000:3a:02.0"), the
  // bridge whose secondary bus a PCI/PCI-X segment is ("0000:01:1d.0"), or the
  // root bus ("pci0000:00") for devices directly on a root bus.
  std::string device;
  std::string segment;  // PCI/PCI-X: the bus, "0000:02"; "" for PCIe

  // PCI / PCI-X
  int clock_mhz = 0;            // 33, 66, 100, 133
  int width_bits = 0;           // 32 or 64
  int transfers_per_clock = 1;  // PCI-X 2.0 mode 2: 2 (266) or 4 (533)
  // PCIe: speed codes (PcieInfo) and lanes
  int speed = 0, width = 0;
  int max_speed = 0, max_width = 0;
  bool downtrained = false;  // trained below what both ends support

  // PCI/PCI-X: width x clock x transfers, the whole segment (half duplex).
  // PCIe: rate x lanes after line encoding (8b/10b to 5 GT/s, 128b/130b from
  // 8 GT/s, 1b/1b at 64 GT/s), per direction.
  double raw_bytes_per_second = 0;
  bool full_duplex = false;  // PCIe
  // A hypervisor's emulated device (virtio, vendor 0x1af4) or a bus only such
  // devices sit on: the numbers are what config space claims, not a physical
  // limit, and the verdict engine does not call it a bottleneck.
  bool emulated = false;

  // Every function whose traffic crosses this link: a segment's functions, or
  // every function below a PCIe link's port. Sorted.
  std::vector<std::string> members;
  // What was assumed for facts the topology lacks, one sentence each:
  // "bus width assumed 32-bit: conventional PCI does not show it in config space".
  std::vector<std::string> assumptions;

  // "pci", "pcix", "pcie", or "unknown": the `bus` label.
  const char* KindLabel() const { return unknown ? "unknown" : BusKindName(kind); }
  // "33MHz", "133MHz", "8.0GT/s", "unknown": the `speed` label.
  std::string SpeedLabel() const;
  // PCIe: the max_speed as SpeedLabel writes a speed ("16.0GT/s"); "" otherwise.
  std::string MaxSpeedLabel() const;
  // "32bit", "64bit", "x8": the `width` label.
  std::string WidthLabel() const;
};

struct BusPath {
  std::string interface;  // "em0"
  std::string device;     // the NIC's function, "0000:02:01.0"
  std::string driver;     // "e1000"
  // The NIC function's PCIe Max_Payload_Size / Max_Read_Request_Size in bytes;
  // 0 when unknown (not PCIe, or config space unreadable).
  int max_payload = 0, max_read_request = 0;
  std::vector<BusLink> links;  // from the NIC's own link up to the root complex
  // Index into links of the one with the least raw capacity per direction
  // (PCI/PCI-X capacity counts as per direction too: it is shared by both).
  size_t narrowest = 0;
};

// The path of every network interface the topology maps to a PCI function,
// sorted by interface name. Interfaces whose function has no link (an
// integrated device on a root bus with only bridges) get a path with no links.
std::vector<BusPath> BuildBusPaths(const PciTopology& topo);

}  // namespace bottleneckd
