// bus/bus_model_config.h: the bus_model section parsed in the bus stage, its
// profile and timing keys being the model's own parameter lists: every
// parameter an estimate reports (NicProfile/PciTiming::Parameters) can be set
// by its name, and no other key is accepted.
#include "bus/bus_model_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/support/test_util.h"

namespace bottleneckd::bus_model_config_test {
namespace {

Status Parse(const std::string& yaml, BusModelOptions* o) {
  YAML::Node root = YAML::Load(yaml);
  ConfigReader r("b.yaml", yaml);
  return ParseBusModel(r, root["bus_model"], o);
}

// A value inside the parameter's range that no default has.
double Unusual(double lo, double hi, bool whole) {
  const double v = whole ? std::max(lo, std::min(hi, 37.0)) : std::max(lo, std::min(hi, 1.75));
  return v;
}

TEST(BusModelConfigStage, EveryProfileParameterIsAKey) {
  std::string yaml = "bus_model:\n  profiles:\n    mine:\n      base: ixgbe\n";
  for (const auto& p : NicProfileParameters())
    yaml += std::string("      ") + p.name + ": " + std::to_string(Unusual(p.lo, p.hi, p.whole != nullptr)) + "\n";
  BusModelOptions o = DefaultBusModelOptions();
  ASSERT_OK(Parse(yaml, &o));
  ASSERT_TRUE(o.profiles.count("mine"));
  const auto reported = o.profiles.at("mine").Parameters();
  ASSERT_EQ(reported.size(), NicProfileParameters().size());
  for (size_t i = 0; i < reported.size(); ++i) {
    const auto& p = NicProfileParameters()[i];
    EXPECT_EQ(reported[i].first, p.name);
    EXPECT_DOUBLE_EQ(reported[i].second, Unusual(p.lo, p.hi, p.whole != nullptr)) << p.name;
  }
}

TEST(BusModelConfigStage, EveryTimingParameterIsAKeyOfPciAndPcix) {
  std::string yaml = "bus_model:\n  pcix:\n";
  for (const auto& p : PciTimingParameters())
    yaml += std::string("    ") + p.name + ": " + std::to_string(static_cast<int>(Unusual(p.lo, p.hi, true))) + "\n";
  BusModelOptions o = DefaultBusModelOptions();
  ASSERT_OK(Parse(yaml, &o));
  for (const auto& [name, value] : o.pcix.Parameters()) EXPECT_EQ(value, 37) << name;
  EXPECT_EQ(o.pci.Parameters(), DefaultBusModelOptions().pci.Parameters()) << "pci untouched";
}

TEST(BusModelConfigStage, ErrorsNameTheKeyAndItsPlace) {
  BusModelOptions o = DefaultBusModelOptions();
  EXPECT_EQ(Parse("bus_model:\n  pci:\n    read_wait: 3\n", &o).message(),
            "b.yaml:3:5: unknown key 'read_wait' in bus_model.pci (known: address_clocks, attribute_clocks, "
            "write_wait_clocks, read_wait_clocks, turnaround_clocks, max_write_burst, max_read_burst, "
            "mmio_read_wait_clocks)");
  EXPECT_EQ(Parse("bus_model:\n  pcie:\n    assumed_max_payload: 384\n", &o).message(),
            "b.yaml:3:26: assumed_max_payload must be a power of two from 128 to 4096");
  EXPECT_EQ(Parse("bus_model:\n  interfaces:\n    em0: nosuch\n", &o).message().substr(0, 42),
            "b.yaml:3:10: unknown profile 'nosuch' (kno");
}

}  // namespace
}  // namespace bottleneckd::bus_model_config_test
