// `bottleneckd --report --prometheus.url URL [--run NAME | --since D]
// [--selector SEL] [--format text|json|html]`: the fleet report (fleet/,
// docs/fleet.md). Exit codes (bottleneckd(8)): 0 the report; 1 the query API
// could not be read (unreachable, too slow, an HTTP error, an answer that is
// not the API's); 2 a usage error (a bad URL, selector or token file); 3 the
// API answered but nothing matched (no instance for the selector, no host
// that knew the run).
#pragma once

#include "cmd/flags.h"

namespace bottleneckd {

inline constexpr int kFleetExitUnreadable = 1, kFleetExitUsage = 2, kFleetExitNothing = 3;

int RunFleetReport(const Flags& flags);

}  // namespace bottleneckd
