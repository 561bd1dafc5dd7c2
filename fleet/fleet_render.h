// The fleet report as text (a person at a terminal), JSON (scripts) and HTML
// (a page to share), from one FleetReport (docs/fleet.md).
#pragma once

#include <string>

#include "fleet/fleet_report.h"

namespace bottleneckd {

std::string FleetText(const FleetReport& r);
std::string FleetJson(const FleetReport& r);
std::string FleetHtml(const FleetReport& r);

// "cpu0 on gen:9858 at +12 s, bound 85 % of the run" style pieces, shared by
// the three renderers.
std::string FleetPercent(double share);                       // "85 %", "<1 %", "0 %"
std::string FleetNumber(double v, const char* fmt = "%.2f");  // printf's, locale-free
std::string FleetOffset(const FleetReport& r, double t);      // "+12 s" from the span's start
// The run's (or the span's) answer in one sentence each.
std::string FleetFirstLine(const FleetReport& r);
std::string FleetLongestLine(const FleetReport& r);

}  // namespace bottleneckd
