#include "analysis/profile_evidence.h"

#include <cstdio>

#include "sources/profile_fold.h"

namespace bottleneckd {
namespace {

std::string Percent(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f %%", share * 100);
  return buf;
}

}  // namespace

std::string ProfileEvidence(const Verdict& v, const ProfileReading& profile, const Signals& s) {
  if (v.label != Bound::kCpu && v.label != Bound::kInterrupt) return "";
  int cpu = -1;
  std::vector<int> tids;
  const bool of_cpu = ResourceCpu(v.resource, &cpu);
  if (!of_cpu) {
    const std::string_view name = ResourceThread(v.resource);
    if (name.empty()) return "";
    for (const ThreadSignal& t : s.threads)
      if (t.thread == name) tids.push_back(t.tid);
    if (tids.empty()) return "";
  }
  auto keep = [&](const ProfileStack& st) {
    if (of_cpu) return st.cpu == cpu;
    for (int tid : tids)
      if (st.tid == tid) return true;
    return false;
  };
  uint64_t walked = 0;
  for (const ProfileStack& st : profile.stacks)
    if (keep(st)) walked += st.samples;
  if (walked == 0) return "";
  std::string out = v.resource + " on-CPU:";
  const char* sep = " ";
  for (const FunctionSamples& f : TopFunctionsOf(profile, kProfileEvidenceFunctions, keep)) {
    const double share = static_cast<double>(f.samples) / static_cast<double>(walked);
    if (share < kProfileEvidenceMinShare) break;
    out += sep + Percent(share) + " in " + f.function;
    sep = ", ";
  }
  out += " (" + std::to_string(walked) + " samples at " + std::to_string(profile.frequency_hz) + " Hz";
  if (of_cpu) {
    uint64_t busy = 0;
    for (const ProfileCpu& c : profile.cpus)
      if (c.cpu == cpu) busy = c.samples - c.idle;
    if (busy > walked) out += " of its " + std::to_string(busy) + " busy";
  }
  return out + ")";
}

}  // namespace bottleneckd
