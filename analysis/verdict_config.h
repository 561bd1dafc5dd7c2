// The verdict section of the config: the thresholds of the verdict rules
// (VerdictThresholds, docs/verdict-rules.md section 6), every one optional.
#pragma once

#include "analysis/verdict.h"
#include "base/config_reader.h"
#include "base/status.h"

namespace bottleneckd {

// Parses the section `n` over *out. Errors at the value's file:line:column.
Status ParseVerdict(const ConfigReader& r, const YAML::Node& n, VerdictThresholds* out);

}  // namespace bottleneckd
