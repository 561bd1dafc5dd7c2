// FetchFleet: the span and the range queries of the fleet report.
#include <algorithm>
#include <cmath>
#include <set>

#include "base/verdict_labels.h"
#include "fleet/fleet_report.h"
#include "runs/run_label.h"

namespace bottleneckd {

namespace {

std::string Join(const std::string& own, const std::string& matchers) {
  if (own.empty()) return "{" + matchers + "}";
  if (matchers.empty()) return "{" + own + "}";
  return "{" + own + "," + matchers + "}";
}

// A PromQL string literal: quotes and backslashes escaped.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string Duration(double seconds) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0fs", std::max(1.0, std::ceil(seconds)));
  return b;
}

// The step for a span: whole seconds, at least 1, at most max_steps steps.
double StepFor(double length, size_t max_steps) {
  return std::max(1.0, std::ceil(length / static_cast<double>(std::max<size_t>(max_steps, 1))));
}

void AddWarnings(const PromMatrix& m, std::vector<std::string>* out) {
  for (const std::string& w : m.warnings)
    if (std::find(out->begin(), out->end(), w) == out->end()) out->push_back(w);
}

// The first and last time any series of `m` has a point with value > 0.
bool Extent(const PromMatrix& m, double* first, double* last) {
  bool any = false;
  for (const PromSeries& s : m.series)
    for (const auto& [t, v] : s.points) {
      if (!(v > 0)) continue;
      *first = any ? std::min(*first, t) : t;
      *last = any ? std::max(*last, t) : t;
      any = true;
    }
  return any;
}

std::string SinceText(double seconds) {
  char b[64];
  if (seconds >= 86400 && std::fmod(seconds, 86400) == 0)
    std::snprintf(b, sizeof b, "%.0fd", seconds / 86400);
  else if (seconds >= 3600 && std::fmod(seconds, 3600) == 0)
    std::snprintf(b, sizeof b, "%.0fh", seconds / 3600);
  else
    std::snprintf(b, sizeof b, "%.0fs", seconds);
  return b;
}

}  // namespace

size_t FleetSpan::steps() const {
  if (!(step > 0) || end < start) return 0;
  return static_cast<size_t>(std::floor((end - start) / step + 1e-9)) + 1;
}

bool IsBoundLabel(const std::string& b) {
  Bound bound;
  return ParseBound(b, &bound) && IsLimit(bound);
}

// Each limit label's evidence: a switch over Bound, so a new label fails the
// build here until it has its own (base/verdict_labels.def).
std::string EvidenceName(const std::string& bound) {
  Bound b;
  if (!ParseBound(bound, &b)) return "";
  switch (b) {
    case Bound::kCpu: return "busiest CPU's busy ratio (/proc/stat)";
    case Bound::kInterrupt: return "busiest CPU's interrupt ratio (/proc/stat)";
    case Bound::kBus: return "busiest NIC bus path's utilisation";
    case Bound::kWait: return "receive drops per second (every rung)";
    case Bound::kNone:
    case Bound::kUndetermined: return "";
  }
  return "";
}

std::string EvidencePeakText(const std::string& bound, double peak) {
  char b[64];
  if (bound == BoundName(Bound::kWait)) {
    std::snprintf(b, sizeof b, "%.3g/s", peak);
  } else {  // the ratios: a share of a CPU or a link
    std::snprintf(b, sizeof b, "%.1f %%", peak * 100);
  }
  return EvidenceName(bound) + " " + b;
}

std::string EvidenceQuery(const std::string& bound, const std::string& m) {
  Bound b;
  if (!ParseBound(bound, &b)) return "";
  switch (b) {
    case Bound::kCpu:
      return "max by (instance, job) (bottleneckd_cpu_busy_ratio" + Join("source=\"accounting\"", m) + ")";
    case Bound::kInterrupt:
      return "max by (instance, job) (bottleneckd_cpu_interrupt_ratio" + Join("source=\"accounting\"", m) + ")";
    case Bound::kBus: return "max by (instance, job) (bottleneckd_bus_path_utilisation_ratio" + Join("", m) + ")";
    case Bound::kWait: return "sum by (instance, job) (rate(bottleneckd_network_drops_total" + Join("", m) + "[1m]))";
    case Bound::kNone:
    case Bound::kUndetermined: return "";
  }
  return "";
}

Status SelectorMatchers(const std::string& selector, std::string* matchers) {
  std::string s = selector;
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && blank(s.front())) s.erase(s.begin());
  while (!s.empty() && blank(s.back())) s.pop_back();
  auto bad = [&selector](const std::string& why) {
    return Status::InvalidArgument("--selector must be label matchers in braces, like '{job=\"bottleneckd\"}'" + why +
                                   ", got '" + selector + "'");
  };
  if (s.size() < 2 || s.front() != '{') return bad("");
  // One {...}: braces count only outside PromQL's quoted strings ("...",
  // '...' with backslash escapes, `...` raw), where a label value may hold any
  // character ({a="x{y}"}).
  char quote = 0;
  size_t close = std::string::npos;
  for (size_t i = 1; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == '\\' && quote != '`')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'' || c == '`') {
      quote = c;
    } else if (c == '{') {
      return bad("");
    } else if (c == '}') {
      close = i;
      break;
    }
  }
  if (quote) return bad(" (a quoted value is not closed)");
  if (close != s.size() - 1) return bad("");
  *matchers = s.substr(1, s.size() - 2);
  while (!matchers->empty() && (blank(matchers->back()) || matchers->back() == ',')) matchers->pop_back();
  return Status::OK();
}

Status FetchFleet(const PromClient& client, const FleetOptions& o, FleetData* out) {
  *out = FleetData();
  out->run = o.run;
  out->selector = o.selector;
  std::string m;
  BN_RETURN_IF_ERROR(SelectorMatchers(o.selector, &m));
  FleetSpan& span = out->span;
  if (!o.run.empty()) {
    // The run's span: a coarse pass over the whole look-back (max_over_time,
    // so a run shorter than a step is not missed between steps), then a fine
    // pass around what it found.
    const std::string series = "bottleneckd_run_active" + Join("run=" + Quote(RunLabel(o.run)), m);
    const double coarse = StepFor(o.since_seconds, o.max_steps);
    const double from = std::floor((o.now - o.since_seconds) / coarse) * coarse;
    PromMatrix found;
    BN_RETURN_IF_ERROR(
        client.QueryRange("max(max_over_time(" + series + "[" + Duration(coarse) + "]))", from, o.now, coarse, &found));
    AddWarnings(found, &out->warnings);
    double first = 0, last = 0;
    bool seen = Extent(found, &first, &last);
    // The grid's last point can sit up to a step before now (605 s at the 7d
    // default): the points at now - 1 and now cover the rest, so a run that
    // just ended is found at once (it read "no host had run ... active" for
    // ~10 min). Two points, not one: VictoriaMetrics answered a range query
    // with start == end and a 1 s step with nothing.
    const double tail_at = std::floor(o.now), tail_from = from + std::floor((o.now - from) / coarse) * coarse;
    if (tail_at > tail_from) {
      PromMatrix tail;
      BN_RETURN_IF_ERROR(
          client.QueryRange("max(max_over_time(" + series + "[" + Duration(tail_at - tail_from + 1) + "]))",
                            tail_at - 1, tail_at, 1, &tail));
      AddWarnings(tail, &out->warnings);
      double tail_first = 0, tail_last = 0;
      if (Extent(tail, &tail_first, &tail_last)) {
        if (!seen) first = tail_from;
        last = std::max(last, tail_last);
        seen = true;
      }
    }
    if (!seen)
      return Status::NotFound("no host matching " + o.selector + " had run '" + o.run + "' active in the last " +
                              SinceText(o.since_seconds) +
                              " (bottleneckd_run_active): check the name, or look further back with --since");
    const double fine_from = std::max(from, first - coarse), fine_to = std::min(o.now, last + coarse);
    const double fine = StepFor(fine_to - fine_from, o.max_steps);
    BN_RETURN_IF_ERROR(client.QueryRange("max by (instance, job) (" + series + ")", std::floor(fine_from / fine) * fine,
                                         std::floor(fine_to / fine) * fine, fine, &out->run_active));
    AddWarnings(out->run_active, &out->warnings);
    if (!Extent(out->run_active, &first, &last))
      return Status::NotFound("run '" + o.run +
                              "' was seen in the coarse pass but not in the fine one (its series "
                              "went away while the report read it?): run the report again");
    span.start = first;
    span.end = last;
  } else {
    span.start = o.now - o.since_seconds;
    span.end = o.now;
  }
  // The grid on multiples of the step: VictoriaMetrics aligns a range
  // query's start to its step, Prometheus does not; on the same grid both
  // answer the same points.
  span.step = StepFor(span.end - span.start, o.max_steps);
  span.start = std::floor(span.start / span.step) * span.step;
  span.end = std::max(span.start, std::floor(span.end / span.step) * span.step);
  struct Q {
    std::string query;
    PromMatrix* into;
  };
  const std::vector<Q> queries = {
      {"bottleneckd_verdict" + Join("", m) + " == 1", &out->verdict},
      {"bottleneckd_verdict_info" + Join("", m), &out->verdict_info},
      {"max by (instance, job) (bottleneckd_verdict_confidence_ratio" + Join("", m) + ")", &out->confidence},
      {"max by (instance, job) (bottleneckd_utilisation_plateau" + Join("", m) + ")", &out->plateau},
      {"max by (instance, job) (bottleneckd_utilisation_plateau_level_ratio" + Join("", m) + ")", &out->plateau_level},
  };
  for (const Q& q : queries) {
    BN_RETURN_IF_ERROR(client.QueryRange(q.query, span.start, span.end, span.step, q.into));
    AddWarnings(*q.into, &out->warnings);
  }
  if (out->verdict.series.empty())
    return Status::NotFound("no bottleneckd_verdict series match " + o.selector +
                            " in the span: check --selector (the job and instance labels the scrape gives) and "
                            "that Prometheus scrapes the daemons");
  std::set<std::string> bounds;
  for (const PromSeries& s : out->verdict.series) {
    auto b = s.labels.find("bound");
    if (b != s.labels.end() && IsBoundLabel(b->second)) bounds.insert(b->second);
  }
  for (const std::string& b : bounds) {
    PromMatrix& e = out->evidence[b];
    out->evidence_queries[b] = EvidenceQuery(b, m);
    BN_RETURN_IF_ERROR(client.QueryRange(out->evidence_queries[b], span.start, span.end, span.step, &e));
    AddWarnings(e, &out->warnings);
  }
  return Status::OK();
}

}  // namespace bottleneckd
