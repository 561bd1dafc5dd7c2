// FamilyBuilder: appends one metric family to a scrape's output, one sample at
// a time, so the exporter reads like a list of metrics. Labels are given as
// (name, value) pairs. Families appear in the order their builders were
// created; a family that ends up empty is dropped. Builders must be destroyed
// in reverse order of creation (scoped locals are).
#pragma once

#include <prometheus/metric_family.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace bottleneckd {

class FamilyBuilder {
 public:
  using Labels = std::initializer_list<std::pair<const char*, std::string>>;

  FamilyBuilder(std::vector<prometheus::MetricFamily>* out, const char* name, std::string help,
                prometheus::MetricType type);
  ~FamilyBuilder();
  FamilyBuilder(const FamilyBuilder&) = delete;
  FamilyBuilder& operator=(const FamilyBuilder&) = delete;

  void Add(double value, Labels labels = {});
  void Add(double value, std::vector<prometheus::ClientMetric::Label> labels);

 private:
  prometheus::MetricFamily& family() { return (*out_)[index_]; }

  std::vector<prometheus::MetricFamily>* out_;
  size_t index_;
};

}  // namespace bottleneckd
