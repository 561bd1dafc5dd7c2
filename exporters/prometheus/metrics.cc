#include "exporters/prometheus/metrics.h"

#include <prometheus/check_names.h>

#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics_internal.h"

namespace bottleneckd {
namespace {

using prometheus::MetricType;

void AddDaemonFamilies(const Snapshot& s, MetricsOut* out) {
  {
    FamilyBuilder d(out, metric::kCollectorDurationSeconds, "Time the collector's last read took.", MetricType::Gauge);
    for (const CollectorResult& r : s.sample.results) d.Add(r.duration_seconds, {{"collector", r.name}});
  }
  {
    FamilyBuilder ok(out, metric::kCollectorSuccess, "1 if the collector's last read succeeded.", MetricType::Gauge);
    for (const CollectorResult& r : s.sample.results) ok.Add(r.success ? 1 : 0, {{"collector", r.name}});
  }
  {
    FamilyBuilder e(out, metric::kCollectorReadErrorsTotal,
                    "Kernel files the collector could not read or parse and left out (values not exported), since "
                    "start.",
                    MetricType::Counter);
    for (const CollectorResult& r : s.sample.results)
      e.Add(static_cast<double>(r.read_errors_total), {{"collector", r.name}});
  }
  {
    FamilyBuilder d(out, metric::kCollectorDegraded,
                    "1 if the collector's last read succeeded but left files out (see read_errors_total and the "
                    "log).",
                    MetricType::Gauge);
    for (const CollectorResult& r : s.sample.results) d.Add(r.read_errors > 0 ? 1 : 0, {{"collector", r.name}});
  }
  {
    FamilyBuilder n(out, metric::kSamplesTotal, "Samples taken since the daemon started.", MetricType::Counter);
    n.Add(static_cast<double>(s.samples_total));
  }
  {
    FamilyBuilder t(out, metric::kLastSampleTimestampSeconds, "Wall-clock time of the latest sample.",
                    MetricType::Gauge);
    t.Add(static_cast<double>(s.sample.wall_ns) / 1e9);
  }
  {
    FamilyBuilder a(out, metric::kCounterAnomaliesTotal,
                    "Kernel counters seen going backwards, by source and kind (wrap: a 32-bit counter wrapped; "
                    "reset: the counter restarted, its rate was skipped for that window).",
                    MetricType::Counter);
    for (const auto& [key, n] : s.counter_anomalies_total)
      a.Add(static_cast<double>(n), {{"source", key.first}, {"kind", key.second}});
  }
}

}  // namespace

BuildInfo GetBuildInfo() {
#ifndef BOTTLENECKD_VERSION_STRING
#define BOTTLENECKD_VERSION_STRING "0.1.0"
#endif
  return BuildInfo{BOTTLENECKD_VERSION_STRING, BOTTLENECKD_REVISION_STRING};
}

namespace {

// Every family, in the order docs/metrics.md lists them.
void AddMetrics(const Snapshot* snap, const BuildInfo& build, MetricsOut* out) {
  {
    FamilyBuilder b(out, metric::kBuildInfo, "Version of bottleneckd; value 1.", MetricType::Gauge);
    b.Add(1, {{"version", build.version}, {"revision", build.revision}});
  }
  if (snap == nullptr) return;
  AddDaemonFamilies(*snap, out);
  internal::AddVerdictFamilies(*snap, out);
  internal::AddRunFamilies(*snap, out);
  internal::AddCpuFamilies(*snap, out);
  internal::AddCpuBudgetFamilies(*snap, out);
  internal::AddSoakerFamilies(*snap, out);
  internal::AddInterruptFamilies(*snap, out);
  internal::AddSoftirqFamilies(*snap, out);
  internal::AddIrqTimeFamilies(*snap, out);
  internal::AddProfileFamilies(*snap, out);
  internal::AddNetworkFamilies(*snap, out);
  internal::AddSocketFamilies(*snap, out);
  internal::AddThreadFamilies(*snap, out);
  internal::AddBusFamilies(*snap, out);
  internal::AddCaptureFamilies(*snap, out);
  internal::AddSelfFamilies(*snap, out);
}

}  // namespace

std::vector<prometheus::MetricFamily> BuildMetricFamilies(const Snapshot* snap, const BuildInfo& build) {
  std::vector<prometheus::MetricFamily> families;
  MetricsOut out(&families);
  AddMetrics(snap, build, &out);
  return families;
}

void AppendMetricsText(const Snapshot* snap, const BuildInfo& build, std::string* text) {
  MetricsOut out(text);
  AddMetrics(snap, build, &out);
}

std::vector<prometheus::MetricFamily> SnapshotCollectable::Collect() const {
  std::shared_ptr<const Snapshot> s = store_->Latest();
  return BuildMetricFamilies(s.get(), build_);
}

const std::vector<std::string>& ExportedMetricNames() {
  static const std::vector<std::string> kNames = {
#define BN_METRIC(id, name) name,
#include "exporters/prometheus/metric_names.def"
#undef BN_METRIC
  };
  return kNames;
}

bool ValidateMetricNames(std::string* bad) {
  for (const std::string& n : ExportedMetricNames()) {
    if (!prometheus::CheckMetricName(n)) {
      *bad = n;
      return false;
    }
  }
  for (const char* l :
       {"cpu",      "mode",       "kind",      "source",    "interface", "queue",       "irq",       "name",
        "type",     "driver",     "device",    "operstate", "virtual",   "statistic",   "rung",      "protocol",
        "process",  "pid",        "thread",    "tid",       "collector", "version",     "revision",  "scheduler",
        "bus",      "speed",      "width",     "max_speed", "max_width", "downtrained", "emulated",  "narrowest",
        "hop",      "assumption", "direction", "method",    "profile",   "parameters",  "vendor_id", "device_id",
        "class_id", "parent",     "numa_node", "fact",      "severity",  "error",       "bound",     "resource",
        "vector",   "attach",     "reason",    "result"}) {
    if (!prometheus::CheckLabelName(l)) {
      *bad = l;
      return false;
    }
  }
  return true;
}

}  // namespace bottleneckd
