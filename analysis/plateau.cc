#include "analysis/plateau.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

namespace bottleneckd {
namespace {

// The least and the most of steps[first..last]'s application utilisation,
// when every one of them has it.
std::optional<std::pair<double, double>> ApplicationRange(const std::vector<LoadStep>& steps, size_t first,
                                                          size_t last) {
  double lo = 1e9, hi = -1e9;
  for (size_t i = first; i <= last; ++i) {
    if (!steps[i].application_utilisation) return std::nullopt;
    lo = std::min(lo, *steps[i].application_utilisation);
    hi = std::max(hi, *steps[i].application_utilisation);
  }
  return std::make_pair(lo, hi);
}

// Whether steps[first..last] form a plateau under `o`.
bool IsPlateau(const std::vector<LoadStep>& steps, size_t first, size_t last, const PlateauOptions& o) {
  const LoadStep& a = steps[first];
  const LoadStep& b = steps[last];
  if (a.offered_packets_per_second <= 0) return false;
  if (b.offered_packets_per_second < a.offered_packets_per_second * (1 + o.offered_rise_min)) return false;
  double umin = a.utilisation, umax = a.utilisation;
  for (size_t i = first; i <= last; ++i) {
    const LoadStep& s = steps[i];
    if (i > first && s.offered_packets_per_second < steps[i - 1].offered_packets_per_second * (1 - o.offered_dip_max))
      return false;
    double rise = s.offered_packets_per_second / a.offered_packets_per_second - 1;
    double allowed = std::max(o.delivered_flat, o.delivered_elasticity * rise);
    if (s.delivered_packets_per_second > a.delivered_packets_per_second * (1 + allowed)) return false;
    umin = std::min(umin, s.utilisation);
    umax = std::max(umax, s.utilisation);
  }
  if (!(umin > o.utilisation_min && umax < o.utilisation_max)) return false;
  // Flat: the application's own CPU time where it is known. Its CPU's
  // utilisation also moves with other work: lab.echo's waiting echo in a
  // fresh-clone CI of 4e14549 ran 23-27 % of cpu1 in every step while cpu1
  // read 52-75 % busy, other tasks 0.5 % of it in one step and 28-31 % in
  // the others by the ticks (docs/verdict-rules.md section 10).
  std::optional<std::pair<double, double>> app = ApplicationRange(steps, first, last);
  return app ? app->second - app->first <= o.utilisation_band : umax - umin <= o.utilisation_band;
}

std::string Sentence(const std::vector<LoadStep>& steps, size_t first, size_t last, double level) {
  const LoadStep& a = steps[first];
  const LoadStep& b = steps[last];
  double umin = a.utilisation, umax = a.utilisation;
  for (size_t i = first; i <= last; ++i) {
    umin = std::min(umin, steps[i].utilisation);
    umax = std::max(umax, steps[i].utilisation);
  }
  double rise = b.offered_packets_per_second / a.offered_packets_per_second - 1;
  double change =
      a.delivered_packets_per_second > 0 ? b.delivered_packets_per_second / a.delivered_packets_per_second - 1 : 0;
  std::string own;
  if (std::optional<std::pair<double, double>> app = ApplicationRange(steps, first, last)) {
    char range[96];
    std::snprintf(range, sizeof range, ", its target threads' own share %.1f-%.1f %%,", app->first * 100,
                  app->second * 100);
    own = range;
  }
  char buf[384];
  std::snprintf(buf, sizeof buf,
                "offered %.0f -> %.0f packets/s (%+.1f %%) over %zu steps while utilisation stayed at "
                "%.1f-%.1f %% (mean %.1f %%)%s and delivered went %.0f -> %.0f packets/s (%+.1f %%)",
                a.offered_packets_per_second, b.offered_packets_per_second, rise * 100, last - first + 1, umin * 100,
                umax * 100, level * 100, own.c_str(), a.delivered_packets_per_second, b.delivered_packets_per_second,
                change * 100);
  return buf;
}

}  // namespace

PlateauOptions LivePlateauOptions() {
  PlateauOptions o;
  o.offered_rise_min = 0.15;
  o.delivered_flat = 0.07;
  return o;
}

Plateau DetectPlateau(const std::vector<LoadStep>& steps, const PlateauOptions& o) {
  Plateau p;
  size_t min_len = static_cast<size_t>(std::max(2, o.min_steps));
  size_t best_len = 0;
  for (size_t first = 0; first < steps.size(); ++first) {
    for (size_t last = first + min_len - 1; last < steps.size(); ++last) {
      size_t len = last - first + 1;
      if (len > best_len && IsPlateau(steps, first, last, o)) {
        best_len = len;
        p.first = first;
        p.last = last;
      }
    }
  }
  if (best_len == 0) return p;
  p.detected = true;
  double sum = 0;
  for (size_t i = p.first; i <= p.last; ++i) sum += steps[i].utilisation;
  p.level = sum / static_cast<double>(best_len);
  p.evidence = Sentence(steps, p.first, p.last, p.level);
  return p;
}

Mlfrr FindMlfrr(const std::vector<LoadStep>& steps, const LossTolerance& loss) {
  Mlfrr m;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (loss.Losing(steps[i].drops_per_second, steps[i].offered_packets_per_second)) {
      m.knee = i;
      m.first_losing_rung = steps[i].first_losing_rung;
      if (i > 0) m.rate = steps[i - 1].offered_packets_per_second;
      return m;
    }
  }
  if (!steps.empty() && steps.back().offered_packets_per_second > loss.floor_per_second)
    m.rate = steps.back().offered_packets_per_second;
  return m;
}

std::optional<double> CpuMicrosecondsPerPacket(const LoadStep& s) {
  if (!(s.delivered_packets_per_second > 0)) return std::nullopt;
  return s.cpu_seconds_per_second / s.delivered_packets_per_second * 1e6;
}

std::optional<double> CpuNanosecondsPerByte(const LoadStep& s) {
  if (!(s.received_bytes_per_second > 0)) return std::nullopt;
  return s.cpu_seconds_per_second / s.received_bytes_per_second * 1e9;
}

CpuCostCheck CheckThroughputTracksCpuCost(const std::vector<LoadStep>& steps, double tolerance) {
  CpuCostCheck c;
  std::vector<double> products, costs;
  for (const LoadStep& s : steps) {
    std::optional<double> cost = CpuMicrosecondsPerPacket(s);
    if (!cost) continue;
    costs.push_back(*cost);
    products.push_back(s.delivered_packets_per_second * *cost);
  }
  if (products.size() < 2) {
    c.why = "no: fewer than two runs delivered packets, nothing to compare";
    return c;
  }
  auto spread = [](const std::vector<double>& v) {
    auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    double mean = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    return mean > 0 ? (*hi - *lo) / mean : 0.0;
  };
  const double cost_spread = spread(costs), product_spread = spread(products);
  char b[320];
  if (cost_spread <= tolerance) {
    std::snprintf(b, sizeof b,
                  "no: the CPU cost per packet varied %.1f %% across the runs, not more than %.0f %%: with nothing "
                  "varied, nothing was tested",
                  cost_spread * 100, tolerance * 100);
  } else if (product_spread > tolerance) {
    std::snprintf(b, sizeof b,
                  "no: throughput x CPU cost per packet varied %.1f %% across the runs (more than %.0f %%) while the "
                  "cost varied %.1f %%: the CPU's work per second did not set the throughput",
                  product_spread * 100, tolerance * 100, cost_spread * 100);
  } else {
    c.tracks = true;
    std::snprintf(b, sizeof b,
                  "yes: the CPU cost per packet varied %.1f %% across the runs while throughput x cost stayed within "
                  "%.1f %%: the CPU's work per second is the limit",
                  cost_spread * 100, product_spread * 100);
  }
  c.why = b;
  return c;
}

bool ThroughputTracksCpuCost(const std::vector<LoadStep>& steps, double tolerance) {
  return CheckThroughputTracksCpuCost(steps, tolerance).tracks;
}

}  // namespace bottleneckd
