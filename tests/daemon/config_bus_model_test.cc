// The bus_model section of the config: profiles, interface choices, timings,
// and errors with file:line:column.
#include <gtest/gtest.h>

#include "daemon/config.h"
#include "tests/support/test_util.h"

namespace bottleneckd::config_bus_model_test {
namespace {

TEST(BusModelConfig, ShippedFileHoldsTheBuiltInTimings) {
  Config shipped, defaults;
  std::string text = testing::ReadFileOrDie(std::string(BOTTLENECKD_SOURCE_DIR) + "/etc/bottleneckd.yaml");
  ASSERT_OK(ParseConfig(text, "etc/bottleneckd.yaml", &shipped));
  ASSERT_OK(ParseConfig("", "", &defaults));
  const auto& a = shipped.bus_model;
  const auto& b = defaults.bus_model;
  EXPECT_EQ(a.pci.Parameters(), b.pci.Parameters());
  EXPECT_EQ(a.pcix.Parameters(), b.pcix.Parameters());
  EXPECT_DOUBLE_EQ(a.pcie_dll_overhead, b.pcie_dll_overhead);
  EXPECT_EQ(a.assumed_max_payload, b.assumed_max_payload);
  EXPECT_EQ(a.assumed_max_read_request, b.assumed_max_read_request);
  EXPECT_EQ(a.profiles.size(), b.profiles.size());
  EXPECT_TRUE(a.interfaces.empty());
}

TEST(BusModelConfig, ProfilesInterfacesAndTimings) {
  Config c;
  Status s = ParseConfig(R"(bus_model:
  interfaces:
    em2: e1000
    eth7: mynic
  profiles:
    mynic:
      base: ixgbe
      descriptor_fetch_batch: 4
      descriptors_per_packet: 1.5
    e1000:
      rx_doorbell_batch: 32
  pci:
    read_wait_clocks: 16
    max_read_burst: 64
  pcix:
    max_read_burst: 2048
  pcie:
    dll_overhead: 0.1
    assumed_max_payload: 128
)",
                         "t.yaml", &c);
  ASSERT_OK(s);
  const BusModelOptions& o = c.bus_model;
  EXPECT_EQ(o.interfaces.at("em2"), "e1000");
  EXPECT_EQ(o.interfaces.at("eth7"), "mynic");
  const NicProfile& mine = o.profiles.at("mynic");
  EXPECT_EQ(mine.name, "mynic");
  EXPECT_EQ(mine.descriptor_fetch_batch, 4);
  EXPECT_DOUBLE_EQ(mine.descriptors_per_packet, 1.5);
  // Untouched fields come from the base.
  EXPECT_EQ(mine.tx_writeback_bytes, DefaultBusModelOptions().profiles.at("ixgbe").tx_writeback_bytes);
  EXPECT_EQ(o.profiles.at("e1000").rx_doorbell_batch, 32);
  EXPECT_EQ(o.profiles.at("e1000").descriptor_fetch_batch,
            DefaultBusModelOptions().profiles.at("e1000").descriptor_fetch_batch);
  EXPECT_EQ(o.pci.read_wait_clocks, 16);
  EXPECT_EQ(o.pci.max_read_burst, 64);
  EXPECT_EQ(o.pci.max_write_burst, DefaultPciTiming(BusKind::kPci).max_write_burst);
  EXPECT_EQ(o.pcix.max_read_burst, 2048);
  EXPECT_DOUBLE_EQ(o.pcie_dll_overhead, 0.1);
  EXPECT_EQ(o.assumed_max_payload, 128);
  EXPECT_EQ(o.assumed_max_read_request, 512);
}

struct BadCase {
  const char* yaml;
  const char* where;  // "file:line:col"
  const char* says;
};

TEST(BusModelConfig, ErrorsNameLineAndColumn) {
  const BadCase cases[] = {
      {"bus_model:\n  interfaces:\n    em2: e1001\n", "t.yaml:3:10", "unknown profile 'e1001'"},
      {"bus_model:\n  profile: {}\n", "t.yaml:2:3", "unknown key 'profile'"},
      {"bus_model:\n  profiles:\n    x:\n      descriptor_byte: 16\n", "t.yaml:4:7", "unknown key 'descriptor_byte'"},
      {"bus_model:\n  profiles:\n    x:\n      base: nope\n", "t.yaml:4:13", "unknown base profile 'nope'"},
      {"bus_model:\n  profiles:\n    x:\n      descriptor_fetch_batch: 0\n", "t.yaml:4:31", "from 1 to 65536"},
      {"bus_model:\n  profiles:\n    x:\n      descriptor_bytes: 1.5\n", "t.yaml:4:25", "whole number"},
      {"bus_model:\n  pci:\n    read_wait_clocks: lots\n", "t.yaml:3:23", "read_wait_clocks must be"},
      {"bus_model:\n  pcie:\n    dll_overhead: 0.9\n", "t.yaml:3:19", "from 0 to 0.5"},
      {"bus_model:\n  pcie:\n    assumed_max_payload: 300\n", "t.yaml:3:26", "power of two"},
      {"bus_model:\n  pci: [1, 2]\n", "t.yaml:2:8", "must be a mapping"},
      {"bus_model: 3\n", "t.yaml:1:12", "must be a mapping"},
  };
  for (const BadCase& bad : cases) {
    Config c;
    Status s = ParseConfig(bad.yaml, "t.yaml", &c);
    ASSERT_FALSE(s.ok()) << bad.yaml;
    SCOPED_TRACE(bad.yaml);
    EXPECT_NE(s.message().find(std::string(bad.where) + ":"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(bad.says), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace bottleneckd::config_bus_model_test
