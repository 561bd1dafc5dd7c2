#include "window/nic_drop_counters.h"

namespace bottleneckd {
namespace {

// The kernel's generic counters: rx_missed_errors (packets the NIC missed),
// rx_fifo_errors and rx_over_errors (FIFO / ring overruns). A driver that does
// not lose packets that way leaves them 0.
constexpr std::string_view kGeneric[] = {"rx_missed_errors", "rx_fifo_errors", "rx_over_errors"};

// Intel: rx_missed_errors is MPC (missed packets: the FIFO overflowed) and
// igb's rx_fifo_errors the per-queue RQDPC drops, all losses. The ethtool
// rx_no_buffer_count (RNBC) counts descriptor shortages that the FIFO may
// still absorb: not a loss, left out (e1000_main.c e1000_update_stats,
// netdev.c e1000e_get_stats64, igb_main.c igb_update_stats, ixgbe_main.c
// ixgbe_update_stats).
constexpr std::string_view kIntel[] = {"e1000", "e1000e", "igb", "ixgbe"};

// mlx5: rx_missed_errors is rx_out_of_buffer (en_main.c mlx5e_get_stats);
// rx_discards_phy, packets the port dropped for lack of buffers
// (mlx5/counters.rst), is in no sysfs counter summed here.
constexpr std::string_view kMlx5[] = {"mlx5_core"};
constexpr std::string_view kMlx5Ethtool[] = {"rx_discards_phy"};

const NicDropCounters kDefault{{}, kGeneric, {}};
const NicDropCounters kTable[] = {
    {kIntel, kGeneric, {}},
    {kMlx5, kGeneric, kMlx5Ethtool},
};

}  // namespace

const NicDropCounters& NicDropCountersFor(std::string_view driver) {
  for (const NicDropCounters& row : kTable)
    for (std::string_view d : row.drivers)
      if (d == driver) return row;
  return kDefault;
}

std::optional<uint64_t> NicRungDrops(const NetDev& dev) {
  const NicDropCounters& row = NicDropCountersFor(dev.driver);
  std::optional<uint64_t> sum;
  for (std::string_view s : row.sysfs)
    if (auto v = dev.Stat(s)) sum = sum.value_or(0) + *v;
  for (std::string_view s : row.ethtool)
    if (auto v = dev.Ethtool(s)) sum = sum.value_or(0) + *v;
  return sum;
}

}  // namespace bottleneckd
