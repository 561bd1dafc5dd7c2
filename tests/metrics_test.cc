// The exporter's metric families: naming conventions, the documented list,
// and values read through the real collectors from a fixture tree.
#include "exporters/prometheus/metrics.h"

#include <gtest/gtest.h>

#include <set>

#include "daemon/daemon.h"
#include "tests/metric_families.h"
#include "tests/test_util.h"

namespace bottleneckd {
namespace {

std::shared_ptr<const Snapshot> TwoTicks(const std::string& scenario, bool matrix = false) {
  static SnapshotStore store;
  Config c;
  c.roots = testing::FixtureRoots(scenario);
  c.collectors.interrupts.per_cpu_matrix = matrix;
  c.collectors.threads.targets.push_back(ThreadTarget{"udpecho", std::nullopt});
  Daemon d(c, &store);
  d.Tick();
  d.Tick();
  return store.Latest();
}

using testing::Find;
using testing::Label;

TEST(Metrics, NamesAreValidAndFollowConventions) {
  std::string bad;
  EXPECT_TRUE(ValidateMetricNames(&bad)) << bad;
  auto snap = TwoTicks("large-host", /*matrix=*/true);
  auto fams = BuildMetricFamilies(snap.get(), GetBuildInfo());
  std::set<std::string> known(ExportedMetricNames().begin(), ExportedMetricNames().end());
  for (const auto& f : fams) {
    EXPECT_TRUE(known.count(f.name)) << f.name << " is emitted but not in ExportedMetricNames()";
    EXPECT_EQ(f.name.rfind("bottleneckd_", 0), 0u) << f.name;
    bool total = f.name.size() > 6 && f.name.substr(f.name.size() - 6) == "_total";
    EXPECT_EQ(total, f.type == prometheus::MetricType::Counter)
        << f.name << ": counters and only counters end in _total";
    EXPECT_FALSE(f.help.empty()) << f.name;
    if (f.name.find("_ratio") != std::string::npos)
      for (const auto& m : f.metric) {
        EXPECT_GE(m.gauge.value, 0) << f.name;
        EXPECT_LE(m.gauge.value, 1.0000001) << f.name;
      }
  }
}

TEST(Metrics, EveryExportedNameIsDocumented) {
  std::string doc = testing::ReadFileOrDie(std::string(BOTTLENECKD_SOURCE_DIR) + "/docs/metrics.md");
  for (const std::string& n : ExportedMetricNames()) EXPECT_NE(doc.find("`" + n), std::string::npos) << n;
}

TEST(Metrics, NoSnapshotGivesOnlyBuildInfo) {
  auto fams = BuildMetricFamilies(nullptr, BuildInfo{"1.2.3", "abc"});
  ASSERT_EQ(fams.size(), 1u);
  EXPECT_EQ(fams[0].name, "bottleneckd_build_info");
  EXPECT_EQ(Label(fams[0].metric[0], "version"), "1.2.3");
}

TEST(Metrics, PerCpuIrqMatrixOnlyWhenAsked) {
  auto off = BuildMetricFamilies(TwoTicks("seed-box").get(), GetBuildInfo());
  EXPECT_EQ(Find(off, "bottleneckd_interrupts_cpu_total"), nullptr);
  auto on = BuildMetricFamilies(TwoTicks("seed-box", true).get(), GetBuildInfo());
  const auto* m = Find(on, "bottleneckd_interrupts_cpu_total");
  ASSERT_NE(m, nullptr);
  // seed-box: one CPU, every line of /proc/interrupts (numeric and named) once.
  std::string text = testing::ReadFileOrDie(testing::FixtureDir("seed-box") + "/proc/interrupts");
  size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) - 1;  // minus header
  EXPECT_EQ(m->metric.size(), lines);
}

TEST(Metrics, SeedBoxValuesComeFromTheFixtureFiles) {
  auto fams = BuildMetricFamilies(TwoTicks("seed-box").get(), GetBuildInfo());
  std::string dir = testing::FixtureDir("seed-box");
  // em0's packet counter equals the sysfs file.
  const auto* rx = Find(fams, "bottleneckd_network_receive_packets_total");
  ASSERT_NE(rx, nullptr);
  uint64_t want = std::stoull(testing::ReadFileOrDie(dir + "/sys/class/net/em0/statistics/rx_packets"));
  bool seen = false;
  for (const auto& m : rx->metric)
    if (Label(m, "interface") == "em0") {
      EXPECT_DOUBLE_EQ(m.counter.value, static_cast<double>(want));
      seen = true;
    }
  EXPECT_TRUE(seen);
  // The drop ladder has all three rungs; the seed box loses at the socket.
  const auto* drops = Find(fams, "bottleneckd_network_drops_total");
  ASSERT_NE(drops, nullptr);
  std::set<std::string> rungs;
  for (const auto& m : drops->metric) rungs.insert(Label(m, "rung"));
  EXPECT_EQ(rungs, (std::set<std::string>{"nic", "backlog", "socket"}));
  // A window of two identical readings: the target thread used 0 % of a CPU.
  const auto* ratio = Find(fams, "bottleneckd_thread_cpu_ratio");
  ASSERT_NE(ratio, nullptr);
  ASSERT_EQ(ratio->metric.size(), 1u);
  EXPECT_EQ(Label(ratio->metric[0], "process"), "udpecho");
  EXPECT_EQ(ratio->metric[0].gauge.value, 0);
  // Every collector succeeded on the fixture.
  const auto* ok = Find(fams, "bottleneckd_collector_success");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->metric.size(), 7u);  // cpu, interrupts, softirqs, netdev, pci, sockets, threads
  for (const auto& m : ok->metric) EXPECT_EQ(m.gauge.value, 1) << Label(m, "collector");
}

}  // namespace
}  // namespace bottleneckd
