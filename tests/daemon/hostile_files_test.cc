// Kernel files as a hostile or unlucky tree serves them (issue 17): a FIFO or
// directory where a file should be, text cut mid-number, a file past the read
// cap, negative counts, garbled PCI attributes. Each is refused or left out
// with the file named; none blocks, none becomes a number the file did not
// hold. The trees are hand-built: no real kernel serves these.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "collectors/host_fs.h"
#include "collectors/interrupts.h"
#include "collectors/pci.h"
#include "collectors/sockets.h"
#include "daemon/sampler.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::hostile_files_test {
namespace {

using testing::TempDir;

HostRoots RootsOf(const TempDir& d) {
  HostRoots r;
  r.procfs = d.path() + "/proc";
  r.sysfs = d.path() + "/sys";
  return r;
}

TEST(HostileFiles, FifoIsRefusedWithoutBlocking) {
  TempDir d;
  d.Write("proc/placeholder", "\n");
  d.Write("sys/placeholder", "\n");
  ASSERT_EQ(::mkfifo((d.path() + "/proc/stat").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((d.path() + "/sys/attr").c_str(), 0600), 0);
  HostFs fs(RootsOf(d));
  std::string out;
  // Each would wait for a writer forever if opened blocking.
  Status s = fs.ReadProc("stat", &out);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("proc/stat: a FIFO, not a regular file"), std::string::npos) << s.message();
  EXPECT_EQ(fs.ReadSys("attr", &out).code(), Status::Code::kInvalidArgument);
  UniqueFd fd;
  EXPECT_EQ(fs.OpenSys("attr", &fd).code(), Status::Code::kInvalidArgument);
  EXPECT_LT(fd.get(), 0);
}

TEST(HostileFiles, DirectoryWhereAFileShouldBeIsRefused) {
  TempDir d;
  d.Write("proc/stat/inner", "x\n");
  HostFs fs(RootsOf(d));
  std::string out;
  Status s = fs.ReadProc("stat", &out);
  EXPECT_NE(s.message().find("a directory, not a regular file"), std::string::npos) << s.ToString();
}

TEST(HostileFiles, TextCutMidLineIsNotANumber) {
  TempDir d;
  d.Write("sys/class/net/eth0/statistics/rx_packets", "8056");  // was 80568280\n
  d.Write("sys/class/net/eth0/statistics/tx_packets", "80568280\n");
  d.Write("proc/net/snmp", "Udp: InDatagrams\nUdp: 12");
  HostFs fs(RootsOf(d));
  std::string out = "stale";
  Status s = fs.ReadSys("class/net/eth0/statistics/rx_packets", &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("ends mid-line"), std::string::npos);
  EXPECT_EQ(out, "");
  ASSERT_OK(fs.ReadSys("class/net/eth0/statistics/tx_packets", &out));
  EXPECT_EQ(out, "80568280\n");
  EXPECT_TRUE(fs.ReadProc("net/snmp", &out).IsCorruption());
  // The same through a kept descriptor.
  UniqueFd fd;
  ASSERT_OK(fs.OpenSys("class/net/eth0/statistics/rx_packets", &fd));
  EXPECT_TRUE(HostFs::PreadAttribute(fd, &out).IsCorruption());
}

TEST(HostileFiles, AReadThatHitsTheCapIsAnErrorNotAValue) {
  TempDir d;
  // 20 bytes of counts: past a 16-byte cap, the last number would be cut.
  d.Write("sys/aer", "RxErr 1\nBadTLP 123\n");
  d.Write("sys/exact", "RxErr 1\nBad 9\n");  // 14 bytes
  HostFs fs(RootsOf(d));
  std::string out;
  Status s = fs.ReadSys("aer", &out, 16);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s.ToString();
  EXPECT_NE(s.message().find("larger than 16 bytes"), std::string::npos) << s.message();
  EXPECT_OK(fs.ReadSys("exact", &out, 14));
  EXPECT_EQ(out, "RxErr 1\nBad 9\n");
  // A binary attribute's prefix (config space) is what a prefix read is for.
  ASSERT_OK(fs.ReadSysPrefix("aer", &out, 16));
  EXPECT_EQ(out, "RxErr 1\nBadTLP 1");
  UniqueFd fd;
  ASSERT_OK(fs.OpenSys("aer", &fd));
  EXPECT_EQ(HostFs::PreadAttribute(fd, &out, 16).code(), Status::Code::kIOError);
}

TEST(HostileFiles, AnOversizedFileGivesItsMemoryBack) {
  TempDir d;
  d.Write("proc/placeholder", "\n");
  // Past kMaxProcBytes (64 MiB): refused, and the buffer does not keep it.
  const std::string path = d.path() + "/proc/interrupts";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::string line(1 << 20, ' ');
    line.back() = '\n';
    for (size_t i = 0; i <= HostFs::kMaxProcBytes / line.size(); ++i) std::fwrite(line.data(), 1, line.size(), f);
    std::fclose(f);
  }
  HostFs fs(RootsOf(d));
  std::string out;
  Status s = fs.ReadProc("interrupts", &out);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s.ToString();
  EXPECT_TRUE(out.empty());
  EXPECT_LE(out.capacity(), size_t{1} << 20) << "the 64 MiB buffer was kept";
  ::unlink(path.c_str());
}

TEST(HostileFiles, NegativeCountsAreRefused) {
  SocketStats st;
  Status s = ParseProcNetNetstat("TcpExt: SyncookiesSent ListenDrops\nTcpExt: 0 -1\n", &st);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("negative value -1 for ListenDrops"), std::string::npos) << s.message();
  // Tcp MaxConn is -1 on every Linux ("no limit"): the one field that may be.
  SocketStats snmp;
  ASSERT_OK(ParseProcNetSnmp("Tcp: RtoAlgorithm MaxConn\nTcp: 1 -1\n", &snmp));
  EXPECT_EQ(snmp.Get("Tcp", "MaxConn"), -1);
  EXPECT_TRUE(ParseProcNetSnmp("Udp: InDatagrams\nUdp: -5\n", &snmp).IsCorruption());

  Interrupts irqs;
  s = ParseProcInterrupts("           CPU0       CPU1\nLOC:         -5         10   Local timer interrupts\n", &irqs);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("negative count '-5'"), std::string::npos) << s.message();
}

// A tree with one PCI function whose vendor is garbage: the function's other
// facts stay, the bad file is reported, and the collector does not fail as a
// whole (a garbled AER file: pci_test.cc, MalformedAerFileIsLeftOut...).
TEST(HostileFiles, GarbledPciAttributesAreLeftOutNotFatal) {
  TempDir d;
  d.Write("proc/placeholder", "\n");
  const std::string dev = "sys/devices/pci0000:00/0000:00:03.0";
  d.Write(dev + "/vendor", "0xzz86\n");
  d.Write(dev + "/device", "0x100e\n");
  d.Write(dev + "/class", "0x020000\n");

  ASSERT_EQ(::mkdir((d.path() + "/sys/bus").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((d.path() + "/sys/bus/pci").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((d.path() + "/sys/bus/pci/devices").c_str(), 0755), 0);
  ASSERT_EQ(
      ::symlink("../../../devices/pci0000:00/0000:00:03.0", (d.path() + "/sys/bus/pci/devices/0000:00:03.0").c_str()),
      0);
  HostFs fs(RootsOf(d));
  PciCollector c;
  Sample s;
  Status st = c.Collect(fs, &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.pci);
  const PciDevice* p = s.pci->Find("0000:00:03.0");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->vendor, 0u) << "unknown, not a guess";
  EXPECT_EQ(p->device, 0x100eu);
  bool vendor_reported = false;
  for (const ReadIssue& i : *c.read_issues())
    vendor_reported |= i.file.find("0000:00:03.0/vendor") != std::string::npos;
  EXPECT_TRUE(vendor_reported);
}

// The Sampler turns left-out files into the collector's read errors and a
// degraded tick, while success stays 1.
TEST(HostileFiles, SamplerCountsLeftOutFiles) {
  TempDir d;
  const std::string dev = "sys/devices/virtual/net/veth0";
  d.Write(dev + "/statistics/rx_packets", "12x\n");
  d.Write(dev + "/statistics/tx_packets", "7\n");
  d.Write(dev + "/ifindex", "3\n");
  d.Write(dev + "/type", "1\n");
  d.Write(dev + "/operstate", "up\n");
  ASSERT_EQ(::mkdir((d.path() + "/sys/class").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((d.path() + "/sys/class/net").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("../../devices/virtual/net/veth0", (d.path() + "/sys/class/net/veth0").c_str()), 0);
  HostFs fs(RootsOf(d));
  CollectorsConfig cfg;
  cfg.disabled = {"cpu", "interrupts", "softirqs", "pci", "sockets", "threads"};
  cfg.netdev.hide_idle_virtual = false;
  Sampler sampler(&fs, cfg);
  for (int tick = 1; tick <= 2; ++tick) {
    Sample s;
    sampler.Take(&s);
    ASSERT_EQ(s.results.size(), 1u);
    const CollectorResult& r = s.results[0];
    EXPECT_EQ(r.name, "netdev");
    EXPECT_TRUE(r.success) << r.error;
    EXPECT_EQ(r.read_errors, 1u);
    EXPECT_EQ(r.read_errors_total, static_cast<uint64_t>(tick));
  }
}

}  // namespace
}  // namespace bottleneckd::hostile_files_test
