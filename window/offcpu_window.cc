#include "window/offcpu_window.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "window/window.h"

namespace bottleneckd {
namespace {

// Sites below this share of the window are noise in the evidence.
constexpr double kMinSiteRatio = 0.001;

// One thread's site: its wakers' totals summed (offcpu_window.h).
struct SiteTotal {
  uint64_t ns = 0, count = 0;
  std::map<std::pair<int, bool>, uint64_t> ns_by_waker;  // (waker, softirq)
};
using SiteKey = std::tuple<bool, bool, std::string>;  // involuntary, sampled, where

std::map<SiteKey, SiteTotal> SitesOf(const OffCpuReading& r, int tid) {
  std::map<SiteKey, SiteTotal> out;
  for (const OffCpuSite& s : r.sites) {
    if (s.tid != tid) continue;
    SiteTotal& t = out[{s.involuntary, s.sampled, s.where}];
    t.ns += s.ns;
    t.count += s.count;
    t.ns_by_waker[{s.waker, s.waker_softirq}] += s.ns;
  }
  return out;
}

const OffCpuWaker* NameOf(const OffCpuReading& r, int tid) {
  auto it =
      std::lower_bound(r.wakers.begin(), r.wakers.end(), tid, [](const OffCpuWaker& w, int t) { return w.tid < t; });
  return it != r.wakers.end() && it->tid == tid ? &*it : nullptr;
}

// Wakers under this share of a site's time are left out.
constexpr double kMinWakerRatio = 0.01;

}  // namespace

bool Follows(const OffCpuReading& r, int tid) { return std::binary_search(r.tids.begin(), r.tids.end(), tid); }

std::optional<double> MeasuredMissed(const ThreadWindow& t) {
  if (!t.measured_waits || !t.waiting_ratio) return std::nullopt;
  double own = 0;
  for (const WaitSiteWindow& site : *t.measured_waits)
    if (!site.involuntary) own += site.ratio;
  const double waiting = *t.waiting_ratio;
  if (waiting - own < kUnmeasuredWaitMin || own >= kMeasuredCoverMin * waiting) return std::nullopt;
  return own;
}

std::optional<std::vector<WaitSiteWindow>> ComputeThreadWaits(const OffCpuReading& a, const OffCpuReading& b, int tid) {
  if (a.generation != b.generation || b.mono_ns <= a.mono_ns || !Follows(a, tid) || !Follows(b, tid))
    return std::nullopt;
  const double window_ns = static_cast<double>(b.mono_ns - a.mono_ns);
  struct Delta {
    const SiteKey* site;
    double ns, periods;
    std::map<std::pair<int, bool>, double> ns_by_waker;
  };
  const std::map<SiteKey, SiteTotal> before = SitesOf(a, tid), after = SitesOf(b, tid);
  std::vector<Delta> sampled;
  double sampled_ns = 0, all_ns = 0, unsampled_periods = 0;
  for (const auto& [key, s] : after) {
    auto was = before.find(key);
    const SiteTotal zero;
    const SiteTotal& s0 = was != before.end() ? was->second : zero;
    if (s.ns < s0.ns || s.count < s0.count) return std::nullopt;
    const double ns = static_cast<double>(s.ns - s0.ns), periods = static_cast<double>(s.count - s0.count);
    all_ns += ns;
    if (!std::get<1>(key)) {
      unsampled_periods += periods;
      continue;
    }
    Delta d{&key, ns, periods, {}};
    for (const auto& [waker, wns] : s.ns_by_waker) {
      if (waker.first == kWakerNotYet) continue;  // its waker not known yet: no one's share
      auto w0 = s0.ns_by_waker.find(waker);
      const uint64_t old = w0 != s0.ns_by_waker.end() ? w0->second : 0;
      if (wns > old) d.ns_by_waker[waker] = static_cast<double>(wns - old);
    }
    sampled.push_back(std::move(d));
    sampled_ns += ns;
  }
  // The sampled periods stand for all of them: their sites' time scaled to
  // the whole off-CPU time, their periods to all periods.
  const double scale = sampled_ns > 0 ? all_ns / sampled_ns : 1;
  double sampled_periods = 0;
  for (const Delta& d : sampled) sampled_periods += d.periods;
  const double period_scale = sampled_periods > 0 ? (sampled_periods + unsampled_periods) / sampled_periods : 1;
  std::map<std::pair<bool, std::string>, WaitSiteWindow> by_site;
  for (const Delta& d : sampled) {
    const auto& [involuntary, walked, where] = *d.site;
    WaitSiteWindow& w = by_site[{involuntary, where}];
    w.where = where;
    w.involuntary = involuntary;
    w.ratio += d.ns * scale / window_ns;
    w.periods_per_second += d.periods * period_scale / (window_ns / 1e9);
    // The wakers' parts: of the site's own time (each waker's grown total
    // over their sum: a period moved from "under way" to its waker counts once).
    double by_wakers = 0;
    for (const auto& [waker, ns] : d.ns_by_waker) by_wakers += ns;
    if (by_wakers <= 0 || d.ns <= 0) continue;
    for (const auto& [waker, ns] : d.ns_by_waker) {
      const double share = ns / by_wakers;
      if (share < kMinWakerRatio) continue;
      WakerShare ws;
      ws.tid = waker.first;
      ws.softirq = waker.second;
      if (const OffCpuWaker* n = waker.first > 0 ? NameOf(b, waker.first) : nullptr) {
        ws.pid = n->pid;
        ws.name = n->name;
      }
      ws.ratio = share;
      w.wakers.push_back(std::move(ws));
    }
  }
  if (sampled_ns == 0 && all_ns > 0) {  // none walked in the window: the time, no place
    WaitSiteWindow& w = by_site[{false, ""}];
    w.ratio = all_ns / window_ns;
    w.periods_per_second = unsampled_periods / (window_ns / 1e9);
  }
  std::vector<WaitSiteWindow> out;
  for (auto& [key, w] : by_site) {
    w.ratio = std::clamp(w.ratio, 0.0, 1.0);
    std::stable_sort(w.wakers.begin(), w.wakers.end(),
                     [](const WakerShare& x, const WakerShare& y) { return x.ratio > y.ratio; });
    if (w.ratio >= kMinSiteRatio) out.push_back(std::move(w));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const WaitSiteWindow& x, const WaitSiteWindow& y) { return x.ratio > y.ratio; });
  return out;
}

}  // namespace bottleneckd
