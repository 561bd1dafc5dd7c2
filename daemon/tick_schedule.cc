#include "daemon/tick_schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "base/log.h"

namespace bottleneckd {

TickSchedule::Clock::time_point TickSchedule::Due(int64_t n) const {
  return start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_ * n));
}

int64_t TickSchedule::After(int64_t k, Clock::time_point now, int64_t last) const {
  const int64_t next = k + 1;
  if (Due(next) > now) return next;
  const int64_t ahead =
      static_cast<int64_t>(std::floor(std::chrono::duration<double>(now - start_).count() / interval_)) + 1;
  const int64_t skipped = std::min(ahead, last == INT64_MAX ? ahead : last + 1) - next;
  if (skipped > 0)
    Log(LogLevel::kWarn, "sampling overran its interval; skipping ticks", {{"skipped", std::to_string(skipped)}});
  return ahead;
}

}  // namespace bottleneckd
