// SelfLimit: the daemon's watchdog over its own cost (as osquery's watchdog
// caps its workers). Each tick the daemon's CPU time and RSS are compared with
// a budget: CPU as a percentage of one CPU averaged over a window (judged only
// once a whole window has been seen, so start-up work does not trip it), RSS
// as it stands. Past either budget the expensive collectors are sampled every
// 2nd tick, then every 4th, ... up to kMaxBackoff, one step per window while
// still over (the window's average needs a window to show the step's effect);
// below kRecoverFraction of every budget the factor halves, one step per window,
// back to 1. Between the two it stays: that band is the hysteresis.
// A pure policy: usage comes in as samples with their own monotonic time, so
// tests drive it without real time. Not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

namespace bottleneckd {

struct SelfLimitOptions {
  double cpu_percent = 10;                      // of one CPU, averaged over cpu_window_seconds
  double cpu_window_seconds = 60;               // also the least time between two steps of the factor
  uint64_t memory_bytes = uint64_t{512} << 20;  // resident set size
};

// One tick's reading of the daemon's own usage.
struct SelfUsage {
  int64_t mono_ns = 0;          // CLOCK_MONOTONIC of the reading
  double cpu_seconds = 0;       // cumulative utime + stime
  uint64_t resident_bytes = 0;  // RSS now
};

struct SelfLimitState {
  std::optional<double> cpu_percent;  // over the last window; unset until a whole window is seen
  uint64_t resident_bytes = 0;
  bool cpu_exceeded = false, memory_exceeded = false;
  int backoff = 1;  // the expensive collectors are read every backoff-th tick
};

enum class SelfLimitChange {
  kNone,
  kEntered,    // backoff went from 1 to 2
  kDeeper,     // doubled again, still over
  kEased,      // halved, not yet 1
  kRecovered,  // back to 1
};

class SelfLimit {
 public:
  static constexpr int kMaxBackoff = 16;
  static constexpr double kRecoverFraction = 0.8;

  explicit SelfLimit(const SelfLimitOptions& options) : options_(options) {}

  // New budgets from the next Observe; the history and the factor stay.
  void SetOptions(const SelfLimitOptions& options) { options_ = options; }
  const SelfLimitOptions& options() const { return options_; }

  // Drops the CPU history: CPU is not judged again until a whole window of
  // readings after this one (the daemon calls it while the soaker runs: its
  // idle-time loop is CPU time of this process but not the daemon's cost).
  void ForgetCpu() { history_.clear(); }

  // Takes one reading (mono_ns increasing; an older one is ignored) and
  // returns how the factor changed.
  SelfLimitChange Observe(const SelfUsage& usage);
  const SelfLimitState& state() const { return state_; }

 private:
  struct Point {
    int64_t mono_ns;
    double cpu_seconds;
  };
  SelfLimitOptions options_;
  SelfLimitState state_;
  std::deque<Point> history_;  // the first at or before the window's start
  std::optional<int64_t> last_step_ns_;
};

// "cpu", "memory" or "cpu,memory" for what is over its budget; "" for none.
std::string ExceededResources(const SelfLimitState& s);

}  // namespace bottleneckd
