// Per-area builders of metric families, shared by exporters/prometheus/metrics*.cc only.
#pragma once

#include "analysis/snapshot.h"
#include "exporters/prometheus/family_builder.h"

namespace bottleneckd::internal {

void AddCpuFamilies(const Snapshot& s, MetricsOut* out);
void AddCpuBudgetFamilies(const Snapshot& s, MetricsOut* out);
void AddSoakerFamilies(const Snapshot& s, MetricsOut* out);
void AddInterruptFamilies(const Snapshot& s, MetricsOut* out);
void AddSoftirqFamilies(const Snapshot& s, MetricsOut* out);
void AddIrqTimeFamilies(const Snapshot& s, MetricsOut* out);
// The profiler's counts (metrics_profile.cc), while it is loaded.
void AddProfileFamilies(const Snapshot& s, MetricsOut* out);
void AddNetworkFamilies(const Snapshot& s, MetricsOut* out);
void AddSocketFamilies(const Snapshot& s, MetricsOut* out);
void AddThreadFamilies(const Snapshot& s, MetricsOut* out);
void AddBusFamilies(const Snapshot& s, MetricsOut* out);
void AddVerdictFamilies(const Snapshot& s, MetricsOut* out);
// bottleneckd_run_active: the runs active now (metrics_runs.cc).
void AddRunFamilies(const Snapshot& s, MetricsOut* out);
void AddCaptureFamilies(const Snapshot& s, MetricsOut* out);
// The process_* families and the self-limit watchdog's (metrics_self.cc).
void AddSelfFamilies(const Snapshot& s, MetricsOut* out);

}  // namespace bottleneckd::internal
