// A run's on-CPU profile in the reports (`--report --run NAME`; the run's
// merged stacks, sources/profile_fold.h): the text's top functions, the
// JSON's `profile` object and the folded stacks of `--format folded`.
// Internal to exporters/report and cmd/.
#pragma once

#include <string>

#include "exporters/report/json_writer.h"
#include "exporters/report/report.h"

namespace bottleneckd {

// Functions the text and JSON list, most self samples first.
inline constexpr size_t kReportTopFunctions = 10;

// "\non-CPU profile of run 'NAME': N samples\n" then one line per top
// function ("   71.4 %  copy_loop (udpecho)"); "" for a report of no run
// (--last, a recording) and a line saying so for a run with no profile.
std::string ProfileText(const Report& r);
// {"run", "samples", "top_functions": [{"function", "samples", "share"}]}, or
// null for a report of no run.
void WriteProfileJson(const Report& r, JsonWriter* w);

}  // namespace bottleneckd
