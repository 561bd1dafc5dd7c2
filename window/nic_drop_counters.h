// Which counters are packets lost at the NIC, per driver family: the nic rung
// of the receive drop ladder. Drivers differ in what they fold into the
// generic sysfs counters and in what their ethtool counters mean, so the rung
// sums only the counters each driver documents as losses (docs/metrics.md
// lists them with the kernel source each comes from).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "collectors/netdev.h"

namespace bottleneckd {

struct NicDropCounters {
  // NetDev::driver values this row is for; empty for the default row.
  std::span<const std::string_view> drivers;
  // statistics/* files summed (the kernel's rtnl_link_stats64 fields).
  std::span<const std::string_view> sysfs;
  // ethtool statistics summed; none of them folded into `sysfs` by the driver.
  std::span<const std::string_view> ethtool;
};

// The row for `driver`; the default row (the generic sysfs counters only) for
// a driver not in the table, "" included. Never fails.
const NicDropCounters& NicDropCountersFor(std::string_view driver);

// Packets counted by the nic rung: the sum of the counters of the driver's
// row that dev has; nullopt when it has none of them.
std::optional<uint64_t> NicRungDrops(const NetDev& dev);

}  // namespace bottleneckd
