#include "window/offcpu_window.h"

#include <algorithm>
#include <map>
#include <utility>

namespace bottleneckd {
namespace {

// Sites below this share of the window are noise in the evidence.
constexpr double kMinSiteRatio = 0.001;

bool Follows(const OffCpuReading& r, int tid) { return std::binary_search(r.tids.begin(), r.tids.end(), tid); }

const OffCpuSite* Find(const OffCpuReading& r, const OffCpuSite& like) {
  for (const OffCpuSite& s : r.sites)
    if (s.tid == like.tid && s.involuntary == like.involuntary && s.sampled == like.sampled && s.where == like.where)
      return &s;
  return nullptr;
}

}  // namespace

std::optional<std::vector<WaitSiteWindow>> ComputeThreadWaits(const OffCpuReading& a, const OffCpuReading& b, int tid) {
  if (a.generation != b.generation || b.mono_ns <= a.mono_ns || !Follows(a, tid) || !Follows(b, tid))
    return std::nullopt;
  const double window_ns = static_cast<double>(b.mono_ns - a.mono_ns);
  struct Delta {
    const OffCpuSite* site;
    double ns, periods;
  };
  std::vector<Delta> sampled;
  double sampled_ns = 0, all_ns = 0, unsampled_periods = 0;
  for (const OffCpuSite& s : b.sites) {
    if (s.tid != tid) continue;
    const OffCpuSite* before = Find(a, s);
    const uint64_t ns0 = before ? before->ns : 0, n0 = before ? before->count : 0;
    if (s.ns < ns0 || s.count < n0) return std::nullopt;
    const double ns = static_cast<double>(s.ns - ns0), periods = static_cast<double>(s.count - n0);
    all_ns += ns;
    if (s.sampled) {
      sampled.push_back({&s, ns, periods});
      sampled_ns += ns;
    } else {
      unsampled_periods += periods;
    }
  }
  // The sampled periods stand for all of them: their sites' time scaled to
  // the whole off-CPU time, their periods to all periods.
  const double scale = sampled_ns > 0 ? all_ns / sampled_ns : 1;
  double sampled_periods = 0;
  for (const Delta& d : sampled) sampled_periods += d.periods;
  const double period_scale = sampled_periods > 0 ? (sampled_periods + unsampled_periods) / sampled_periods : 1;
  std::map<std::pair<bool, std::string>, WaitSiteWindow> by_site;
  for (const Delta& d : sampled) {
    WaitSiteWindow& w = by_site[{d.site->involuntary, d.site->where}];
    w.where = d.site->where;
    w.involuntary = d.site->involuntary;
    w.ratio += d.ns * scale / window_ns;
    w.periods_per_second += d.periods * period_scale / (window_ns / 1e9);
  }
  if (sampled_ns == 0 && all_ns > 0) {  // none walked in the window: the time, no place
    WaitSiteWindow& w = by_site[{false, ""}];
    w.ratio = all_ns / window_ns;
    w.periods_per_second = unsampled_periods / (window_ns / 1e9);
  }
  std::vector<WaitSiteWindow> out;
  for (auto& [key, w] : by_site) {
    w.ratio = std::clamp(w.ratio, 0.0, 1.0);
    if (w.ratio >= kMinSiteRatio) out.push_back(std::move(w));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const WaitSiteWindow& x, const WaitSiteWindow& y) { return x.ratio > y.ratio; });
  return out;
}

}  // namespace bottleneckd
