#include "exporters/report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include "analysis/rules.h"
#include "analysis/segments.h"
#include "analysis/signals.h"
#include "exporters/report/json_writer.h"
#include "exporters/report/report_budget.h"
#include "exporters/report/report_profile.h"

namespace bottleneckd {

namespace {

// The plateau, MLFRR and sensitivity check across r's sweep (its runs when
// no other sweep was chosen).
void SetSweep(const LossTolerance& loss, Report* r) {
  SweepAnalysis sweep = AnalyseSweep(SweptRuns(*r), loss);
  r->plateau = sweep.plateau;
  r->mlfrr = sweep.mlfrr;
  r->throughput_tracks_cpu_cost = sweep.throughput_tracks_cpu_cost;
  r->throughput_tracks_cpu_cost_why = sweep.throughput_tracks_cpu_cost_why;
}

// Appends the run's stored windows to `timeline`, keeping it in time order.
Status AppendTimeline(RunStore* store, int64_t run_id, std::vector<TimelinePoint>* timeline) {
  std::vector<TimelinePoint> points;
  BN_RETURN_IF_ERROR(store->Timeline(run_id, &points));
  timeline->insert(timeline->end(), points.begin(), points.end());
  std::stable_sort(timeline->begin(), timeline->end(),
                   [](const TimelinePoint& a, const TimelinePoint& b) { return a.t < b.t; });
  return Status::OK();
}

}  // namespace

const std::vector<RunReport>& SweptRuns(const Report& r) { return r.sweep_of.empty() ? r.runs : r.sweep; }

Status BuildStoreReport(RunStore* store, const std::string& run, size_t last, const LossTolerance& loss, Report* out) {
  *out = Report();
  out->store = store->path();
  RunQuery q;
  if (run.empty()) {
    q.parent_id = 0;
    q.limit = last;
    BN_RETURN_IF_ERROR(store->ListRuns(q, &out->runs));
    std::reverse(out->runs.begin(), out->runs.end());  // oldest first, like a sweep
    std::vector<RunReport> segments;
    if (!out->runs.empty()) {
      // The newest clean run's segments, in case it is swept alone.
      for (auto it = out->runs.rbegin(); it != out->runs.rend(); ++it) {
        if (it->exit_code.value_or(0) != 0) continue;
        RunQuery segs;
        segs.parent_id = it->id;
        segs.limit = 0;
        BN_RETURN_IF_ERROR(store->ListRuns(segs, &segments));
        break;
      }
    }
    NewestSweep chosen = SweepOfNewest(out->runs, !segments.empty());
    out->sweep_of = chosen.of;
    if (chosen.by_segments) {
      std::stable_sort(segments.begin(), segments.end(),
                       [](const RunReport& a, const RunReport& b) { return a.start < b.start; });
      out->sweep = std::move(segments);
    } else {
      for (size_t i : chosen.runs) out->sweep.push_back(out->runs[i]);
    }
    SetSweep(loss, out);
    for (const RunReport& x : out->runs) BN_RETURN_IF_ERROR(AppendTimeline(store, x.id, &out->timeline));
    return Status::OK();
  }
  q.name = run;
  q.limit = 1;
  std::vector<RunReport> found;
  BN_RETURN_IF_ERROR(store->ListRuns(q, &found));
  if (found.empty())
    return Status::NotFound("no run named '" + run + "' in " + store->path() +
                            " (a daemon with another state directory keeps its runs there: --path.state=DIR, or "
                            "--control.socket=PATH to ask the daemon listening there; bottleneckd run prints where "
                            "it stored its run)");
  RunQuery segs;
  segs.parent_id = found[0].id;
  segs.limit = 0;
  std::vector<RunReport> segments;
  BN_RETURN_IF_ERROR(store->ListRuns(segs, &segments));
  *out = ReportOfRun(found[0], std::move(segments), loss);
  out->store = store->path();
  out->profile_of = found[0].name;
  out->profile_readings = found[0].profile_readings;
  out->offcpu_readings = found[0].offcpu_readings;
  BN_RETURN_IF_ERROR(store->Profile(found[0].id, &out->profile));
  BN_RETURN_IF_ERROR(store->OffCpu(found[0].id, &out->offcpu));
  return AppendTimeline(store, found[0].id, &out->timeline);
}

std::string SweepKey(const std::string& name) {
  std::string key;
  for (size_t i = 0; i < name.size();) {
    if (name[i] >= '0' && name[i] <= '9') {
      // 44, 2.5, 1e6, 10_000: one number.
      while (i < name.size() &&
             ((name[i] >= '0' && name[i] <= '9') || ((name[i] == '.' || name[i] == '_' || name[i] == 'e') &&
                                                     i + 1 < name.size() && name[i + 1] >= '0' && name[i + 1] <= '9')))
        ++i;
      key += '#';
    } else {
      key += name[i++];
    }
  }
  return key;
}

NewestSweep SweepOfNewest(const std::vector<RunReport>& runs, bool newest_has_segments) {
  NewestSweep out;
  auto clean = [](const RunReport& r) { return r.exit_code.value_or(0) == 0; };
  size_t newest = runs.size();
  for (size_t i = runs.size(); i-- > 0;)
    if (clean(runs[i])) {
      newest = i;
      break;
    }
  if (newest == runs.size()) {
    // No runs: nothing to choose from, and the report says "(no runs)".
    if (!runs.empty()) out.of = "no run: every listed run's command failed (exit code not 0)";
    return out;
  }
  const std::string key = SweepKey(runs[newest].name);
  std::string names;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!clean(runs[i]) || SweepKey(runs[i].name) != key) continue;
    out.runs.push_back(i);
    names += (names.empty() ? "" : ", ") + runs[i].name;
  }
  const size_t others = runs.size() - out.runs.size();
  const std::string rest = others ? "; " + std::to_string(others) + " other run" + (others == 1 ? " is" : "s are") +
                                        " listed, not swept (another name, or a command that failed)"
                                  : "";
  if (out.runs.size() == 1 && newest_has_segments) {
    out.by_segments = true;
    out.of = "the steady load phases (segments) of run '" + runs[newest].name + "', as bottleneckd report --run gives" +
             rest;
  } else if (out.runs.size() == 1) {
    out.of = "run '" + runs[newest].name + "' alone" + rest;
  } else {
    out.of = std::to_string(out.runs.size()) + " runs named like '" + key + "' (" + names + ")" + rest;
  }
  return out;
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
  out.profile = run.profile;  // a live run's; the store's report reads it back (RunStore::Profile)
  out.profile_of = run.name;
  out.profile_readings = run.profile_readings;
  out.offcpu = run.offcpu;  // likewise (RunStore::OffCpu)
  out.offcpu_readings = run.offcpu_readings;
  SetSweep(loss, &out);
  return out;
}

std::string FinishedRunText(const RunReport& run, const std::vector<RunReport>& segments, const LossTolerance& loss) {
  return ReportBody(ReportOfRun(run, segments, loss));
}

Report ReportOfRecording(const ReplayedTimeline& replay, const SegmentOptions& segment, const LossTolerance& loss) {
  Report report;
  Report* out = &report;
  out->recording = replay.dir;
  out->info = replay.info;
  const std::vector<TimelinePoint>& points = replay.points;
  const std::vector<Verdict>& verdicts = replay.verdicts;
  out->timeline = points;
  std::vector<RecordingRun> runs = out->info.runs;
  if (runs.empty()) {
    // No runs given: the steady load phases, like a live run's segments.
    std::vector<double> offered;
    for (const TimelinePoint& p : points) offered.push_back(p.offered_packets_per_second);
    double interval = out->info.interval_seconds;
    for (const Segment& seg : FindSegments(offered, segment)) {
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
    Summarise(settled, &evidence, &r, loss);
    if (run.offered_packets_per_second) r.offered_packets_per_second = *run.offered_packets_per_second;
    out->runs.push_back(std::move(r));
  }
  SetSweep(loss, out);
  return report;
}

std::string ReportHeading(const Report& r) {
  if (!r.store.empty()) return "run store " + r.store;
  char b[512];
  std::snprintf(b, sizeof b, "recording %s: %s, %zu samples every %gs%s%s", r.recording.c_str(), r.info.source.c_str(),
                r.info.samples, r.info.interval_seconds, r.info.hostname.empty() ? "" : ", host ",
                r.info.hostname.c_str());
  return b;
}

std::string ReportText(const Report& r) { return ReportHeading(r) + "\n\n" + ReportBody(r); }

std::string ReportBody(const Report& r) {
  std::string o;
  if (r.parent) o += RunTable({*r.parent}, r.flows) + "\nits steady load phases (segments):\n\n";
  if (r.runs.empty())
    o += "(no runs)\n";
  else
    o += RunTable(r.runs, r.flows);
  if (!r.sweep_of.empty()) {
    o += "\nswept: " + r.sweep_of + "\n";
    // Segments are not among the listed runs: their table, as --run prints it.
    if (std::any_of(r.sweep.begin(), r.sweep.end(), [](const RunReport& x) { return x.parent_id != 0; }))
      o += "\n" + RunTable(r.sweep);
  }
  o += "\n";
  for (const std::string& line : SweepLines(r)) o += line + "\n";
  o += ProfileText(r);
  o += OffCpuText(r);
  return o;
}

std::vector<std::string> SweepLines(const Report& r) {
  std::vector<std::string> lines;
  char b[512];
  lines.push_back(r.plateau.detected ? "plateau: " + r.plateau.evidence : "plateau: none across the runs");
  if (SweptRuns(r).empty()) {
    lines.push_back("MLFRR: no runs");  // nothing was offered, so nothing was lost either
  } else if (r.mlfrr.rate) {
    std::snprintf(b, sizeof b, "MLFRR: %.0f packets/s offered with no loss", *r.mlfrr.rate);
    lines.push_back(b);
    if (r.mlfrr.knee && *r.mlfrr.knee < SweptRuns(r).size())
      lines.back() += "; above it packets are lost, first at the " + r.mlfrr.first_losing_rung + " rung";
    else
      lines.back() += ", the highest rate offered: no run lost packets, so the limit lies above it";
  } else if (r.mlfrr.knee) {
    lines.push_back("MLFRR: every run lost packets");
  } else {
    lines.push_back(
        "MLFRR: none: no run was offered load on the packet path (the interfaces "
        "verdict.packet_path_interfaces names; by default every one but loopback)");
  }
  if (r.throughput_tracks_cpu_cost)
    lines.push_back(std::string("throughput x CPU cost per packet constant across runs: ") +
                    (!r.throughput_tracks_cpu_cost_why.empty() ? r.throughput_tracks_cpu_cost_why
                     : *r.throughput_tracks_cpu_cost           ? "yes (the CPU is the limit)"
                                                               : "no"));
  return lines;
}

namespace {

// {"nic": ..., "backlog": ..., "socket": ..., "application": ...}, null where unknown.
void WriteRungsJson(const RungDrops& d, JsonWriter* w) {
  w->BeginObject();
  w->Key("nic").Optional(d.nic);
  w->Key("backlog").Optional(d.backlog);
  w->Key("socket").Optional(d.socket);
  w->Key("application").Optional(d.application);
  w->EndObject();
}

void WriteRunJson(const RunReport& x, JsonWriter* w) {
  w->BeginObject();
  w->Key("name").String(x.name);
  w->Key("start").Number(x.start);
  w->Key("end").Number(x.end);
  w->Key("offered_bits_per_second").Optional(x.offered_bits_per_second);
  w->Key("offered_packets_per_second").Number(x.offered_packets_per_second);
  w->Key("received_packets_per_second").Number(x.received_packets_per_second);
  w->Key("received_bits_per_second").Number(x.received_bits_per_second);
  w->Key("application_packets_per_second").Number(x.application_packets_per_second);
  w->Key("cpu_busy_ratio").Number(x.cpu_busy);
  w->Key("accounting_busy_ratio").Number(x.accounting_busy);
  w->Key("soaker_idle_ratio").Optional(x.soaker_idle);
  w->Key("interrupts_per_second").Number(x.interrupts_per_second);
  w->Key("bus_utilisation_ratio").Optional(x.bus_utilisation);
  w->Key("drops_per_second").Number(x.drops_per_second);
  w->Key("first_losing_rung").String(x.first_losing_rung);
  w->Key("rung_drops_per_second");
  WriteRungsJson(x.rungs, w);
  w->Key("windows").Integer(x.windows);
  w->Key("applied_per_second").Optional(x.applied_per_second);
  w->Key("echoed_per_second").Optional(x.echoed_per_second);
  w->Key("echo_loss_ratio").Optional(x.echo_loss_ratio);
  w->Key("turnaround_p50_seconds").Optional(x.turnaround_p50_seconds);
  w->Key("turnaround_p99_seconds").Optional(x.turnaround_p99_seconds);
  w->Key("capture_drops_per_second").Optional(x.capture_drops_per_second);
  w->Key("source").String(x.source);
  w->Key("state").String(x.state);
  w->Key("command").String(x.command);
  w->Key("exit_code").Optional(x.exit_code);
  w->Key("id").Integer(x.id);
  w->Key("parent_id").Integer(x.parent_id);
  w->Key("verdict").BeginObject();
  w->Key("label").String(BoundName(x.verdict.label));
  w->Key("resource").String(x.verdict.resource);
  w->Key("confidence").Number(x.verdict.confidence);
  w->Key("windows").Integer(x.verdict_windows);
  w->Key("limited_windows").Integer(x.limited_windows);
  w->Key("light_windows").Integer(x.light_windows);
  w->Key("light_label").String(BoundName(x.light_label));
  w->Key("wait_class").String(x.verdict.wait_class);
  w->Key("evidence").BeginArray();
  for (const std::string& e : x.verdict.evidence) w->String(e);
  w->EndArray();
  w->Key("reasons").BeginArray();
  for (const std::string& e : x.verdict.reasons) w->String(e);
  w->EndArray();
  w->EndObject();
  w->Key("flows").BeginArray();
  for (const RunFlow& f : x.flows) {
    w->BeginObject();
    w->Key("flow").String(f.flow);
    w->Key("requests").Integer(f.requests);
    w->Key("replies").Integer(f.replies);
    w->Key("paired").Integer(f.paired);
    w->Key("lost").Integer(f.lost);
    w->Key("packets").Integer(f.packets);
    w->Key("bytes").Integer(f.bytes);
    w->EndObject();
  }
  w->EndArray();
  w->Key("cpu_budget");
  WriteBudgetJson(x, w);
  if (!x.expected_label.empty()) {
    w->Key("expected").BeginObject();
    w->Key("label").String(x.expected_label);
    w->Key("resource").String(x.expected_resource);
    w->EndObject();
  }
  w->EndObject();
}

}  // namespace

std::string ReportJson(const Report& r) {
  std::string o;
  JsonWriter w(&o);
  w.BeginObject();
  if (!r.store.empty()) {
    w.Key("store").String(r.store);
    w.Key("parent");
    if (r.parent)
      WriteRunJson(*r.parent, &w);
    else
      w.Null();
  } else {
    w.Key("recording").String(r.recording);
    w.Key("source").String(r.info.source);
    w.Key("samples").Integer(r.info.samples);
    w.Key("interval_seconds").Number(r.info.interval_seconds);
  }
  w.Key("runs").BeginArray();
  for (const RunReport& x : r.runs) WriteRunJson(x, &w);
  w.EndArray();
  // The runs the plateau and MLFRR are computed over (`runs` itself unless
  // sweep_of says otherwise).
  w.Key("sweep_of").String(r.sweep_of);
  w.Key("sweep").BeginArray();
  for (const RunReport& x : SweptRuns(r)) WriteRunJson(x, &w);
  w.EndArray();
  w.Key("plateau").BeginObject();
  w.Key("detected").Bool(r.plateau.detected);
  w.Key("level").Number(r.plateau.level);
  w.Key("evidence").String(r.plateau.evidence);
  w.EndObject();
  w.Key("mlfrr_packets_per_second").Optional(r.mlfrr.rate);
  w.Key("throughput_tracks_cpu_cost").Optional(r.throughput_tracks_cpu_cost);
  w.Key("throughput_tracks_cpu_cost_why").String(r.throughput_tracks_cpu_cost_why);
  w.Key("profile");
  WriteProfileJson(r, &w);
  w.Key("offcpu");
  WriteOffCpuJson(r, &w);
  w.Key("timeline_points").Integer(r.timeline.size());
  // The timeline's drops and CPU budgets (the HTML report's timeline-drops
  // and timeline-budget plots), one entry per window.
  w.Key("timeline").BeginArray();
  for (const TimelinePoint& p : r.timeline) {
    w.BeginObject();
    w.Key("t").Number(p.t);
    w.Key("drops_per_second").Number(p.drops_per_second);
    w.Key("first_losing_rung").String(p.first_losing_rung);
    w.Key("rung_drops_per_second");
    WriteRungsJson(p.rungs, &w);
    w.Key("cpu_budget");
    WriteBudgetJson(p, &w);
    w.EndObject();
  }
  w.EndArray();
  // The CPU whose budget the HTML report plots (timeline-budget).
  const int budget_cpu = BudgetPlotCpu(r);
  w.Key("timeline_budget_cpu");
  if (budget_cpu >= 0)
    w.String(CpuName(budget_cpu));
  else
    w.Null();
  w.EndObject();
  w.Finish();
  return o;
}

}  // namespace bottleneckd
