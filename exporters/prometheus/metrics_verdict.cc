// Verdict metric families: the current label (one series per bound, 1 for the
// current one), its resource and confidence, each label's score, and the
// utilisation plateau (docs/metrics.md "Verdict"; docs/verdict-rules.md sections 2-5).
#include "analysis/verdict.h"
#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics_internal.h"

namespace bottleneckd::internal {

void AddVerdictFamilies(const Snapshot& s, MetricsOut* out) {
  using prometheus::MetricType;
  if (s.verdict) {
    const Verdict& v = *s.verdict;
    {
      static const std::string help = "What limits this host over the last window: 1 for the current label (" +
                                      BoundNames(", ") +
                                      "), 0 for the others. Labels change only after holding for "
                                      "verdict.hysteresis_windows windows.";
      FamilyBuilder f(out, metric::kVerdict, help, MetricType::Gauge);
      for (Bound b : kAllBounds) f.Add(v.label == b ? 1 : 0, {{"bound", BoundName(b)}});
    }
    {
      FamilyBuilder f(out, metric::kVerdictInfo,
                      "The current verdict's label and the resource it names (\"cpu1\", \"em0 (0000:02:01.0)\"); "
                      "value 1.",
                      MetricType::Gauge);
      f.Add(1, {{"bound", BoundName(v.label)}, {"resource", v.resource}});
    }
    {
      FamilyBuilder f(out, metric::kVerdictConfidenceRatio,
                      "How clearly the current label's evidence beats the runner-up's, 0 to 1.", MetricType::Gauge);
      f.Add(v.confidence);
    }
    {
      // The window's own scores, not the published verdict's: while a change
      // waits out the hysteresis they are what is pushing for it.
      const Verdict& w = s.window_verdict ? *s.window_verdict : v;
      FamilyBuilder f(out, metric::kVerdictScoreRatio,
                      "Each label's score over the last window, 0 to 1, before hysteresis.", MetricType::Gauge);
      for (Bound b : kAllBounds) f.Add(w.scores[static_cast<size_t>(b)], {{"bound", BoundName(b)}});
    }
  }
  if (s.plateau) {
    FamilyBuilder f(out, metric::kUtilisationPlateau,
                    "1 while offered load rises and the application CPU's utilisation (the target threads' "
                    "CPUs, else the busiest) stays flat below 100 % with delivered throughput flat or falling "
                    "(the seed's symptom), over the recent windows.",
                    MetricType::Gauge);
    f.Add(s.plateau->detected ? 1 : 0);
    FamilyBuilder l(out, metric::kUtilisationPlateauLevelRatio,
                    "The utilisation the plateau sits at (0 when there is none).", MetricType::Gauge);
    l.Add(s.plateau->detected ? s.plateau->level : 0);
  }
}

}  // namespace bottleneckd::internal
