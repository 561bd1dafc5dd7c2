// Bus utilisation end to end, through the /metrics text: two samples of the
// seed-box tree one second apart whose counter deltas are the seed mails'
// loads, read by the real collectors, windowed, modelled and exported.
// - em2 (82540, PCI 33 MHz / 32-bit, shared with fxp0) under a 300 Mbit/s UDP
//   echo of 1024-byte payloads: above 70 % of its segment.
// - em0 (82546GB, PCI-X 133 MHz / 64-bit, shared with em1) at 550 Mbit/s: below 25 %.
// The loads are the scenario's inputs (docs/bus-model.md works the expected
// figures out by hand: about 0.78 and 0.17).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "analysis/snapshot.h"
#include "bus/bus_model.h"
#include "daemon/sampler.h"
#include "exporters/prometheus/metrics.h"
#include "exporters/prometheus/text_format.h"
#include "sources/sample.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"
#include "window/window.h"

namespace bottleneckd::bus_utilisation_test {
namespace {

namespace fs = std::filesystem;
using testing::FixtureRoots;
using testing::TempDir;

// 1024-byte UDP payloads: 1066-byte frames as Linux counts them (1024 + 8 UDP
// + 20 IP + 14 Ethernet), and datagrams per second for a rate in bit/s.
constexpr uint64_t kFrameBytes = 1066;
uint64_t Datagrams(double bits_per_second) { return static_cast<uint64_t>(bits_per_second / (8 * 1024) + 0.5); }

uint64_t ReadU64(const std::string& path) {
  std::ifstream in(path);
  uint64_t v = 0;
  in >> v;
  EXPECT_TRUE(in) << path;
  return v;
}

void Add(const std::string& path, uint64_t delta) {
  uint64_t v = ReadU64(path) + delta;
  std::ofstream(path, std::ios::trunc) << v << "\n";
}

// Adds `delta` to IRQ `irq`'s count on CPU0 in a one-CPU /proc/interrupts.
void AddInterrupts(const std::string& path, const std::string& irq, uint64_t delta) {
  std::ifstream in(path);
  std::stringstream out;
  std::string line;
  bool found = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, std::regex("( *" + irq + ": +)([0-9]+)(.*)"))) {
      line = m[1].str() + std::to_string(std::stoull(m[2].str()) + delta) + m[3].str();
      found = true;
    }
    out << line << "\n";
  }
  ASSERT_TRUE(found) << irq;
  std::ofstream(path, std::ios::trunc) << out.str();
}

// The echo load on one interface for one second: `rate` in each direction.
void Echo(const std::string& sys, const std::string& ifname, double rate) {
  std::string st = sys + "/class/net/" + ifname + "/statistics/";
  uint64_t n = Datagrams(rate);
  Add(st + "rx_packets", n);
  Add(st + "tx_packets", n);
  Add(st + "rx_bytes", n * kFrameBytes);
  Add(st + "tx_bytes", n * kFrameBytes);
}

double Value(const std::string& text, const std::string& series) {
  size_t at = text.find("\n" + series + " ");
  EXPECT_NE(at, std::string::npos) << series << "\nin:\n" << text;
  if (at == std::string::npos) return -1;
  return std::strtod(text.c_str() + at + series.size() + 2, nullptr);
}

class BusUtilisationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HostRoots a = FixtureRoots("seed-box");
    HostRoots b = a;
    b.procfs = dir_.path() + "/proc";
    b.sysfs = dir_.path() + "/sys";
    fs::copy(a.procfs, b.procfs, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    fs::copy(a.sysfs, b.sysfs, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    Echo(b.sysfs, "em0", 550e6);
    Echo(b.sysfs, "em2", 300e6);
    AddInterrupts(b.procfs + "/interrupts", "24", 7952);  // em0, as in the seed-box run
    AddInterrupts(b.procfs + "/interrupts", "18", 8000);  // em2

    Sample first, second;
    HostFs fa(a), fb(b);
    Sampler(&fa, CollectorsConfig()).Take(&first);
    Sampler(&fb, CollectorsConfig()).Take(&second);
    first.mono_ns = 1'000'000'000;
    second.mono_ns = 2'000'000'000;  // exactly one second later
    ASSERT_NE(second.pci, nullptr);
    Snapshot snap;
    snap.bus_paths = std::make_shared<std::vector<BusPath>>(BuildBusPaths(*second.pci));
    Window w;
    ASSERT_TRUE(ComputeWindow(first, second, &w));
    snap.bus = EstimateBus(*snap.bus_paths, w.nics, *second.pci, DefaultBusModelOptions());
    snap.sample = std::move(second);
    snap.window = std::move(w);
    AppendTextFormat(BuildMetricFamilies(&snap, GetBuildInfo()), &text_);
  }

  TempDir dir_;
  std::string text_;
};

TEST_F(BusUtilisationTest, Em2PciBusAbove70PercentUnder300MbitEcho) {
  double em2 = Value(text_, R"(bottleneckd_bus_utilisation_ratio{interface="em2",device="0000:00:1e.0"})");
  EXPECT_GT(em2, 0.70);
  EXPECT_LT(em2, 1.0);  // 300 Mbit/s was carried in the mails' runs: not saturated yet
  // fxp0 shares the segment: the same link, the same utilisation.
  EXPECT_DOUBLE_EQ(Value(text_, R"(bottleneckd_bus_utilisation_ratio{interface="fxp0",device="0000:00:1e.0"})"), em2);
  EXPECT_DOUBLE_EQ(Value(text_, R"(bottleneckd_bus_path_utilisation_ratio{interface="em2",device="0000:00:1e.0"})"),
                   em2);
  EXPECT_NEAR(Value(text_, R"(bottleneckd_bus_capacity_bytes_per_second{interface="em2",device="0000:00:1e.0"})"),
              133.3e6, 0.1e6);
}

TEST_F(BusUtilisationTest, Em0PciXBusBelow25PercentAt550Mbit) {
  double em0 = Value(text_, R"(bottleneckd_bus_utilisation_ratio{interface="em0",device="0000:01:1d.0"})");
  EXPECT_LT(em0, 0.25);
  // Payload alone is 2 x 67139 x 1066 B = 143 MB/s of 1066.7 MB/s: at least 13 %.
  EXPECT_GT(em0, 0.134);
  EXPECT_DOUBLE_EQ(Value(text_, R"(bottleneckd_bus_utilisation_ratio{interface="em1",device="0000:01:1d.0"})"), em0);
  EXPECT_NEAR(Value(text_, R"(bottleneckd_bus_capacity_bytes_per_second{interface="em0",device="0000:01:1d.0"})"),
              1066.7e6, 0.1e6);
}

TEST_F(BusUtilisationTest, EachNicsOwnTrafficAndModelAreExported) {
  // em1 is idle: its own share of the segment is zero.
  EXPECT_EQ(
      Value(text_,
            R"(bottleneckd_bus_traffic_bytes_per_second{interface="em1",device="0000:01:1d.0",direction="shared"})"),
      0);
  double em2_traffic = Value(
      text_, R"(bottleneckd_bus_traffic_bytes_per_second{interface="em2",device="0000:00:1e.0",direction="shared"})");
  EXPECT_GT(em2_traffic, 2 * 36621.0 * kFrameBytes);  // more than the payload alone
  EXPECT_NE(text_.find(R"(bottleneckd_bus_model_info{interface="em2",method="pci-clocks",profile="e1000",)"),
            std::string::npos);
  EXPECT_NE(
      text_.find(
          R"(bottleneckd_pci_link_info{interface="em0",device="0000:01:1d.0",bus="pcix",speed="133MHz",width="64bit",)"),
      std::string::npos);
  std::string out;
  EXPECT_EQ(testing::RunPromtoolCheckMetrics(text_, &out), 0) << out;
}

}  // namespace
}  // namespace bottleneckd::bus_utilisation_test
