// pci collector: topology read from the fixture trees, the fallback when config
// space is readable only in part (not root), AER counters, change detection
// and malformed input. Expected values come from the fixture READMEs
// (tests/fixtures/*/README.md) and the generators' inputs.
#include "collectors/pci.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sources/sample.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::pci_test {
namespace {

namespace fs = std::filesystem;
using testing::FakeFs;
using testing::FixtureRoots;
using testing::TempDir;

PciTopology Read(const HostFs& host) {
  PciTopology t;
  Status s = PciCollector::ReadTopology(host, &t);
  EXPECT_OK(s);
  return t;
}

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(PciTopologyTest, SeedBoxPlacesEveryFunction) {
  HostFs host(FixtureRoots("seed-box"));
  PciTopology t = Read(host);
  ASSERT_EQ(t.devices.size(), 8u);  // README: the eight functions of the topology table
  EXPECT_TRUE(t.problems.empty());
  const PciDevice* em0 = t.FindInterface("em0");
  ASSERT_NE(em0, nullptr);
  EXPECT_EQ(em0->address, "0000:02:01.0");
  EXPECT_EQ(em0->parent, "0000:01:1d.0");
  EXPECT_EQ(em0->root_bus, "pci0000:00");
  EXPECT_EQ(em0->driver, "e1000");
  EXPECT_EQ(em0->vendor, 0x8086);
  EXPECT_EQ(em0->device, 0x1079);
  EXPECT_EQ(em0->class_code, 0x020000u);
  EXPECT_EQ(em0->numa_node, -1);
  EXPECT_TRUE(em0->IsNetwork());
  EXPECT_FALSE(em0->IsPcie());
  EXPECT_EQ(em0->config.length, 256u);
  ASSERT_TRUE(em0->config.pcix.has_value());
  EXPECT_TRUE(em0->config.pcix->is_64bit);
  EXPECT_TRUE(em0->missing.empty());
  EXPECT_TRUE(em0->msi_irqs.empty());  // INTx only

  const PciDevice* bridge = t.Find("0000:01:1d.0");
  ASSERT_NE(bridge, nullptr);
  EXPECT_EQ(bridge->parent, "0000:00:02.0");
  EXPECT_TRUE(bridge->IsBridge());
  ASSERT_TRUE(bridge->config.pcix.has_value());
  EXPECT_EQ(bridge->config.pcix->SecondaryClockMhz(), 133);
  EXPECT_TRUE(bridge->interfaces.empty());

  const PciDevice* em2 = t.FindInterface("em2");
  ASSERT_NE(em2, nullptr);
  EXPECT_EQ(em2->address, "0000:03:01.0");
  EXPECT_EQ(em2->parent, "0000:00:1e.0");
  EXPECT_EQ(t.FindInterface("fxp0")->driver, "e100");
  EXPECT_EQ(t.FindInterface("lo"), nullptr);

  std::vector<const PciDevice*> path = t.PathToRoot("0000:02:01.1");
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(path[0]->address, "0000:02:01.1");
  EXPECT_EQ(path[1]->address, "0000:01:1d.0");
  EXPECT_EQ(path[2]->address, "0000:00:02.0");

  std::vector<const PciDevice*> bus3 = t.Children("0000:00:1e.0");
  ASSERT_EQ(bus3.size(), 2u);
  EXPECT_EQ(bus3[0]->address, "0000:03:01.0");
  EXPECT_EQ(bus3[1]->address, "0000:03:02.0");
  EXPECT_EQ(t.Children("", "pci0000:00").size(), 3u);  // 00:00.0, 00:02.0, 00:1e.0
}

TEST(PciTopologyTest, VmVirtioNetUnderItsFunction) {
  // Recorded on this VM (kernel 6.18.44): eth0 -> .../0000:00:03.0/virtio2/net/eth0.
  HostFs host(FixtureRoots("vm"));
  PciTopology t = Read(host);
  const PciDevice* nic = t.FindInterface("eth0");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->address, "0000:00:03.0");
  EXPECT_EQ(nic->parent, "");
  EXPECT_EQ(nic->root_bus, "pci0000:00");
  EXPECT_EQ(nic->vendor, 0x1af4);
  EXPECT_EQ(nic->device, 0x1041);
  EXPECT_EQ(nic->driver, "virtio-pci");
  EXPECT_FALSE(nic->msi_irqs.empty());
  ASSERT_TRUE(nic->config.msix.has_value());
  EXPECT_EQ(nic->config.msix->vectors, 3);
}

TEST(PciTopologyTest, LargeHostPcieLinks) {
  HostFs host(FixtureRoots("large-host"));
  PciTopology t = Read(host);
  const PciDevice* eth0 = t.FindInterface("eth0");
  ASSERT_NE(eth0, nullptr);
  EXPECT_EQ(eth0->address, "0000:3b:00.0");
  EXPECT_EQ(eth0->parent, "0000:3a:02.0");
  EXPECT_EQ(eth0->numa_node, 0);
  EXPECT_EQ(eth0->LinkSpeed(), 3);  // 8.0 GT/s
  EXPECT_EQ(eth0->LinkWidth(), 16);
  EXPECT_EQ(eth0->sysfs_link_speed, 3);
  EXPECT_EQ(eth0->sysfs_max_link_width, 16);
  ASSERT_TRUE(eth0->config.pcie.has_value());
  EXPECT_EQ(eth0->config.pcie->max_payload, 256);
  EXPECT_EQ(eth0->config.pcie->max_read_request, 4096);
  EXPECT_EQ(eth0->msi_irqs.size(), 17u);  // MSI-X 1075-1091
  const PciDevice* eth1 = t.FindInterface("eth1");
  ASSERT_NE(eth1, nullptr);
  EXPECT_EQ(eth1->LinkSpeed(), 2);  // 5.0 GT/s
  EXPECT_EQ(eth1->LinkWidth(), 8);
  EXPECT_EQ(eth1->numa_node, 1);
  // The NICs and the ports above them: the conventional space (256 bytes);
  // functions off NIC paths (an NVMe drive): the 64-byte header only.
  EXPECT_EQ(eth0->config.length, 256u);
  EXPECT_EQ(t.Find("0000:3a:02.0")->config.length, 256u);
  const PciDevice* nvme = t.Find("0000:18:00.0");
  ASSERT_NE(nvme, nullptr);
  EXPECT_EQ(nvme->config.length, 64u);
  EXPECT_EQ(nvme->class_code, 0x010802u);
  EXPECT_TRUE(nvme->missing.empty());  // nothing is claimed about it
}

TEST(PciCollectorTest, PcieBoxAerCountersOnTheNicPaths) {
  HostFs host(FixtureRoots("pcie-box"));
  PciCollector c;
  Sample s;
  ASSERT_OK(c.Collect(host, &s));
  // README: nonzero correctable errors only on NIC A's link, counted on
  // function 0 and on the root port.
  const PciAerCounters* nic = nullptr;
  const PciAerCounters* port = nullptr;
  for (const PciAerCounters& a : s.pci_aer) {
    if (a.device == "0000:41:00.0") nic = &a;
    if (a.device == "0000:40:01.1") port = &a;
  }
  ASSERT_NE(nic, nullptr);
  ASSERT_NE(port, nullptr);
  auto get = [](const NamedCounters& c, const std::string& n) -> uint64_t {
    for (const auto& [name, v] : c)
      if (name == n) return v;
    return UINT64_MAX;
  };
  EXPECT_EQ(get(nic->correctable, "BadTLP"), 1432u);
  EXPECT_EQ(get(nic->correctable, "BadDLLP"), 611u);
  EXPECT_EQ(get(nic->correctable, "Rollover"), 17u);
  EXPECT_EQ(get(nic->correctable, "Timeout"), 96u);
  EXPECT_EQ(get(nic->correctable, "TOTAL_ERR_COR"), UINT64_MAX);  // the sum is not a counter of its own
  EXPECT_FALSE(nic->nonfatal.empty());
  // Devices off NIC paths (the NVMe drive) are not read every tick.
  for (const PciAerCounters& a : s.pci_aer) EXPECT_NE(a.device, "0000:84:00.0");
}

TEST(PciTopologyTest, WithoutRootFallsBackToSysfsAndSaysWhatIsMissing) {
  FakeFs host(FixtureRoots("large-host"));
  host.unprivileged_pci_config = true;
  PciTopology t = Read(host);
  const PciDevice* eth0 = t.FindInterface("eth0");
  ASSERT_NE(eth0, nullptr);
  EXPECT_EQ(eth0->config.length, 64u);
  EXPECT_FALSE(eth0->config.pcie.has_value());
  EXPECT_TRUE(eth0->IsPcie());      // from the sysfs link attributes
  EXPECT_EQ(eth0->LinkSpeed(), 3);  // still known, from sysfs
  EXPECT_EQ(eth0->LinkWidth(), 16);
  EXPECT_TRUE(Has(eth0->missing, "pcie_max_payload"));
  EXPECT_TRUE(Has(eth0->missing, "pcie_max_read_request"));

  FakeFs seed(FixtureRoots("seed-box"));
  seed.unprivileged_pci_config = true;
  PciTopology s = Read(seed);
  EXPECT_TRUE(Has(s.FindInterface("em0")->missing, "pcix_status"));
  EXPECT_TRUE(Has(s.Find("0000:01:1d.0")->missing, "pcix_secondary_status"));
  // The 66 MHz bit is in the first 64 bytes: still known.
  EXPECT_TRUE(s.FindInterface("em0")->config.capable_66mhz);
}

// A writable copy of a fixture's sys tree (symlinks kept as links).
std::string CopySys(const TempDir& dir, const std::string& scenario) {
  std::string to = dir.path() + "/sys";
  fs::copy(FixtureRoots(scenario).sysfs, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  return to;
}

TEST(PciCollectorTest, TopologySharedUntilTheDeviceListChanges) {
  TempDir dir;
  HostRoots roots = FixtureRoots("seed-box");
  roots.sysfs = CopySys(dir, "seed-box");
  HostFs host(roots);
  PciCollector c;
  Sample a, b, d;
  ASSERT_OK(c.Collect(host, &a));
  ASSERT_OK(c.Collect(host, &b));
  ASSERT_NE(a.pci, nullptr);
  EXPECT_EQ(a.pci, b.pci);  // the same object: nothing re-read
  // fxp0's function is hot-removed.
  fs::remove(roots.sysfs + "/bus/pci/devices/0000:03:02.0");
  ASSERT_OK(c.Collect(host, &d));
  ASSERT_NE(d.pci, nullptr);
  EXPECT_NE(d.pci, a.pci);
  EXPECT_EQ(d.pci->devices.size(), 7u);
  EXPECT_EQ(d.pci->Find("0000:03:02.0"), nullptr);
}

TEST(PciCollectorTest, InterfaceRenameRereadsTopology) {
  TempDir dir;
  HostRoots roots = FixtureRoots("seed-box");
  roots.sysfs = CopySys(dir, "seed-box");
  HostFs host(roots);
  PciCollector c;
  Sample a, b;
  ASSERT_OK(c.Collect(host, &a));
  fs::rename(roots.sysfs + "/class/net/em2", roots.sysfs + "/class/net/eth9");
  ASSERT_OK(c.Collect(host, &b));
  ASSERT_NE(b.pci->FindInterface("eth9"), nullptr);
  EXPECT_EQ(b.pci->FindInterface("eth9")->address, "0000:03:01.0");
  EXPECT_EQ(b.pci->FindInterface("em2"), nullptr);
}

TEST(PciCollectorTest, NoPciBusIsNotSupported) {
  TempDir dir;
  HostRoots roots;
  roots.sysfs = dir.path();
  roots.procfs = dir.path();
  HostFs host(roots);
  PciCollector c;
  Sample s;
  EXPECT_TRUE(c.Collect(host, &s).IsNotSupported());
  EXPECT_EQ(s.pci, nullptr);
}

TEST(PciCollectorTest, IdentityAttributesThatCannotBeReadStayUnknown) {
  TempDir dir;
  HostRoots roots = FixtureRoots("seed-box");
  roots.sysfs = CopySys(dir, "seed-box");
  std::string em2 = roots.sysfs + "/devices/pci0000:00/0000:00:1e.0/0000:03:01.0/";
  std::ofstream(em2 + "vendor", std::ios::trunc) << "0xzz86\n";
  std::ofstream(em2 + "numa_node", std::ios::trunc) << "many\n";
  HostFs host(roots);
  PciCollector c;
  Sample s;
  ASSERT_OK(c.Collect(host, &s));
  const PciDevice* d = s.pci->FindInterface("em2");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->Unread("vendor"));
  EXPECT_TRUE(d->Unread("numa_node"));
  EXPECT_FALSE(d->Unread("device"));  // good files stay known
  EXPECT_FALSE(d->Unread("class"));
  EXPECT_EQ(d->class_code, 0x020000u);
  // A fixture device with nothing wrong has nothing unread.
  EXPECT_TRUE(s.pci->FindInterface("em0")->unread.empty());
  EXPECT_EQ(c.read_issues()->size(), 2u);
}

TEST(PciCollectorTest, DeviceGoneAndGarbledConfigAreDecodedAsFarAsValid) {
  TempDir dir;
  HostRoots roots = FixtureRoots("seed-box");
  roots.sysfs = CopySys(dir, "seed-box");
  std::string dev = roots.sysfs + "/devices/pci0000:00/0000:00:1e.0/";
  std::ofstream(dev + "0000:03:01.0/config", std::ios::trunc) << std::string(256, '\xff');
  std::ofstream(dev + "0000:03:02.0/config", std::ios::trunc) << "garbage";
  HostFs host(roots);
  PciCollector c;
  Sample s;
  ASSERT_OK(c.Collect(host, &s));
  const PciDevice* em2 = s.pci->FindInterface("em2");
  ASSERT_NE(em2, nullptr);
  EXPECT_TRUE(em2->config.device_gone);
  EXPECT_EQ(em2->vendor, 0x8086);  // sysfs still has it
  const PciDevice* fxp0 = s.pci->FindInterface("fxp0");
  ASSERT_NE(fxp0, nullptr);
  EXPECT_EQ(fxp0->config.length, 7u);
  EXPECT_TRUE(Has(fxp0->missing, "pci_66mhz_capable"));
  bool said = false;
  for (const std::string& p : s.pci->problems) said = said || p.find("0000:03:01.0") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(AerCountersTest, ParsesKernelFormatAndDropsTotals) {
  NamedCounters c;
  ASSERT_OK(
      ParseAerCounters("RxErr 0\nBadTLP 12\nBadDLLP 3\nRollover 0\nTimeout 1\nNonFatalErr 0\n"
                       "CorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 16\n",
                       &c));
  ASSERT_EQ(c.size(), 8u);
  EXPECT_EQ(c[1], (std::pair<std::string, uint64_t>{"BadTLP", 12}));
  EXPECT_EQ(c[2].second, 3u);
  EXPECT_EQ(c[4].first, "Timeout");
  ASSERT_OK(ParseAerCounters("", &c));
  EXPECT_TRUE(c.empty());
  ASSERT_OK(ParseAerCounters("\n\nTOTAL_ERR_FATAL 0\n", &c));
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(ParseAerCounters("RxErr\n", &c).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(ParseAerCounters("RxErr -1\n", &c).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(ParseAerCounters("RxErr 18446744073709551616\n", &c).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(ParseAerCounters("RxErr 1 2\n", &c).code(), Status::Code::kInvalidArgument);
  ASSERT_OK(ParseAerCounters("RxErr 18446744073709551615", &c));  // no final newline, u64 max
  EXPECT_EQ(c[0].second, UINT64_MAX);
}

TEST(PciCollectorTest, MalformedAerFileIsLeftOutAndTheRestStands) {
  TempDir dir;
  HostRoots roots = FixtureRoots("seed-box");
  roots.sysfs = CopySys(dir, "seed-box");
  std::string em0 = roots.sysfs + "/devices/pci0000:00/0000:00:02.0/0000:01:1d.0/0000:02:01.0/";
  std::ofstream(em0 + "aer_dev_correctable") << "RxErr 0\nBadTLP 7\nTOTAL_ERR_COR 7\n";
  HostFs host(roots);
  PciCollector c;
  Sample a;
  ASSERT_OK(c.Collect(host, &a));
  ASSERT_EQ(a.pci_aer.size(), 1u);
  EXPECT_EQ(a.pci_aer[0].device, "0000:02:01.0");
  ASSERT_EQ(a.pci_aer[0].correctable.size(), 2u);
  EXPECT_EQ(a.pci_aer[0].correctable[1].second, 7u);
  std::ofstream(em0 + "aer_dev_correctable", std::ios::trunc) << "RxErr zero\n";
  Sample b;
  // One garbled file leaves its counters out and is reported; the rest of
  // the reading (topology, the other AER files) stands.
  Status s = c.Collect(host, &b);
  EXPECT_OK(s);
  EXPECT_NE(b.pci, nullptr);
  EXPECT_TRUE(b.pci_aer.empty());  // em0's only AER file in this tree: no counters, not zeros
  ASSERT_EQ(c.read_issues()->size(), 1u);
  EXPECT_NE(c.read_issues()->front().file.find("aer_dev_correctable"), std::string::npos);
}

}  // namespace
}  // namespace bottleneckd::pci_test
