#include "exporters/report/report_profile.h"

#include <cstdio>

#include "sources/profile_fold.h"

namespace bottleneckd {

std::string EmptyProfileReason(const Report& r) {
  if (!r.profile_readings)
    return "the run store holds no count of the profiler's readings for this run (stored before schema version "
           "8): it cannot tell whether the profiler was loaded";
  if (*r.profile_readings == 0)
    return "the profiler was not loaded while the run ran (collectors.profile, CAP_BPF and CAP_PERFMON; the "
           "daemon's log says why at start)";
  return "the profiler was loaded for " + std::to_string(*r.profile_readings) +
         " of the run's windows and walked no stack: collectors.profile.stacks `named` (the default) walks the "
         "CPU a verdict named and the target threads (collectors.threads.targets), none of which ran while it "
         "sampled; `runs` walks every CPU while a run is active";
}

std::string ProfileText(const Report& r) {
  if (r.profile_of.empty()) return "";
  std::string o = "\non-CPU profile of run '" + r.profile_of + "': ";
  if (r.profile.samples == 0) return o + "none (" + EmptyProfileReason(r) + ")\n";
  o += std::to_string(r.profile.samples) + " samples; the functions they ran in (self):\n";
  for (const FunctionSamples& f : TopFunctions(r.profile, kReportTopFunctions)) {
    char share[16];
    std::snprintf(share, sizeof share, "%6.1f %%",
                  100.0 * static_cast<double>(f.samples) / static_cast<double>(r.profile.samples));
    o += std::string("  ") + share + "  " + f.function + "\n";
  }
  return o;
}

void WriteProfileJson(const Report& r, JsonWriter* w) {
  if (r.profile_of.empty()) {
    w->Null();
    return;
  }
  w->BeginObject();
  w->Key("run").String(r.profile_of);
  w->Key("samples").Integer(r.profile.samples);
  w->Key("stacks").Integer(r.profile.stacks.size());
  if (r.profile_readings) {
    w->Key("readings").Integer(*r.profile_readings);
  } else {
    w->Key("readings").Null();
  }
  if (r.profile.samples == 0) {
    w->Key("empty_because").String(EmptyProfileReason(r));
  } else {
    w->Key("empty_because").Null();
  }
  w->Key("top_functions").BeginArray();
  for (const FunctionSamples& f : TopFunctions(r.profile, kReportTopFunctions)) {
    w->BeginObject();
    w->Key("function").String(f.function);
    w->Key("samples").Integer(f.samples);
    w->Key("share").Number(static_cast<double>(f.samples) / static_cast<double>(r.profile.samples));
    w->EndObject();
  }
  w->EndArray();
  w->EndObject();
}

}  // namespace bottleneckd
