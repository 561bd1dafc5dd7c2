#include "exporters/report/report_profile.h"

#include <cstdio>

#include "sources/profile_fold.h"

namespace bottleneckd {

std::string ProfileText(const Report& r) {
  if (r.profile_of.empty()) return "";
  std::string o = "\non-CPU profile of run '" + r.profile_of + "': ";
  if (r.profile.samples == 0)
    return o + "none (the profiler was not loaded: collectors.profile, CAP_BPF and CAP_PERFMON)\n";
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
