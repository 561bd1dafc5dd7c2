#include "exporters/prometheus/family_builder.h"

namespace bottleneckd {

FamilyBuilder::FamilyBuilder(std::vector<prometheus::MetricFamily>* out, const char* name, std::string help,
                             prometheus::MetricType type)
    : out_(out), index_(out->size()) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = std::move(help);
  f.type = type;
  out_->push_back(std::move(f));
}

FamilyBuilder::~FamilyBuilder() {
  if (family().metric.empty()) out_->erase(out_->begin() + static_cast<std::ptrdiff_t>(index_));
}

void FamilyBuilder::Add(double value, Labels labels) {
  std::vector<prometheus::ClientMetric::Label> l;
  l.reserve(labels.size());
  for (const auto& [k, v] : labels) l.push_back({k, v});
  Add(value, std::move(l));
}

void FamilyBuilder::Add(double value, std::vector<prometheus::ClientMetric::Label> labels) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  switch (family().type) {
    case prometheus::MetricType::Counter: m.counter.value = value; break;
    case prometheus::MetricType::Gauge: m.gauge.value = value; break;
    default: m.untyped.value = value; break;
  }
  family().metric.push_back(std::move(m));
}

}  // namespace bottleneckd
