// AnalyzeFleet: each instance's verdict over the span, and the run's answer.
// Everything is counted on the span's step grid: a label's share is the
// steps it held over all the span's steps (a host that was down part of the
// span has less coverage, not a larger share of what remained).
#include <algorithm>
#include <cmath>
#include <set>

#include "fleet/fleet_report.h"

namespace bottleneckd {

namespace {

using Key = std::pair<std::string, std::string>;  // instance, job

Key KeyOf(const PromSeries& s) {
  auto get = [&](const char* k) {
    auto it = s.labels.find(k);
    return it == s.labels.end() ? std::string() : it->second;
  };
  return {get("instance"), get("job")};
}

// The grid index of time t, or -1 when it is not on the grid.
long Index(const FleetSpan& span, double t) {
  double i = std::round((t - span.start) / span.step);
  if (i < 0 || i >= static_cast<double>(span.steps()) || std::fabs(span.start + i * span.step - t) > span.step / 4)
    return -1;
  return static_cast<long>(i);
}

// One value per grid step for each instance (NaN: none).
std::map<Key, std::vector<double>> Gridded(const PromMatrix& m, const FleetSpan& span) {
  std::map<Key, std::vector<double>> out;
  for (const PromSeries& s : m.series) {
    std::vector<double>& g = out[KeyOf(s)];
    g.resize(span.steps(), std::nan(""));
    for (const auto& [t, v] : s.points) {
      long i = Index(span, t);
      if (i >= 0 && std::isfinite(v)) g[i] = std::isnan(g[i]) ? v : std::max(g[i], v);
    }
  }
  return out;
}

struct Cell {
  const std::string* bound = nullptr;
  const std::string* resource = nullptr;
};

}  // namespace

FleetReport AnalyzeFleet(const FleetData& data, const std::string& url) {
  FleetReport r;
  r.url = url;
  r.selector = data.selector;
  r.run = data.run;
  r.span = data.span;
  r.warnings = data.warnings;
  const FleetSpan& span = data.span;
  const size_t n = span.steps();
  if (n == 0) return r;

  // Each instance's label at each step: the bottleneckd_verdict series that
  // read 1 there (always exported, so a store's look-back never shows a
  // label the host had left). Two at one step (a scrape caught mid-change by
  // a store without staleness markers) give the bound label over none or
  // undetermined, so a host is never shown less bound than it said it was.
  // The resource is the verdict_info series of that label at that step.
  static const std::string kNoResource;
  std::map<Key, std::vector<Cell>> cells;
  for (const PromSeries& s : data.verdict.series) {
    auto b = s.labels.find("bound");
    if (b == s.labels.end()) continue;
    std::vector<Cell>& c = cells[KeyOf(s)];
    c.resize(n);
    for (const auto& [t, v] : s.points) {
      long i = Index(span, t);
      if (i < 0 || !(v > 0)) continue;
      if (c[i].bound && IsBoundLabel(*c[i].bound) && !IsBoundLabel(b->second)) continue;
      c[i].bound = &b->second;
      c[i].resource = &kNoResource;
    }
  }
  for (const PromSeries& s : data.verdict_info.series) {
    auto b = s.labels.find("bound");
    auto res = s.labels.find("resource");
    auto it = cells.find(KeyOf(s));
    if (b == s.labels.end() || res == s.labels.end() || it == cells.end()) continue;
    for (const auto& [t, v] : s.points) {
      long i = Index(span, t);
      if (i >= 0 && v > 0 && it->second[i].bound && *it->second[i].bound == b->second)
        it->second[i].resource = &res->second;
    }
  }
  const auto confidence = Gridded(data.confidence, span);
  const auto plateau = Gridded(data.plateau, span);
  const auto level = Gridded(data.plateau_level, span);
  const auto in_run = Gridded(data.run_active, span);
  std::map<std::string, std::map<Key, std::vector<double>>> evidence;
  for (const auto& [bound, m] : data.evidence) evidence[bound] = Gridded(m, span);
  auto at = [](const std::map<Key, std::vector<double>>& g, const Key& k, size_t i) {
    auto it = g.find(k);
    return it == g.end() || i >= it->second.size() ? std::nan("") : it->second[i];
  };

  for (const auto& [key, c] : cells) {
    FleetInstance inst;
    inst.instance = key.first;
    inst.job = key.second;
    if (auto it = in_run.find(key); it != in_run.end())
      inst.in_run = std::any_of(it->second.begin(), it->second.end(), [](double v) { return v > 0; });
    std::map<std::string, size_t> count;
    std::map<std::string, std::map<std::string, size_t>> resources;
    size_t covered = 0, on_plateau = 0;
    std::optional<FleetStretch> current;
    std::vector<double> stretch_confidence;
    auto close = [&](size_t end_index) {
      if (!current) return;
      current->end = span.start + static_cast<double>(end_index) * span.step;
      double sum = 0;
      size_t k = 0;
      for (double v : stretch_confidence)
        if (!std::isnan(v)) sum += v, ++k;
      current->mean_confidence = k ? sum / static_cast<double>(k) : 0;
      if (!inst.worst || current->end - current->start > inst.worst->end - inst.worst->start) inst.worst = current;
      current.reset();
      stretch_confidence.clear();
    };
    for (size_t i = 0; i < n; ++i) {
      const double t = span.start + static_cast<double>(i) * span.step;
      if (double p = at(plateau, key, i); p > 0) ++on_plateau;
      if (double l = at(level, key, i); l > inst.plateau_level) inst.plateau_level = l;
      if (!c[i].bound) {
        close(i);
        continue;
      }
      ++covered;
      const std::string& b = *c[i].bound;
      ++count[b];
      if (!IsBoundLabel(b)) {
        close(i);
        continue;
      }
      ++resources[b][*c[i].resource];
      if (!inst.first_bound) inst.first_bound = t;
      if (current && current->bound != b) close(i);
      if (!current) {
        current = FleetStretch{t, t, b, *c[i].resource, 0, std::nullopt};
      }
      stretch_confidence.push_back(at(confidence, key, i));
      if (auto e = evidence.find(b); e != evidence.end()) {
        double v = at(e->second, key, i);
        if (!std::isnan(v)) current->evidence_peak = std::max(current->evidence_peak.value_or(v), v);
      }
    }
    close(n);
    const double steps = static_cast<double>(n);
    inst.coverage = static_cast<double>(covered) / steps;
    size_t bound_steps = 0, best = 0;
    for (const auto& [b, k] : count) {
      inst.share[b] = static_cast<double>(k) / steps;
      if (!IsBoundLabel(b)) continue;
      bound_steps += k;
      if (k > best) best = k, inst.main_bound = b;
    }
    inst.bound_share = static_cast<double>(bound_steps) / steps;
    inst.plateau_share = static_cast<double>(on_plateau) / steps;
    if (IsBoundLabel(inst.main_bound)) {
      size_t most = 0;
      for (const auto& [res, k] : resources[inst.main_bound])
        if (k > most) most = k, inst.main_resource = res;
    }
    // The worst stretch names the resource it held most.
    if (inst.worst) {
      std::map<std::string, size_t> within;
      for (size_t i = 0; i < n; ++i) {
        const double t = span.start + static_cast<double>(i) * span.step;
        if (t >= inst.worst->start && t < inst.worst->end && c[i].bound && *c[i].bound == inst.worst->bound)
          ++within[*c[i].resource];
      }
      size_t most = 0;
      for (const auto& [res, k] : within)
        if (k > most) most = k, inst.worst->resource = res;
    }
    inst.evidence_name = EvidenceName(inst.main_bound);
    if (auto q = data.evidence_queries.find(inst.main_bound); q != data.evidence_queries.end())
      inst.evidence_query = q->second;
    r.instances.push_back(std::move(inst));
  }
  std::stable_sort(r.instances.begin(), r.instances.end(), [](const FleetInstance& a, const FleetInstance& b) {
    if (a.bound_share != b.bound_share) return a.bound_share > b.bound_share;
    return std::tie(a.instance, a.job) < std::tie(b.instance, b.job);
  });
  for (size_t i = 0; i < r.instances.size(); ++i) {
    const FleetInstance& x = r.instances[i];
    if (!x.first_bound) continue;
    if (!r.limited_first || *x.first_bound < *r.instances[*r.limited_first].first_bound) r.limited_first = i;
    if (!r.limited_longest) r.limited_longest = i;  // sorted: the first bound one is the longest
  }
  return r;
}

}  // namespace bottleneckd
