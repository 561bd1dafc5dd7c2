#include "exporters/prometheus/metrics.h"

#include <prometheus/check_names.h>

#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metrics_internal.h"

namespace bottleneckd {
namespace {

using prometheus::MetricType;

void AddDaemonFamilies(const Snapshot& s, MetricsOut* out) {
  {
    FamilyBuilder d(out, "bottleneckd_collector_duration_seconds", "Time the collector's last read took.",
                    MetricType::Gauge);
    for (const CollectorResult& r : s.sample.results) d.Add(r.duration_seconds, {{"collector", r.name}});
  }
  {
    FamilyBuilder ok(out, "bottleneckd_collector_success", "1 if the collector's last read succeeded.",
                     MetricType::Gauge);
    for (const CollectorResult& r : s.sample.results) ok.Add(r.success ? 1 : 0, {{"collector", r.name}});
  }
  {
    FamilyBuilder e(out, "bottleneckd_collector_read_errors_total",
                    "Kernel files the collector could not read or parse and left out (values not exported), since "
                    "start.",
                    MetricType::Counter);
    for (const CollectorResult& r : s.sample.results)
      e.Add(static_cast<double>(r.read_errors_total), {{"collector", r.name}});
  }
  {
    FamilyBuilder d(out, "bottleneckd_collector_degraded",
                    "1 if the collector's last read succeeded but left files out (see read_errors_total and the "
                    "log).",
                    MetricType::Gauge);
    for (const CollectorResult& r : s.sample.results) d.Add(r.read_errors > 0 ? 1 : 0, {{"collector", r.name}});
  }
  {
    FamilyBuilder n(out, "bottleneckd_samples_total", "Samples taken since the daemon started.", MetricType::Counter);
    n.Add(static_cast<double>(s.samples_total));
  }
  {
    FamilyBuilder t(out, "bottleneckd_last_sample_timestamp_seconds", "Wall-clock time of the latest sample.",
                    MetricType::Gauge);
    t.Add(static_cast<double>(s.sample.wall_ns) / 1e9);
  }
  {
    FamilyBuilder a(out, "bottleneckd_counter_anomalies_total",
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
    FamilyBuilder b(out, "bottleneckd_build_info", "Version of bottleneckd; value 1.", MetricType::Gauge);
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
      "bottleneckd_build_info",
      "bottleneckd_collector_duration_seconds",
      "bottleneckd_collector_success",
      "bottleneckd_collector_read_errors_total",
      "bottleneckd_collector_degraded",
      "bottleneckd_samples_total",
      "bottleneckd_last_sample_timestamp_seconds",
      "bottleneckd_counter_anomalies_total",
      "bottleneckd_cpu_seconds_total",
      "bottleneckd_cpu_guest_seconds_total",
      "bottleneckd_cpu_pressure_stall_seconds_total",
      "bottleneckd_cpu_busy_ratio",
      "bottleneckd_cpu_interrupt_ratio",
      "bottleneckd_cpu_steal_ratio",
      "bottleneckd_cpu_pressure_stall_ratio",
      "bottleneckd_cpu_hidden_ratio",
      "bottleneckd_cpu_budget_ratio",
      "bottleneckd_cpu_budget_overlap_ratio",
      "bottleneckd_interrupt_delivery_cost_seconds",
      "bottleneckd_interrupt_delivery_cost_windows",
      "bottleneckd_soaker_info",
      "bottleneckd_soaker_calibration_iterations_per_second",
      "bottleneckd_soaker_iterations_total",
      "bottleneckd_soaker_calibration_timestamp_seconds",
      "bottleneckd_cpu_interrupts_total",
      "bottleneckd_interrupts_named_total",
      "bottleneckd_interrupts_total",
      "bottleneckd_interrupts_queue_total",
      "bottleneckd_interrupts_cpu_total",
      "bottleneckd_softirqs_total",
      "bottleneckd_softnet_processed_total",
      "bottleneckd_softnet_dropped_total",
      "bottleneckd_softnet_times_squeezed_total",
      "bottleneckd_softnet_received_rps_total",
      "bottleneckd_softnet_flow_limit_count_total",
      "bottleneckd_softnet_backlog_packets",
      "bottleneckd_irqtime_info",
      "bottleneckd_cpu_interrupt_seconds_total",
      "bottleneckd_softirq_seconds_total",
      "bottleneckd_irqtime_interrupts_total",
      "bottleneckd_nic_queue_interrupt_seconds_total",
      "bottleneckd_profile_samples_total",
      "bottleneckd_profile_dropped_samples_total",
      "bottleneckd_profile_lost_stacks_total",
      "bottleneckd_network_info",
      "bottleneckd_network_receive_packets_total",
      "bottleneckd_network_transmit_packets_total",
      "bottleneckd_network_receive_bytes_total",
      "bottleneckd_network_transmit_bytes_total",
      "bottleneckd_network_device_statistic_total",
      "bottleneckd_network_driver_statistic",
      "bottleneckd_network_drops_total",
      "bottleneckd_netstat_total",
      "bottleneckd_netstat_level",
      "bottleneckd_thread_cpu_seconds_total",
      "bottleneckd_thread_last_cpu",
      "bottleneckd_thread_cpu_ratio",
      "bottleneckd_thread_context_switches_total",
      "bottleneckd_thread_state_ratio",
      "bottleneckd_pci_device_info",
      "bottleneckd_pci_fact_missing",
      "bottleneckd_pci_aer_errors_total",
      "bottleneckd_pci_link_info",
      "bottleneckd_bus_capacity_bytes_per_second",
      "bottleneckd_bus_assumption_info",
      "bottleneckd_bus_effective_capacity_bytes_per_second",
      "bottleneckd_bus_utilisation_ratio",
      "bottleneckd_bus_path_utilisation_ratio",
      "bottleneckd_bus_traffic_bytes_per_second",
      "bottleneckd_bus_model_info",
      "bottleneckd_verdict",
      "bottleneckd_verdict_info",
      "bottleneckd_verdict_confidence_ratio",
      "bottleneckd_verdict_score_ratio",
      "bottleneckd_utilisation_plateau",
      "bottleneckd_utilisation_plateau_level_ratio",
      "bottleneckd_run_active",
      "bottleneckd_capture_up",
      "bottleneckd_capture_packets_total",
      "bottleneckd_capture_bytes_total",
      "bottleneckd_capture_direction_packets_total",
      "bottleneckd_capture_direction_bytes_total",
      "bottleneckd_capture_requests_total",
      "bottleneckd_capture_replies_total",
      "bottleneckd_capture_echo_paired_total",
      "bottleneckd_capture_echo_lost_total",
      "bottleneckd_capture_unparsed_total",
      "bottleneckd_capture_drops_total",
      "bottleneckd_capture_packet_size_bytes",
      "bottleneckd_capture_turnaround_seconds",
      "bottleneckd_capture_trusted",
      "bottleneckd_capture_window_turnaround_seconds",
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "process_virtual_memory_bytes",
      "process_open_fds",
      "process_start_time_seconds",
      "process_max_fds",
      "bottleneckd_self_limit_exceeded",
      "bottleneckd_self_limit_cpu_budget_cores",
      "bottleneckd_self_limit_cpu_window_seconds",
      "bottleneckd_self_limit_memory_budget_bytes",
      "bottleneckd_self_cpu_usage_cores",
      "bottleneckd_collector_backoff",
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
        "vector",   "attach"}) {
    if (!prometheus::CheckLabelName(l)) {
      *bad = l;
      return false;
    }
  }
  return true;
}

}  // namespace bottleneckd
