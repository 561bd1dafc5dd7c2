// The fleet report: what limited each host, and a run across hosts, read
// from a Prometheus-compatible query API (docs/fleet.md). Three steps:
//   FetchFleet     the span (from a run's bottleneckd_run_active series, or
//                  --since) and the range queries over it   -> FleetData
//   AnalyzeFleet   per instance: each label's share, the worst stretch and
//                  the evidence behind it; for the run: which host was bound
//                  first and which longest (pure)             -> FleetReport
//   FleetText/Json/Html                                       (fleet_render.h)
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "fleet/prom_client.h"
#include "fleet/prom_response.h"

namespace bottleneckd {

struct FleetOptions {
  std::string selector = "{}";  // PromQL label matchers, braces included: {job="bottleneckd"}
  std::string run;              // the run's name; "" for the span [now - since, now]
  // Without a run: the span's length. With one: how far back to look for it.
  double since_seconds = 3600;
  double now = 0;           // Unix seconds (the caller's clock)
  size_t max_steps = 1000;  // the span is read at most this many steps (at least 1 s each)
};

struct FleetSpan {
  double start = 0, end = 0, step = 1;
  size_t steps() const;  // grid points start, start + step, ..., <= end
};

// What FetchFleet read: the range queries' answers, as the API gave them.
struct FleetData {
  FleetSpan span;
  std::string run;  // as asked ("" when none)
  std::string selector;
  PromMatrix verdict;                          // bottleneckd_verdict == 1: the label each instance held, by bound
  PromMatrix verdict_info;                     // bottleneckd_verdict_info: the resource each label named
  PromMatrix confidence;                       // bottleneckd_verdict_confidence_ratio
  PromMatrix plateau;                          // bottleneckd_utilisation_plateau
  PromMatrix plateau_level;                    // bottleneckd_utilisation_plateau_level_ratio
  PromMatrix run_active;                       // max by (instance, job) of the run's series (with a run)
  std::map<std::string, PromMatrix> evidence;  // by bound: the series behind the label (EvidenceQuery)
  std::map<std::string, std::string> evidence_queries;  // by bound: the query that read it
  std::vector<std::string> warnings;                    // every answer's, once each
};

// The series behind a label, one per instance: cpu, the busiest CPU's busy
// ratio; interrupt, the busiest CPU's interrupt share; bus, the busiest NIC
// bus path; wait, receive drops per second. "" for the other labels.
std::string EvidenceQuery(const std::string& bound, const std::string& matchers);
std::string EvidenceName(const std::string& bound);
// EvidenceName with the peak in its unit: "busiest CPU's busy ratio
// (/proc/stat) 98.2 %" for the ratios, "... 1.2e+03/s" for wait's drops.
std::string EvidencePeakText(const std::string& bound, double peak);

// A selector's matchers without braces ("{job=\"x\"}" -> "job=\"x\""), for
// joining with a query's own. InvalidArgument unless it is one {...}.
Status SelectorMatchers(const std::string& selector, std::string* matchers);

// Resolves the span and runs the queries. NotFound (one clear line) for a
// run no host of the selector had active since --since, or a selector that
// matches no bottleneckd verdicts in the span; the client's errors as they are.
Status FetchFleet(const PromClient& client, const FleetOptions& o, FleetData* out);

struct FleetStretch {  // consecutive steps under one bound label
  double start = 0, end = 0;
  std::string bound, resource;
  double mean_confidence = 0;
  std::optional<double> evidence_peak;  // the evidence series' highest value in it
};

struct FleetInstance {
  std::string instance, job;
  bool in_run = false;                          // had the run active (with a run)
  double coverage = 0;                          // share of the span's steps with a verdict
  std::map<std::string, double> share;          // each label's share of the span's steps
  double bound_share = 0;                       // cpu + interrupt + bus + wait
  std::string main_bound = "none";              // the bound label held most ("none" if never bound)
  std::string main_resource;                    // what it named most under that label
  std::optional<double> first_bound;            // first step bound (Unix seconds)
  std::optional<FleetStretch> worst;            // the longest bound stretch (ties: the earlier)
  double plateau_share = 0, plateau_level = 0;  // share of steps on a plateau; its highest level
  std::string evidence_name, evidence_query;    // behind main_bound
};

struct FleetReport {
  std::string url, selector, run;
  FleetSpan span;
  std::vector<FleetInstance> instances;  // bound longest first, then by name
  // The run's (or the span's) answer: indexes into instances; unset when no
  // instance was bound.
  std::optional<size_t> limited_first, limited_longest;
  std::vector<std::string> warnings;
};

FleetReport AnalyzeFleet(const FleetData& data, const std::string& url);

// The labels a host can be "bound" by (the rest: none, undetermined).
bool IsBoundLabel(const std::string& bound);

}  // namespace bottleneckd
