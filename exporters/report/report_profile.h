// A run's on-CPU profile and off-CPU stacks in the reports (`--report --run
// NAME`; the run's merged stacks, sources/profile_fold.h): the text's top
// functions and top waits, the JSON's `profile` and `offcpu` objects (the
// folded stacks are `--format folded` and `folded-offcpu`).
// Internal to exporters/report and cmd/.
#pragma once

#include <string>
#include <vector>

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

// Where a run's threads waited, from its off-CPU stacks: each stack as
// "THREAD: CALL [OBJECT]", CALL its innermost user frame (the call that
// blocked; "(kernel)" for a stack with none, "[user stack not kept]" for
// one whose user stack the map did not keep), [OBJECT] its leaf when the
// stack has one (window/offcpu_stacks.h), microseconds summed, most first.
std::vector<FunctionSamples> TopOffCpuWaits(const FoldedProfile& offcpu, size_t n);
// "\noff-CPU stacks of run 'NAME': S s off the CPU\n" then the top waits;
// "" for a report of no run.
std::string OffCpuText(const Report& r);
// {"run", "microseconds", "stacks", "empty_because", "top_waits": [{"wait",
// "microseconds", "share"}]}, or null for a report of no run.
void WriteOffCpuJson(const Report& r, JsonWriter* w);

}  // namespace bottleneckd
