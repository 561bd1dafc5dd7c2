// Lookups in a scrape's metric families, shared by the exporter tests.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

namespace bottleneckd::testing {

// The family called `name`, or null.
inline const prometheus::MetricFamily* Find(const std::vector<prometheus::MetricFamily>& fs, const std::string& name) {
  for (const auto& f : fs)
    if (f.name == name) return &f;
  return nullptr;
}

// The value of label `name` on a sample, "" when absent.
inline std::string Label(const prometheus::ClientMetric& m, const std::string& name) {
  for (const auto& l : m.label)
    if (l.name == name) return l.value;
  return "";
}

}  // namespace bottleneckd::testing
