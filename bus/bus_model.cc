// Bus model: the traffic formulas (per NIC, per link) and the estimate over
// every NIC's path. The formulas and defaults are explained in
// docs/bus-model.md; the built-in NIC profiles are in nic_profiles.cc.
#include "bus/bus_model.h"

#include <algorithm>
#include <cmath>

#include "window/window.h"

namespace bottleneckd {
namespace bus_model_internal {
// nic_profiles.cc
std::map<std::string, NicProfile> BuiltinNicProfiles();
}  // namespace bus_model_internal

namespace {

// PCIe transaction-layer header bytes as Neugebauer et al. count them (TLP
// header with 64-bit address, plus framing, sequence number and LCRC).
constexpr double kMemWriteHeader = 24, kMemReadHeader = 24, kCompletionHeader = 20;
constexpr double kRegisterBytes = 4;  // one MMIO register read (ICR)

// Non-negative finite, else 0: rates from a window are never trusted blindly.
double Sane(double v) { return std::isfinite(v) && v > 0 ? v : 0; }

// ceil(n / d) for non-negative n, tolerant of the rounding error in a mean
// (1024.0000000001 bytes is one 1024-byte burst, not two).
double CeilDiv(double n, double d) {
  if (n <= 0 || d <= 0) return 0;
  return std::ceil(n / d - 1e-9);
}

int AtLeastOne(int v) { return v < 1 ? 1 : v; }

// Who moves the bytes: the NIC (DMA) or the CPU (doorbells, register reads).
enum class Op { kDmaWrite, kDmaRead, kHostWrite, kHostRead };

// Calls fn(op, bytes per transfer, transfers per second) for every transfer
// the profile makes for these rates (docs/bus-model.md, "traffic per packet").
template <typename Fn>
void ForEachTransfer(const NicProfile& p, bool msi, double rx_pps, double rx_size, double tx_pps, double tx_size,
                     double interrupts, Fn&& fn) {
  const double fetch_batch = AtLeastOne(p.descriptor_fetch_batch);
  const double fetch_bytes = std::max(0, p.descriptor_bytes) * fetch_batch;
  const double fetches_per_packet = std::max(0.0, Sane(p.descriptors_per_packet)) / fetch_batch;
  const double wb_batch = AtLeastOne(p.writeback_batch);
  const double doorbell = std::max(0, p.doorbell_bytes);
  // Receive: payload written up, descriptors fetched, written back, refilled.
  fn(Op::kDmaWrite, rx_size, rx_pps);
  fn(Op::kDmaRead, fetch_bytes, rx_pps * fetches_per_packet);
  fn(Op::kDmaWrite, std::max(0, p.rx_writeback_bytes) * wb_batch, rx_pps / wb_batch);
  fn(Op::kHostWrite, doorbell, rx_pps / AtLeastOne(p.rx_doorbell_batch));
  // Transmit: doorbell, descriptor fetch, payload read, write-back.
  fn(Op::kHostWrite, doorbell, tx_pps / AtLeastOne(p.tx_doorbell_batch));
  fn(Op::kDmaRead, fetch_bytes, tx_pps * fetches_per_packet);
  fn(Op::kDmaRead, tx_size, tx_pps);
  fn(Op::kDmaWrite, std::max(0, p.tx_writeback_bytes) * wb_batch, tx_pps / wb_batch);
  // Interrupts: the MSI message, then the handler's register reads.
  if (msi) fn(Op::kDmaWrite, std::max(0, p.msi_bytes), interrupts);
  fn(Op::kHostRead, kRegisterBytes, interrupts * std::max(0, p.mmio_reads_per_interrupt));
}

// PCIe: transaction-layer bytes per direction.
LinkLoad PcieLoad(const NicProfile& p, int mps_in, int mrrs_in, bool msi, double rx_pps, double rx_size, double tx_pps,
                  double tx_size, double interrupts) {
  const double mps = mps_in > 0 ? mps_in : 128, mrrs = mrrs_in > 0 ? mrrs_in : 128;
  auto write = [&](double n) { return n <= 0 ? 0 : n + CeilDiv(n, mps) * kMemWriteHeader; };
  auto request = [&](double n) { return CeilDiv(n, mrrs) * kMemReadHeader; };
  auto completion = [&](double n) { return n <= 0 ? 0 : n + CeilDiv(n, mps) * kCompletionHeader; };
  LinkLoad load;
  ForEachTransfer(p, msi, rx_pps, rx_size, tx_pps, tx_size, interrupts, [&](Op op, double n, double rate) {
    if (n <= 0 || rate <= 0) return;
    switch (op) {
      case Op::kDmaWrite: load.up_bytes_per_second += rate * write(n); break;
      case Op::kDmaRead:
        load.up_bytes_per_second += rate * request(n);
        load.down_bytes_per_second += rate * completion(n);
        break;
      case Op::kHostWrite: load.down_bytes_per_second += rate * write(n); break;
      case Op::kHostRead:
        load.down_bytes_per_second += rate * request(n);
        load.up_bytes_per_second += rate * completion(n);
        break;
    }
  });
  return load;
}

double BytesPerClock(const BusLink& link) {
  if (link.width_bits <= 0) return 0;
  return link.width_bits / 8.0 * AtLeastOne(link.transfers_per_clock);
}

// PCI / PCI-X: bus clocks per second this NIC holds the segment.
double PciClocks(const BusLink& link, const PciTiming& t, const NicProfile& p, bool msi, double rx_pps, double rx_size,
                 double tx_pps, double tx_size, double interrupts) {
  const double bpc = BytesPerClock(link);
  if (bpc <= 0) return 0;
  const bool split = link.kind == BusKind::kPciX;
  const double head = std::max(0, t.address_clocks) + std::max(0, t.attribute_clocks);
  const double turn = std::max(0, t.turnaround_clocks);
  const double write_burst = AtLeastOne(t.max_write_burst), read_burst = AtLeastOne(t.max_read_burst);
  auto data = [&](double n) { return CeilDiv(n, bpc); };
  auto write = [&](double n, double burst) {
    return CeilDiv(n, burst) * (head + std::max(0, t.write_wait_clocks) + turn) + data(n);
  };
  double clocks = 0;
  ForEachTransfer(p, msi, rx_pps, rx_size, tx_pps, tx_size, interrupts, [&](Op op, double n, double rate) {
    if (n <= 0 || rate <= 0) return;
    double c = 0;
    switch (op) {
      case Op::kDmaWrite:
      case Op::kHostWrite: c = write(n, write_burst); break;
      case Op::kDmaRead: {
        const double requests = CeilDiv(n, read_burst) * (head + std::max(0, t.read_wait_clocks) + turn);
        // PCI-X: split requests, then completions that each cost what a write
        // does; PCI: a delayed read whose wait includes the retries.
        c = split ? requests + write(n, read_burst) : requests + data(n);
        break;
      }
      case Op::kHostRead:
        c = CeilDiv(n, read_burst) * (head + std::max(0, t.mmio_read_wait_clocks) + turn) + data(n);
        break;
    }
    clocks += rate * c;
  });
  return clocks;
}

LinkLoad LoadOnLink(const BusLink& link, const NicProfile& profile, const PciTiming& timing, double dll, int mps,
                    int mrrs, bool msi, double rx_pps, double rx_bytes, double tx_pps, double tx_bytes,
                    double interrupts) {
  rx_pps = Sane(rx_pps), tx_pps = Sane(tx_pps), interrupts = Sane(interrupts);
  const double rx_size = rx_pps > 0 ? Sane(rx_bytes) / rx_pps : 0;
  const double tx_size = tx_pps > 0 ? Sane(tx_bytes) / tx_pps : 0;
  LinkLoad load;
  double capacity = 0;
  if (link.kind == BusKind::kPcie) {
    load = PcieLoad(profile, mps, mrrs, msi, rx_pps, rx_size, tx_pps, tx_size, interrupts);
    capacity = Sane(link.raw_bytes_per_second) * (1 - std::clamp(Sane(dll), 0.0, 1.0));
  } else {
    const double clocks = PciClocks(link, timing, profile, msi, rx_pps, rx_size, tx_pps, tx_size, interrupts);
    load.up_bytes_per_second = clocks * BytesPerClock(link);
    capacity = BusClockHz(link.clock_mhz) * BytesPerClock(link);
  }
  const double busiest = std::max(load.up_bytes_per_second, load.down_bytes_per_second);
  load.utilisation = capacity > 0 ? busiest / capacity : 0;
  return load;
}

const PciTiming& TimingFor(BusKind kind, const BusModelOptions& options) {
  return kind == BusKind::kPciX ? options.pcix : options.pci;
}

const char* MethodFor(BusKind kind) {
  switch (kind) {
    case BusKind::kPcie: return "pcie-tlp (Neugebauer 2018)";
    case BusKind::kPciX: return "pcix-clocks";
    case BusKind::kPci: break;
  }
  return "pci-clocks";
}

void AddAssumption(std::vector<std::string>* list, std::string text) {
  if (std::find(list->begin(), list->end(), text) == list->end()) list->push_back(std::move(text));
}

// What the estimate needs to know about one NIC besides its path.
struct NicFacts {
  NicProfile profile;
  bool msi = false;
  int mps = 0, mrrs = 0;
  int pcix_read_burst = 0;  // the NIC's PCI-X max memory read byte count; 0 unknown
  double rx_pps = 0, rx_bytes = 0, tx_pps = 0, tx_bytes = 0, interrupts = 0;
  bool measured = false;  // the window had its packet rates
};

NicFacts ResolveNic(const BusPath& path, const NicWindow* window, const PciTopology& topo,
                    const BusModelOptions& options, BusNicEstimate* nic) {
  NicFacts f;
  auto& notes = nic->assumptions;
  // Profile: configured for the interface, else by driver.
  const auto configured = options.interfaces.find(path.interface);
  const std::string name = configured != options.interfaces.end() ? configured->second : ProfileForDriver(path.driver);
  if (auto it = options.profiles.find(name); it != options.profiles.end()) {
    f.profile = it->second;
  } else {
    const auto builtin = bus_model_internal::BuiltinNicProfiles();
    if (auto b = builtin.find(name); b != builtin.end()) {
      f.profile = b->second;
    } else {
      f.profile = NicProfile{};
      AddAssumption(&notes, "profile \"" + name + "\" is not defined: the simple NIC profile is used");
    }
  }
  // Interrupt mode, PCIe MPS / MRRS and PCI-X read byte count from the topology.
  const PciDevice* dev = topo.Find(path.device);
  if (dev != nullptr) {
    const PciConfig& c = dev->config;
    f.msi = (c.msi && c.msi->enabled) || (c.msix && c.msix->enabled) || !dev->msi_irqs.empty();
    if (c.pcix && !c.pcix->bridge) f.pcix_read_burst = c.pcix->max_read_byte_count;
  } else {
    AddAssumption(&notes, "device not in the PCI topology: legacy INTx interrupts assumed");
  }
  const bool has_pcie =
      std::any_of(path.links.begin(), path.links.end(), [](const BusLink& l) { return l.kind == BusKind::kPcie; });
  if (has_pcie) {
    f.mps = path.max_payload, f.mrrs = path.max_read_request;
    // Not known for the NIC (a conventional NIC behind a PCIe-to-PCI bridge):
    // the nearest PCIe function above it, which issues its requests.
    for (const PciDevice* d : topo.PathToRoot(path.device)) {
      if (!d->config.pcie) continue;
      if (f.mps <= 0) f.mps = d->config.pcie->max_payload;
      if (f.mrrs <= 0) f.mrrs = d->config.pcie->max_read_request;
    }
    if (f.mps <= 0) {
      f.mps = options.assumed_max_payload;
      AddAssumption(
          &notes,
          std::string("PCIe max payload size unknown: assumed ").append(std::to_string(f.mps)).append(" bytes"));
    }
    if (f.mrrs <= 0) {
      f.mrrs = options.assumed_max_read_request;
      AddAssumption(
          &notes,
          std::string("PCIe max read request size unknown: assumed ").append(std::to_string(f.mrrs)).append(" bytes"));
    }
  }
  if (!path.links.empty() && path.links[0].kind == BusKind::kPciX && f.pcix_read_burst <= 0) {
    AddAssumption(&notes, "PCI-X maximum memory read byte count unknown: assumed " +
                              std::to_string(options.pcix.max_read_burst) + " bytes");
  }
  // Rates. Without packet rates (counters unreadable, or reset this window)
  // the NIC's traffic is unknown, and so the load of every link it crosses
  // (BusLinkEstimate::unmeasured): not a 0. A missing byte rate alone counts
  // as no payload, and the estimate says so.
  auto value = [](const std::optional<double>& v) { return v ? Sane(*v) : 0.0; };
  if (window == nullptr || (!window->rx_packets_per_second && !window->tx_packets_per_second)) {
    AddAssumption(&notes, "no rates this window: its bus traffic is unknown, and so the load of its links");
    return f;
  }
  f.measured = true;
  f.rx_pps = value(window->rx_packets_per_second);
  f.tx_pps = value(window->tx_packets_per_second);
  f.rx_bytes = value(window->rx_bits_per_second) / 8;
  f.tx_bytes = value(window->tx_bits_per_second) / 8;
  f.interrupts = value(window->interrupts_per_second);
  if (!window->rx_bits_per_second || !window->tx_bits_per_second) {
    AddAssumption(&notes, "no byte rates this window: payload not counted where missing");
  }
  if (!window->interrupts_per_second) {
    AddAssumption(&notes, "no interrupt rate this window: interrupts not counted");
  }
  return f;
}

}  // namespace

const std::vector<BusParameter<PciTiming>>& PciTimingParameters() {
  using T = PciTiming;
  static const std::vector<BusParameter<PciTiming>> kParameters = {
      {"address_clocks", &T::address_clocks, nullptr, 0, 1024},
      {"attribute_clocks", &T::attribute_clocks, nullptr, 0, 1024},
      {"write_wait_clocks", &T::write_wait_clocks, nullptr, 0, 1024},
      {"read_wait_clocks", &T::read_wait_clocks, nullptr, 0, 1024},
      {"turnaround_clocks", &T::turnaround_clocks, nullptr, 0, 1024},
      {"max_write_burst", &T::max_write_burst, nullptr, 4, 65536},
      {"max_read_burst", &T::max_read_burst, nullptr, 4, 65536},
      {"mmio_read_wait_clocks", &T::mmio_read_wait_clocks, nullptr, 0, 1024},
  };
  return kParameters;
}

std::vector<std::pair<std::string, double>> PciTiming::Parameters() const {
  return ParameterValues(PciTimingParameters(), *this);
}

PciTiming DefaultPciTiming(BusKind kind) {
  PciTiming t;  // conventional PCI: the struct's defaults (docs/bus-model.md)
  if (kind == BusKind::kPciX) {
    t.attribute_clocks = 1;   // PCI-X 2.0: every transaction has an attribute phase
    t.write_wait_clocks = 2;  // decode B (2 clocks) before the first data phase
    t.read_wait_clocks = 2;   // decode + the target's Split Response, no data
    t.max_write_burst = 512;
    t.max_read_burst = 512;  // PCI-X command register reset value of MMRBC
  }
  return t;
}

BusModelOptions DefaultBusModelOptions() {
  BusModelOptions options;
  options.profiles = bus_model_internal::BuiltinNicProfiles();
  return options;
}

LinkLoad NicLinkLoad(const BusLink& link, const NicProfile& profile, const BusModelOptions& options, int max_payload,
                     int max_read_request, bool msi, double rx_pps, double rx_bytes, double tx_pps, double tx_bytes,
                     double interrupts_per_second) {
  const int mps = max_payload > 0 ? max_payload : options.assumed_max_payload;
  const int mrrs = max_read_request > 0 ? max_read_request : options.assumed_max_read_request;
  return LoadOnLink(link, profile, TimingFor(link.kind, options), options.pcie_dll_overhead, mps, mrrs, msi, rx_pps,
                    rx_bytes, tx_pps, tx_bytes, interrupts_per_second);
}

double EffectiveCapacity(const BusLink& link, const BusModelOptions& options) {
  if (link.kind == BusKind::kPcie) {
    return Sane(link.raw_bytes_per_second) * (1 - std::clamp(Sane(options.pcie_dll_overhead), 0.0, 1.0));
  }
  return BusClockHz(link.clock_mhz) * BytesPerClock(link);
}

const BusLinkEstimate* BusEstimate::FindLink(std::string_view device) const {
  for (const auto& l : links) {
    if (l.device == device) return &l;
  }
  return nullptr;
}

const BusNicEstimate* BusEstimate::FindNic(std::string_view interface) const {
  for (const auto& n : nics) {
    if (n.interface == interface) return &n;
  }
  return nullptr;
}

BusEstimate EstimateBus(const std::vector<BusPath>& paths, const std::vector<NicWindow>& nics, const PciTopology& topo,
                        const BusModelOptions& options) {
  std::map<std::string, BusLinkEstimate> links;
  BusEstimate est;
  for (const BusPath& path : paths) {
    BusNicEstimate nic;
    nic.interface = path.interface;
    nic.device = path.device;
    nic.method = path.links.empty() ? "none" : MethodFor(path.links[0].kind);
    const NicWindow* window = nullptr;
    for (const NicWindow& w : nics) {
      if (w.interface == path.interface) window = &w;
    }
    const NicFacts f = ResolveNic(path, window, topo, options, &nic);
    nic.measured = f.measured;
    nic.profile = f.profile.name;
    nic.packet_bytes_rx = f.rx_pps > 0 ? f.rx_bytes / f.rx_pps : 0;
    nic.packet_bytes_tx = f.tx_pps > 0 ? f.tx_bytes / f.tx_pps : 0;
    nic.parameters = f.profile.Parameters();

    bool timing_listed = false;
    for (size_t i = 0; i < path.links.size(); ++i) {
      const BusLink& link = path.links[i];
      PciTiming timing = TimingFor(link.kind, options);
      if (link.kind == BusKind::kPciX && i == 0 && f.pcix_read_burst > 0) {
        timing.max_read_burst = f.pcix_read_burst;
      }
      if (link.kind != BusKind::kPcie && !timing_listed) {
        for (auto& p : timing.Parameters()) nic.parameters.push_back(std::move(p));
        timing_listed = true;
      }
      for (const std::string& a : link.assumptions) AddAssumption(&nic.assumptions, a);
      if (link.emulated) AddAssumption(&nic.assumptions, "emulated device: no physical bus limit");
      if (EffectiveCapacity(link, options) <= 0) {
        AddAssumption(&nic.assumptions, "link " + link.device +
                                            " has no known capacity (clock, width or rate is 0): "
                                            "utilisation not computed");
      }
      const LinkLoad own = LoadOnLink(link, f.profile, timing, options.pcie_dll_overhead, f.mps, f.mrrs, f.msi,
                                      f.rx_pps, f.rx_bytes, f.tx_pps, f.tx_bytes, f.interrupts);
      nic.own.push_back(own);
      auto [it, fresh] = links.try_emplace(link.device);
      BusLinkEstimate& total = it->second;
      if (fresh) {
        total.device = link.device;
        total.kind = link.kind;
        total.effective_bytes_per_second = EffectiveCapacity(link, options);
      }
      total.load.up_bytes_per_second += own.up_bytes_per_second;
      total.load.down_bytes_per_second += own.down_bytes_per_second;
      total.interfaces.push_back(path.interface);
      if (!nic.measured) total.unmeasured.push_back(path.interface);
    }
    if (std::any_of(path.links.begin(), path.links.end(), [](const BusLink& l) { return l.kind == BusKind::kPcie; })) {
      nic.parameters.emplace_back("max_payload", f.mps);
      nic.parameters.emplace_back("max_read_request", f.mrrs);
      nic.parameters.emplace_back("dll_overhead", options.pcie_dll_overhead);
    }
    est.nics.push_back(std::move(nic));
  }

  for (auto& [device, total] : links) {
    const double busiest = std::max(total.load.up_bytes_per_second, total.load.down_bytes_per_second);
    const double capacity = total.effective_bytes_per_second;
    total.load.utilisation = capacity > 0 ? busiest / capacity : 0;
    std::sort(total.interfaces.begin(), total.interfaces.end());
    total.interfaces.erase(std::unique(total.interfaces.begin(), total.interfaces.end()), total.interfaces.end());
    std::sort(total.unmeasured.begin(), total.unmeasured.end());
    total.unmeasured.erase(std::unique(total.unmeasured.begin(), total.unmeasured.end()), total.unmeasured.end());
    est.links.push_back(std::move(total));
  }
  // The busiest link of each path, every NIC on it counted; among equals the
  // path's narrowest link. Links of unknown capacity or load (a NIC on it not
  // measured) take no part: a path with none known has no utilisation
  // (bottleneck_device stays "": unknown, not 0).
  for (size_t n = 0; n < est.nics.size(); ++n) {
    BusNicEstimate& nic = est.nics[n];
    const BusPath& path = paths[n];
    auto known = [&](size_t i) { return est.FindLink(path.links[i].device)->known(); };
    std::optional<size_t> best;
    if (path.narrowest < path.links.size() && known(path.narrowest)) best = path.narrowest;
    for (size_t i = 0; i < path.links.size(); ++i) {
      if (!known(i)) continue;
      if (!best || est.FindLink(path.links[i].device)->load.utilisation >
                       est.FindLink(path.links[*best].device)->load.utilisation) {
        best = i;
      }
    }
    if (!best) {
      AddAssumption(&nic.assumptions, "no link on the bus path has a known capacity and load: utilisation unknown");
      continue;
    }
    nic.path_utilisation = est.FindLink(path.links[*best].device)->load.utilisation;
    nic.bottleneck_device = path.links[*best].device;
  }
  std::sort(est.nics.begin(), est.nics.end(),
            [](const BusNicEstimate& a, const BusNicEstimate& b) { return a.interface < b.interface; });
  return est;
}

}  // namespace bottleneckd
