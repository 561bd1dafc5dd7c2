// Built-in NIC profiles of the bus model (bus/bus_model.h) and the driver
// -> profile map. Each value says where it comes from; "guess" marks a value
// reasoned from how the family works rather than read from a datasheet or the
// driver. docs/bus-model.md has the same table with more context.
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bus/bus_model.h"

namespace bottleneckd {
namespace bus_model_internal {

std::map<std::string, NicProfile> BuiltinNicProfiles() {
  std::map<std::string, NicProfile> out;

  // Neugebauer et al. 2018, section 3's "simple NIC": every 16 B descriptor
  // read and written back on its own, one doorbell per packet. The struct's
  // defaults are exactly this profile.
  NicProfile simple;
  out["simple"] = simple;

  // Intel 8254x (e1000): legacy descriptors.
  NicProfile e1000;
  e1000.name = "e1000";
  e1000.descriptor_bytes = 16;         // 8254x SDM: legacy rx and tx descriptors are 16 B
  e1000.descriptor_fetch_batch = 4;    // guess: prefetch in small bursts (RXDCTL/TXDCTL thresholds left at reset)
  e1000.rx_writeback_bytes = 16;       // the whole rx descriptor (status, length, checksum) is written back
  e1000.tx_writeback_bytes = 4;        // tx: only the status dword (DD), the driver sets RS on every packet
  e1000.writeback_batch = 1;           // guess: write-back per descriptor (WTHRESH not used by Linux's e1000)
  e1000.rx_doorbell_batch = 16;        // Linux e1000_main.c: E1000_RX_BUFFER_WRITE = 16 buffers per RDT write
  e1000.tx_doorbell_batch = 1;         // one TDT write per packet (xmit_more batching ignored)
  e1000.mmio_reads_per_interrupt = 1;  // e1000_intr reads ICR, which also acknowledges the interrupt
  out["e1000"] = e1000;

  // Intel 8257x/8258x (e1000e): extended rx descriptors, legacy tx.
  NicProfile e1000e = e1000;
  e1000e.name = "e1000e";
  e1000e.descriptor_fetch_batch = 8;    // guess: larger on-chip descriptor caches than the 8254x
  e1000e.rx_doorbell_batch = 16;        // Linux e1000e.h: E1000_RX_BUFFER_WRITE = 16
  e1000e.mmio_reads_per_interrupt = 0;  // MSI-X vectors auto-clear; under MSI/INTx the handler reads ICR (set 1)
  out["e1000e"] = e1000e;

  // Intel 82575/82576/i350/i210 (igb): advanced 16 B descriptors.
  NicProfile igb;
  igb.name = "igb";
  igb.descriptor_bytes = 16;       // advanced descriptors are 16 B
  igb.descriptor_fetch_batch = 8;  // guess: igb.h prefetch thresholds IGB_RX/TX_PTHRESH are 8
  igb.rx_writeback_bytes = 16;     // the rx write-back format overwrites the whole descriptor
  igb.tx_writeback_bytes = 16;     // guess: the tx write-back format is a whole descriptor too
  igb.writeback_batch = 4;         // igb.h: IGB_RX_WTHRESH 4 (1 on 82576 with MSI-X), TX 16 (1): rx value used
  igb.rx_doorbell_batch = 16;      // igb.h: IGB_RX_BUFFER_WRITE = 16
  igb.tx_doorbell_batch = 1;
  igb.mmio_reads_per_interrupt = 0;  // MSI-X: EIAC auto-clear, no ICR read on the queue vectors
  out["igb"] = igb;

  // Intel 82599/X540/X550 (ixgbe).
  NicProfile ixgbe;
  ixgbe.name = "ixgbe";
  ixgbe.descriptor_bytes = 16;       // advanced descriptors are 16 B
  ixgbe.descriptor_fetch_batch = 8;  // guess: TXDCTL PTHRESH is 32 in Linux, a fetch of 8 is conservative
  ixgbe.rx_writeback_bytes = 16;     // the rx write-back format overwrites the whole descriptor
  // Linux's ixgbe uses descriptor write-back (not the 82599's head write-back)
  // with RS on every packet and WTHRESH 1 below 100k interrupts/s
  // (ixgbe_configure_tx_ring), so a 16 B write-back per packet.
  ixgbe.tx_writeback_bytes = 16;
  ixgbe.writeback_batch = 1;
  ixgbe.rx_doorbell_batch = 16;  // ixgbe.h: IXGBE_RX_BUFFER_WRITE = 16
  ixgbe.tx_doorbell_batch = 1;
  ixgbe.mmio_reads_per_interrupt = 0;  // MSI-X with auto-clear (EIAC)
  out["ixgbe"] = ixgbe;

  // Intel X710/XL710 (i40e).
  NicProfile i40e = ixgbe;
  i40e.name = "i40e";
  // Linux's i40e enables tx head write-back (i40e_configure_tx_ring sets
  // head_wb_ena): one 4 B head index per batch of completions instead of a
  // descriptor per packet, below this model's resolution, so not counted.
  i40e.tx_writeback_bytes = 0;
  i40e.rx_doorbell_batch = 32;  // i40e_txrx.h: I40E_RX_BUFFER_WRITE = 32 (16 in older kernels)
  out["i40e"] = i40e;

  // Mellanox/NVIDIA ConnectX-4 and later (mlx5).
  NicProfile mlx5;
  mlx5.name = "mlx5";
  // One descriptor size serves both directions here: a tx send WQE is one
  // 64 B WQE basic block, an rx striding-RQ WQE (one per many packets) comes
  // to about 16 B per packet. The mean, 40 B, is exact when rx and tx packet
  // rates are equal (guess for the rx amortisation).
  mlx5.descriptor_bytes = 40;
  mlx5.descriptor_fetch_batch = 1;
  mlx5.rx_writeback_bytes = 64;  // one 64 B CQE per packet (CQE compression off, the default)
  mlx5.tx_writeback_bytes = 64;  // guess: one 64 B CQE per sent packet
  mlx5.writeback_batch = 1;
  mlx5.rx_doorbell_batch = 8;         // guess: rx doorbell record updated per batch of posted WQEs
  mlx5.tx_doorbell_batch = 1;         // one doorbell per send (BlueFlame WQE writes ignored)
  mlx5.mmio_reads_per_interrupt = 0;  // event queues live in host memory: no register read
  out["mlx5"] = mlx5;

  // virtio-net over virtio-pci, split virtqueues (virtio 1.x spec 2.7).
  NicProfile virtio;
  virtio.name = "virtio";
  // 16 B descriptor + 2 B avail-ring entry, and the 12 B virtio_net_hdr that
  // precedes every packet counted here as descriptor bytes.
  virtio.descriptor_bytes = 30;
  virtio.descriptor_fetch_batch = 1;
  virtio.rx_writeback_bytes = 8;  // used-ring element: 4 B id + 4 B len
  virtio.tx_writeback_bytes = 8;
  virtio.writeback_batch = 1;
  virtio.rx_doorbell_batch = 16;        // guess: rx refill kicks once per batch of buffers
  virtio.tx_doorbell_batch = 1;         // guess: event-index suppression ignored
  virtio.doorbell_bytes = 2;            // virtio-pci notify: a 16-bit queue index write
  virtio.mmio_reads_per_interrupt = 0;  // MSI-X: no ISR read (INTx would read the 1 B ISR)
  out["virtio"] = virtio;
  return out;
}

}  // namespace bus_model_internal

const std::vector<BusParameter<NicProfile>>& NicProfileParameters() {
  using P = NicProfile;
  static const std::vector<BusParameter<NicProfile>> kParameters = {
      {"descriptor_bytes", &P::descriptor_bytes, nullptr, 0, 4096},
      {"descriptors_per_packet", nullptr, &P::descriptors_per_packet, 0.01, 64},
      {"descriptor_fetch_batch", &P::descriptor_fetch_batch, nullptr, 1, 65536},
      {"rx_writeback_bytes", &P::rx_writeback_bytes, nullptr, 0, 4096},
      {"tx_writeback_bytes", &P::tx_writeback_bytes, nullptr, 0, 4096},
      {"writeback_batch", &P::writeback_batch, nullptr, 1, 65536},
      {"rx_doorbell_batch", &P::rx_doorbell_batch, nullptr, 1, 65536},
      {"tx_doorbell_batch", &P::tx_doorbell_batch, nullptr, 1, 65536},
      {"doorbell_bytes", &P::doorbell_bytes, nullptr, 0, 4096},
      {"mmio_reads_per_interrupt", &P::mmio_reads_per_interrupt, nullptr, 0, 64},
      {"msi_bytes", &P::msi_bytes, nullptr, 0, 4096},
  };
  return kParameters;
}

std::vector<std::pair<std::string, double>> NicProfile::Parameters() const {
  return ParameterValues(NicProfileParameters(), *this);
}

std::string ProfileForDriver(std::string_view driver) {
  static const std::map<std::string_view, std::string_view> kByDriver = {
      {"e1000", "e1000"},    {"e1000e", "e1000e"},     {"igb", "igb"},           {"igc", "igb"},
      {"ixgbe", "ixgbe"},    {"ixgbevf", "ixgbe"},     {"i40e", "i40e"},         {"iavf", "i40e"},
      {"mlx5_core", "mlx5"}, {"virtio_net", "virtio"}, {"virtio-pci", "virtio"}, {"virtio_pci", "virtio"},
  };
  const auto it = kByDriver.find(driver);
  return std::string(it != kByDriver.end() ? it->second : "simple");
}

}  // namespace bottleneckd
