// The daemon's self-limit watchdog step (collectors/self_limit.h): its own usage
// read from the live /proc/self each tick, the policy stepped, the back-off
// handed to the sampler, and one log line per change of the factor.
#include <malloc.h>
#include <time.h>

#include <cstdio>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "daemon/daemon.h"

namespace bottleneckd {
namespace {

// Four significant digits and a unit: "10%", "0.0001%", "1.931%", "60s".
std::string WithUnit(double v, const char* unit) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.4g", v);
  return b + std::string(unit);
}
std::string Percent(double v) { return WithUnit(v, "%"); }

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

void Daemon::CheckSelfLimit(Snapshot* snap) {
  SelfProcess self;
  Status s = ReadSelfProcess(self_fs_, &self, &self_state_);
  if (!s.ok()) {
    if (s.ToString() != self_error_)
      Log(LogLevel::kWarn, "own usage unreadable: no process_* metrics, no self-limit", {{"err", s.ToString()}});
    self_error_ = s.ToString();
    return;
  }
  self_error_.clear();
  snap->self = self;
  // The watchdog reads CPU time from the process CPU clock (nanoseconds):
  // /proc/self/stat counts USER_HZ ticks, 10 ms, which over a short window
  // reads 0 or 1 % of a CPU and nothing between.
  const int64_t cpu_ns = ClockNanos(CLOCK_PROCESS_CPUTIME_ID);
  const double cpu = cpu_ns >= 0 ? static_cast<double>(cpu_ns) / 1e9 : self.cpu_seconds;
  // The soaker's threads burn every idle cycle at SCHED_IDLE, and its
  // background calibration a CPU per CPU for a while: CPU time of this
  // process, not the daemon's cost. While either runs, and from the reading
  // after it stopped, CPU is not judged until a window has passed without it.
  const bool soaker = sources_.Find("soaker") != nullptr || Calibrating();
  if (soaker || soaker_at_last_check_) self_limit_.ForgetCpu();
  soaker_at_last_check_ = soaker;
  SelfLimitChange change = self_limit_.Observe({MonotonicNanos(), cpu, self.resident_bytes});
  const SelfLimitState& st = self_limit_.state();
  const SelfLimitOptions& budget = self_limit_.options();
  std::vector<std::string> names = pipeline_->sampler().BackoffCollectorNames();
  snap->self_limit = Snapshot::SelfLimitReport{budget, st, names};
  pipeline_->sampler().SetBackoff(st.backoff);
  if (change == SelfLimitChange::kNone) return;
  // Past the memory budget: give freed heap back to the kernel, at most once a step.
  if (st.memory_exceeded && (change == SelfLimitChange::kEntered || change == SelfLimitChange::kDeeper))
    ::malloc_trim(0);
  const std::string usage = st.cpu_percent ? Percent(*st.cpu_percent) : "unknown";
  const std::string every = "every " + std::to_string(st.backoff) + " ticks";
  if (change == SelfLimitChange::kEntered) {
    Log(LogLevel::kWarn, "over its own budget: the expensive collectors back off",
        {{"resource", ExceededResources(st)},
         {"cpu_budget", Percent(budget.cpu_percent)},
         {"cpu_usage", usage},
         {"cpu_window", WithUnit(budget.cpu_window_seconds, "s")},
         {"memory_budget", std::to_string(budget.memory_bytes)},
         {"memory", std::to_string(st.resident_bytes)},
         {"collectors", Join(names)},
         {"read", every}});
  } else if (change == SelfLimitChange::kRecovered) {
    Log(LogLevel::kInfo, "back under its own budget: every collector read every tick again",
        {{"cpu_budget", Percent(budget.cpu_percent)},
         {"cpu_usage", usage},
         {"memory_budget", std::to_string(budget.memory_bytes)},
         {"memory", std::to_string(st.resident_bytes)}});
  } else {
    Log(LogLevel::kInfo,
        change == SelfLimitChange::kDeeper ? "still over its own budget: backing off further"
                                           : "nearer its own budget: backing off less",
        {{"resource", ExceededResources(st)},
         {"cpu_usage", usage},
         {"memory", std::to_string(st.resident_bytes)},
         {"read", every}});
  }
}

}  // namespace bottleneckd
