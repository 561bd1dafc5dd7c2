#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/clock.h"
#include "fleet/fleet_render.h"

namespace bottleneckd {

namespace {

std::string Pad(std::string s, size_t w) {
  if (s.size() < w) s.resize(w, ' ');
  return s + " ";
}

std::string Subject(const FleetReport& r) { return r.run.empty() ? std::string("the span") : "run '" + r.run + "'"; }

}  // namespace

std::string FleetNumber(double v, const char* fmt) {
  char b[32];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

std::string FleetPercent(double share) {
  if (share <= 0) return "0 %";
  if (share < 0.005) return "<1 %";
  return FleetNumber(share * 100, "%.0f") + " %";
}

std::string FleetOffset(const FleetReport& r, double t) { return "+" + FleetNumber(t - r.span.start, "%.0f") + " s"; }

std::string FleetFirstLine(const FleetReport& r) {
  if (!r.limited_first) return "no host was bound in " + Subject(r);
  const FleetInstance& x = r.instances[*r.limited_first];
  return "limited first: " + x.instance + " (" + x.main_bound +
         (x.main_resource.empty() ? "" : ", " + x.main_resource) + ") at " + FleetOffset(r, *x.first_bound);
}

std::string FleetLongestLine(const FleetReport& r) {
  if (!r.limited_longest) return "";
  const FleetInstance& x = r.instances[*r.limited_longest];
  return "limited longest: " + x.instance + " (" + x.main_bound +
         (x.main_resource.empty() ? "" : ", " + x.main_resource) + "), bound " + FleetPercent(x.bound_share) + " of " +
         Subject(r);
}

std::string FleetText(const FleetReport& r) {
  std::string o = "fleet report from " + r.url + " " + r.selector + ": " + Subject(r) + ", " + FormatUtc(r.span.start) +
                  " to " + FormatUtc(r.span.end) + " (" + FleetNumber(r.span.end - r.span.start, "%.0f") + " s, step " +
                  FleetNumber(r.span.step, "%.0f") + " s), " + std::to_string(r.instances.size()) + " instance" +
                  (r.instances.size() == 1 ? "" : "s") + "\n";
  for (const std::string& w : r.warnings) o += "warning: the store's answer may be partial: " + w + "\n";
  o += FleetFirstLine(r) + "\n";
  if (std::string l = FleetLongestLine(r); !l.empty()) o += l + "\n";
  o += "\n";
  // One row of cells per instance under the header; each column as wide as
  // its widest cell (an instance or resource name has no length limit), the
  // last one ragged.
  const bool run = !r.run.empty();
  std::vector<std::vector<std::string>> rows;
  rows.push_back(
      {"instance", "in run", "bound", "share", "resource", "worst stretch", "conf", "plateau", "evidence (peak)"});
  for (const FleetInstance& x : r.instances) {
    std::string worst = "-", conf = "-", evidence = "-";
    if (x.worst) {
      worst = FleetOffset(r, x.worst->start) + " for " + FleetNumber(x.worst->end - x.worst->start, "%.0f") + " s";
      if (x.worst->bound != x.main_bound) worst += " (" + x.worst->bound + ")";
      conf = FleetNumber(x.worst->mean_confidence);
      if (x.worst->evidence_peak) evidence = EvidencePeakText(x.worst->bound, *x.worst->evidence_peak);
    }
    const std::string share = IsBoundLabel(x.main_bound) ? FleetPercent(x.bound_share) : FleetPercent(x.coverage);
    rows.push_back({x.instance + (x.job.empty() ? "" : " (" + x.job + ")"), x.in_run ? "yes" : "no", x.main_bound,
                    share, x.main_resource.empty() ? "-" : x.main_resource, worst, conf,
                    x.plateau_share > 0 ? FleetPercent(x.plateau_share) + " @" + FleetNumber(x.plateau_level) : "-",
                    evidence});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c == 1 && !run) continue;  // "in run": only for a run
      line += c + 1 < row.size() ? Pad(row[c], width[c]) : row[c];
    }
    o += line + "\n";
  }
  bool partial = false;
  for (const FleetInstance& x : r.instances) partial |= x.coverage < 0.9;
  if (partial)
    o += "\nshare: of the span's steps; an instance with verdicts in under 90 % of them was not scraped all along.\n";
  return o;
}

}  // namespace bottleneckd
