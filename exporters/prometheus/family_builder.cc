#include "exporters/prometheus/family_builder.h"

#include "exporters/prometheus/text_format.h"

namespace bottleneckd {
namespace {

std::string_view LabelName(const std::pair<const char*, std::string_view>& l) { return l.first; }
std::string_view LabelValue(const std::pair<const char*, std::string_view>& l) { return l.second; }
std::string_view LabelName(const prometheus::ClientMetric::Label& l) { return l.name; }
std::string_view LabelValue(const prometheus::ClientMetric::Label& l) { return l.value; }

// name{label="value",...} value
template <typename Range>
void AppendSampleLine(std::string_view name, const Range& labels, double value, std::string* out) {
  out->append(name);
  char sep = '{';
  for (const auto& l : labels) {
    out->push_back(sep);
    sep = ',';
    AppendLabel(LabelName(l), LabelValue(l), out);
  }
  if (sep == ',') out->push_back('}');
  out->push_back(' ');
  AppendTextValue(value, out);
  out->push_back('\n');
}

}  // namespace

void MetricsOut::AddFamily(prometheus::MetricFamily f) {
  if (f.metric.empty()) return;
  if (families_ != nullptr) {
    families_->push_back(std::move(f));
    return;
  }
  AppendTextFamily(f, Open());
  Close();
}

std::string* MetricsOut::Open() {
  if (open_++ == 0 && pending_ == 0) return text_;
  if (pending_ == buffers_.size()) buffers_.emplace_back();
  std::string* b = &buffers_[pending_++];
  b->clear();
  return b;
}

void MetricsOut::Close() {
  if (--open_ != 0) return;
  for (size_t i = 0; i < pending_; ++i) text_->append(buffers_[i]);
  pending_ = 0;
}

FamilyBuilder::FamilyBuilder(MetricsOut* out, MetricName name, std::string_view help, prometheus::MetricType type)
    : out_(out), name_(name.c_str()), help_(help), type_(type) {
  if (out_->families_ == nullptr) {
    text_ = out_->Open();
    return;
  }
  index_ = out_->families_->size();
  prometheus::MetricFamily f;
  f.name = name.str();
  f.help = std::string(help);
  f.type = type;
  out_->families_->push_back(std::move(f));
}

FamilyBuilder::~FamilyBuilder() {
  if (text_ != nullptr) {
    out_->Close();
    return;
  }
  if (family().metric.empty()) out_->families_->erase(out_->families_->begin() + static_cast<std::ptrdiff_t>(index_));
}

void FamilyBuilder::StartText() {
  started_ = true;
  AppendFamilyHeader(name_, help_, type_, text_);
}

void FamilyBuilder::Add(double value, Labels labels) {
  if (text_ == nullptr) {
    std::vector<prometheus::ClientMetric::Label> l;
    l.reserve(labels.size());
    for (const auto& [k, v] : labels) l.push_back({k, std::string(v)});
    AddModel(value, std::move(l));
    return;
  }
  if (!started_) StartText();
  AppendSampleLine(name_, labels, value, text_);
}

void FamilyBuilder::Add(double value, const std::vector<prometheus::ClientMetric::Label>& labels) {
  if (text_ == nullptr) {
    AddModel(value, labels);
    return;
  }
  if (!started_) StartText();
  AppendSampleLine(name_, labels, value, text_);
}

void FamilyBuilder::AddModel(double value, std::vector<prometheus::ClientMetric::Label> labels) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  switch (type_) {
    case prometheus::MetricType::Counter: m.counter.value = value; break;
    case prometheus::MetricType::Gauge: m.gauge.value = value; break;
    default: m.untyped.value = value; break;
  }
  family().metric.push_back(std::move(m));
}

}  // namespace bottleneckd
