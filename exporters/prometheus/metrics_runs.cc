// The runs active on this host, one series each, so that a run started on
// one host shows on every host's timeline in Prometheus and the fleet report
// (fleet/) can find its span (docs/runs.md "Runs across hosts"). Bounded:
// at most RunTrackerOptions::max_active runs are active, their names cut to
// kRunLabelBytes (runs/run_label.h); the window run and segments are not
// runs a person started and are left out.
#include <set>
#include <string>

#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics_internal.h"
#include "runs/run_label.h"

namespace bottleneckd::internal {

void AddRunFamilies(const Snapshot& s, MetricsOut* out) {
  if (s.active_runs.empty()) return;
  FamilyBuilder f(out, metric::kRunActive,
                  "1 while the run named by the run label is active on this host (the name's first 64 bytes); "
                  "absent otherwise.",
                  prometheus::MetricType::Gauge);
  // Two names alike in their first 64 bytes are one series, not two equal ones.
  std::set<std::string> labels;
  for (const std::string& name : s.active_runs) labels.insert(RunLabel(name));
  for (const std::string& label : labels) f.Add(1, {{"run", label}});
}

}  // namespace bottleneckd::internal
