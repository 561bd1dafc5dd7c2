// Bus paths: which links each NIC's DMA crosses, with kind, clock or rate,
// width and raw capacity, on the fixture trees and hand-built topologies.
// Expected values come from the fixture READMEs and the specs' arithmetic.
#include "bus/bus_path.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "collectors/pci.h"
#include "tests/test_util.h"

namespace bottleneckd {
namespace {

using testing::FixtureRoots;

std::vector<BusPath> PathsOf(const std::string& scenario) {
  HostFs host(FixtureRoots(scenario));
  PciTopology t;
  EXPECT_TRUE(PciCollector::ReadTopology(host, &t).ok());
  return BuildBusPaths(t);
}

const BusPath* Find(const std::vector<BusPath>& paths, const std::string& ifname) {
  for (const BusPath& p : paths)
    if (p.interface == ifname) return &p;
  return nullptr;
}

TEST(BusPathTest, SeedBoxEm0IsOnThePciX133By64Segment) {
  std::vector<BusPath> paths = PathsOf("seed-box");
  ASSERT_EQ(paths.size(), 4u);  // em0, em1, em2, fxp0 (lo has no device)
  const BusPath* em0 = Find(paths, "em0");
  ASSERT_NE(em0, nullptr);
  EXPECT_EQ(em0->device, "0000:02:01.0");
  EXPECT_EQ(em0->driver, "e1000");
  // Bus 1 (the E7501 hub interface: only the P64H2 bridge on it) and the
  // root bus are chipset links, not segments: one link.
  ASSERT_EQ(em0->links.size(), 1u);
  const BusLink& l = em0->links[0];
  EXPECT_EQ(l.kind, BusKind::kPciX);
  EXPECT_EQ(l.device, "0000:01:1d.0");
  EXPECT_EQ(l.segment, "0000:02");
  EXPECT_EQ(l.clock_mhz, 133);
  EXPECT_EQ(l.width_bits, 64);
  EXPECT_FALSE(l.full_duplex);
  EXPECT_FALSE(l.emulated);
  // 133.33 MHz x 8 bytes = 1066.7 MB/s ("PCI-X 133/64 = 1066 MB/s raw").
  EXPECT_NEAR(l.raw_bytes_per_second, 1066e6, 1066e6 * 0.02);
  EXPECT_EQ(l.members, (std::vector<std::string>{"0000:02:01.0", "0000:02:01.1"}));
  EXPECT_EQ(l.SpeedLabel(), "133MHz");
  EXPECT_EQ(l.WidthLabel(), "64bit");
  EXPECT_TRUE(l.assumptions.empty());
  EXPECT_EQ(Find(paths, "em1")->links[0].device, "0000:01:1d.0");  // the same shared segment
}

TEST(BusPathTest, SeedBoxEm2SharesThePci33By32SegmentWithFxp0) {
  std::vector<BusPath> paths = PathsOf("seed-box");
  const BusPath* em2 = Find(paths, "em2");
  ASSERT_NE(em2, nullptr);
  ASSERT_EQ(em2->links.size(), 1u);
  const BusLink& l = em2->links[0];
  EXPECT_EQ(l.kind, BusKind::kPci);
  EXPECT_EQ(l.device, "0000:00:1e.0");
  EXPECT_EQ(l.segment, "0000:03");
  // The ICH3 bridge's secondary status has 66MHz clear: 33 MHz.
  EXPECT_EQ(l.clock_mhz, 33);
  EXPECT_EQ(l.width_bits, 32);
  EXPECT_NEAR(l.raw_bytes_per_second, 133e6, 133e6 * 0.02);  // "PCI 33/32 = 133 MB/s"
  EXPECT_EQ(l.members, (std::vector<std::string>{"0000:03:01.0", "0000:03:02.0"}));
  ASSERT_EQ(l.assumptions.size(), 1u);
  EXPECT_NE(l.assumptions[0].find("32-bit"), std::string::npos);
  EXPECT_EQ(Find(paths, "fxp0")->links[0].device, "0000:00:1e.0");
}

TEST(BusPathTest, VmVirtioIsEmulated) {
  std::vector<BusPath> paths = PathsOf("vm");
  const BusPath* eth0 = Find(paths, "eth0");
  ASSERT_NE(eth0, nullptr);
  ASSERT_EQ(eth0->links.size(), 1u);
  EXPECT_EQ(eth0->links[0].device, "pci0000:00");  // a device directly on the root bus
  EXPECT_EQ(eth0->links[0].kind, BusKind::kPci);
  EXPECT_EQ(eth0->links[0].clock_mhz, 33);  // virtio-net's status has 66MHz- (lspci -vv)
  EXPECT_TRUE(eth0->links[0].emulated);
}

TEST(BusPathTest, LargeHostPcieLinksAndEncodings) {
  std::vector<BusPath> paths = PathsOf("large-host");
  const BusPath* eth0 = Find(paths, "eth0");
  ASSERT_NE(eth0, nullptr);
  EXPECT_EQ(eth0->max_payload, 256);
  EXPECT_EQ(eth0->max_read_request, 4096);
  // The root port owns no link of its own: one link, the NIC's.
  ASSERT_EQ(eth0->links.size(), 1u);
  const BusLink& l = eth0->links[0];
  EXPECT_EQ(l.kind, BusKind::kPcie);
  EXPECT_EQ(l.device, "0000:3a:02.0");  // the root port above it
  EXPECT_EQ(l.members, (std::vector<std::string>{"0000:3b:00.0"}));
  EXPECT_EQ(l.speed, 3);
  EXPECT_EQ(l.width, 16);
  EXPECT_FALSE(l.downtrained);
  EXPECT_TRUE(l.full_duplex);
  // 8 GT/s x 128/130 x 16 lanes / 8 = 15.754 GB/s per direction.
  EXPECT_NEAR(l.raw_bytes_per_second, 8e9 * 128 / 130 * 16 / 8, 1e3);
  EXPECT_EQ(l.SpeedLabel(), "8.0GT/s");
  EXPECT_EQ(l.WidthLabel(), "x16");
  const BusPath* eth1 = Find(paths, "eth1");
  ASSERT_NE(eth1, nullptr);
  ASSERT_EQ(eth1->links.size(), 1u);
  // 5 GT/s x 8/10 x 8 lanes / 8 = 4.0 GB/s per direction.
  EXPECT_NEAR(eth1->links[0].raw_bytes_per_second, 4e9, 1e3);
  EXPECT_EQ(eth1->links[0].SpeedLabel(), "5.0GT/s");
}

TEST(BusPathTest, PcieBoxDowntrainedX710AndConnectX6BehindASwitch) {
  std::vector<BusPath> paths = PathsOf("pcie-box");
  ASSERT_EQ(paths.size(), 4u);
  const BusPath* a = Find(paths, "enp65s0f0");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->links.size(), 1u);
  const BusLink& x4 = a->links[0];
  EXPECT_EQ(x4.device, "0000:40:01.1");  // the root port above the X710
  EXPECT_TRUE(x4.downtrained);           // x8 slot trained at x4 (README)
  EXPECT_EQ(x4.speed, 3);
  EXPECT_EQ(x4.width, 4);
  EXPECT_EQ(x4.max_width, 8);
  EXPECT_EQ(x4.max_speed, 3);                             // the X710 is Gen3: 8 GT/s is the best both ends can do
  EXPECT_NEAR(x4.raw_bytes_per_second, 3938.5e6, 0.1e6);  // README: 3938.5 MB/s per direction
  EXPECT_EQ(x4.members, (std::vector<std::string>{"0000:41:00.0", "0000:41:00.1"}));
  EXPECT_EQ(a->max_payload, 256);
  EXPECT_EQ(a->max_read_request, 512);
  EXPECT_EQ(Find(paths, "enp65s0f1")->links[0].device, "0000:40:01.1");  // the same link

  const BusPath* b = Find(paths, "enp131s0f1np1");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->max_payload, 512);
  EXPECT_EQ(b->max_read_request, 4096);
  // NIC link below downstream port 82:08.0, then the switch's uplink below
  // root port 80:01.1; the switch-internal bus is not a link.
  ASSERT_EQ(b->links.size(), 2u);
  EXPECT_EQ(b->links[0].device, "0000:82:08.0");
  EXPECT_EQ(b->links[1].device, "0000:80:01.1");
  for (const BusLink& l : b->links) {
    EXPECT_EQ(l.speed, 4);
    EXPECT_EQ(l.width, 16);
    EXPECT_FALSE(l.downtrained);
    EXPECT_NEAR(l.raw_bytes_per_second, 31507.7e6, 0.1e6);  // README: 31507.7 MB/s
  }
  // The uplink carries the NVMe drive too.
  const std::vector<std::string>& up = b->links[1].members;
  EXPECT_NE(std::find(up.begin(), up.end(), "0000:84:00.0"), up.end());
  EXPECT_NE(std::find(up.begin(), up.end(), "0000:83:00.0"), up.end());
  EXPECT_EQ(b->links[0].members, (std::vector<std::string>{"0000:83:00.0", "0000:83:00.1"}));
}

// Hand-built topologies for the cases the fixtures do not cover.
PciDevice Dev(const std::string& addr, const std::string& parent, uint32_t cls) {
  PciDevice d;
  d.address = addr;
  d.parent = parent;
  d.root_bus = "pci0000:00";
  d.class_code = cls;
  d.vendor = 0x8086;
  d.config.length = 64;
  return d;
}

PciDevice PcieDev(const std::string& addr, const std::string& parent, uint32_t cls, int speed, int width, int max_speed,
                  int max_width) {
  PciDevice d = Dev(addr, parent, cls);
  d.sysfs_link_speed = speed;
  d.sysfs_link_width = width;
  d.sysfs_max_link_speed = max_speed;
  d.sysfs_max_link_width = max_width;
  return d;
}

TEST(BusPathTest, PcieSwitchUplinkIsSharedAndPortTypesInferredWithoutRoot) {
  // 64-byte configs (not root): port types come from the bridge depth. Root
  // port 00:01.0 -> switch upstream 01:00.0 -> downstream 02:00.0 / 02:01.0 ->
  // two-port NIC 03:00.0/.1 (Gen4 x16) and an NVMe drive 04:00.0.
  PciTopology t;
  t.devices = {PcieDev("0000:00:01.0", "", 0x060400, 4, 16, 4, 16),
               PcieDev("0000:01:00.0", "0000:00:01.0", 0x060400, 4, 16, 4, 16),
               PcieDev("0000:02:00.0", "0000:01:00.0", 0x060400, 4, 16, 4, 16),
               PcieDev("0000:02:01.0", "0000:01:00.0", 0x060400, 4, 4, 4, 4),
               PcieDev("0000:03:00.0", "0000:02:00.0", 0x020000, 4, 16, 4, 16),
               PcieDev("0000:03:00.1", "0000:02:00.0", 0x020000, 4, 16, 4, 16),
               PcieDev("0000:04:00.0", "0000:02:01.0", 0x010802, 4, 4, 4, 4)};
  t.devices[4].interfaces = {"eth0"};
  t.devices[5].interfaces = {"eth1"};
  std::vector<BusPath> paths = BuildBusPaths(t);
  ASSERT_EQ(paths.size(), 2u);
  const BusPath& p = paths[1];  // eth1 on function .1
  EXPECT_EQ(p.interface, "eth1");
  ASSERT_EQ(p.links.size(), 2u);
  EXPECT_EQ(p.links[0].device, "0000:02:00.0");  // the device's link, below downstream port 02:00.0
  EXPECT_EQ(p.links[0].members, (std::vector<std::string>{"0000:03:00.0", "0000:03:00.1"}));
  EXPECT_EQ(p.links[1].device, "0000:00:01.0");  // the switch's uplink, below the root port
  // Everything below the root port crosses it, the NVMe drive included.
  EXPECT_EQ(p.links[1].members.size(), 6u);
  // 16 GT/s x 128/130 x 16 / 8 = 31.5 GB/s per direction, both links.
  EXPECT_NEAR(p.links[1].raw_bytes_per_second, 16e9 * 128 / 130 * 2, 1e3);
  EXPECT_EQ(paths[0].links[0].device, "0000:02:00.0");
}

TEST(BusPathTest, DowntrainedAgainstTheLowerEndsCapability) {
  PciTopology t;
  // Gen3 x8 NIC in a slot wired x4 on a Gen3 x8 port: trained x4 -> downtrained.
  t.devices = {PcieDev("0000:00:02.0", "", 0x060400, 3, 4, 3, 8),
               PcieDev("0000:41:00.0", "0000:00:02.0", 0x020000, 3, 4, 3, 8)};
  t.devices[1].interfaces = {"eth0"};
  auto paths = BuildBusPaths(t);
  ASSERT_EQ(paths[0].links.size(), 1u);
  EXPECT_TRUE(paths[0].links[0].downtrained);
  EXPECT_EQ(paths[0].links[0].max_width, 8);
  EXPECT_NEAR(paths[0].links[0].raw_bytes_per_second, 8e9 * 128 / 130 * 4 / 8, 1e3);
  // A Gen4 NIC in a Gen3 port runs at 8 GT/s: that is the best both ends can
  // do, not a training fault.
  t.devices = {PcieDev("0000:00:02.0", "", 0x060400, 3, 16, 3, 16),
               PcieDev("0000:41:00.0", "0000:00:02.0", 0x020000, 3, 16, 4, 16)};
  t.devices[1].interfaces = {"eth0"};
  paths = BuildBusPaths(t);
  EXPECT_FALSE(paths[0].links[0].downtrained);
}

TEST(BusPathTest, ConventionalPciRunsAt66OnlyWhenEveryoneCan) {
  PciTopology t;
  PciDevice bridge = Dev("0000:00:1e.0", "", 0x060400);
  bridge.config.bridge = PciBridgeInfo{};
  bridge.config.bridge->secondary_66mhz = true;
  PciDevice nic = Dev("0000:05:00.0", "0000:00:1e.0", 0x020000);
  nic.config.capable_66mhz = true;
  nic.interfaces = {"eth0"};
  PciDevice slow = Dev("0000:05:01.0", "0000:00:1e.0", 0x0c0300);  // a 33 MHz USB controller
  t.devices = {bridge, nic, slow};
  EXPECT_EQ(BuildBusPaths(t)[0].links[0].clock_mhz, 33);
  t.devices[2].config.capable_66mhz = true;
  EXPECT_EQ(BuildBusPaths(t)[0].links[0].clock_mhz, 66);
  // 66.67 MHz x 4 bytes = 266.7 MB/s.
  EXPECT_NEAR(BuildBusPaths(t)[0].links[0].raw_bytes_per_second, 266.67e6, 0.01e6);
  t.devices[0].config.bridge->secondary_66mhz = false;
  EXPECT_EQ(BuildBusPaths(t)[0].links[0].clock_mhz, 33);
}

TEST(BusPathTest, NarrowestLinkAndAParentLoopDoNotHang) {
  PciTopology t;
  // PCI-X card behind a PCIe-to-PCI-X bridge on a Gen1 x1 link: the x1 link
  // (250 MB/s) is narrower than the PCI-X 133/64 segment (1066 MB/s).
  PciDevice port = PcieDev("0000:00:1c.0", "", 0x060400, 1, 1, 1, 1);
  PciDevice bridge = PcieDev("0000:06:00.0", "0000:00:1c.0", 0x060400, 1, 1, 1, 1);
  bridge.config.pcix = PciXInfo{};
  bridge.config.pcix->bridge = true;
  bridge.config.pcix->secondary_64bit = true;
  bridge.config.pcix->secondary_freq_code = 3;
  bridge.config.length = 256;
  PciDevice nic = Dev("0000:07:01.0", "0000:06:00.0", 0x020000);
  nic.config.pcix = PciXInfo{};
  nic.config.pcix->is_64bit = true;
  nic.interfaces = {"eth0"};
  t.devices = {port, bridge, nic};
  auto paths = BuildBusPaths(t);
  ASSERT_EQ(paths[0].links.size(), 2u);
  EXPECT_EQ(paths[0].links[0].kind, BusKind::kPciX);
  EXPECT_EQ(paths[0].links[1].kind, BusKind::kPcie);
  EXPECT_EQ(paths[0].narrowest, 1u);
  EXPECT_NEAR(paths[0].links[1].raw_bytes_per_second, 250e6, 1);  // 2.5 GT/s x 8/10 / 8
  // A malformed tree whose parents form a cycle ends, with what it found.
  t.devices[0].parent = "0000:07:01.0";
  paths = BuildBusPaths(t);
  EXPECT_EQ(paths.size(), 1u);
}

}  // namespace
}  // namespace bottleneckd
