// The limits section (the self-limit watchdog's budgets): defaults, the
// shipped config, every key, and errors with file:line:column.
#include <gtest/gtest.h>

#include "daemon/config.h"
#include "tests/support/test_util.h"

namespace bottleneckd::config_limits_test {
namespace {

TEST(ConfigLimits, DefaultsAndShippedConfigAgree) {
  Config d, shipped;
  ASSERT_OK(ParseConfig("", "", &d));
  EXPECT_DOUBLE_EQ(d.limits.cpu_percent, 10);
  EXPECT_DOUBLE_EQ(d.limits.cpu_window_seconds, 60);
  EXPECT_EQ(d.limits.memory_bytes, 512u * 1024 * 1024);
  std::string text = testing::ReadFileOrDie(std::string(BOTTLENECKD_SOURCE_DIR) + "/etc/bottleneckd.yaml");
  Status s = ParseConfig(text, "etc/bottleneckd.yaml", &shipped);
  ASSERT_OK(s);
  EXPECT_DOUBLE_EQ(shipped.limits.cpu_percent, d.limits.cpu_percent);
  EXPECT_DOUBLE_EQ(shipped.limits.cpu_window_seconds, d.limits.cpu_window_seconds);
  EXPECT_EQ(shipped.limits.memory_bytes, d.limits.memory_bytes);
}

TEST(ConfigLimits, EveryKeyAndSizeUnits) {
  Config c;
  Status s = ParseConfig("limits:\n  cpu_percent: 0.0001\n  cpu_window: 2s\n  memory_bytes: 64MiB\n", "x.yaml", &c);
  ASSERT_OK(s);
  EXPECT_DOUBLE_EQ(c.limits.cpu_percent, 0.0001);
  EXPECT_DOUBLE_EQ(c.limits.cpu_window_seconds, 2);
  EXPECT_EQ(c.limits.memory_bytes, 64u << 20);
  for (auto [text, bytes] :
       {std::pair<const char*, uint64_t>{"1048576", 1 << 20}, {"2048KiB", 2 << 20}, {"1GiB", uint64_t{1} << 30}}) {
    ASSERT_TRUE(ParseConfig(std::string("limits:\n  memory_bytes: ") + text + "\n", "x.yaml", &c).ok()) << text;
    EXPECT_EQ(c.limits.memory_bytes, bytes) << text;
  }
  ASSERT_OK(ParseConfig("limits:\n", "x.yaml", &c));
  EXPECT_DOUBLE_EQ(c.limits.cpu_percent, 10) << "an empty section keeps the defaults";
}

TEST(ConfigLimits, ErrorsNameLineAndColumn) {
  struct {
    const char* yaml;
    const char* want;
  } cases[] = {
      {"limits:\n  cpu: 5\n", "x.yaml:2:3: unknown key 'cpu' in limits"},
      {"limits:\n  cpu_percent: 0\n", "x.yaml:2:16: cpu_percent must be a number from 0.0001 to 409600, got '0'"},
      {"limits:\n  cpu_percent: -3\n", "x.yaml:2:16: cpu_percent must be a number"},
      {"limits:\n  cpu_percent: ten\n", "x.yaml:2:16: cpu_percent must be a number"},
      {"limits:\n  cpu_window: 500ms\n", "x.yaml:2:15: limits.cpu_window must be a duration from 1s to 1h"},
      {"limits:\n  cpu_window: [1s]\n", "x.yaml:2:15: limits.cpu_window must be a duration"},
      {"limits:\n  memory_bytes: 512MB\n", "x.yaml:2:17: limits.memory_bytes must be a size from 1MiB to 1024GiB"},
      {"limits:\n  memory_bytes: 1000\n", "x.yaml:2:17: limits.memory_bytes must be a size"},
      {"limits:\n  memory_bytes: -1GiB\n", "x.yaml:2:17: limits.memory_bytes must be a size"},
      {"limits:\n  memory_bytes: 99999999999GiB\n", "x.yaml:2:17: limits.memory_bytes must be a size"},
      {"limits: 3\n", "x.yaml:1:9: limits must be a mapping"},
  };
  for (auto& c : cases) {
    Config cfg;
    Status s = ParseConfig(c.yaml, "x.yaml", &cfg);
    EXPECT_FALSE(s.ok()) << c.yaml;
    EXPECT_NE(s.message().find(c.want), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace bottleneckd::config_limits_test
