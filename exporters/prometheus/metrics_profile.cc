// The on-CPU profiler's counts (sources/profile.h), while its eBPF program is
// loaded (Sample::profile): each CPU's samples, busy and idle, and what the
// maps could not keep. The stacks themselves are not exported (each would be
// a series): they are the verdict's evidence and the run's profile
// (docs/profile.md).
#include <string>

#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics_internal.h"
#include "sources/profile.h"

namespace bottleneckd::internal {

void AddProfileFamilies(const Snapshot& s, MetricsOut* out) {
  if (!s.sample.profile) return;
  const ProfileReading& r = *s.sample.profile;
  {
    FamilyBuilder n(out, metric::kProfileSamplesTotal,
                    "On-CPU profiler samples of each CPU since the program loaded: state=\"busy\" (a task ran) or "
                    "\"idle\" (the idle task or the soaker).",
                    prometheus::MetricType::Counter);
    for (const ProfileCpu& c : r.cpu_totals) {
      const std::string cpu = std::to_string(c.cpu);
      n.Add(static_cast<double>(c.samples - c.idle), {{"cpu", cpu}, {"state", "busy"}});
      n.Add(static_cast<double>(c.idle), {{"cpu", cpu}, {"state", "idle"}});
    }
  }
  FamilyBuilder dropped(out, metric::kProfileDroppedSamplesTotal,
                        "Profiler samples not counted: their key found no slot in the program's map.",
                        prometheus::MetricType::Counter);
  dropped.Add(static_cast<double>(r.dropped));
  FamilyBuilder lost(out, metric::kProfileLostStacksTotal,
                     "Walked profiler samples whose stack was not kept (the stack map's slot was taken, or the stack "
                     "was deleted as the read ended): drawn as [lost].",
                     prometheus::MetricType::Counter);
  lost.Add(static_cast<double>(r.stack_lost));
}

}  // namespace bottleneckd::internal
