// The verdict section of the config: thresholds and their errors.
#include <gtest/gtest.h>
#include <sched.h>

#include <vector>

#include "daemon/config.h"
#include "tests/support/test_util.h"

namespace bottleneckd::config_verdict_test {
namespace {

TEST(VerdictConfig, ShippedFileHoldsTheDefaults) {
  Config shipped;
  std::string text = testing::ReadFileOrDie(std::string(BOTTLENECKD_SOURCE_DIR) + "/etc/bottleneckd.yaml");
  ASSERT_OK(ParseConfig(text, "etc/bottleneckd.yaml", &shipped));
  VerdictThresholds d;
  const VerdictThresholds& v = shipped.verdict;
  EXPECT_DOUBLE_EQ(v.cpu_idle_max, d.cpu_idle_max);
  EXPECT_DOUBLE_EQ(v.thread_busy_min, d.thread_busy_min);
  EXPECT_DOUBLE_EQ(v.interrupt_share_min, d.interrupt_share_min);
  EXPECT_DOUBLE_EQ(v.bus_utilisation_min, d.bus_utilisation_min);
  EXPECT_DOUBLE_EQ(v.bus_cpu_idle_min, d.bus_cpu_idle_min);
  EXPECT_DOUBLE_EQ(v.busy_min_for_none, d.busy_min_for_none);
  EXPECT_DOUBLE_EQ(v.drop_floor_per_second, d.drop_floor_per_second);
  EXPECT_DOUBLE_EQ(v.loss_ratio_min, d.loss_ratio_min);
  EXPECT_EQ(v.packet_path_interfaces, d.packet_path_interfaces);
  EXPECT_EQ(v.cpus, d.cpus);
  EXPECT_TRUE(d.cpus.empty());  // every CPU
  EXPECT_DOUBLE_EQ(v.margin, d.margin);
  EXPECT_EQ(v.hysteresis_windows, d.hysteresis_windows);
  EXPECT_DOUBLE_EQ(v.min_score, d.min_score);
  EXPECT_DOUBLE_EQ(v.switch_confidence, d.switch_confidence);
  // The defaults of docs/verdict-rules.md section 6.
  EXPECT_DOUBLE_EQ(d.cpu_idle_max, 0.05);
  EXPECT_DOUBLE_EQ(d.thread_busy_min, 0.95);
  EXPECT_DOUBLE_EQ(d.interrupt_share_min, 0.50);
  EXPECT_DOUBLE_EQ(d.bus_utilisation_min, 0.70);
  EXPECT_DOUBLE_EQ(d.bus_cpu_idle_min, 0.20);
}

TEST(VerdictConfig, OverridesAndErrors) {
  Config c;
  ASSERT_OK(ParseConfig("verdict:\n  bus_utilisation_min: 0.8\n  hysteresis_windows: 5\n", "t.yaml", &c));
  EXPECT_DOUBLE_EQ(c.verdict.bus_utilisation_min, 0.8);
  EXPECT_EQ(c.verdict.hysteresis_windows, 5);
  EXPECT_DOUBLE_EQ(c.verdict.cpu_idle_max, 0.05);
  ASSERT_OK(ParseConfig("verdict:\n  loss_ratio_min: 0.01\n  packet_path_interfaces: [lo, eth1]\n", "t.yaml", &c));
  EXPECT_DOUBLE_EQ(c.verdict.loss_ratio_min, 0.01);
  EXPECT_EQ(c.verdict.packet_path_interfaces, (std::vector<std::string>{"lo", "eth1"}));
  EXPECT_DOUBLE_EQ(c.verdict.signal_options().loss.ratio, 0.01);
  struct Bad {
    const char* yaml;
    const char* where;
    const char* says;
  } cases[] = {
      {"verdict:\n  cpu_idle: 0.1\n", "t.yaml:2:3", "unknown key 'cpu_idle'"},
      {"verdict:\n  cpu_idle_max: 1.5\n", "t.yaml:2:17", "from 0 to 1"},
      {"verdict:\n  margin: high\n", "t.yaml:2:11", "margin must be a number"},
      {"verdict:\n  hysteresis_windows: 2.5\n", "t.yaml:2:23", "whole number"},
      {"verdict: [1]\n", "t.yaml:1:10", "verdict must be a mapping"},
      {"verdict:\n  loss_ratio_min: 2\n", "t.yaml:2:19", "from 0 to 1"},
      {"verdict:\n  packet_path_interfaces: lo\n", "t.yaml:2:27", "must be a list of names"},
      {"verdict:\n  packet_path_interfaces: [[lo]]\n", "t.yaml:2:28", "non-empty strings"},
      {"verdict:\n  cpus: [0, 1]\n", "t.yaml:2:9", "must be a CPU list (\"0-3,8\"), \"affinity\" or \"\""},
      {"verdict:\n  cpus: 3-1\n", "t.yaml:2:9", "must be a CPU list"},
      {"verdict:\n  cpus: all\n", "t.yaml:2:9", "must be a CPU list"},
  };
  for (const Bad& b : cases) {
    Status s = ParseConfig(b.yaml, "t.yaml", &c);
    ASSERT_FALSE(s.ok()) << b.yaml;
    EXPECT_NE(s.message().find(std::string(b.where) + ":"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(b.says), std::string::npos) << s.message();
  }
}

TEST(VerdictConfig, CpusAreAListOrTheAffinity) {
  Config c;
  ASSERT_OK(ParseConfig("verdict:\n  cpus: \"0-2,8\"\n", "t.yaml", &c));
  EXPECT_EQ(c.verdict.cpus, (std::vector<int>{0, 1, 2, 8}));
  EXPECT_EQ(c.verdict.signal_options().cpus, (std::vector<int>{0, 1, 2, 8}));
  ASSERT_OK(ParseConfig("verdict:\n  cpus: 1\n", "t.yaml", &c));
  EXPECT_EQ(c.verdict.cpus, (std::vector<int>{1}));
  ASSERT_OK(ParseConfig("verdict:\n  cpus: \"\"\n", "t.yaml", &c));
  EXPECT_TRUE(c.verdict.cpus.empty());
  // "affinity": the CPUs this process may run on, as the kernel says.
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<int> allowed;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) allowed.push_back(cpu);
  ASSERT_OK(ParseConfig("verdict:\n  cpus: affinity\n", "t.yaml", &c));
  EXPECT_EQ(c.verdict.cpus, allowed);
}

}  // namespace
}  // namespace bottleneckd::config_verdict_test
