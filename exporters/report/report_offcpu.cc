// A run's off-CPU stacks in the text and JSON reports (report_profile.h).
#include <algorithm>
#include <cstdio>
#include <map>

#include "exporters/report/report_profile.h"

namespace bottleneckd {
namespace {

// "THREAD: CALL [OBJECT]" of one folded off-CPU stack.
std::string WaitOf(std::string_view stack) {
  std::vector<std::string_view> frames;
  while (!stack.empty()) {
    size_t semi = stack.find(';');
    frames.push_back(stack.substr(0, semi));
    stack = semi == std::string_view::npos ? std::string_view() : stack.substr(semi + 1);
  }
  if (frames.empty()) return "";
  std::string_view object, call, lost;
  size_t end = frames.size();
  if (end > 1 && frames[end - 1].starts_with('[')) object = frames[--end];
  for (size_t i = 1; i < end; ++i) {
    if (frames[i].ends_with(" [kernel]")) break;
    if (frames[i] == "[user stack not kept]") lost = frames[i];
    if (!frames[i].starts_with('[')) call = frames[i];
  }
  // No user frame: a kernel thread's, or a user stack the map did not keep.
  if (call.empty()) call = lost.empty() ? "(kernel)" : lost;
  std::string out = std::string(frames[0]) + ": " + std::string(call);
  if (!object.empty()) out += " " + std::string(object);
  return out;
}

std::string Seconds(uint64_t us) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", static_cast<double>(us) / 1e6);
  return b;
}

}  // namespace

std::string EmptyOffCpuReason(const Report& r) {
  if (!r.offcpu_readings)
    return "the run store holds no count of offcpu's readings for this run (stored before schema version 11): "
           "offcpu follows the target threads (collectors.threads.targets) and the run's command, and needs "
           "CAP_BPF, CAP_PERFMON and the kernel's BTF; a store older than schema version 10 keeps no off-CPU stacks";
  if (*r.offcpu_readings == 0)
    return "offcpu was not loaded while the run ran (collectors.offcpu.enabled, CAP_BPF and CAP_PERFMON, the "
           "kernel's BTF; the daemon's log says why at start)";
  return "offcpu was loaded for " + std::to_string(*r.offcpu_readings) +
         " of the run's windows and measured no time off the CPU: it follows the target threads "
         "(collectors.threads.targets) and the run's command, and none of them was found, or none left the CPU "
         "while followed";
}

std::vector<FunctionSamples> TopOffCpuWaits(const FoldedProfile& offcpu, size_t n) {
  std::map<std::string, uint64_t> by_wait;
  for (const auto& [stack, us] : offcpu.stacks) by_wait[WaitOf(stack)] += us;
  std::vector<FunctionSamples> out;
  for (auto& [wait, us] : by_wait) out.push_back({wait, us});
  std::stable_sort(out.begin(), out.end(),
                   [](const FunctionSamples& a, const FunctionSamples& b) { return a.samples > b.samples; });
  if (out.size() > n) out.resize(n);
  return out;
}

std::string OffCpuText(const Report& r) {
  if (r.profile_of.empty()) return "";
  std::string o = "\noff-CPU stacks of run '" + r.profile_of + "': ";
  if (r.offcpu.samples == 0) return o + "none (" + EmptyOffCpuReason(r) + ")\n";
  o += Seconds(r.offcpu.samples) + " s off the CPU (its target threads together); where they waited:\n";
  for (const FunctionSamples& f : TopOffCpuWaits(r.offcpu, kReportTopFunctions)) {
    char share[16];
    std::snprintf(share, sizeof share, "%6.1f %%",
                  100.0 * static_cast<double>(f.samples) / static_cast<double>(r.offcpu.samples));
    o += std::string("  ") + share + "  " + f.function + "\n";
  }
  return o;
}

void WriteOffCpuJson(const Report& r, JsonWriter* w) {
  if (r.profile_of.empty()) {
    w->Null();
    return;
  }
  w->BeginObject();
  w->Key("run").String(r.profile_of);
  w->Key("microseconds").Integer(r.offcpu.samples);
  w->Key("stacks").Integer(r.offcpu.stacks.size());
  if (r.offcpu_readings) {
    w->Key("readings").Integer(*r.offcpu_readings);
  } else {
    w->Key("readings").Null();
  }
  if (r.offcpu.samples == 0) {
    w->Key("empty_because").String(EmptyOffCpuReason(r));
  } else {
    w->Key("empty_because").Null();
  }
  w->Key("top_waits").BeginArray();
  for (const FunctionSamples& f : TopOffCpuWaits(r.offcpu, kReportTopFunctions)) {
    w->BeginObject();
    w->Key("wait").String(f.function);
    w->Key("microseconds").Integer(f.samples);
    w->Key("share").Number(static_cast<double>(f.samples) / static_cast<double>(r.offcpu.samples));
    w->EndObject();
  }
  w->EndArray();
  w->EndObject();
}

}  // namespace bottleneckd
