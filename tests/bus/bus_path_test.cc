// Bus paths: which links each NIC's DMA crosses, with kind, clock or rate,
// width and raw capacity, on the fixture trees and hand-built topologies.
// Expected values come from the fixture READMEs and the specs' arithmetic.
#include "bus/bus_path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "bus/bus_model.h"
#include "collectors/pci.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"
#include "window/window.h"

namespace bottleneckd::bus_path_test {
namespace {

using testing::FakeFs;
using testing::FixtureRoots;

std::vector<BusPath> PathsOf(const std::string& scenario) {
  HostFs host(FixtureRoots(scenario));
  PciTopology t;
  EXPECT_OK(PciCollector::ReadTopology(host, &t));
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
  d.config.vendor = d.vendor;  // as decoded: the header agrees with sysfs
  if ((cls >> 8) == 0x0604) d.config.bridge = PciBridgeInfo{};
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

// A PCI-X bridge whose config cannot be trusted (unreadable, garbage, a
// capability loop, PCI-X status past the 64 unprivileged bytes): the segment
// gets no capacity, never PCI 33 MHz/32-bit (133 MB/s for a 1066 MB/s bus).
TEST(BusPathTest, AnUnknowableSegmentHasNoCapacity) {
  auto topology = [](auto spoil) {
    PciTopology t;
    PciDevice bridge = Dev("0000:00:1e.0", "", 0x060400);
    bridge.config.length = 256;
    bridge.config.pcix = PciXInfo{};
    bridge.config.pcix->bridge = true;
    bridge.config.pcix->secondary_64bit = true;
    bridge.config.pcix->secondary_freq_code = 3;  // 133 MHz
    PciDevice nic = Dev("0000:05:01.0", "0000:00:1e.0", 0x020000);
    nic.config.length = 256;
    nic.config.pcix = PciXInfo{};
    nic.config.pcix->is_64bit = true;
    nic.interfaces = {"eth0"};
    spoil(&bridge);
    t.devices = {bridge, nic};
    return t;
  };
  // The good bridge: PCI-X 133/64, 1066 MB/s.
  auto good = BuildBusPaths(topology([](PciDevice*) {}));
  ASSERT_EQ(good[0].links.size(), 1u);
  EXPECT_EQ(good[0].links[0].kind, BusKind::kPciX);
  EXPECT_NEAR(good[0].links[0].raw_bytes_per_second, 1066.67e6, 0.01e6);
  struct {
    const char* name;
    std::function<void(PciDevice*)> spoil;
    const char* says;
  } cases[] = {
      {"empty config",
       [](PciDevice* b) {
         b->config = PciConfig();
         b->missing_reason = "config unreadable: IOError";
       },
       "config unreadable (config unreadable: IOError)"},
      {"garbage",
       [](PciDevice* b) {
         b->config.pcix.reset();
         b->config.vendor = 0x1234;
       },
       "does not decode as a bridge"},
      {"capability loop",
       [](PciDevice* b) {
         b->config.pcix.reset();
         b->config.problems = {"capability loop at 0x40"};
       },
       "capability loop at 0x40"},
      {"no root",
       [](PciDevice* b) {
         b->config.pcix.reset();
         b->config.length = 64;
         b->missing = {"pcix_secondary_status"};
         b->missing_reason = "config space past 64 bytes needs root (CAP_SYS_ADMIN)";
       },
       "PCI-X secondary status unreadable"},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto paths = BuildBusPaths(topology(c.spoil));
    ASSERT_EQ(paths[0].links.size(), 1u);
    const BusLink& l = paths[0].links[0];
    EXPECT_EQ(l.raw_bytes_per_second, 0);
    EXPECT_EQ(l.clock_mhz, 0);
    ASSERT_FALSE(l.assumptions.empty());
    EXPECT_NE(l.assumptions[0].find(c.says), std::string::npos) << l.assumptions[0];
    EXPECT_NE(l.assumptions[0].find("no capacity modelled"), std::string::npos) << l.assumptions[0];
  }
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

namespace fs = std::filesystem;
using testing::TempDir;

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// A 256-byte config space with the PCIe capability at 0x40 (version 2),
// little-endian: PCI_EXP_FLAGS +2, LNKCAP +0xc, LNKSTA +0x12, LNKCAP2 +0x2c.
std::string PcieConfig(uint16_t vendor, uint16_t device, uint32_t class_code, uint8_t header_type, uint16_t flags,
                       uint32_t lnkcap, uint16_t lnksta, uint32_t lnkcap2, uint8_t secondary_bus = 0) {
  std::string b(256, '\0');
  auto put = [&](size_t off, uint32_t v, int n) {
    for (int i = 0; i < n; ++i) b[off + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  put(0x00, vendor, 2), put(0x02, device, 2), put(0x06, 0x0010, 2), put(0x09, class_code, 3);
  put(0x0e, header_type, 1), put(0x34, 0x40, 1);
  if (header_type == 1) put(0x19, secondary_bus, 1), put(0x1a, secondary_bus, 1);
  put(0x40, kPciCapPcie, 1), put(0x42, flags, 2), put(0x4c, lnkcap, 4), put(0x52, lnksta, 2), put(0x6c, lnkcap2, 4);
  return b;
}

// A sysfs tree written by the test: functions under devices/pci0000:00 with
// their attributes, bus/pci/devices links and class/net links, as Linux lays
// them out.
class SysTree {
 public:
  explicit SysTree(const TempDir& dir) : root_(dir.path() + "/sys") {
    fs::create_directories(root_ + "/bus/pci/devices");
    fs::create_directories(root_ + "/class/net");
  }
  // `path`: the function's directory below pci0000:00 ("0000:00:1c.4/0000:05:00.0").
  void Add(const std::string& path, const std::map<std::string, std::string>& attrs) {
    std::string dir = root_ + "/devices/pci0000:00/" + path;
    fs::create_directories(dir);
    for (const auto& [name, text] : attrs) std::ofstream(dir + "/" + name, std::ios::binary) << text;
    fs::create_directory_symlink("../../../devices/pci0000:00/" + path,
                                 root_ + "/bus/pci/devices/" + path.substr(path.rfind('/') + 1));
  }
  void Net(const std::string& path, const std::string& ifname) {
    std::string net = root_ + "/devices/pci0000:00/" + path + "/net/" + ifname;
    fs::create_directories(net);
    fs::create_directory_symlink("../../../" + path.substr(path.rfind('/') + 1), net + "/device");
    fs::create_directory_symlink("../../devices/pci0000:00/" + path + "/net/" + ifname, root_ + "/class/net/" + ifname);
  }
  HostRoots Roots() const {
    HostRoots r;
    r.sysfs = root_;
    r.procfs = root_;
    return r;
  }

 private:
  std::string root_;
};

std::map<std::string, std::string> Attrs(const std::string& cls, const std::string& config, const std::string& speed,
                                         const std::string& width, const std::string& max_speed,
                                         const std::string& max_width) {
  std::map<std::string, std::string> a = {{"vendor", "0x8086\n"},
                                          {"device", "0x15d3\n"},
                                          {"class", cls + "\n"},
                                          {"current_link_speed", speed + "\n"},
                                          {"current_link_width", width + "\n"},
                                          {"max_link_speed", max_speed + "\n"},
                                          {"max_link_width", max_width + "\n"}};
  if (!config.empty()) a["config"] = config;
  return a;
}

// An Aquantia AQC107 (1d6a:07b1; LnkCap 8GT/s x4) in a Thunderbolt 3
// enclosure, below an Intel JHL6540 Alpine Ridge switch (8086:15d3) on a
// Cannon Lake root port. The values follow `lspci -vv` of such a setup: the
// switch's downstream port says "LnkCap: Port #1, Speed 2.5GT/s, Width x4"
// and "LnkCap2: Supported Link Speeds: 2.5-8GT/s", the AQC107 "LnkSta: Speed
// 2.5GT/s, Width x4". The link runs at the port's maximum: not downtrained.
TEST(BusPathTest, ThunderboltPortMaxIsLnkCapsFieldNotLnkCap2sTop) {
  TempDir dir;
  SysTree tree(dir);
  const std::string rp = "0000:00:1c.4", up = rp + "/0000:05:00.0", dn = up + "/0000:06:01.0",
                    nic = dn + "/0000:07:00.0";
  tree.Add(rp, Attrs("0x060400", PcieConfig(0x8086, 0xa33c, 0x060400, 1, 0x0042, 0x05000043, 0x3043, 0x0e, 5),
                     "8.0 GT/s PCIe", "4", "8.0 GT/s PCIe", "4"));
  tree.Add(up, Attrs("0x060400", PcieConfig(0x8086, 0x15d3, 0x060400, 1, 0x0052, 0x00000043, 0x0043, 0x0e, 6),
                     "8.0 GT/s PCIe", "4", "8.0 GT/s PCIe", "4"));
  // Kernels before 6.13 say "8.0 GT/s PCIe" in the port's max_link_speed.
  tree.Add(dn, Attrs("0x060400", PcieConfig(0x8086, 0x15d3, 0x060400, 1, 0x0062, 0x01000041, 0x7041, 0x0e, 7),
                     "2.5 GT/s PCIe", "4", "8.0 GT/s PCIe", "4"));
  tree.Add(nic, Attrs("0x020000", PcieConfig(0x1d6a, 0x07b1, 0x020000, 0, 0x0002, 0x00000043, 0x1041, 0x0e),
                      "2.5 GT/s PCIe", "4", "8.0 GT/s PCIe", "4"));
  tree.Net(nic, "enp7s0");
  HostFs host(tree.Roots());
  PciTopology t;
  ASSERT_OK(PciCollector::ReadTopology(host, &t));
  EXPECT_EQ(t.Find("0000:06:01.0")->MaxLinkSpeed(), 1);  // 2.5 GT/s: LnkCap's field
  std::vector<BusPath> paths = BuildBusPaths(t);
  ASSERT_EQ(paths.size(), 1u);
  ASSERT_FALSE(paths[0].links.empty());
  const BusLink& l = paths[0].links[0];
  EXPECT_EQ(l.device, "0000:06:01.0");
  EXPECT_EQ(l.SpeedLabel(), "2.5GT/s");
  EXPECT_EQ(l.MaxSpeedLabel(), "2.5GT/s");
  EXPECT_FALSE(l.downtrained);
}

// Without root, a PCIe function with no link: a root-complex integrated NIC
// (modelled on a Cavium ThunderX NIC PF, 177d:a01e, `lspci -vv`: "Express (v2)
// Root Complex Integrated Endpoint"; sysfs current_link_speed "Unknown",
// current_link_width 0) and an endpoint below a root port whose link is down.
// The attributes make them PCIe; "Unknown" means no link: no capacity is
// modelled (not a 33 MHz PCI bus) and the estimate has no utilisation.
TEST(BusPathTest, UnknownLinkSpeedIsPcieWithoutCapacity) {
  TempDir dir;
  SysTree tree(dir);
  std::string rciep = PcieConfig(0x177d, 0xa01e, 0x020000, 0, 0x0092, 0, 0, 0);
  tree.Add("0000:00:10.0", Attrs("0x020000", rciep, "Unknown", "0", "Unknown", "0"));
  tree.Net("0000:00:10.0", "enP2p1s0");
  tree.Add("0000:00:1c.0", Attrs("0x060400", PcieConfig(0x8086, 0xa338, 0x060400, 1, 0x0042, 0x43, 0x0000, 0x0e, 2),
                                 "Unknown", "0", "8.0 GT/s PCIe", "4"));
  tree.Add("0000:00:1c.0/0000:02:00.0",
           Attrs("0x020000", PcieConfig(0x8086, 0x1533, 0x020000, 0, 0x0002, 0x11, 0x0000, 0x02), "Unknown", "0",
                 "2.5 GT/s PCIe", "1"));
  tree.Net("0000:00:1c.0/0000:02:00.0", "enp2s0");
  FakeFs host(tree.Roots());
  host.unprivileged_pci_config = true;
  PciTopology t;
  ASSERT_OK(PciCollector::ReadTopology(host, &t));
  const PciDevice* integrated = t.FindInterface("enP2p1s0");
  ASSERT_NE(integrated, nullptr);
  EXPECT_EQ(integrated->config.length, 64u);
  EXPECT_TRUE(integrated->IsPcie());
  EXPECT_EQ(integrated->LinkSpeed(), 0);
  EXPECT_EQ(integrated->missing_reason, "config space past 64 bytes needs root (CAP_SYS_ADMIN)");
  std::vector<BusPath> paths = BuildBusPaths(t);
  ASSERT_EQ(paths.size(), 2u);
  for (const BusPath& p : paths) {
    EXPECT_TRUE(p.links.empty()) << p.interface << ": " << (p.links.empty() ? "" : p.links[0].SpeedLabel());
  }
  BusEstimate est = EstimateBus(paths, {}, t, DefaultBusModelOptions());
  ASSERT_EQ(est.nics.size(), 2u);
  for (const BusNicEstimate& n : est.nics) {
    EXPECT_EQ(n.bottleneck_device, "") << n.interface;  // unknown, not 0
    EXPECT_EQ(n.method, "none") << n.interface;
  }
  EXPECT_TRUE(est.links.empty());
}

// An Ethernet function directly on a root bus with sysfs link attributes but
// no `config` file, read as root: its link is its own (named by the root
// bus), not a root port's, and the missing facts say "no config file", not
// that root is needed.
TEST(BusPathTest, RootBusEndpointWithoutConfigFileUsesItsSysfsLink) {
  TempDir dir;
  SysTree tree(dir);
  tree.Add("0000:00:02.0", Attrs("0x020000", "", "8.0 GT/s PCIe", "8", "8.0 GT/s PCIe", "8"));
  tree.Net("0000:00:02.0", "eth0");
  HostFs host(tree.Roots());
  PciTopology t;
  ASSERT_OK(PciCollector::ReadTopology(host, &t));
  const PciDevice* d = t.FindInterface("eth0");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->config_absent);
  EXPECT_EQ(d->missing_reason, "no config file");
  EXPECT_TRUE(Has(t.problems, "0000:00:02.0: no config file"));
  std::vector<BusPath> paths = BuildBusPaths(t);
  ASSERT_EQ(paths.size(), 1u);
  ASSERT_EQ(paths[0].links.size(), 1u);
  const BusLink& l = paths[0].links[0];
  EXPECT_EQ(l.kind, BusKind::kPcie);
  EXPECT_EQ(l.device, "pci0000:00");
  EXPECT_EQ(l.SpeedLabel(), "8.0GT/s");
  EXPECT_EQ(l.WidthLabel(), "x8");
  EXPECT_NEAR(l.raw_bytes_per_second, 8e9 * 128 / 130, 1e3);
}

// A link of unknown capacity takes no part in the path's bottleneck: a path
// with none known has no utilisation (bottleneck_device ""), not 0.
TEST(BusPathTest, EstimateSkipsLinksOfUnknownCapacity) {
  BusPath p;
  p.interface = "eth0";
  p.device = "0000:01:00.0";
  BusLink l;
  l.kind = BusKind::kPcie;
  l.device = "0000:00:01.0";
  p.links.push_back(l);  // speed and width 0: raw 0
  PciTopology t;
  BusEstimate est = EstimateBus({p}, {}, t, DefaultBusModelOptions());
  ASSERT_EQ(est.nics.size(), 1u);
  EXPECT_EQ(est.nics[0].bottleneck_device, "");
  EXPECT_EQ(est.nics[0].path_utilisation, 0);
}

}  // namespace
}  // namespace bottleneckd::bus_path_test
