// Per-area builders of metric families, shared by exporters/prometheus/metrics*.cc only.
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

#include "daemon/snapshot.h"

namespace bottleneckd::internal {

using Families = std::vector<prometheus::MetricFamily>;

void AddCpuFamilies(const Snapshot& s, Families* out);
void AddCpuBudgetFamilies(const Snapshot& s, Families* out);
void AddSoakerFamilies(const Snapshot& s, Families* out);
void AddInterruptFamilies(const Snapshot& s, Families* out);
void AddSoftirqFamilies(const Snapshot& s, Families* out);
void AddIrqTimeFamilies(const Snapshot& s, Families* out);
// The profiler's counts (metrics_profile.cc), while it is loaded.
void AddProfileFamilies(const Snapshot& s, Families* out);
void AddNetworkFamilies(const Snapshot& s, Families* out);
void AddSocketFamilies(const Snapshot& s, Families* out);
void AddThreadFamilies(const Snapshot& s, Families* out);
void AddBusFamilies(const Snapshot& s, Families* out);
void AddVerdictFamilies(const Snapshot& s, Families* out);
// bottleneckd_run_active: the runs active now (metrics_runs.cc).
void AddRunFamilies(const Snapshot& s, Families* out);
void AddCaptureFamilies(const Snapshot& s, Families* out);
// The process_* families and the self-limit watchdog's (metrics_self.cc).
void AddSelfFamilies(const Snapshot& s, Families* out);

}  // namespace bottleneckd::internal
