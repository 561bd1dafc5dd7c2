// The names of the metric families the exporter emits: one constant each,
// from the one list, exporters/prometheus/metric_names.def. FamilyBuilder
// takes a MetricName, not a string, so every family the exporter builds is
// on the list; ExportedMetricNames() (metrics.h) is the list itself.
#pragma once

#include <string>

namespace bottleneckd {

class MetricName {
 public:
  constexpr explicit MetricName(const char* name) : name_(name) {}
  constexpr const char* c_str() const { return name_; }
  std::string str() const { return name_; }

 private:
  const char* name_;
};

namespace metric {
#define BN_METRIC(id, name) inline constexpr MetricName id{name};
#include "exporters/prometheus/metric_names.def"
#undef BN_METRIC
}  // namespace metric

}  // namespace bottleneckd
