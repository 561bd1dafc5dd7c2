// libFuzzer target: arbitrary bytes as a query API's answer to the fleet
// report (fleet/prom_response.h), with the HTTP status the first byte picks.
// It must never crash; an answer it accepts must hold points in time order
// within the documented limits, and its analysis must give shares in [0, 1].
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fleet/fleet_report.h"
#include "fleet/prom_response.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bottleneckd;
  if (size == 0) return 0;
  const long statuses[] = {200, 200, 200, 204, 400, 422, 500, 503};
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  PromMatrix m;
  if (!ParseMatrixResponse(body, statuses[data[0] % 8], &m).ok()) return 0;
  size_t points = 0;
  for (const PromSeries& s : m.series) {
    for (size_t i = 1; i < s.points.size(); ++i)
      if (!(s.points[i].first > s.points[i - 1].first)) __builtin_trap();
    points += s.points.size();
  }
  if (m.series.size() > kPromMaxSeries || points > kPromMaxPoints) __builtin_trap();
  FleetData d;
  d.span = {0, 99, 1};
  d.verdict = m;
  d.verdict_info = m;
  d.confidence = m;
  FleetReport r = AnalyzeFleet(d, "fuzz");
  for (const FleetInstance& x : r.instances)
    if (!(x.bound_share >= 0 && x.bound_share <= 1 && x.coverage >= 0 && x.coverage <= 1)) __builtin_trap();
  return 0;
}
