#include "collectors/self_limit.h"

namespace bottleneckd {

SelfLimitChange SelfLimit::Observe(const SelfUsage& u) {
  if (!history_.empty() && u.mono_ns <= history_.back().mono_ns) return SelfLimitChange::kNone;
  history_.push_back({u.mono_ns, u.cpu_seconds});
  const auto window_ns = static_cast<int64_t>(options_.cpu_window_seconds * 1e9);
  // Keep one point at or before the window's start, none older.
  while (history_.size() > 2 && u.mono_ns - history_[1].mono_ns >= window_ns) history_.pop_front();
  const Point& first = history_.front();
  state_.cpu_percent.reset();
  if (history_.size() >= 2 && u.mono_ns - first.mono_ns >= window_ns) {
    const double secs = static_cast<double>(u.mono_ns - first.mono_ns) / 1e9;
    state_.cpu_percent = (u.cpu_seconds - first.cpu_seconds) / secs * 100;
  }
  state_.resident_bytes = u.resident_bytes;
  state_.cpu_exceeded = state_.cpu_percent && *state_.cpu_percent > options_.cpu_percent;
  state_.memory_exceeded = u.resident_bytes > options_.memory_bytes;
  const bool over = state_.cpu_exceeded || state_.memory_exceeded;
  const bool under =
      (!state_.cpu_percent || *state_.cpu_percent < kRecoverFraction * options_.cpu_percent) &&
      static_cast<double>(u.resident_bytes) < kRecoverFraction * static_cast<double>(options_.memory_bytes);
  const bool settled = !last_step_ns_ || u.mono_ns - *last_step_ns_ >= window_ns;
  if (over && state_.backoff == 1) {
    state_.backoff = 2;
    last_step_ns_ = u.mono_ns;
    return SelfLimitChange::kEntered;
  }
  if (over && settled && state_.backoff < kMaxBackoff) {
    state_.backoff *= 2;
    last_step_ns_ = u.mono_ns;
    return SelfLimitChange::kDeeper;
  }
  if (under && settled && state_.backoff > 1) {
    state_.backoff /= 2;
    last_step_ns_ = u.mono_ns;
    return state_.backoff == 1 ? SelfLimitChange::kRecovered : SelfLimitChange::kEased;
  }
  return SelfLimitChange::kNone;
}

std::string ExceededResources(const SelfLimitState& s) {
  if (s.cpu_exceeded && s.memory_exceeded) return "cpu,memory";
  if (s.cpu_exceeded) return "cpu";
  return s.memory_exceeded ? "memory" : "";
}

}  // namespace bottleneckd
