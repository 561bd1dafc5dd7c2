// Tests of the netdev collector and ethtool reading: ParseEthtoolStats on
// literal text, the SIOCETHTOOL path against this host, and
// NetdevCollector::Collect over temporary sysfs trees and the fixture trees.
#include "collectors/netdev.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collectors/ethtool.h"
#include "collectors/host_fs.h"
#include "sources/sample.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::netdev_test {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using Code = Status::Code;

// ---- ParseEthtoolStats ----

struct EthtoolCase {
  const char* name;
  const char* text;
  Code code;
  NamedCounters want;  // checked when OK
};

// clang-format off
const EthtoolCase kEthtoolCases[] = {
    {"virtio_header_and_two", "NIC statistics:\n     rx_kicks: 217\n     tx_kicks: 866\n",
     Code::kOk, {{"rx_kicks", 217}, {"tx_kicks", 866}}},
    {"sorted_by_name", "NIC statistics:\n     tx_packets: 2\n     rx_packets: 1\n     multicast: 3\n",
     Code::kOk, {{"multicast", 3}, {"rx_packets", 1}, {"tx_packets", 2}}},
    {"odd_names",
     "NIC statistics:\n     rx_queue_0_packets: 11\n     tx-0.packets: 7\n     rx_pkts_nic: 5\n"
     "     [0]: rx_ucast_packets: 12\n     rx queue 1 drops: 3\n",
     Code::kOk,
     {{"[0]: rx_ucast_packets", 12}, {"rx queue 1 drops", 3}, {"rx_pkts_nic", 5},
      {"rx_queue_0_packets", 11}, {"tx-0.packets", 7}}},
    {"empty", "", Code::kOk, {}},
    {"header_only", "NIC statistics:\n", Code::kOk, {}},
    {"no_stats_available", "no stats available\n", Code::kOk, {}},
    {"group_title_skipped", "Standard stats for em0:\n     eth-mac-FramesTransmittedOK: 9\n",
     Code::kOk, {{"eth-mac-FramesTransmittedOK", 9}}},
    {"empty_name_skipped", "NIC statistics:\n     : 5\n     rx_x: 1\n", Code::kOk, {{"rx_x", 1}}},
    {"crlf_and_tabs", "NIC statistics:\r\n\trx_a:\t4\r\n", Code::kOk, {{"rx_a", 4}}},
    {"duplicate_keeps_first", "     rx_a: 1\n     rx_b: 2\n     rx_a: 3\n", Code::kOk,
     {{"rx_a", 1}, {"rx_b", 2}}},
    {"u64_max", "     rx_bytes: 18446744073709551615\n", Code::kOk, {{"rx_bytes", UINT64_MAX}}},
    {"zero", "     rx_bytes: 0\n", Code::kOk, {{"rx_bytes", 0}}},
    {"truncated_no_newline", "NIC statistics:\n     rx_a: 1\n     rx_b: 22", Code::kOk,
     {{"rx_a", 1}, {"rx_b", 22}}},
    {"truncated_mid_name", "NIC statistics:\n     rx_a: 1\n     rx_b", Code::kOk, {{"rx_a", 1}}},
    {"truncated_after_colon", "NIC statistics:\n     rx_a: 1\n     rx_b:", Code::kOk, {{"rx_a", 1}}},
    {"u64_overflow", "     rx_bytes: 18446744073709551616\n", Code::kCorruption, {}},
    {"negative", "     rx_bytes: -1\n", Code::kCorruption, {}},
    {"plus_sign", "     rx_bytes: +1\n", Code::kCorruption, {}},
    {"word_value", "     rx_bytes: many\n", Code::kCorruption, {}},
    {"two_numbers", "     rx_bytes: 1 2\n", Code::kCorruption, {}},
    {"hex_value", "     rx_bytes: 0x10\n", Code::kCorruption, {}},
};
// clang-format on

TEST(ParseEthtoolStatsTest, Table) {
  for (const EthtoolCase& c : kEthtoolCases) {
    SCOPED_TRACE(c.name);
    NamedCounters got = {{"stale", 99}};
    Status s = ParseEthtoolStats(c.text, &got);
    EXPECT_EQ(s.code(), c.code) << s.ToString();
    if (c.code == Code::kOk) {
      EXPECT_EQ(got, c.want);
    } else {
      EXPECT_TRUE(got.empty());
    }
  }
}

TEST(ParseEthtoolStatsTest, CorruptionNamesTheStatistic) {
  NamedCounters got;
  Status s = ParseEthtoolStats("NIC statistics:\n     rx_missed_errors: lots\n", &got);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("rx_missed_errors"), std::string::npos) << s.message();
}

// `ethtool -S` of an Intel 82546 (e1000) after a receive overload.
constexpr const char* kE1000 =
    "NIC statistics:\n"
    "     rx_packets: 81985347\n"
    "     tx_packets: 80431120\n"
    "     rx_bytes: 5247062208\n"
    "     tx_bytes: 5147591680\n"
    "     rx_broadcast: 12\n"
    "     tx_broadcast: 3\n"
    "     rx_multicast: 0\n"
    "     tx_multicast: 0\n"
    "     rx_errors: 0\n"
    "     tx_errors: 0\n"
    "     tx_dropped: 0\n"
    "     multicast: 0\n"
    "     collisions: 0\n"
    "     rx_length_errors: 0\n"
    "     rx_over_errors: 0\n"
    "     rx_crc_errors: 0\n"
    "     rx_frame_errors: 0\n"
    "     rx_no_buffer_count: 301442\n"
    "     rx_missed_errors: 1554227\n"
    "     tx_aborted_errors: 0\n"
    "     tx_carrier_errors: 0\n"
    "     tx_fifo_errors: 0\n"
    "     tx_heartbeat_errors: 0\n"
    "     tx_window_errors: 0\n"
    "     tx_abort_late_coll: 0\n"
    "     tx_deferred_ok: 0\n"
    "     tx_single_coll_ok: 0\n"
    "     tx_multi_coll_ok: 0\n"
    "     tx_timeout_count: 0\n"
    "     tx_restart_queue: 1187\n"
    "     rx_long_length_errors: 0\n"
    "     rx_short_length_errors: 0\n"
    "     rx_align_errors: 0\n"
    "     tx_tcp_seg_good: 0\n"
    "     tx_tcp_seg_failed: 0\n"
    "     rx_flow_control_xon: 0\n"
    "     rx_flow_control_xoff: 0\n"
    "     tx_flow_control_xon: 0\n"
    "     tx_flow_control_xoff: 0\n"
    "     rx_long_byte_count: 5247062208\n"
    "     rx_csum_offload_good: 81985335\n"
    "     rx_csum_offload_errors: 0\n"
    "     alloc_rx_buff_failed: 0\n"
    "     tx_smbus: 0\n"
    "     rx_smbus: 0\n"
    "     dropped_smbus: 0\n";

TEST(ParseEthtoolStatsTest, E1000Sample) {
  NamedCounters got;
  ASSERT_OK(ParseEthtoolStats(kE1000, &got));
  EXPECT_EQ(got.size(), 46u);
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
  NetDev dev;
  dev.ethtool = got;
  EXPECT_EQ(dev.Ethtool("rx_no_buffer_count"), 301442u);
  EXPECT_EQ(dev.Ethtool("rx_missed_errors"), 1554227u);
  EXPECT_EQ(dev.Ethtool("tx_restart_queue"), 1187u);
  EXPECT_EQ(dev.Ethtool("alloc_rx_buff_failed"), 0u);
  EXPECT_EQ(dev.Ethtool("rx_fifo_errors"), std::nullopt);  // e1000 has none
  EXPECT_EQ(got.front().first, "alloc_rx_buff_failed");
  EXPECT_EQ(got.back().first, "tx_window_errors");
}

// ---- SIOCETHTOOL on this host ----

TEST(EthtoolIoctlTest, LoopbackIsNotSupportedOrOk) {
  NamedCounters got = {{"stale", 1}};
  Status s = ReadEthtoolStatsIoctl("lo", &got);
  ASSERT_TRUE(s.ok() || s.IsNotSupported()) << s.ToString();
  if (s.ok()) {
    EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
  } else {
    EXPECT_TRUE(got.empty());
    EXPECT_NE(s.message().find("lo"), std::string::npos) << s.message();
  }
}

TEST(EthtoolIoctlTest, MissingInterface) {
  for (const std::string& ifname : {std::string("bnd-nosuch0"), std::string(40, 'x')}) {
    NamedCounters got = {{"stale", 1}};
    Status s = ReadEthtoolStatsIoctl(ifname, &got);
    // Observed: ENODEV -> NotFound; NotSupported where sockets are refused.
    EXPECT_TRUE(s.code() == Code::kNotFound || s.code() == Code::kNotSupported) << s.ToString();
    EXPECT_NE(s.message().find(ifname), std::string::npos) << s.message();
    EXPECT_TRUE(got.empty());
  }
}

// The vm fixture holds `ethtool -S` output recorded on this machine: where the
// live interface is the same device, the ioctl must name the same counters.
TEST(EthtoolIoctlTest, AgreesWithRecordedEthtoolOutput) {
  HostFs live(HostRoots{});
  HostFs vm(testing::FixtureRoots("vm"));
  int compared = 0;
  for (const char* ifname : {"eth0", "ifb0", "ifb1"}) {
    std::string live_link, vm_link;
    if (!live.ReadLinkSys(std::string("class/net/") + ifname, &live_link).ok()) continue;
    ASSERT_OK(vm.ReadLinkSys(std::string("class/net/") + ifname, &vm_link));
    if (live_link != vm_link) continue;
    NamedCounters recorded, got;
    ASSERT_OK(vm.EthtoolStats(ifname, &recorded));
    Status s = ReadEthtoolStatsIoctl(ifname, &got);
    ASSERT_OK(s);
    std::vector<std::string> want_names, got_names;
    for (const auto& [n, v] : recorded) want_names.push_back(n);
    for (const auto& [n, v] : got) got_names.push_back(n);
    EXPECT_EQ(got_names, want_names) << ifname;
    ++compared;
  }
  // lo is never in the recorded set: the driver offers no statistics.
  NamedCounters lo;
  EXPECT_TRUE(vm.EthtoolStats("lo", &lo).IsNotSupported());
  RecordProperty("compared", compared);
}

// ---- Collect over a temporary sysfs tree ----

struct Iface {
  std::string dir;  // under sys/, e.g. "devices/virtual/net/lo"
  int ifindex;
  std::map<std::string, std::string> stats;
};

void AddIface(const TempDir& d, const std::string& name, const Iface& i) {
  std::string base = "sys/" + i.dir + "/";
  d.Write(base + "ifindex", std::to_string(i.ifindex) + "\n");
  d.Write(base + "operstate", "up\n");
  for (const auto& [k, v] : i.stats) d.Write(base + "statistics/" + k, v + "\n");
  fs::create_directories(d.path() + "/sys/class/net");
  fs::create_symlink("../../" + i.dir, d.path() + "/sys/class/net/" + name);
}

std::map<std::string, std::string> Traffic(const std::string& rx, const std::string& tx) {
  return {{"rx_packets", rx}, {"tx_packets", tx}, {"rx_bytes", "1000"}, {"rx_missed_errors", "7"}};
}

// em0: an e1000 PCI function behind a bridge; eth0: virtio-net as on this VM;
// lo and veth1 with traffic; veth0 idle; ghost: no statistics directory.
class NetdevTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string em0 = "devices/pci0000:00/0000:00:1e.0/0000:02:01.0";
    AddIface(dir_, "em0", {em0 + "/net/em0", 2, Traffic("81985347", "80431120")});
    fs::create_symlink("../../../0000:02:01.0", dir_.path() + "/sys/" + em0 + "/net/em0/device");
    fs::create_directories(dir_.path() + "/sys/bus/pci/drivers/e1000");
    fs::create_symlink("../../../../bus/pci/drivers/e1000", dir_.path() + "/sys/" + em0 + "/driver");

    const std::string virtio = "devices/pci0000:00/0000:00:03.0/virtio2";
    AddIface(dir_, "eth0", {virtio + "/net/eth0", 4, Traffic("1362", "918")});
    fs::create_symlink("../../../virtio2", dir_.path() + "/sys/" + virtio + "/net/eth0/device");
    fs::create_directories(dir_.path() + "/sys/bus/virtio/drivers/virtio_net");
    fs::create_symlink("../../../../bus/virtio/drivers/virtio_net", dir_.path() + "/sys/" + virtio + "/driver");

    AddIface(dir_, "lo", {"devices/virtual/net/lo", 1, Traffic("31", "31")});
    AddIface(dir_, "veth0", {"devices/virtual/net/veth0", 5, Traffic("0", "0")});
    AddIface(dir_, "veth1", {"devices/virtual/net/veth1", 6, Traffic("0", "5")});
    dir_.Write("sys/devices/virtual/net/ghost/ifindex", "9\n");
    fs::create_symlink("../../devices/virtual/net/ghost", dir_.path() + "/sys/class/net/ghost");
    dir_.Write("sys/class/net/bonding_masters", "\n");
    dir_.Write("ethtool/em0", kE1000);
  }

  HostRoots Roots() const {
    HostRoots r;
    r.procfs = dir_.path() + "/proc";
    r.sysfs = dir_.path() + "/sys";
    r.ethtool = dir_.path() + "/ethtool";
    return r;
  }

  static std::vector<std::string> Names(const Sample& s) {
    std::vector<std::string> names;
    for (const NetDev& d : *s.netdev) names.push_back(d.name);
    return names;
  }

  TempDir dir_;
};

const NetDev* Find(const Sample& s, const std::string& name) {
  for (const NetDev& d : *s.netdev)
    if (d.name == name) return &d;
  return nullptr;
}

TEST_F(NetdevTreeTest, DefaultsHideIdleVirtualAndResolveDevices) {
  HostFs fs(Roots());
  NetdevCollector c{NetdevOptions{}};
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  ASSERT_TRUE(s.netdev.has_value());
  EXPECT_EQ(Names(s), (std::vector<std::string>{"em0", "eth0", "lo", "veth1"}));

  const NetDev* em0 = Find(s, "em0");
  ASSERT_NE(em0, nullptr);
  EXPECT_EQ(em0->ifindex, 2);
  EXPECT_EQ(em0->operstate, "up");
  EXPECT_FALSE(em0->is_virtual);
  EXPECT_EQ(em0->pci_device, "0000:02:01.0");
  EXPECT_EQ(em0->driver, "e1000");
  EXPECT_EQ(em0->stats.size(), 4u);
  EXPECT_EQ(em0->Stat("rx_packets"), 81985347u);
  EXPECT_EQ(em0->Stat("rx_missed_errors"), 7u);
  EXPECT_EQ(em0->Stat("rx_fifo_errors"), std::nullopt);
  EXPECT_EQ(em0->Ethtool("rx_no_buffer_count"), 301442u);

  const NetDev* eth0 = Find(s, "eth0");
  ASSERT_NE(eth0, nullptr);
  EXPECT_FALSE(eth0->is_virtual);
  EXPECT_EQ(eth0->pci_device, "0000:00:03.0");
  EXPECT_EQ(eth0->driver, "virtio_net");
  EXPECT_EQ(eth0->Stat("tx_packets"), 918u);
  EXPECT_TRUE(eth0->ethtool.empty());  // none recorded: NotSupported, silent

  const NetDev* lo = Find(s, "lo");
  ASSERT_NE(lo, nullptr);
  EXPECT_TRUE(lo->is_virtual);
  EXPECT_EQ(lo->pci_device, "");
  EXPECT_EQ(lo->driver, "");
  EXPECT_EQ(lo->ifindex, 1);
  EXPECT_EQ(c.counter_errors(), 0u);
}

TEST_F(NetdevTreeTest, ShowIdleVirtualAndNoEthtool) {
  HostFs fs(Roots());
  NetdevOptions o;
  o.hide_idle_virtual = false;
  o.ethtool = false;
  NetdevCollector c(o);
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  // ghost (no statistics/) and bonding_masters (a file) are not interfaces.
  EXPECT_EQ(Names(s), (std::vector<std::string>{"em0", "eth0", "lo", "veth0", "veth1"}));
  EXPECT_TRUE(Find(s, "em0")->ethtool.empty());
  EXPECT_EQ(Find(s, "veth0")->Stat("rx_packets"), 0u);
}

TEST_F(NetdevTreeTest, IncludeExclude) {
  NetdevOptions o;
  o.include = {"^e"};
  o.exclude = {"^eth"};
  NetdevCollector c(o);
  EXPECT_TRUE(c.Selected("em0"));
  EXPECT_FALSE(c.Selected("eth0"));
  EXPECT_FALSE(c.Selected("lo"));
  HostFs fs(Roots());
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_EQ(Names(s), (std::vector<std::string>{"em0"}));

  NetdevOptions search;  // patterns search, unanchored
  search.include = {"eth"};
  NetdevCollector c2(search);
  EXPECT_TRUE(c2.Selected("veth1"));
  EXPECT_TRUE(c2.Selected("eth0"));
  EXPECT_FALSE(c2.Selected("em0"));
  EXPECT_TRUE(NetdevCollector(NetdevOptions{}).Selected("anything"));
}

TEST_F(NetdevTreeTest, InvalidPatternFailsCollectWithoutThrowing) {
  NetdevOptions o;
  o.exclude = {"(veth"};
  NetdevCollector c(o);
  HostFs fs(Roots());
  Sample s;
  Status st = c.Collect(fs, &s);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_NE(st.message().find("(veth"), std::string::npos) << st.message();
  EXPECT_FALSE(s.netdev.has_value());
}

// Every Linux kernel has /sys/class/net (lo at least): its absence is a wrong
// --path.sysfs, an error naming the path (it was "not supported" before, and a
// sysfs root with no NICs logged nothing at all).
TEST_F(NetdevTreeTest, MissingClassNetIsAnErrorNamingThePath) {
  HostRoots r = Roots();
  r.sysfs = dir_.path() + "/nosys";
  HostFs fs(r);
  NetdevCollector c{NetdevOptions{}};
  Sample s;
  Status st = c.Collect(fs, &s);
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find(dir_.path() + "/nosys/class/net absent: every Linux kernel has it; is " + dir_.path() +
                              "/nosys a sysfs (--path.sysfs)?"),
            std::string::npos)
      << st.message();
  EXPECT_FALSE(s.netdev.has_value());
}

// A garbled counter, and one cut mid-number ("80568280" read as "8056": the
// kernel ends every attribute with a newline, so text without one is
// refused, never taken as the shorter number): each is left out, counted and
// reported with its file; the interface's other counters stay.
TEST_F(NetdevTreeTest, BadCounterFileIsLeftOutCountedAndReported) {
  struct {
    const char* text;
    const char* says;
  } cases[] = {{"12x\n", "is not a u64"}, {"8056", "ends mid-line"}};
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.text);
    dir_.Write("sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0/statistics/rx_bytes", bad.text);
    HostFs fs(Roots());
    NetdevCollector c{NetdevOptions{}};
    Sample s;
    ASSERT_OK(c.Collect(fs, &s));
    const NetDev* eth0 = Find(s, "eth0");
    ASSERT_NE(eth0, nullptr);
    EXPECT_EQ(eth0->Stat("rx_bytes"), std::nullopt);
    EXPECT_EQ(eth0->Stat("rx_packets"), 1362u);
    EXPECT_EQ(c.counter_errors(), 1u);
    EXPECT_TRUE(c.last_counter_error().IsCorruption());
    ASSERT_EQ(c.read_issues()->size(), 1u);
    EXPECT_NE(c.read_issues()->front().file.find("eth0/statistics/rx_bytes"), std::string::npos);
    EXPECT_NE(c.read_issues()->front().reason.find(bad.says), std::string::npos) << c.read_issues()->front().reason;
  }
}

// A garbled operstate is reported, not silently dropped.
TEST_F(NetdevTreeTest, UnreadableOperstateIsReported) {
  const std::string dev = "sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0";
  ::unlink((dir_.path() + "/" + dev + "/operstate").c_str());
  ASSERT_EQ(::mkfifo((dir_.path() + "/" + dev + "/operstate").c_str(), 0600), 0);
  HostFs fs(Roots());
  NetdevCollector c{NetdevOptions{}};
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));  // and returns: a FIFO is never waited on
  const NetDev* eth0 = Find(s, "eth0");
  ASSERT_NE(eth0, nullptr);
  EXPECT_EQ(eth0->operstate, "");
  ASSERT_EQ(c.read_issues()->size(), 1u);
  EXPECT_NE(c.read_issues()->front().reason.find("a FIFO"), std::string::npos) << c.read_issues()->front().reason;
}

TEST_F(NetdevTreeTest, AllCountersUnreadableFails) {
  for (const char* k : {"rx_packets", "tx_packets", "rx_bytes", "rx_missed_errors"}) {
    dir_.Write(std::string("sys/devices/virtual/net/lo/statistics/") + k, "-\n");
  }
  NetdevOptions o;
  o.hide_idle_virtual = false;  // else lo would be judged by its packet files
  NetdevCollector c(o);
  HostFs fs(Roots());
  Sample s;
  Status st = c.Collect(fs, &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("netdev lo"), std::string::npos) << st.message();
  EXPECT_FALSE(s.netdev.has_value());
}

// Serves the tree but makes some reads and opens fail, and counts link reads.
TEST_F(NetdevTreeTest, InterfaceVanishingMidReadIsLeftOut) {
  testing::FakeFs fs(Roots());
  NetdevCollector c{NetdevOptions{}};
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_NE(Find(s, "em0"), nullptr);
  // em0's statistics vanish after the listing was cached: skipped, not a failure.
  fs.Fail("class/net/em0/", Status::NotFound("class/net/em0/: gone"));
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_EQ(Names(s), (std::vector<std::string>{"eth0", "lo", "veth1"}));
  // Its statistics directory removed for real: skipped as well.
  fs.ClearFaults();
  fs::remove_all(dir_.path() + "/sys/devices/pci0000:00/0000:00:1e.0/0000:02:01.0/net/em0/statistics");
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_EQ(Names(s), (std::vector<std::string>{"eth0", "lo", "veth1"}));
}

TEST_F(NetdevTreeTest, StaticFactsCachedUntilIfindexChanges) {
  testing::FakeFs fs(Roots());
  NetdevCollector c{NetdevOptions{}};
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_GT(fs.calls.read_link_sys, 0);
  fs.calls = {};
  Sample s2;
  ASSERT_OK(c.Collect(fs, &s2));
  EXPECT_EQ(fs.calls.read_link_sys, 0);

  // em0 re-created with another driver: new ifindex, facts re-read.
  const std::string fn = dir_.path() + "/sys/devices/pci0000:00/0000:00:1e.0/0000:02:01.0/";
  fs::remove(fn + "driver");
  fs::create_directories(dir_.path() + "/sys/bus/pci/drivers/e1000e");
  fs::create_symlink("../../../../bus/pci/drivers/e1000e", fn + "driver");
  Sample s3;
  ASSERT_OK(c.Collect(fs, &s3));
  EXPECT_EQ(Find(s3, "em0")->driver, "e1000");  // same ifindex: cached
  dir_.Write("sys/devices/pci0000:00/0000:00:1e.0/0000:02:01.0/net/em0/ifindex", "12\n");
  Sample s4;
  ASSERT_OK(c.Collect(fs, &s4));
  EXPECT_EQ(Find(s4, "em0")->driver, "e1000e");
  EXPECT_EQ(Find(s4, "em0")->ifindex, 12);
}

TEST_F(NetdevTreeTest, ReusedSampleIsOverwritten) {
  HostFs fs(Roots());
  NetdevOptions all;
  all.hide_idle_virtual = false;
  NetdevCollector wide(all);
  Sample s;
  ASSERT_OK(wide.Collect(fs, &s));
  ASSERT_EQ(s.netdev->size(), 5u);
  NetdevOptions one;
  one.include = {"^lo$"};
  NetdevCollector narrow(one);
  ASSERT_OK(narrow.Collect(fs, &s));
  ASSERT_EQ(s.netdev->size(), 1u);
  const NetDev& lo = (*s.netdev)[0];
  EXPECT_EQ(lo.name, "lo");
  EXPECT_TRUE(lo.is_virtual);
  EXPECT_EQ(lo.pci_device, "");
  EXPECT_TRUE(lo.ethtool.empty());
  EXPECT_EQ(lo.stats.size(), 4u);
}

// ---- Statistics descriptors kept open across ticks ----

// Counts statistics/* opens and by-path reads; can hand out a descriptor on
// which pread fails (opened write-only: EBADF) for paths containing
// `bad_open`.
NetdevOptions AllNoEthtool() {
  NetdevOptions o;
  o.hide_idle_virtual = false;
  o.ethtool = false;
  return o;
}

constexpr const char* kEth0Stats = "sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0/";

TEST_F(NetdevTreeTest, SecondCollectOnlyPreads) {
  testing::FakeFs fs(Roots());
  fs.counted = "/statistics/";
  NetdevCollector c(AllNoEthtool());
  ASSERT_GE(c.max_cached_fds(), 20u);  // this test process: RLIMIT_NOFILE >= 80
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  // em0, eth0, lo, veth0, veth1: 4 statistics files each, opened once, and
  // operstate (ifindex, read before them, is opened on the next tick).
  EXPECT_EQ(fs.calls.open_sys, 20);
  EXPECT_EQ(fs.calls.read_sys, 0);
  EXPECT_EQ(c.cached_fds(), 25u);
  fs.calls = {};
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_EQ(fs.calls.open_sys, 0);
  EXPECT_EQ(fs.calls.read_sys, 0);
  EXPECT_EQ(Find(s, "eth0")->Stat("rx_packets"), 1362u);
  EXPECT_EQ(Find(s, "em0")->Stat("tx_packets"), 80431120u);
  EXPECT_EQ(Find(s, "veth1")->Stat("tx_packets"), 5u);
  EXPECT_EQ(c.counter_errors(), 0u);
  EXPECT_EQ(c.cached_fds(), 30u);

  // The default options hide idle veth0 by its packet counters: also by pread.
  testing::FakeFs fs2(Roots());
  fs2.counted = "/statistics/";
  NetdevCollector d{NetdevOptions{}};
  ASSERT_OK(d.Collect(fs2, &s));
  fs2.calls = {};
  ASSERT_OK(d.Collect(fs2, &s));
  EXPECT_EQ(Names(s), (std::vector<std::string>{"em0", "eth0", "lo", "veth1"}));
  EXPECT_EQ(fs2.calls.open_sys, 0);
  EXPECT_EQ(fs2.calls.read_sys, 0);
}

// One Collect, counting fs's calls on the paths it counts: {reads by
// path, opens}.
std::pair<int, int> CountedCollect(NetdevCollector* c, testing::FakeFs* fs, Sample* s) {
  fs->calls = {};
  EXPECT_OK(c->Collect(*fs, s));
  return {fs->calls.read_sys, fs->calls.open_sys};
}

// ifindex and operstate are read every tick too: by path once, then through
// descriptors kept open like the statistics. Five interfaces, and two
// entries with no statistics (ghost, bonding_masters) read by path each tick.
TEST_F(NetdevTreeTest, IfindexAndOperstateAreKeptOpen) {
  testing::FakeFs fs(Roots());
  NetdevCollector c(AllNoEthtool());
  Sample s;
  fs.counted = "/ifindex";
  EXPECT_EQ(CountedCollect(&c, &fs, &s), std::make_pair(7, 0));  // before the statistics are open: by path
  EXPECT_EQ(CountedCollect(&c, &fs, &s), std::make_pair(7, 5));  // read by path, then opened
  // operstate rewritten in place: read through the open descriptor.
  dir_.Write(std::string(kEth0Stats) + "operstate", "down\n");
  fs.counted = "/operstate";
  EXPECT_EQ(CountedCollect(&c, &fs, &s), std::make_pair(0, 0));
  fs.counted = "/ifindex";
  EXPECT_EQ(CountedCollect(&c, &fs, &s), std::make_pair(2, 0));  // ghost, bonding_masters
  EXPECT_EQ(Find(s, "eth0")->operstate, "down");
  EXPECT_EQ(Find(s, "eth0")->ifindex, 4);
}

TEST_F(NetdevTreeTest, RewrittenFileIsReadThroughOpenDescriptor) {
  testing::FakeFs fs(Roots());
  fs.counted = "/statistics/";
  NetdevCollector c(AllNoEthtool());
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  // Truncate and rewrite in place (same inode), longer and then shorter.
  dir_.Write(std::string(kEth0Stats) + "statistics/rx_packets", "18446744073709551615\n");
  fs.calls = {};
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_EQ(Find(s, "eth0")->Stat("rx_packets"), UINT64_MAX);
  dir_.Write(std::string(kEth0Stats) + "statistics/rx_packets", "7\n");
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_EQ(Find(s, "eth0")->Stat("rx_packets"), 7u);
  EXPECT_EQ(fs.calls.open_sys, 0);
  EXPECT_EQ(fs.calls.read_sys, 0);
}

TEST_F(NetdevTreeTest, ReplacedFileIsReadAgainByPathAndReopened) {
  testing::FakeFs fs(Roots());
  fs.counted = "/statistics/";
  NetdevCollector c(AllNoEthtool());
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  // Deleted and created anew (a new inode), ifindex unchanged: the old
  // descriptor would still read 1362.
  const std::string f = dir_.path() + "/" + kEth0Stats + "statistics/tx_packets";
  ASSERT_TRUE(fs::remove(f));
  dir_.Write(std::string(kEth0Stats) + "statistics/tx_packets", "919\n");
  fs.calls = {};
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_EQ(Find(s, "eth0")->Stat("tx_packets"), 919u);
  EXPECT_EQ(Find(s, "eth0")->Stat("rx_packets"), 1362u);
  EXPECT_EQ(fs.calls.open_sys, 0);  // eth0's descriptors closed, its 4 files read by path
  EXPECT_EQ(fs.calls.read_sys, 1);  // tx_packets, the last in name order
  // 5 x 4 statistics + 5 operstate + 5 ifindex (opened this tick), less
  // eth0's statistics and operstate.
  EXPECT_EQ(c.cached_fds(), 25u);
  fs.calls = {};
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_EQ(fs.calls.open_sys, 4);  // eth0 re-opened
  EXPECT_EQ(fs.calls.read_sys, 0);
  EXPECT_EQ(Find(s, "eth0")->Stat("tx_packets"), 919u);
  EXPECT_EQ(c.cached_fds(), 30u);
  EXPECT_EQ(c.counter_errors(), 0u);
}

TEST_F(NetdevTreeTest, FailedPreadFallsBackAndReopens) {
  testing::FakeFs fs(Roots());
  fs.counted = "/statistics/";
  fs.unreadable_open = "/eth0/statistics/rx_bytes";  // pread of a write-only descriptor: EBADF
  NetdevCollector c(AllNoEthtool());
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  // rx_bytes failed by pread, then was read by path, as were the 3 after it.
  EXPECT_EQ(Find(s, "eth0")->Stat("rx_bytes"), 1000u);
  EXPECT_EQ(Find(s, "eth0")->Stat("tx_packets"), 918u);
  EXPECT_EQ(fs.calls.read_sys, 4);
  EXPECT_EQ(c.cached_fds(), 20u);  // the other four's statistics and operstate
  EXPECT_EQ(c.counter_errors(), 0u);
  fs.unreadable_open.clear();
  fs.calls = {};
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_EQ(fs.calls.open_sys, 4);
  EXPECT_EQ(fs.calls.read_sys, 0);
  EXPECT_EQ(Find(s, "eth0")->Stat("rx_bytes"), 1000u);
}

TEST_F(NetdevTreeTest, RecreatedInterfaceIsReopened) {
  testing::FakeFs fs(Roots());
  fs.counted = "/statistics/";
  NetdevCollector c(AllNoEthtool());
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  // veth1 deleted and created again: a new directory, new files, ifindex 16.
  const std::string veth1 = dir_.path() + "/sys/devices/virtual/net/veth1";
  fs::remove_all(veth1);
  dir_.Write("sys/devices/virtual/net/veth1/ifindex", "16\n");
  dir_.Write("sys/devices/virtual/net/veth1/operstate", "up\n");
  for (const auto& [k, v] : Traffic("3", "4")) {
    dir_.Write("sys/devices/virtual/net/veth1/statistics/" + k, v + "\n");
  }
  fs.calls = {};
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_EQ(fs.calls.open_sys, 4);
  EXPECT_EQ(fs.calls.read_sys, 0);
  const NetDev* v = Find(s, "veth1");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->ifindex, 16);
  EXPECT_EQ(v->Stat("rx_packets"), 3u);
  EXPECT_EQ(v->Stat("tx_packets"), 4u);
  EXPECT_EQ(c.cached_fds(), 30u);  // 4 statistics, ifindex and operstate each

  // Gone for good: left out, its descriptors released.
  fs::remove(dir_.path() + "/sys/class/net/veth1");
  fs::remove_all(veth1);
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_EQ(Names(s), (std::vector<std::string>{"em0", "eth0", "lo", "veth0"}));
  EXPECT_EQ(c.cached_fds(), 24u);
}

// Lowers the soft RLIMIT_NOFILE for one scope; the cap is a quarter of it.
class SoftFdLimit {
 public:
  explicit SoftFdLimit(rlim_t soft) {
    EXPECT_EQ(::getrlimit(RLIMIT_NOFILE, &saved_), 0);
    struct rlimit r = saved_;
    r.rlim_cur = soft;
    EXPECT_EQ(::setrlimit(RLIMIT_NOFILE, &r), 0);
  }
  ~SoftFdLimit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }

 private:
  struct rlimit saved_ {};
};

TEST_F(NetdevTreeTest, BeyondTheCapInterfacesAreReadByPath) {
  std::unique_ptr<NetdevCollector> c;
  {
    SoftFdLimit limit(48);  // cap 12: room for two interfaces of 4 statistics, ifindex and operstate
    c = std::make_unique<NetdevCollector>(AllNoEthtool());
  }
  EXPECT_EQ(c->max_cached_fds(), 12u);
  testing::FakeFs fs(Roots());
  fs.counted = "/statistics/";
  Sample s;
  ASSERT_OK(c->Collect(fs, &s));
  EXPECT_EQ(c->cached_fds(), 10u);  // em0, eth0 (name order); their ifindex opens next tick
  fs.calls = {};
  ASSERT_OK(c->Collect(fs, &s));
  EXPECT_EQ(fs.calls.open_sys, 0);
  EXPECT_EQ(fs.calls.read_sys, 12);  // lo, veth0, veth1
  EXPECT_EQ(c->cached_fds(), 12u);
  EXPECT_EQ(Find(s, "veth1")->Stat("tx_packets"), 5u);
  EXPECT_EQ(Find(s, "em0")->Stat("rx_packets"), 81985347u);
}

// ---- Fixture trees ----

TEST(NetdevFixtureTest, Vm) {
  HostFs fs(testing::FixtureRoots("vm"));
  NetdevCollector c{NetdevOptions{}};
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  // ifb0/ifb1 are virtual with 0 packets each way: hidden; lo moved 31 each way.
  ASSERT_EQ(s.netdev->size(), 2u);
  const NetDev& eth0 = (*s.netdev)[0];
  EXPECT_EQ(eth0.name, "eth0");
  EXPECT_EQ(eth0.ifindex, 4);
  EXPECT_EQ(eth0.operstate, "up");
  EXPECT_FALSE(eth0.is_virtual);
  EXPECT_EQ(eth0.pci_device, "0000:00:03.0");
  EXPECT_EQ(eth0.driver, "virtio_net");
  EXPECT_EQ(eth0.stats.size(), 24u);
  EXPECT_EQ(eth0.Stat("rx_packets"), 1362u);
  EXPECT_EQ(eth0.Stat("tx_packets"), 918u);
  EXPECT_EQ(eth0.Stat("rx_bytes"), 45949185u);
  EXPECT_EQ(eth0.Stat("rx_dropped"), 0u);
  EXPECT_EQ(eth0.Ethtool("rx_kicks"), 217u);
  EXPECT_EQ(eth0.Ethtool("tx_kicks"), 866u);
  const NetDev& lo = (*s.netdev)[1];
  EXPECT_EQ(lo.name, "lo");
  EXPECT_TRUE(lo.is_virtual);
  EXPECT_EQ(lo.operstate, "unknown");
  EXPECT_EQ(lo.Stat("rx_packets"), 31u);
  EXPECT_TRUE(lo.ethtool.empty());
  EXPECT_EQ(c.counter_errors(), 0u);

  NetdevOptions all;
  all.hide_idle_virtual = false;
  NetdevCollector c2(all);
  ASSERT_OK(c2.Collect(fs, &s));
  ASSERT_EQ(s.netdev->size(), 4u);
  const NetDev& ifb0 = (*s.netdev)[1];
  EXPECT_EQ(ifb0.name, "ifb0");
  EXPECT_EQ(ifb0.operstate, "down");
  EXPECT_EQ(ifb0.Ethtool("rx_queue_0_packets"), 0u);
  EXPECT_EQ(ifb0.ethtool.size(), 4u);
}

// The seed's box: em0 carried 1200 s of UDP echo at 550 Mbit/s (README.md).
TEST(NetdevFixtureTest, SeedBox) {
  HostFs fs(testing::FixtureRoots("seed-box"));
  NetdevCollector c{NetdevOptions{}};
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  ASSERT_EQ(s.netdev->size(), 5u);
  const std::vector<std::string> names = {"em0", "em1", "em2", "fxp0", "lo"};
  const std::vector<std::string> pci = {"0000:02:01.0", "0000:02:01.1", "0000:03:01.0", "0000:03:02.0", ""};
  const std::vector<std::string> driver = {"e1000", "e1000", "e1000", "e100", ""};
  const std::vector<size_t> ethtool_count = {46, 46, 46, 31, 0};
  for (size_t i = 0; i < names.size(); ++i) {
    const NetDev& d = (*s.netdev)[i];
    SCOPED_TRACE(names[i]);
    EXPECT_EQ(d.name, names[i]);
    EXPECT_EQ(d.ifindex, i == 4 ? 1 : static_cast<int64_t>(i) + 2);
    EXPECT_EQ(d.operstate, i == 4 ? "unknown" : "up");
    EXPECT_EQ(d.is_virtual, i == 4);
    EXPECT_EQ(d.pci_device, pci[i]);
    EXPECT_EQ(d.driver, driver[i]);
    EXPECT_EQ(d.stats.size(), 24u);
    EXPECT_EQ(d.ethtool.size(), ethtool_count[i]);
  }
  const NetDev& em0 = (*s.netdev)[0];
  EXPECT_EQ(em0.Stat("rx_packets"), 80568280u);
  EXPECT_EQ(em0.Stat("tx_packets"), 80421125u);
  EXPECT_EQ(em0.Stat("rx_bytes"), 85883901236u);
  EXPECT_EQ(em0.Stat("tx_bytes"), 85727709032u);
  EXPECT_EQ(em0.Stat("rx_missed_errors"), 0u);
  // The NIC rung of the drop ladder lost nothing; the 82546 counts FCS bytes.
  EXPECT_EQ(em0.Ethtool("rx_no_buffer_count"), 0u);
  EXPECT_EQ(em0.Ethtool("rx_missed_errors"), 0u);
  EXPECT_EQ(em0.Ethtool("rx_bytes"), 86206174356u);
  EXPECT_EQ(em0.Ethtool("rx_broadcast"), 1511u);
  EXPECT_EQ(em0.Ethtool("tx_restart_queue"), 1287u);
  const NetDev& fxp0 = (*s.netdev)[3];
  EXPECT_EQ(fxp0.Ethtool("tx_packets"), 11353u);
  EXPECT_EQ(fxp0.Ethtool("rx_short_frame_errors"), 0u);
  const NetDev& lo = (*s.netdev)[4];
  EXPECT_EQ(lo.Stat("rx_packets"), 214u);
  EXPECT_EQ(lo.Stat("tx_packets"), 214u);
  EXPECT_EQ(c.counter_errors(), 0u);

  NetdevOptions only_pcix;  // the two 82546 ports on the PCI-X 133/64 segment
  only_pcix.include = {"^em[01]$"};
  NetdevCollector c2(only_pcix);
  ASSERT_OK(c2.Collect(fs, &s));
  ASSERT_EQ(s.netdev->size(), 2u);
  EXPECT_EQ((*s.netdev)[1].name, "em1");
  EXPECT_EQ((*s.netdev)[1].Stat("rx_packets"), 412u);
}

}  // namespace
}  // namespace bottleneckd::netdev_test
