#include "exporters/report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include "analysis/segments.h"
#include "analysis/signals.h"
#include "daemon/replay.h"
#include "exporters/report/json_util.h"

namespace bottleneckd {

namespace {

// The plateau, MLFRR and sensitivity check across r's runs.
void SetSweep(const LossTolerance& loss, Report* r) {
  SweepAnalysis sweep = AnalyseSweep(r->runs, loss);
  r->plateau = sweep.plateau;
  r->mlfrr = sweep.mlfrr;
  r->throughput_tracks_cpu_cost = sweep.throughput_tracks_cpu_cost;
}

}  // namespace

Status BuildStoreReport(RunStore* store, const std::string& run, size_t last, const LossTolerance& loss, Report* out) {
  *out = Report();
  out->store = store->path();
  RunQuery q;
  if (run.empty()) {
    q.parent_id = 0;
    q.limit = last;
    BN_RETURN_IF_ERROR(store->ListRuns(q, &out->runs));
    std::reverse(out->runs.begin(), out->runs.end());  // oldest first, like a sweep
    SetSweep(loss, out);
    return Status::OK();
  }
  q.name = run;
  q.limit = 1;
  std::vector<RunReport> found;
  BN_RETURN_IF_ERROR(store->ListRuns(q, &found));
  if (found.empty()) return Status::NotFound("no run named '" + run + "' in " + store->path());
  RunQuery segs;
  segs.parent_id = found[0].id;
  segs.limit = 0;
  std::vector<RunReport> segments;
  BN_RETURN_IF_ERROR(store->ListRuns(segs, &segments));
  *out = ReportOfRun(found[0], std::move(segments), loss);
  out->store = store->path();
  return Status::OK();
}

Report ReportOfRun(const RunReport& run, std::vector<RunReport> segments, const LossTolerance& loss) {
  Report out;
  std::stable_sort(segments.begin(), segments.end(),
                   [](const RunReport& a, const RunReport& b) { return a.start < b.start; });
  if (segments.empty()) {
    out.runs.push_back(run);
  } else {
    out.parent = run;
    out.runs = std::move(segments);
  }
  out.flows = true;
  SetSweep(loss, &out);
  return out;
}

std::string FinishedRunText(const RunReport& run, const std::vector<RunReport>& segments, const LossTolerance& loss) {
  return ReportBody(ReportOfRun(run, segments, loss));
}

namespace {

std::string Kpps(double packets) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1fkpps", packets / 1e3);
  return b;
}

std::string Mbps(double bits) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1fMbps", bits / 1e6);
  return b;
}

// Unix seconds as local "2026-11-30 14:02:11".
std::string FormatTime(double t) {
  time_t secs = static_cast<time_t>(t);
  struct tm tm;
  localtime_r(&secs, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", &tm);
  return b;
}

std::string FormatSeconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f s", s);
  return b;
}

template <typename T>
std::string JsonOptional(const std::optional<T>& v) {
  return v ? JsonNumber(*v) : "null";
}

std::string U(uint64_t v) { return std::to_string(v); }

bool HasCapture(const RunReport& x) {
  return x.applied_per_second || x.echoed_per_second || x.echo_loss_ratio || x.turnaround_p99_seconds ||
         x.capture_drops_per_second;
}

// "%.<digits>f" of v x scale with `unit`, or "-" when unset.
std::string Fixed(const std::optional<double>& v, double scale, int digits, const char* unit) {
  if (!v) return "-";
  char b[48];
  std::snprintf(b, sizeof b, "%.*f%s", digits, *v * scale, unit);
  return b;
}

// The run's flows as a small table under its evidence.
void AppendFlows(const RunReport& x, std::string* o) {
  if (x.flows.empty()) return;
  int width = 4;
  for (const RunFlow& f : x.flows) width = std::max(width, static_cast<int>(f.flow.size()));
  char b[512];
  *o += "    flows (most packets first):\n";
  std::snprintf(b, sizeof b, "      %-*s %10s %10s %10s %12s\n", width, "flow", "requests", "replies", "lost",
                "packets");
  *o += b;
  for (const RunFlow& f : x.flows) {
    std::snprintf(b, sizeof b, "      %-*s %10s %10s %10s %12s\n", width, f.flow.c_str(), U(f.requests).c_str(),
                  U(f.replies).c_str(), U(f.lost).c_str(), U(f.packets).c_str());
    *o += b;
  }
}

}  // namespace

Status BuildReplayReport(const std::string& dir, const Config& config, Report* out) {
  *out = Report();
  out->recording = dir;
  std::vector<TimelinePoint> points;
  std::vector<Verdict> verdicts;  // each point's, with its evidence
  int64_t first_mono = 0;
  bool first = true;
  Sample prev;
  BN_RETURN_IF_ERROR(ReplayRecording(
      dir, config,
      [&](const Snapshot& snap) {
        if (first) first = false, first_mono = snap.sample.mono_ns;
        if (snap.window && snap.verdict) {
          double t = static_cast<double>(snap.window->end_mono_ns - first_mono) / 1e9;
          Signals s = ExtractSignals(*snap.window, prev, snap.sample, snap.bus_paths.get(),
                                     snap.bus ? &*snap.bus : nullptr, config.verdict.signal_options());
          points.push_back(PointOfWindow(t, s, *snap.verdict));
          verdicts.push_back(*snap.verdict);
        }
        prev = snap.sample;
      },
      &out->info));
  std::vector<RecordingRun> runs = out->info.runs;
  if (runs.empty()) {
    // No runs given: the steady load phases, like a live run's segments.
    std::vector<double> offered;
    for (const TimelinePoint& p : points) offered.push_back(p.offered_packets_per_second);
    double interval = out->info.interval_seconds;
    for (const Segment& seg : FindSegments(offered, config.runs.tracker.segment)) {
      RecordingRun r;
      char name[64];
      std::snprintf(name, sizeof name, "step %zu (%.0f pps)", runs.size() + 1, seg.level);
      r.name = name;
      // Runs hold the windows ending in (start, end]: one window before the first.
      r.start = points[seg.first].t - interval * 0.5;
      r.end = points[seg.last].t;
      runs.push_back(r);
    }
  }
  if (runs.empty()) {
    RecordingRun all;
    all.name = "recording";
    all.start = 0;
    all.end = points.empty() ? 0 : points.back().t;
    runs.push_back(all);
  }
  for (const RecordingRun& run : runs) {
    RunReport r;
    r.name = run.name;
    r.source = "recording";
    r.state = "finished";
    r.start = run.start;
    r.end = run.end;
    r.offered_bits_per_second = run.offered_bits_per_second;
    r.expected_label = run.expected_label;
    r.expected_resource = run.expected_resource;
    size_t first_in = points.size(), n = 0;
    for (size_t i = 0; i < points.size(); ++i)
      if (points[i].t > run.start && points[i].t <= run.end) first_in = std::min(first_in, i), ++n;
    // A recording's own runs start at the load step; segments already
    // start after it, but the verdict's hysteresis still lags it.
    size_t settle = n > kSettleWindows ? kSettleWindows : 0;
    std::vector<TimelinePoint> settled;
    VerdictEvidence evidence;  // the run's latest sentences per label
    for (size_t i = first_in + settle; i < first_in + n; ++i) {
      settled.push_back(points[i]);
      evidence[{static_cast<int>(verdicts[i].label), verdicts[i].resource}] = verdicts[i];
    }
    Summarise(settled, &evidence, &r);
    if (run.offered_packets_per_second) r.offered_packets_per_second = *run.offered_packets_per_second;
    out->runs.push_back(std::move(r));
  }
  SetSweep(config.verdict.loss(), out);
  return Status::OK();
}

std::string RunTable(const std::vector<RunReport>& runs, bool flows) {
  std::string o;
  char b[512];
  int width = 22;
  for (const RunReport& x : runs) width = std::max(width, static_cast<int>(x.name.size()));
  const bool capture = std::any_of(runs.begin(), runs.end(), HasCapture);
  std::string head = "run";
  head.resize(static_cast<size_t>(width) + 1, ' ');
  o += head + "   offered     received  application   CPU %  (acct)  soaker idle  intr/s    bus %   drops/s";
  if (capture) {
    std::snprintf(b, sizeof b, " %10s %10s %7s %9s", "applied/s", "echoed/s", "loss", "p99");
    o += b;
  }
  o += "  verdict\n";
  for (const RunReport& x : runs) {
    // Offered in bits when the run says (a recording's), else the packets that reached the box.
    std::string offered =
        x.offered_bits_per_second ? Mbps(*x.offered_bits_per_second) : Kpps(x.offered_packets_per_second);
    std::string idle = x.soaker_idle ? std::to_string(static_cast<int>(std::lround(*x.soaker_idle * 100))) + " %" : "-";
    std::string bus = "-";
    if (x.bus_utilisation) {
      char t[16];
      std::snprintf(t, sizeof t, "%.1f", *x.bus_utilisation * 100);
      bus = t;
    }
    std::snprintf(b, sizeof b, "%-*s %10s %12s %12s %6.1f %7.1f %12s %7.0f %8s %9.0f", width, x.name.c_str(),
                  offered.c_str(), Mbps(x.delivered_bits_per_second).c_str(),
                  Kpps(x.application_packets_per_second).c_str(), x.cpu_busy * 100, x.accounting_busy * 100,
                  idle.c_str(), x.interrupts_per_second, bus.c_str(), x.drops_per_second);
    o += b;
    if (capture) {
      std::snprintf(b, sizeof b, " %10s %10s %7s %9s", Fixed(x.applied_per_second, 1, 0, "").c_str(),
                    Fixed(x.echoed_per_second, 1, 0, "").c_str(), Fixed(x.echo_loss_ratio, 100, 2, "%").c_str(),
                    Fixed(x.turnaround_p99_seconds, 1e3, 3, "ms").c_str());
      o += b;
    }
    std::snprintf(b, sizeof b, "  %s %.2f%s%s\n", BoundName(x.verdict.label), x.verdict.confidence,
                  x.verdict.resource.empty() ? "" : " ", x.verdict.resource.c_str());
    o += b;
    if (!x.source.empty() && x.source != "recording") {
      std::string when = FormatTime(x.start) + ", " + FormatSeconds(x.end - x.start) + ", " + x.state;
      if (x.exit_code) when += ", exit " + std::to_string(*x.exit_code);
      if (!x.command.empty()) when += ", command: " + x.command;
      o += "    (" + x.source + " run, " + when + ", " + std::to_string(x.windows) + " windows)\n";
    }
    for (const std::string& e : x.verdict.evidence) o += "    - " + e + "\n";
    for (const std::string& e : x.verdict.reasons) o += "    ? " + e + "\n";
    if (flows) AppendFlows(x, &o);
    if (!x.expected_label.empty()) {
      bool ok = x.expected_label == BoundName(x.verdict.label) &&
                (x.expected_resource.empty() || x.expected_resource == x.verdict.resource);
      o += "    expected " + x.expected_label + (x.expected_resource.empty() ? "" : " " + x.expected_resource) +
           (ok ? " (matches)\n" : " (DIFFERS)\n");
    }
  }
  return o;
}

std::string ReportText(const Report& r) {
  if (!r.store.empty()) return "run store " + r.store + "\n\n" + ReportBody(r);
  char b[512];
  std::snprintf(b, sizeof b, "recording %s: %s, %zu samples every %gs%s%s\n\n", r.recording.c_str(),
                r.info.source.c_str(), r.info.samples, r.info.interval_seconds,
                r.info.hostname.empty() ? "" : ", host ", r.info.hostname.c_str());
  return b + ReportBody(r);
}

std::string ReportBody(const Report& r) {
  std::string o;
  char b[512];
  if (r.parent) o += RunTable({*r.parent}, r.flows) + "\nits steady load phases (segments):\n\n";
  if (r.runs.empty())
    o += "(no runs)\n";
  else
    o += RunTable(r.runs, r.flows);
  o += "\n";
  if (r.plateau.detected) {
    o += "plateau: " + r.plateau.evidence + "\n";
  } else {
    o += "plateau: none across the runs\n";
  }
  if (r.runs.empty()) {
    o += "MLFRR: no runs\n";  // nothing was offered, so nothing was lost either
  } else if (r.mlfrr.rate) {
    std::snprintf(b, sizeof b, "MLFRR: %.0f packets/s offered with no loss", *r.mlfrr.rate);
    o += b;
    if (r.mlfrr.knee && *r.mlfrr.knee < r.runs.size())
      o += "; above it packets are lost, first at the " + r.mlfrr.first_losing_rung + " rung";
    o += "\n";
  } else {
    o += "MLFRR: every run lost packets\n";
  }
  if (r.throughput_tracks_cpu_cost)
    o += std::string("throughput x CPU cost per packet constant across runs: ") +
         (*r.throughput_tracks_cpu_cost ? "yes (the CPU is the limit)\n" : "no\n");
  return o;
}

namespace {

std::string RunJson(const RunReport& x) {
  std::string o =
      "{\"name\":" + JsonString(x.name) + ",\"start\":" + JsonNumber(x.start) + ",\"end\":" + JsonNumber(x.end) +
      ",\"offered_bits_per_second\":" + JsonOptional(x.offered_bits_per_second) +
      ",\"offered_packets_per_second\":" + JsonNumber(x.offered_packets_per_second) +
      ",\"delivered_packets_per_second\":" + JsonNumber(x.delivered_packets_per_second) +
      ",\"delivered_bits_per_second\":" + JsonNumber(x.delivered_bits_per_second) +
      ",\"application_packets_per_second\":" + JsonNumber(x.application_packets_per_second) +
      ",\"cpu_busy_ratio\":" + JsonNumber(x.cpu_busy) + ",\"accounting_busy_ratio\":" + JsonNumber(x.accounting_busy) +
      ",\"soaker_idle_ratio\":" + JsonOptional(x.soaker_idle) +
      ",\"interrupts_per_second\":" + JsonNumber(x.interrupts_per_second) +
      ",\"bus_utilisation_ratio\":" + JsonOptional(x.bus_utilisation) +
      ",\"drops_per_second\":" + JsonNumber(x.drops_per_second) +
      ",\"first_losing_rung\":" + JsonString(x.first_losing_rung) + ",\"windows\":" + std::to_string(x.windows) +
      ",\"applied_per_second\":" + JsonOptional(x.applied_per_second) +
      ",\"echoed_per_second\":" + JsonOptional(x.echoed_per_second) +
      ",\"echo_loss_ratio\":" + JsonOptional(x.echo_loss_ratio) +
      ",\"turnaround_p50_seconds\":" + JsonOptional(x.turnaround_p50_seconds) +
      ",\"turnaround_p99_seconds\":" + JsonOptional(x.turnaround_p99_seconds) +
      ",\"capture_drops_per_second\":" + JsonOptional(x.capture_drops_per_second) +
      ",\"source\":" + JsonString(x.source) + ",\"state\":" + JsonString(x.state) +
      ",\"command\":" + JsonString(x.command) + ",\"exit_code\":" + JsonOptional(x.exit_code) +
      ",\"id\":" + std::to_string(x.id) + ",\"parent_id\":" + std::to_string(x.parent_id) +
      ",\"verdict\":{\"label\":" + JsonString(BoundName(x.verdict.label)) +
      ",\"resource\":" + JsonString(x.verdict.resource) + ",\"confidence\":" + JsonNumber(x.verdict.confidence) +
      ",\"windows\":" + std::to_string(x.verdict_windows) + ",\"evidence\":[";
  for (size_t j = 0; j < x.verdict.evidence.size(); ++j) o += (j ? "," : "") + JsonString(x.verdict.evidence[j]);
  o += "],\"reasons\":[";
  for (size_t j = 0; j < x.verdict.reasons.size(); ++j) o += (j ? "," : "") + JsonString(x.verdict.reasons[j]);
  o += "]},\"flows\":[";
  for (size_t j = 0; j < x.flows.size(); ++j) {
    const RunFlow& f = x.flows[j];
    o += std::string(j ? "," : "") + "{\"flow\":" + JsonString(f.flow) + ",\"requests\":" + U(f.requests) +
         ",\"replies\":" + U(f.replies) + ",\"paired\":" + U(f.paired) + ",\"lost\":" + U(f.lost) +
         ",\"packets\":" + U(f.packets) + ",\"bytes\":" + U(f.bytes) + "}";
  }
  o += "]";
  if (!x.expected_label.empty())
    o += ",\"expected\":{\"label\":" + JsonString(x.expected_label) +
         ",\"resource\":" + JsonString(x.expected_resource) + "}";
  return o + "}";
}

}  // namespace

std::string ReportJson(const Report& r) {
  std::string o;
  if (!r.store.empty()) {
    o = "{\"store\":" + JsonString(r.store) + ",\"parent\":" + (r.parent ? RunJson(*r.parent) : "null") + ",\"runs\":[";
  } else {
    o = "{\"recording\":" + JsonString(r.recording) + ",\"source\":" + JsonString(r.info.source) +
        ",\"samples\":" + std::to_string(r.info.samples) +
        ",\"interval_seconds\":" + JsonNumber(r.info.interval_seconds) + ",\"runs\":[";
  }
  for (size_t i = 0; i < r.runs.size(); ++i) o += (i ? "," : "") + RunJson(r.runs[i]);
  o += "],\"plateau\":{\"detected\":" + std::string(r.plateau.detected ? "true" : "false") +
       ",\"level\":" + JsonNumber(r.plateau.level) + ",\"evidence\":" + JsonString(r.plateau.evidence) + "}";
  o += ",\"mlfrr_packets_per_second\":" + JsonOptional(r.mlfrr.rate);
  o += ",\"throughput_tracks_cpu_cost\":" +
       std::string(r.throughput_tracks_cpu_cost ? (*r.throughput_tracks_cpu_cost ? "true" : "false") : "null");
  return o + "}\n";
}

}  // namespace bottleneckd
