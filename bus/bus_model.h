// Bus model: how much of each link on a NIC's bus path the NIC's packets use
// (docs/bus-model.md: the formulas in sections 1 and 2, every default in section 3).
//
// Traffic per packet of S bytes (the interface's bytes / packets this window):
// - PCIe, transaction-layer bytes, after Neugebauer et al., "Understanding PCIe
//   performance for end host networking", SIGCOMM 2018:
//     write of n bytes (MWr)        = n + ceil(n / MPS) x 24
//     read of n bytes: request (MRd) = ceil(n / MRRS) x 24        (towards the target)
//                      completion    = n + ceil(n / MPS) x 20     (back to the reader)
//   Receive: packet write + descriptor write-back upstream, descriptor fetch
//   (request up, completion down), doorbell write down. Transmit: doorbell
//   down, descriptor fetch, payload read (request up, completion down),
//   write-back up. Per interrupt: the MSI write (4 bytes) up, and the
//   profile's MMIO reads of the interrupt cause (request down, completion up).
//   Effective capacity per direction = raw x (1 - dll_overhead): ACK and flow
//   control DLLPs, about 8 % in the paper. Utilisation = max over directions.
// - Conventional PCI and PCI-X, bus clocks: a burst of n bytes costs address
//   (+ attribute for PCI-X) + initial wait + ceil(n / bytes per clock) data +
//   turnaround clocks, bursts of at most max_*_burst bytes. Conventional PCI
//   reads are delayed transactions (the read wait includes the retries);
//   PCI-X reads are split: a request, then completions that each pay address,
//   attribute, response and turnaround. Legacy INTx costs no bus clocks. The
//   segment is shared and half duplex: utilisation = clocks used by every
//   modelled NIC on it / clocks per second. Traffic is exported as bus-time
//   equivalent bytes (clocks x bytes per clock).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bus/bus_path.h"

namespace bottleneckd {

struct NicWindow;

// How a NIC family moves a packet, per packet (defaults: the "simple" NIC of
// Neugebauer et al.). Named after the family they suit; docs/bus-model.md
// gives the source of each built-in value.
struct NicProfile {
  std::string name = "simple";
  int descriptor_bytes = 16;          // one rx/tx descriptor, as the device reads it
  double descriptors_per_packet = 1;  // buffers per packet (scatter-gather, jumbo)
  int descriptor_fetch_batch = 1;     // descriptors fetched per read
  int rx_writeback_bytes = 16;        // written back per received packet (descriptor or CQE)
  int tx_writeback_bytes = 16;        // written back per sent packet (0: head write-back / batched)
  int writeback_batch = 1;            // write-backs merged into one write
  int rx_doorbell_batch = 1;          // received packets per tail (doorbell) write
  int tx_doorbell_batch = 1;          // sent packets per doorbell write
  int doorbell_bytes = 4;
  int mmio_reads_per_interrupt = 0;  // interrupt-cause register reads by the handler (e1000: ICR)
  int msi_bytes = 4;                 // MSI/MSI-X message write per interrupt (when MSI is enabled)

  // "descriptor_bytes=16,descriptors_per_packet=1,...": every field, for the
  // estimate's parameters.
  std::vector<std::pair<std::string, double>> Parameters() const;
};

// Clock costs of a conventional PCI or PCI-X segment. Defaults per kind from
// DefaultPciTiming.
struct PciTiming {
  int address_clocks = 1;     // address phase (a dual-address cycle would add one)
  int attribute_clocks = 0;   // PCI-X attribute phase: 1
  int write_wait_clocks = 2;  // DEVSEL decode + target initial latency of a posted write
  // PCI: a delayed read's initial latency including its retries. PCI-X: the
  // split request's response clocks; each split completion then pays
  // address + attribute + write_wait + turnaround + data, as a write does.
  int read_wait_clocks = 12;
  int turnaround_clocks = 1;  // idle clock between transactions
  int max_write_burst = 512;  // bytes before the master or target disconnects
  // Bytes per read burst: a bridge's prefetch for PCI; for PCI-X the
  // device's maximum memory read byte count (its PCI-X command register when
  // known, this value otherwise).
  int max_read_burst = 128;
  int mmio_read_wait_clocks = 4;  // the device's own register read latency (CPU reading it)

  std::vector<std::pair<std::string, double>> Parameters() const;
};
PciTiming DefaultPciTiming(BusKind kind);

// A numeric field of NicProfile or PciTiming, listed once: its name (the
// config key under bus_model, and the estimate's parameter name), its member
// (whole or not) and the range the config accepts. Parameters() and the
// config's parser (bus/bus_model_config.cc) both read these lists.
template <typename T>
struct BusParameter {
  const char* name;
  int T::*whole;      // or null
  double T::*number;  // when whole is null
  double lo, hi;
  double Get(const T& t) const { return whole ? t.*whole : t.*number; }
};
const std::vector<BusParameter<NicProfile>>& NicProfileParameters();
const std::vector<BusParameter<PciTiming>>& PciTimingParameters();
// Each parameter's name and value in `t`: what Parameters() returns.
template <typename T>
std::vector<std::pair<std::string, double>> ParameterValues(const std::vector<BusParameter<T>>& parameters,
                                                            const T& t) {
  std::vector<std::pair<std::string, double>> out;
  for (const BusParameter<T>& p : parameters) out.emplace_back(p.name, p.Get(t));
  return out;
}

struct BusModelOptions {
  // Built-in profiles (simple, e1000, e1000e, igb, ixgbe, i40e, mlx5, virtio)
  // with the config's overrides and additions, by name.
  std::map<std::string, NicProfile> profiles;
  // Interface -> profile name; interfaces not listed get ProfileForDriver().
  std::map<std::string, std::string> interfaces;
  PciTiming pci = DefaultPciTiming(BusKind::kPci);
  PciTiming pcix = DefaultPciTiming(BusKind::kPciX);
  double pcie_dll_overhead = 0.08;  // share of PCIe link time spent on DLLPs
  // A PCIe function whose MPS / MRRS is unknown (no root) is modelled with these.
  int assumed_max_payload = 256, assumed_max_read_request = 512;
};
BusModelOptions DefaultBusModelOptions();
// The built-in profile name for a driver ("e1000" -> "e1000", "mlx5_core" ->
// "mlx5", "virtio_net"/"virtio-pci" -> "virtio"); "simple" otherwise.
std::string ProfileForDriver(std::string_view driver);

// One direction-resolved load on one link. For PCI/PCI-X only `up` is used
// (the segment has one direction); down stays 0.
struct LinkLoad {
  double up_bytes_per_second = 0;    // device -> host (PCIe upstream)
  double down_bytes_per_second = 0;  // host -> device
  double utilisation = 0;            // of the effective capacity; max over directions
};

// The model's answer for one link, all NICs on it together.
struct BusLinkEstimate {
  std::string device;  // BusLink::device
  BusKind kind = BusKind::kPci;
  double effective_bytes_per_second = 0;  // per direction (PCIe) or whole segment
  LinkLoad load;
  std::vector<std::string> interfaces;  // the NICs whose traffic is in `load`, sorted
  // NICs crossing the link whose packet rates this window are unknown (their
  // counters could not be read): `load` leaves them out, so it is not the
  // link's load. Sorted.
  std::vector<std::string> unmeasured;
  // The capacity is known and every NIC on the link measured: load and
  // utilisation mean what they say. Otherwise they are not exported or used.
  bool known() const { return effective_bytes_per_second > 0 && unmeasured.empty(); }
};

// The model's answer for one NIC: its own contribution to each link of its
// path, and the busiest link of the path (every NIC on it counted).
struct BusNicEstimate {
  std::string interface, device;
  std::string method;                                      // "pcie-tlp (Neugebauer 2018)", "pci-clocks", "pcix-clocks"
  std::string profile;                                     // NicProfile::name
  std::vector<std::pair<std::string, double>> parameters;  // profile + timing / MPS, MRRS used
  std::vector<std::string> assumptions;                    // from the path's links and the model
  double packet_bytes_rx = 0, packet_bytes_tx = 0;         // mean S this window
  bool measured = true;                                    // its packet rates this window are known
  std::vector<LinkLoad> own;                               // this NIC's share, parallel to BusPath::links
  double path_utilisation = 0;                             // max over the path's links of the link estimate
  std::string bottleneck_device;                           // the link with that maximum; "" = unknown (no
                                                           // link of known capacity: path_utilisation is not 0
                                                           // but unknown)
};

struct BusEstimate {
  std::vector<BusLinkEstimate> links;  // sorted by device
  std::vector<BusNicEstimate> nics;    // sorted by interface
  const BusLinkEstimate* FindLink(std::string_view device) const;
  const BusNicEstimate* FindNic(std::string_view interface) const;
};

// Traffic of one NIC on one link for rx/tx packet rates with mean sizes, and
// its interrupt rate. Pure; exposed for tests and the lab simulator.
LinkLoad NicLinkLoad(const BusLink& link, const NicProfile& profile, const BusModelOptions& options, int max_payload,
                     int max_read_request, bool msi, double rx_pps, double rx_bytes, double tx_pps, double tx_bytes,
                     double interrupts_per_second);
// Effective capacity of a link: per direction for PCIe (raw x (1 - dll)),
// the segment's clocks x bytes per clock for PCI/PCI-X.
double EffectiveCapacity(const BusLink& link, const BusModelOptions& options);

// Estimates every link and NIC of `paths` from this window's NIC rates. NICs
// without rates this window (a counter reset) count as idle and say so in
// their assumptions.
BusEstimate EstimateBus(const std::vector<BusPath>& paths, const std::vector<NicWindow>& nics, const PciTopology& topo,
                        const BusModelOptions& options);

}  // namespace bottleneckd
