// The daemon's own cost: the process_* families every Prometheus client library
// exports (client_golang's process collector; from the real /proc/self, never
// the configured procfs root), and the self-limit watchdog's budgets, state
// and back-off factor per collector (collectors/self_limit.h).
#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics_internal.h"

namespace bottleneckd::internal {
namespace {

using prometheus::MetricType;

void AddProcess(const SelfProcess& p, MetricsOut* out) {
  struct Row {
    MetricName name;
    const char* help;
    MetricType type;
    double value;
  };
  const Row rows[] = {
      {metric::kProcessCpuSecondsTotal, "Total user and system CPU time spent in seconds.", MetricType::Counter,
       p.cpu_seconds},
      {metric::kProcessResidentMemoryBytes, "Resident memory size in bytes.", MetricType::Gauge,
       static_cast<double>(p.resident_bytes)},
      {metric::kProcessVirtualMemoryBytes, "Virtual memory size in bytes.", MetricType::Gauge,
       static_cast<double>(p.virtual_bytes)},
      {metric::kProcessOpenFds, "Number of open file descriptors.", MetricType::Gauge, static_cast<double>(p.open_fds)},
      {metric::kProcessStartTimeSeconds, "Start time of the process since unix epoch in seconds.", MetricType::Gauge,
       p.start_time_seconds},
  };
  for (const Row& r : rows) FamilyBuilder(out, r.name, r.help, r.type).Add(r.value);
  if (p.max_fds)
    FamilyBuilder(out, metric::kProcessMaxFds, "Maximum number of open file descriptors.", MetricType::Gauge)
        .Add(static_cast<double>(*p.max_fds));
}

void AddSelfLimit(const Snapshot::SelfLimitReport& l, MetricsOut* out) {
  {
    FamilyBuilder e(out, metric::kSelfLimitExceeded,
                    "1 while the daemon's own usage is over its budget (limits.cpu_percent over limits.cpu_window, "
                    "limits.memory_bytes of RSS).",
                    MetricType::Gauge);
    e.Add(l.state.cpu_exceeded ? 1 : 0, {{"resource", "cpu"}});
    e.Add(l.state.memory_exceeded ? 1 : 0, {{"resource", "memory"}});
  }
  FamilyBuilder(out, metric::kSelfLimitCpuBudgetCores,
                "The daemon's CPU budget in CPUs, 1 being one CPU busy all the time (limits.cpu_percent / 100).",
                MetricType::Gauge)
      .Add(l.budget.cpu_percent / 100);
  FamilyBuilder(out, metric::kSelfLimitCpuWindowSeconds,
                "The window over which the daemon's CPU use is averaged (limits.cpu_window).", MetricType::Gauge)
      .Add(l.budget.cpu_window_seconds);
  FamilyBuilder(out, metric::kSelfLimitMemoryBudgetBytes, "The daemon's resident memory budget (limits.memory_bytes).",
                MetricType::Gauge)
      .Add(static_cast<double>(l.budget.memory_bytes));
  if (l.state.cpu_percent)
    FamilyBuilder(out, metric::kSelfCpuUsageCores,
                  "The daemon's CPU time per second over the last limits.cpu_window (1: one CPU busy), once a whole "
                  "window has passed.",
                  MetricType::Gauge)
        .Add(*l.state.cpu_percent / 100);
  FamilyBuilder b(out, metric::kCollectorBackoff,
                  "The collector is read every this many ticks (1: every tick; more while the daemon is over its "
                  "own budget).",
                  MetricType::Gauge);
  for (const std::string& c : l.collectors) b.Add(l.state.backoff, {{"collector", c}});
}

}  // namespace

void AddSelfFamilies(const Snapshot& s, MetricsOut* out) {
  if (s.self) AddProcess(*s.self, out);
  if (s.self_limit) AddSelfLimit(*s.self_limit, out);
}

}  // namespace bottleneckd::internal
