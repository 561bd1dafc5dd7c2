// Driver statistics through ethtool: the SIOCETHTOOL ioctl on a live host
// (ETHTOOL_GSSET_INFO / ETHTOOL_GSTRINGS / ETHTOOL_GSTATS), or `ethtool -S IF`
// text recorded in fixtures and replays:
//   NIC statistics:
//        rx_packets: 1234
//        rx_queue_0_packets: 617
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"
#include "collectors/host_fs.h"

namespace bottleneckd {

// Most statistics one driver may report; more is treated as a broken driver.
inline constexpr size_t kMaxEthtoolStats = 65536;

// Parses `ethtool -S` output into *out (replaced; its strings are reused),
// sorted by name. A statistic line is "<name>: <value>", split at the LAST
// colon so names may contain colons, spaces and brackets ("[0]: rx_bytes",
// "tx-0.packets"); both sides are trimmed. Lines with nothing after the colon
// (the "NIC statistics:" header, group titles), without a colon, or with an
// empty name are skipped; a value that is not a u64 is Corruption (and *out is
// left empty). Duplicate names keep their first value.
Status ParseEthtoolStats(std::string_view text, NamedCounters* out);

// Asks the driver of `ifname` for its statistics through SIOCETHTOOL on an
// AF_INET datagram socket opened (and closed) per call: one socket() per
// interface and tick is cheaper than keeping an fd that a fork would inherit.
// *out is replaced, sorted by name, duplicates keep their first value.
// OK: the driver's counters. NotSupported: the driver has no statistics (lo,
// most virtual devices) or the socket cannot be opened. NotFound: no such
// interface (the message names it). IOError: the statistics set changed size
// between the calls (channels reconfigured; retry next tick) or holds more
// than kMaxEthtoolStats. Scratch buffers are thread_local and reused, so the
// function is thread-safe and allocates only when a driver grows its set.
Status ReadEthtoolStatsIoctl(const std::string& ifname, NamedCounters* out);

// Sorts *counters by name and drops every entry whose name repeats an earlier
// one (the first value wins). Shared by both readers above.
void SortCountersByName(NamedCounters* counters);

}  // namespace bottleneckd
