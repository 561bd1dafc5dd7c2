// The sampling schedule of the daemon's loop and of `bottleneckd record`:
// tick n is due at start + n x interval on the steady clock, so ticks do not
// drift with the time each one takes; a tick that overran its interval is
// followed by the next one still ahead, and the skip is logged ("sampling
// overran its interval; skipping ticks", skipped=N).
#pragma once

#include <chrono>
#include <cstdint>

namespace bottleneckd {

class TickSchedule {
 public:
  using Clock = std::chrono::steady_clock;

  explicit TickSchedule(double interval_seconds, Clock::time_point start = Clock::now())
      : interval_(interval_seconds), start_(start) {}

  double interval() const { return interval_; }
  Clock::time_point start() const { return start_; }
  // When tick n is due.
  Clock::time_point Due(int64_t n) const;
  // The tick to take after tick k, at `now`: k + 1, or, when k + 1 is already
  // past due, the first tick still ahead (the ticks between are skipped, and
  // logged: those up to `last` only, the last tick a recording takes, so the
  // count is what the recording lacks).
  int64_t After(int64_t k, Clock::time_point now, int64_t last = INT64_MAX) const;

 private:
  double interval_;
  Clock::time_point start_;
};

}  // namespace bottleneckd
