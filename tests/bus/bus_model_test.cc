// Bus model (bus/bus_model.h): published figures, the seed box's two buses
// and the edge cases. Links, paths and topologies are built by hand; every
// expected number is worked out in the comment above its assertion from the
// formulas in docs/bus-model.md and the default timings and profiles there.
#include "bus/bus_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "window/window.h"

namespace bottleneckd::bus_model_test {
namespace {

constexpr double kClock33 = 100e6 / 3, kClock133 = 400e6 / 3;
// Gen3 x8: 8 GT/s x 8 lanes x 128/130 encoding / 8 bits = 7.8769 GB/s per direction.
constexpr double kGen3x8Raw = 8e9 * 8 * 128.0 / 130.0 / 8;

BusLink PciLink(std::string device, BusKind kind, int mhz, int bits) {
  BusLink l;
  l.kind = kind;
  l.device = std::move(device);
  l.clock_mhz = mhz;
  l.width_bits = bits;
  return l;
}

BusLink PcieLink(std::string device, double raw) {
  BusLink l;
  l.kind = BusKind::kPcie;
  l.device = std::move(device);
  l.raw_bytes_per_second = raw;
  l.full_duplex = true;
  return l;
}

BusPath Path(std::string ifname, std::string device, std::string driver, std::vector<BusLink> links) {
  BusPath p;
  p.interface = std::move(ifname);
  p.device = std::move(device);
  p.driver = std::move(driver);
  p.links = std::move(links);
  return p;
}

NicWindow Window(std::string ifname, double rx_pps, double rx_frame, double tx_pps, double tx_frame, double irqs) {
  NicWindow w;
  w.interface = std::move(ifname);
  w.rx_packets_per_second = rx_pps;
  w.tx_packets_per_second = tx_pps;
  w.rx_bits_per_second = rx_pps * rx_frame * 8;
  w.tx_bits_per_second = tx_pps * tx_frame * 8;
  w.interrupts_per_second = irqs;
  return w;
}

PciDevice Device(std::string address) {
  PciDevice d;
  d.address = std::move(address);
  return d;
}

PciTopology Topology(std::vector<PciDevice> devices) {
  PciTopology t;
  t.devices = std::move(devices);
  std::sort(t.devices.begin(), t.devices.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.address < b.address; });
  return t;
}

bool Has(const std::vector<std::string>& list, std::string_view part) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& s) { return s.find(part) != std::string::npos; });
}

double Param(const BusNicEstimate& nic, std::string_view name) {
  for (const auto& [n, v] : nic.parameters) {
    if (n == name) return v;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

TEST(BusModelTest, Gen3x8TransactionLayerCapacityMatchesNeugebauer) {
  // Effective = raw x (1 - 0.08) = 7.2468e9 B/s = 57.97 Gb/s; the paper says
  // "about 57.9 Gb/s" at the transaction layer. Within 2 %.
  const BusModelOptions options = DefaultBusModelOptions();
  const double effective = EffectiveCapacity(PcieLink("0000:3b:00.0", kGen3x8Raw), options);
  EXPECT_NEAR(effective * 8, 57.9e9, 0.02 * 57.9e9);
  EXPECT_NEAR(effective, kGen3x8Raw * 0.92, 1);
}

TEST(BusModelTest, SimpleNicCannotReceive64ByteFramesAt40GbE) {
  // 40 GbE, 64 B frames + 20 B preamble and gap: 40e9 / (84 x 8) = 59.52 Mpps.
  // Per packet upstream with MPS 256 / MRRS 512, no interrupts:
  //   payload MWr 64 + 24 = 88, descriptor MRd 24, write-back MWr 16 + 24 = 40 -> 152 B
  // downstream: descriptor CplD 16 + 20 = 36, doorbell MWr 4 + 24 = 28 -> 64 B.
  // Up = 152 x 59.52e6 = 9.048e9 B/s over 7.2468e9: utilisation 1.2485.
  const BusModelOptions options = DefaultBusModelOptions();
  const BusLink link = PcieLink("0000:3b:00.0", kGen3x8Raw);
  const double pps = 40e9 / (84 * 8);
  const LinkLoad load = NicLinkLoad(link, NicProfile{}, options, 256, 512, false, pps, pps * 64, 0, 0, 0);
  EXPECT_NEAR(load.up_bytes_per_second, 152 * pps, 1);
  EXPECT_NEAR(load.down_bytes_per_second, 64 * pps, 1);
  EXPECT_NEAR(load.utilisation, 1.2485, 0.0005);
  EXPECT_GT(load.utilisation, 1.0);

  // 1500 B frames: 40e9 / (1520 x 8) = 3.289 Mpps; up per packet
  // 1500 + ceil(1500/256)=6 x 24 = 1644, + 24 + 40 = 1708 B -> 5.618e9 B/s: 0.7753.
  const double pps_big = 40e9 / (1520 * 8);
  const LinkLoad big = NicLinkLoad(link, NicProfile{}, options, 256, 512, false, pps_big, pps_big * 1500, 0, 0, 0);
  EXPECT_NEAR(big.utilisation, 0.7753, 0.0005);
  EXPECT_LT(big.utilisation, 1.0);
}

TEST(BusModelTest, PciAndPcixRawCapacity) {
  // PCI 33/32: 4 B x 33.333 MHz = 133.3 MB/s; PCI-X 133/64: 8 B x 133.333 MHz = 1066.7 MB/s.
  const BusModelOptions options = DefaultBusModelOptions();
  const double pci = EffectiveCapacity(PciLink("pci0000:00", BusKind::kPci, 33, 32), options);
  const double pcix = EffectiveCapacity(PciLink("0000:01:1f.0", BusKind::kPciX, 133, 64), options);
  EXPECT_NEAR(pci, 133e6, 0.02 * 133e6);
  EXPECT_NEAR(pcix, 1066e6, 0.02 * 1066e6);
  EXPECT_NEAR(pci, 32 / 8 * kClock33, 1);
  EXPECT_NEAR(pcix, 64 / 8 * kClock133, 1);
  // PCI-X 2.0 mode 2 (266): two transfers per clock.
  BusLink pcix266 = PciLink("0000:01:1f.0", BusKind::kPciX, 133, 64);
  pcix266.transfers_per_clock = 2;
  EXPECT_NEAR(EffectiveCapacity(pcix266, options), 16 * kClock133, 1);
}

// The seed box (docs/origin.md). em2: 82540 alone on a PCI 33 MHz / 32-bit bus, INTx.
// 300 Mbit/s UDP echo of 1024 B payloads: 300e6 / (8 x 1024) = 36621 datagrams/s each
// way, frames of 1024 + 8 + 20 + 14 = 1066 B, 8000 interrupts/s.
// PCI timing (docs/bus-model.md): address 1, write wait 2, read wait 12, turnaround 1,
// bursts of 512 (write) / 128 (read) bytes, register read wait 4; 4 B per clock.
// Per received packet:
//   payload write: 3 bursts x (1+2+1) + ceil(1066/4)=267 data           = 279
//   descriptor fetch (4 x 16 B = 64 B per 4 packets): (1+12+1) + 16 = 30 /4 = 7.5
//   write-back 16 B: 4 + 4                                               = 8
//   RDT doorbell 4 B every 16 packets: 4 + 1 = 5 / 16                    = 0.3125
//   -> 294.8125 clocks
// Per sent packet:
//   TDT doorbell 5, descriptor fetch 7.5,
//   payload read: ceil(1066/128)=9 bursts x (1+12+1) + 267 = 393, write-back 4 B: 5
//   -> 410.5 clocks
// Per interrupt: ICR read 1 + 4 + 1 data + 1 = 7 clocks; no MSI write (INTx).
// 36621 x 705.3125 + 8000 x 7 = 25,885,249 clocks/s of 33,333,333: 0.7766.
// A NIC whose packet counters could not be read this window has no window:
// its traffic is unknown, and so is the load of every link it crosses, even
// with another NIC measured on it. The segment's utilisation is not a 0 or
// the measured NIC's share alone: it is unknown (no bottleneck device).
TEST(BusModelTest, ALinkWithAnUnmeasuredNicHasNoUtilisation) {
  const BusModelOptions options = DefaultBusModelOptions();
  const PciTopology topo = Topology({Device("0000:03:01.0"), Device("0000:03:02.0")});
  const BusLink segment = PciLink("0000:00:1e.0", BusKind::kPci, 33, 32);
  const std::vector<BusPath> paths = {Path("em2", "0000:03:01.0", "e1000", {segment}),
                                      Path("fxp0", "0000:03:02.0", "e100", {segment})};
  const BusEstimate est = EstimateBus(paths, {Window("em2", 36621, 1066, 36621, 1066, 8000)}, topo, options);
  const BusLinkEstimate* link = est.FindLink("0000:00:1e.0");
  ASSERT_NE(link, nullptr);
  EXPECT_GT(link->effective_bytes_per_second, 0);
  EXPECT_EQ(link->unmeasured, (std::vector<std::string>{"fxp0"}));
  EXPECT_FALSE(link->known());
  for (const char* n : {"em2", "fxp0"}) {
    const BusNicEstimate* nic = est.FindNic(n);
    ASSERT_NE(nic, nullptr);
    EXPECT_EQ(nic->bottleneck_device, "") << n;
  }
  EXPECT_TRUE(est.FindNic("em2")->measured);
  EXPECT_FALSE(est.FindNic("fxp0")->measured);
  // Both measured: known again.
  const BusEstimate both = EstimateBus(
      paths, {Window("em2", 36621, 1066, 36621, 1066, 8000), Window("fxp0", 100, 64, 100, 64, 10)}, topo, options);
  EXPECT_TRUE(both.FindLink("0000:00:1e.0")->known());
  EXPECT_EQ(both.FindNic("fxp0")->bottleneck_device, "0000:00:1e.0");
}

TEST(BusModelTest, SeedEm2PciBusAboveSeventyPercent) {
  const BusModelOptions options = DefaultBusModelOptions();
  const PciTopology topo = Topology({Device("0000:02:02.0")});  // no MSI capability
  const std::vector<BusPath> paths = {
      Path("em2", "0000:02:02.0", "e1000", {PciLink("0000:00:1e.0", BusKind::kPci, 33, 32)})};
  const BusEstimate est = EstimateBus(paths, {Window("em2", 36621, 1066, 36621, 1066, 8000)}, topo, options);
  const BusNicEstimate* nic = est.FindNic("em2");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->method, "pci-clocks");
  EXPECT_EQ(nic->profile, "e1000");
  EXPECT_NEAR(nic->packet_bytes_rx, 1066, 1e-6);
  EXPECT_NEAR(nic->path_utilisation, 0.7766, 0.0005);
  EXPECT_GT(nic->path_utilisation, 0.70);
  EXPECT_EQ(nic->bottleneck_device, "0000:00:1e.0");
  // Bus-time equivalent bytes: clocks x 4.
  ASSERT_EQ(nic->own.size(), 1u);
  EXPECT_NEAR(nic->own[0].up_bytes_per_second, 25885249.06 * 4, 10);
  EXPECT_EQ(nic->own[0].down_bytes_per_second, 0);
  EXPECT_EQ(Param(*nic, "read_wait_clocks"), 12);
  EXPECT_EQ(Param(*nic, "rx_doorbell_batch"), 16);
}

// em0: 82546 on PCI-X 133 MHz / 64-bit, RBC 512 from its PCI-X command register, INTx.
// 550 Mbit/s: 67139 datagrams/s each way (1066 B frames), 7952 interrupts/s.
// PCI-X timing: address 1 + attribute 1, write wait 2, split-request wait 2,
// turnaround 1; a write or a split completion costs 5 clocks + data, a split
// request 5 clocks; 8 B per clock, ceil(1066/8) = 134 data clocks.
// Per received packet: payload 3 x 5 + 134 = 149; descriptor fetch
// (5 request + 5 + 8 completion) / 4 = 4.5; write-back 5 + 2 = 7; RDT (5 + 1) / 16
// = 0.375 -> 160.875. Per sent packet: TDT 6, fetch 4.5, payload read
// 3 requests x 5 + 3 completions x 5 + 134 = 164, write-back 4 B: 6 -> 180.5.
// Per interrupt: ICR read 1 + 1 + 4 + 1 + 1 = 8.
// 67139 x 341.375 + 7952 x 8 = 22,983,192 clocks/s of 133,333,333: 0.1724.
TEST(BusModelTest, SeedEm0PcixBusBelowTwentyFivePercent) {
  const BusModelOptions options = DefaultBusModelOptions();
  PciDevice em0 = Device("0000:02:01.0");
  em0.config.pcix.emplace();
  em0.config.pcix->max_read_byte_count = 512;
  const PciTopology topo = Topology({em0});
  const std::vector<BusPath> paths = {
      Path("em0", "0000:02:01.0", "e1000", {PciLink("0000:01:1f.0", BusKind::kPciX, 133, 64)})};
  const BusEstimate est = EstimateBus(paths, {Window("em0", 67139, 1066, 67139, 1066, 7952)}, topo, options);
  const BusNicEstimate* nic = est.FindNic("em0");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->method, "pcix-clocks");
  EXPECT_NEAR(nic->path_utilisation, 0.1724, 0.0005);
  EXPECT_LT(nic->path_utilisation, 0.25);
  EXPECT_EQ(Param(*nic, "max_read_burst"), 512);
  EXPECT_FALSE(Has(nic->assumptions, "read byte count"));

  // RBC 2048: the 1066 B payload read is one split request and one completion:
  // tx payload 5 + 5 + 134 = 144 instead of 164, 20 clocks less per sent packet:
  // 22,983,192 - 67139 x 20 = 21,640,412 clocks/s: 0.1623.
  PciTopology big = topo;
  big.devices[0].config.pcix->max_read_byte_count = 2048;
  const BusEstimate est2 = EstimateBus(paths, {Window("em0", 67139, 1066, 67139, 1066, 7952)}, big, options);
  EXPECT_NEAR(est2.FindNic("em0")->path_utilisation, 0.1623, 0.0005);
  EXPECT_EQ(Param(*est2.FindNic("em0"), "max_read_burst"), 2048);

  // Read byte count unknown (no PCI-X capability decoded): the 512 B default, said so.
  const BusEstimate est3 =
      EstimateBus(paths, {Window("em0", 67139, 1066, 67139, 1066, 7952)}, Topology({Device("0000:02:01.0")}), options);
  EXPECT_NEAR(est3.FindNic("em0")->path_utilisation, 0.1724, 0.0005);
  EXPECT_TRUE(Has(est3.FindNic("em0")->assumptions, "read byte count unknown: assumed 512"));
}

// Two NICs (simple profile, no interrupts) on one PCI 33/32 segment.
// A receives 1000 x 64 B/s: payload 4 + 16 = 20, descriptor fetch 14 + 4 = 18,
// write-back 4 + 4 = 8, doorbell 4 + 1 = 5 -> 51 clocks/packet = 51,000 clocks/s.
// B sends 1000 x 64 B/s: doorbell 5, fetch 18, payload read 14 + 16 = 30,
// write-back 8 -> 61 clocks/packet = 61,000 clocks/s.
// Segment: 112,000 clocks/s of 33.333e6 = 0.00336; A alone 0.00153, B 0.00183.
TEST(BusModelTest, SharedPciSegmentSumsItsNics) {
  const BusModelOptions options = DefaultBusModelOptions();
  const BusLink segment = PciLink("0000:00:1e.0", BusKind::kPci, 33, 32);
  // Given out of order: the estimate sorts.
  const std::vector<BusPath> paths = {Path("eth1", "0000:02:05.0", "", {segment}),
                                      Path("eth0", "0000:02:04.0", "", {segment})};
  const BusEstimate est = EstimateBus(paths, {Window("eth0", 1000, 64, 0, 0, 0), Window("eth1", 0, 0, 1000, 64, 0)},
                                      Topology({Device("0000:02:04.0"), Device("0000:02:05.0")}), options);
  ASSERT_EQ(est.links.size(), 1u);
  EXPECT_EQ(est.links[0].interfaces, (std::vector<std::string>{"eth0", "eth1"}));
  EXPECT_NEAR(est.links[0].load.utilisation, 0.00336, 1e-7);
  EXPECT_NEAR(est.links[0].load.up_bytes_per_second, 112000 * 4, 1e-3);
  ASSERT_EQ(est.nics.size(), 2u);
  EXPECT_EQ(est.nics[0].interface, "eth0");
  EXPECT_NEAR(est.nics[0].own[0].utilisation, 0.00153, 1e-7);
  EXPECT_NEAR(est.nics[1].own[0].utilisation, 0.00183, 1e-7);
  EXPECT_NEAR(est.nics[0].path_utilisation, 0.00336, 1e-7);
  EXPECT_NEAR(est.nics[1].path_utilisation, 0.00336, 1e-7);
  EXPECT_EQ(est.nics[0].profile, "simple");
}

// Two functions of one PCIe Gen3 x8 device share its link; MPS 256, MRRS 512.
// A receives 1e6 x 1000 B/s: up 1000 + 4 x 24 = 1096 + descriptor MRd 24 +
// write-back 40 = 1160 B; down CplD 36 + doorbell 28 = 64 B.
// B sends 1e6 x 1000 B/s: up descriptor MRd 24 + payload MRd ceil(1000/512)=2 x 24
// = 48 + write-back 40 = 112 B; down doorbell 28 + CplD 36 + 1000 + 4 x 20 = 1080
// -> 1144 B.
// Link: up 1.272e9, down 1.208e9 B/s; full duplex, so the busier direction:
// 1.272e9 / 7.2468e9 = 0.1755 (a half-duplex sum would give 0.342).
TEST(BusModelTest, SharedPcieLinkSumsPerDirection) {
  const BusModelOptions options = DefaultBusModelOptions();
  const BusLink link = PcieLink("0000:3b:00.0", kGen3x8Raw);
  std::vector<BusPath> paths = {Path("p0", "0000:3b:00.0", "", {link}), Path("p1", "0000:3b:00.1", "", {link})};
  for (auto& p : paths) p.max_payload = 256, p.max_read_request = 512;
  const BusEstimate est = EstimateBus(paths, {Window("p0", 1e6, 1000, 0, 0, 0), Window("p1", 0, 0, 1e6, 1000, 0)},
                                      Topology({Device("0000:3b:00.0"), Device("0000:3b:00.1")}), options);
  const BusLinkEstimate* l = est.FindLink("0000:3b:00.0");
  ASSERT_NE(l, nullptr);
  EXPECT_NEAR(l->load.up_bytes_per_second, 1.272e9, 1);
  EXPECT_NEAR(l->load.down_bytes_per_second, 1.208e9, 1);
  EXPECT_NEAR(l->load.utilisation, 0.17553, 0.00001);
  EXPECT_NEAR(l->effective_bytes_per_second, kGen3x8Raw * 0.92, 1);
  EXPECT_EQ(l->interfaces, (std::vector<std::string>{"p0", "p1"}));
  const BusNicEstimate* p0 = est.FindNic("p0");
  EXPECT_EQ(p0->method, "pcie-tlp (Neugebauer 2018)");
  EXPECT_NEAR(p0->own[0].up_bytes_per_second, 1.160e9, 1);
  EXPECT_NEAR(p0->own[0].utilisation, 1.160e9 / (kGen3x8Raw * 0.92), 1e-9);
  EXPECT_NEAR(p0->path_utilisation, 0.17553, 0.00001);
  EXPECT_EQ(Param(*p0, "max_payload"), 256);
  EXPECT_EQ(Param(*p0, "dll_overhead"), 0.08);
  EXPECT_TRUE(p0->assumptions.empty());
}

TEST(BusModelTest, MsiCostsAWriteThatIntxDoesNot) {
  const BusModelOptions options = DefaultBusModelOptions();
  const NicProfile e1000 = options.profiles.at("e1000");
  // PCI 33/32, 10,000 interrupts/s, no packets. INTx: the ICR read, 1 + 4 + 1 + 1
  // = 7 clocks -> 70,000 clocks/s. MSI adds a 4 B write, 1 + 2 + 1 data + 1 = 5
  // clocks -> 120,000 clocks/s.
  const BusLink pci = PciLink("0000:00:1e.0", BusKind::kPci, 33, 32);
  EXPECT_NEAR(NicLinkLoad(pci, e1000, options, 0, 0, false, 0, 0, 0, 0, 1e4).utilisation, 70000 / kClock33, 1e-12);
  EXPECT_NEAR(NicLinkLoad(pci, e1000, options, 0, 0, true, 0, 0, 0, 0, 1e4).utilisation, 120000 / kClock33, 1e-12);
  // PCIe: the ICR read is MRd 24 down and CplD 4 + 20 = 24 up; MSI adds MWr 4 + 24 = 28 up.
  const BusLink pcie = PcieLink("0000:3b:00.0", kGen3x8Raw);
  const LinkLoad intx = NicLinkLoad(pcie, e1000, options, 256, 512, false, 0, 0, 0, 0, 1e4);
  const LinkLoad msi = NicLinkLoad(pcie, e1000, options, 256, 512, true, 0, 0, 0, 0, 1e4);
  EXPECT_NEAR(intx.up_bytes_per_second, 24e4, 1e-6);
  EXPECT_NEAR(intx.down_bytes_per_second, 24e4, 1e-6);
  EXPECT_NEAR(msi.up_bytes_per_second, 52e4, 1e-6);
  EXPECT_NEAR(msi.down_bytes_per_second, 24e4, 1e-6);

  // EstimateBus takes MSI from the topology: MSI enabled, MSI-X enabled, or msi_irqs.
  // On the PCI link above, 10,000 interrupts/s: MSI -> 120,000 clocks/s.
  PciDevice by_msi = Device("0000:02:01.0"), by_msix = Device("0000:02:02.0"), by_irqs = Device("0000:02:03.0"),
            intx_dev = Device("0000:02:04.0");
  by_msi.config.msi = PciMsiInfo{true, true, 1};
  by_msix.config.msix = PciMsiInfo{true, false, 4};
  by_irqs.msi_irqs = {42};
  intx_dev.config.msi = PciMsiInfo{false, true, 1};  // capable, not enabled
  const PciTopology topo = Topology({by_msi, by_msix, by_irqs, intx_dev});
  const char* names[] = {"a", "b", "c", "d"};
  const char* devs[] = {"0000:02:01.0", "0000:02:02.0", "0000:02:03.0", "0000:02:04.0"};
  for (int i = 0; i < 4; ++i) {
    const BusEstimate est =
        EstimateBus({Path(names[i], devs[i], "e1000", {pci})}, {Window(names[i], 0, 0, 0, 0, 1e4)}, topo, options);
    const double expected = (i < 3 ? 120000 : 70000) / kClock33;
    EXPECT_NEAR(est.nics[0].own[0].utilisation, expected, 1e-12) << names[i];
  }
}

TEST(BusModelTest, IdleNicAndNicWithoutRates) {
  const BusModelOptions options = DefaultBusModelOptions();
  const BusLink link = PcieLink("0000:3b:00.0", kGen3x8Raw);
  std::vector<BusPath> paths = {Path("idle", "0000:3b:00.0", "ixgbe", {link}),
                                Path("gone", "0000:3b:00.1", "ixgbe", {link}),
                                Path("reset", "0000:3b:00.2", "ixgbe", {link})};
  for (auto& p : paths) p.max_payload = 256, p.max_read_request = 512;
  NicWindow reset;  // counters reset this window: rates unset
  reset.interface = "reset";
  const BusEstimate est =
      EstimateBus(paths, {Window("idle", 0, 0, 0, 0, 0), reset},
                  Topology({Device("0000:3b:00.0"), Device("0000:3b:00.1"), Device("0000:3b:00.2")}), options);
  ASSERT_EQ(est.nics.size(), 3u);
  for (const BusNicEstimate& nic : est.nics) {
    EXPECT_EQ(nic.own[0].up_bytes_per_second, 0) << nic.interface;
    EXPECT_EQ(nic.own[0].down_bytes_per_second, 0) << nic.interface;
    // Two NICs on the link have no rates: its load, and so every path's
    // utilisation, is unknown (issue 17: not a 0).
    EXPECT_EQ(nic.bottleneck_device, "") << nic.interface;
    EXPECT_EQ(nic.profile, "ixgbe");
  }
  EXPECT_TRUE(est.FindNic("idle")->measured);  // 0 packets/s is a rate
  EXPECT_FALSE(est.FindNic("gone")->measured);
  EXPECT_FALSE(est.FindNic("reset")->measured);
  EXPECT_FALSE(Has(est.FindNic("idle")->assumptions, "no rates this window"));
  EXPECT_TRUE(Has(est.FindNic("gone")->assumptions, "no rates this window"));
  EXPECT_TRUE(Has(est.FindNic("reset")->assumptions, "no rates this window"));
  const BusLinkEstimate* link_est = est.FindLink("0000:3b:00.0");
  EXPECT_EQ(link_est->interfaces.size(), 3u);
  EXPECT_EQ(link_est->unmeasured, (std::vector<std::string>{"gone", "reset"}));
  // The idle NIC alone on the link: measured, 0 is its utilisation.
  const BusEstimate alone =
      EstimateBus({paths[0]}, {Window("idle", 0, 0, 0, 0, 0)}, Topology({Device("0000:3b:00.0")}), options);
  EXPECT_EQ(alone.FindNic("idle")->path_utilisation, 0);
  EXPECT_EQ(alone.FindNic("idle")->bottleneck_device, "0000:3b:00.0");
}

TEST(BusModelTest, UnknownMpsAndMrrsAreAssumedAndSaid) {
  BusModelOptions options = DefaultBusModelOptions();
  const BusLink link = PcieLink("0000:3b:00.0", kGen3x8Raw);
  const std::vector<BusPath> paths = {Path("eth0", "0000:3b:00.0", "", {link})};  // MPS 0: no root
  const std::vector<NicWindow> w = {Window("eth0", 1e6, 1000, 0, 0, 0)};
  const BusEstimate est = EstimateBus(paths, w, Topology({Device("0000:3b:00.0")}), options);
  const BusNicEstimate& nic = est.nics[0];
  EXPECT_TRUE(Has(nic.assumptions, "max payload size unknown: assumed 256 bytes"));
  EXPECT_TRUE(Has(nic.assumptions, "max read request size unknown: assumed 512 bytes"));
  EXPECT_EQ(Param(nic, "max_payload"), 256);
  // Receive of 1000 B with MPS 256: 1160 B up per packet (as in the shared-link test).
  EXPECT_NEAR(nic.own[0].up_bytes_per_second, 1.160e9, 1);
  // With a 128 B assumption: 1000 + 8 x 24 = 1192 + 24 + 40 = 1256 B.
  options.assumed_max_payload = 128;
  EXPECT_NEAR(EstimateBus(paths, w, Topology({Device("0000:3b:00.0")}), options).nics[0].own[0].up_bytes_per_second,
              1.256e9, 1);
}

// A PCI NIC behind a PCIe-to-PCI bridge (MPS 128, MRRS 256 in the bridge's
// Device Control): the PCIe link's TLPs use the bridge's settings, no assumption.
// 1e5 x 1000 B received, simple profile: up per packet 1000 + ceil(1000/128)=8 x 24
// = 1192, + descriptor MRd 24 + write-back 40 = 1256 B -> 1.256e8 B/s on the PCIe link.
TEST(BusModelTest, ConventionalNicBehindPcieBridgeUsesTheBridgesMps) {
  const BusModelOptions options = DefaultBusModelOptions();
  PciDevice bridge = Device("0000:05:00.0"), nic = Device("0000:06:01.0");
  bridge.config.pcie.emplace();
  bridge.config.pcie->max_payload = 128;
  bridge.config.pcie->max_read_request = 256;
  nic.parent = "0000:05:00.0";
  const BusPath path = Path("eth0", "0000:06:01.0", "",
                            {PciLink("0000:05:00.0", BusKind::kPci, 33, 32), PcieLink("0000:04:00.0", 2.5e8)});
  const BusEstimate est = EstimateBus({path}, {Window("eth0", 1e5, 1000, 0, 0, 0)}, Topology({bridge, nic}), options);
  const BusNicEstimate& e = est.nics[0];
  EXPECT_EQ(e.method, "pci-clocks");
  EXPECT_EQ(Param(e, "max_payload"), 128);
  EXPECT_EQ(Param(e, "max_read_request"), 256);
  EXPECT_EQ(Param(e, "read_wait_clocks"), 12);  // the PCI segment's timing is listed too
  EXPECT_FALSE(Has(e.assumptions, "unknown"));
  ASSERT_EQ(e.own.size(), 2u);
  EXPECT_NEAR(e.own[1].up_bytes_per_second, 1.256e8, 1e-3);
}

TEST(BusModelTest, ZeroPacketsAndBadRatesGiveZeroNotNan) {
  const BusModelOptions options = DefaultBusModelOptions();
  const NicProfile simple;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const BusLink& link : {PcieLink("0000:3b:00.0", kGen3x8Raw), PciLink("pci0000:00", BusKind::kPci, 33, 32),
                              PciLink("0000:01:1f.0", BusKind::kPciX, 133, 64)}) {
    // Bytes without packets (a counter glitch), NaN, infinity and negatives.
    for (const LinkLoad& l : {NicLinkLoad(link, simple, options, 256, 512, true, 0, 1e6, 0, 1e6, 0),
                              NicLinkLoad(link, simple, options, 256, 512, true, nan, nan, nan, nan, nan),
                              NicLinkLoad(link, simple, options, 256, 512, true, inf, inf, -1, -1, -5)}) {
      EXPECT_EQ(l.up_bytes_per_second, 0);
      EXPECT_EQ(l.down_bytes_per_second, 0);
      EXPECT_EQ(l.utilisation, 0);
    }
  }
}

TEST(BusModelTest, AbsurdLinksDoNotDivideByZero) {
  const BusModelOptions options = DefaultBusModelOptions();
  const BusLink no_clock = PciLink("0000:00:1e.0", BusKind::kPci, 0, 32);
  const BusLink no_width = PciLink("0000:00:1f.0", BusKind::kPciX, 133, 0);
  const BusLink no_rate = PcieLink("0000:3b:00.0", 0);
  for (const BusLink& link : {no_clock, no_width, no_rate}) {
    EXPECT_EQ(EffectiveCapacity(link, options), 0) << link.device;
    const LinkLoad l = NicLinkLoad(link, NicProfile{}, options, 256, 512, false, 1e5, 1e8, 1e5, 1e8, 1e4);
    EXPECT_EQ(l.utilisation, 0) << link.device;
    EXPECT_TRUE(std::isfinite(l.up_bytes_per_second)) << link.device;
    EXPECT_TRUE(std::isfinite(l.down_bytes_per_second)) << link.device;
  }
  const BusEstimate est =
      EstimateBus({Path("eth0", "0000:02:01.0", "", {no_clock})}, {Window("eth0", 1e5, 1000, 1e5, 1000, 1e4)},
                  Topology({Device("0000:02:01.0")}), options);
  EXPECT_EQ(est.nics[0].path_utilisation, 0);
  EXPECT_TRUE(Has(est.nics[0].assumptions, "has no known capacity"));
}

TEST(BusModelTest, BottleneckIsTheBusiestLinkOfThePath) {
  // A Gen3 x8 NIC behind a switch whose upstream link is Gen1 x1
  // (2.5 GT/s x 8/10 / 8 = 250 MB/s). 1e5 x 1000 B received: 1.160e8 B/s up on
  // both links: 0.016 of the NIC's link, 1.160e8 / (2.5e8 x 0.92) = 0.5043 upstream.
  const BusModelOptions options = DefaultBusModelOptions();
  BusPath path = Path("eth0", "0000:3b:00.0", "",
                      {PcieLink("0000:3b:00.0", kGen3x8Raw), PcieLink("0000:3a:00.0", 2.5e9 * 8 / 10 / 8)});
  path.max_payload = 256, path.max_read_request = 512;
  const BusEstimate est =
      EstimateBus({path}, {Window("eth0", 1e5, 1000, 0, 0, 0)}, Topology({Device("0000:3b:00.0")}), options);
  ASSERT_EQ(est.links.size(), 2u);
  EXPECT_EQ(est.links[0].device, "0000:3a:00.0");  // sorted by device
  EXPECT_EQ(est.nics[0].bottleneck_device, "0000:3a:00.0");
  EXPECT_NEAR(est.nics[0].path_utilisation, 1.160e8 / (2.5e8 * 0.92), 1e-9);
  ASSERT_EQ(est.nics[0].own.size(), 2u);
  EXPECT_NEAR(est.nics[0].own[0].up_bytes_per_second, 1.160e8, 1e-3);
  EXPECT_NEAR(est.nics[0].own[1].up_bytes_per_second, 1.160e8, 1e-3);
}

TEST(BusModelTest, EmulatedAndNoLinkPaths) {
  const BusModelOptions options = DefaultBusModelOptions();
  BusLink virt = PciLink("pci0000:00", BusKind::kPci, 33, 32);
  virt.emulated = true;
  virt.assumptions = {"bus width assumed 32-bit: conventional PCI does not show it in config space"};
  const std::vector<BusPath> paths = {Path("ens3", "0000:00:03.0", "virtio-pci", {virt}),
                                      Path("eno1", "0000:00:19.0", "e1000e", {})};
  const BusEstimate est = EstimateBus(paths, {Window("ens3", 1000, 64, 0, 0, 0), Window("eno1", 10, 60, 0, 0, 1)},
                                      Topology({Device("0000:00:03.0"), Device("0000:00:19.0")}), options);
  const BusNicEstimate* ens3 = est.FindNic("ens3");
  EXPECT_EQ(ens3->profile, "virtio");
  EXPECT_TRUE(Has(ens3->assumptions, "emulated device: no physical bus limit"));
  EXPECT_TRUE(Has(ens3->assumptions, "bus width assumed 32-bit"));
  EXPECT_GT(ens3->path_utilisation, 0);  // still computed; callers decide
  const BusNicEstimate* eno1 = est.FindNic("eno1");
  EXPECT_EQ(eno1->method, "none");
  EXPECT_TRUE(eno1->own.empty());
  EXPECT_EQ(eno1->path_utilisation, 0);
  EXPECT_EQ(eno1->bottleneck_device, "");
}

TEST(BusModelTest, ProfilesByDriverAndByInterface) {
  EXPECT_EQ(ProfileForDriver("e1000"), "e1000");
  EXPECT_EQ(ProfileForDriver("mlx5_core"), "mlx5");
  EXPECT_EQ(ProfileForDriver("virtio_net"), "virtio");
  EXPECT_EQ(ProfileForDriver("virtio-pci"), "virtio");
  EXPECT_EQ(ProfileForDriver("r8169"), "simple");
  EXPECT_EQ(ProfileForDriver(""), "simple");
  BusModelOptions options = DefaultBusModelOptions();
  for (const char* name : {"simple", "e1000", "e1000e", "igb", "ixgbe", "i40e", "mlx5", "virtio"}) {
    ASSERT_EQ(options.profiles.count(name), 1u) << name;
    EXPECT_EQ(options.profiles.at(name).name, name);
  }
  EXPECT_EQ(options.profiles.at("e1000").mmio_reads_per_interrupt, 1);
  EXPECT_EQ(options.profiles.at("i40e").tx_writeback_bytes, 0);
  EXPECT_EQ(options.profiles.at("mlx5").rx_writeback_bytes, 64);
  // An interface mapped to a configured profile; one mapped to an unknown name.
  NicProfile fat;
  fat.name = "fat";
  fat.descriptors_per_packet = 2;
  options.profiles["fat"] = fat;
  options.interfaces = {{"eth0", "fat"}, {"eth1", "nonesuch"}};
  const BusLink link = PciLink("0000:00:1e.0", BusKind::kPci, 33, 32);
  const BusEstimate est =
      EstimateBus({Path("eth0", "0000:02:01.0", "e1000", {link}), Path("eth1", "0000:02:02.0", "e1000", {link})}, {},
                  Topology({Device("0000:02:01.0"), Device("0000:02:02.0")}), options);
  EXPECT_EQ(est.FindNic("eth0")->profile, "fat");
  EXPECT_EQ(Param(*est.FindNic("eth0"), "descriptors_per_packet"), 2);
  EXPECT_EQ(est.FindNic("eth1")->profile, "simple");
  EXPECT_TRUE(Has(est.FindNic("eth1")->assumptions, "profile \"nonesuch\" is not defined"));
}

TEST(BusModelTest, DefaultTimings) {
  const PciTiming pci = DefaultPciTiming(BusKind::kPci);
  const PciTiming pcix = DefaultPciTiming(BusKind::kPciX);
  EXPECT_EQ(pci.attribute_clocks, 0);
  EXPECT_EQ(pcix.attribute_clocks, 1);
  EXPECT_EQ(pcix.max_read_burst, 512);
  EXPECT_EQ(pci.Parameters().size(), 8u);
  EXPECT_EQ(NicProfile{}.Parameters().size(), 11u);
}

}  // namespace
}  // namespace bottleneckd::bus_model_test
