// FamilyBuilder: appends one metric family to a scrape's output, one sample at
// a time, so the exporter reads like a list of metrics. Labels are given as
// (name, value) pairs. Families appear in the order their builders were
// created; a family that ends up empty is dropped. Builders must be destroyed
// in reverse order of creation (scoped locals are). The name and help text
// are not copied in text mode: they must outlive the builder (literals, or a
// string of the enclosing scope).
//
// MetricsOut is where the families go: prometheus-cpp's model
// (std::vector<prometheus::MetricFamily>, for tests and any Collectable), or
// the exposition text itself (what /metrics serves). Writing the text
// straight from the builders skips the model's per-sample allocations: a
// small scrape built that way took about half the CPU of model + serializer
// (docs/performance-history.md, "CPU per scrape: the text written directly").
// Builders alive at once (a loop adding to several families) keep their
// lines apart: the first writes the text, the later ones their own buffers,
// appended in creation order when the last of them closes.
#pragma once

#include <prometheus/metric_family.h>

#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporters/prometheus/metric_names.h"

namespace bottleneckd {

class MetricsOut {
 public:
  explicit MetricsOut(std::vector<prometheus::MetricFamily>* families) : families_(families) {}
  explicit MetricsOut(std::string* text) : text_(text) {}
  MetricsOut(const MetricsOut&) = delete;
  MetricsOut& operator=(const MetricsOut&) = delete;

  // A family built whole elsewhere (the capture histograms); dropped if empty.
  void AddFamily(prometheus::MetricFamily f);

 private:
  friend class FamilyBuilder;

  std::string* Open();
  void Close();

  std::vector<prometheus::MetricFamily>* families_ = nullptr;
  std::string* text_ = nullptr;
  // Text mode: builders alive, and the buffers of all but the first of them
  // since the text was last written (appended to text_ when none is alive).
  size_t open_ = 0;
  size_t pending_ = 0;
  std::deque<std::string> buffers_;  // a deque: growing it keeps the open builders' pointers
};

class FamilyBuilder {
 public:
  using Labels = std::initializer_list<std::pair<const char*, std::string_view>>;

  FamilyBuilder(MetricsOut* out, MetricName name, std::string_view help, prometheus::MetricType type);
  ~FamilyBuilder();
  FamilyBuilder(const FamilyBuilder&) = delete;
  FamilyBuilder& operator=(const FamilyBuilder&) = delete;

  void Add(double value, Labels labels = {});
  void Add(double value, const std::vector<prometheus::ClientMetric::Label>& labels);

 private:
  prometheus::MetricFamily& family() { return (*out_->families_)[index_]; }
  void AddModel(double value, std::vector<prometheus::ClientMetric::Label> labels);
  // Text mode: the family's HELP and TYPE lines before its first sample.
  void StartText();

  MetricsOut* out_;
  std::string_view name_;
  std::string_view help_;
  prometheus::MetricType type_;
  size_t index_ = 0;             // model mode: the family's place in the vector
  std::string* text_ = nullptr;  // text mode: where this family's lines go
  bool started_ = false;
};

}  // namespace bottleneckd
