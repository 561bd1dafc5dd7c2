// A run's name as the value of the `run` label of bottleneckd_run_active
// (docs/metrics.md "Runs"): names may be 200 bytes, a label value is kept to
// kRunLabelBytes so that one long name cannot make a long series in every
// Prometheus that scrapes the host. The fleet report (fleet/) applies the same
// cut to the name it is asked for, so `--run NAME` finds a long name's runs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace bottleneckd {

inline constexpr size_t kRunLabelBytes = 64;

// `name` itself when it has at most kRunLabelBytes bytes, else its longest
// prefix of whole UTF-8 characters within that many bytes.
std::string RunLabel(std::string_view name);

}  // namespace bottleneckd
