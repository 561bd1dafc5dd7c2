#include "daemon/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "daemon/analysis/signals.h"
#include "daemon/replay.h"

namespace bottleneckd {
namespace {

// One window of the replay, as the report needs it.
struct WindowPoint {
  double offset = 0;  // seconds since the first sample, at the window's end
  Signals signals;
  Verdict verdict;
};

void Summarise(const std::vector<const WindowPoint*>& ws, RunReport* r) {
  r->windows = ws.size();
  if (ws.empty()) return;
  double n = static_cast<double>(ws.size());
  double soaker_sum = 0;
  size_t soaker_n = 0;
  double bus_max = -1;
  std::map<std::string, size_t> rungs;
  std::map<std::pair<int, std::string>, size_t> labels;
  for (const WindowPoint* w : ws) {
    const Signals& s = w->signals;
    r->delivered_packets_per_second += s.delivered_packets_per_second / n;
    double bits = 0, irqs = 0, busiest = 0, accounting = 0;
    std::optional<double> least_idle;
    for (const NicSignal& nic : s.nics) {
      bits += nic.rx_bits_per_second;
      irqs += nic.interrupts_per_second;
      if (nic.bus_utilisation && !nic.bus_emulated) bus_max = std::max(bus_max, *nic.bus_utilisation);
    }
    for (const CpuSignal& c : s.cpus) {
      if (c.busy >= busiest) busiest = c.busy, accounting = c.accounting_busy;
      if (c.soaker_idle) least_idle = std::min(least_idle.value_or(1.0), *c.soaker_idle);
    }
    r->delivered_bits_per_second += bits / n;
    r->interrupts_per_second += irqs / n;
    r->cpu_busy += busiest / n;
    r->accounting_busy += accounting / n;
    if (least_idle) soaker_sum += *least_idle, ++soaker_n;
    r->drops_per_second += (s.ladder.nic + s.ladder.backlog + s.ladder.socket) / n;
    r->application_packets_per_second +=
        std::max(0.0, s.delivered_packets_per_second - s.ladder.backlog - s.ladder.socket) / n;
    ++rungs[RungName(s.ladder.first_losing)];
    ++labels[{static_cast<int>(w->verdict.label), w->verdict.resource}];
  }
  if (soaker_n) r->soaker_idle = soaker_sum / static_cast<double>(soaker_n);
  if (bus_max >= 0) r->bus_utilisation = bus_max;
  r->first_losing_rung = std::max_element(rungs.begin(), rungs.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
  auto best = std::max_element(labels.begin(), labels.end(), [](auto& a, auto& b) { return a.second < b.second; });
  r->verdict_windows = best->second;
  // The evidence of the last window that held the winning label.
  for (auto it = ws.rbegin(); it != ws.rend(); ++it) {
    if (static_cast<int>((*it)->verdict.label) == best->first.first && (*it)->verdict.resource == best->first.second) {
      r->verdict = (*it)->verdict;
      break;
    }
  }
}

std::string Mbps(double bits) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1fMbps", bits / 1e6);
  return b;
}

std::string JsonString(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o + "\"";
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

template <typename T>
std::string JsonOptional(const std::optional<T>& v) {
  return v ? JsonNumber(*v) : "null";
}

}  // namespace

Status BuildReplayReport(const std::string& dir, const Config& config, Report* out) {
  *out = Report();
  out->recording = dir;
  std::vector<WindowPoint> points;
  int64_t first_mono = 0;
  bool first = true;
  Sample prev;
  BN_RETURN_IF_ERROR(ReplayRecording(
      dir, config,
      [&](const Snapshot& snap) {
        if (first) first = false, first_mono = snap.sample.mono_ns;
        if (snap.window && snap.verdict) {
          WindowPoint p;
          p.offset = static_cast<double>(snap.window->end_mono_ns - first_mono) / 1e9;
          p.signals = ExtractSignals(*snap.window, prev, snap.sample, snap.bus_paths.get(),
                                     config.verdict.drop_floor_per_second);
          p.verdict = *snap.verdict;
          points.push_back(std::move(p));
        }
        prev = snap.sample;
      },
      &out->info));
  std::vector<RecordingRun> runs = out->info.runs;
  if (runs.empty()) {
    RecordingRun all;
    all.name = "recording";
    all.start = 0;
    all.end = points.empty() ? 0 : points.back().offset;
    runs.push_back(all);
  }
  std::vector<LoadStep> steps;
  for (const RecordingRun& run : runs) {
    RunReport r;
    r.name = run.name;
    r.start = run.start;
    r.end = run.end;
    r.offered_bits_per_second = run.offered_bits_per_second;
    r.expected_label = run.expected_label;
    r.expected_resource = run.expected_resource;
    std::vector<const WindowPoint*> inside;
    for (const WindowPoint& p : points)
      if (p.offset > run.start && p.offset <= run.end) inside.push_back(&p);
    std::vector<const WindowPoint*> settled(inside.size() > kSettleWindows ? inside.begin() + kSettleWindows : inside.begin(),
                                            inside.end());
    Summarise(settled, &r);
    double offered_seen = 0;
    for (const WindowPoint* p : settled) offered_seen += p->signals.offered_packets_per_second;
    r.offered_packets_per_second = run.offered_packets_per_second.value_or(
        settled.empty() ? 0 : offered_seen / static_cast<double>(settled.size()));
    LoadStep step;
    step.name = r.name;
    step.offered_packets_per_second = r.offered_packets_per_second;
    step.delivered_packets_per_second = r.application_packets_per_second;
    // The plateau is the symptom as top shows it: /proc/stat busy (the
    // seed's 80-85 %), not the soaker's truth.
    step.utilisation = r.accounting_busy;
    step.drops_per_second = r.drops_per_second;
    for (const WindowPoint* p : settled)
      for (const CpuSignal& c : p->signals.cpus)
        step.cpu_seconds_per_second += c.busy / static_cast<double>(settled.size());
    step.first_losing_rung = r.first_losing_rung;
    steps.push_back(step);
    out->runs.push_back(std::move(r));
  }
  PlateauOptions po;
  po.min_steps = 2;
  out->plateau = DetectPlateau(steps, po);
  std::vector<LoadStep> sorted = steps;
  std::stable_sort(sorted.begin(), sorted.end(), [](const LoadStep& a, const LoadStep& b) {
    return a.offered_packets_per_second < b.offered_packets_per_second;
  });
  out->mlfrr = FindMlfrr(sorted, config.verdict.drop_floor_per_second);
  if (steps.size() >= 2) out->throughput_tracks_cpu_cost = ThroughputTracksCpuCost(steps, 0.05);
  return Status::OK();
}

std::string ReportText(const Report& r) {
  std::string o;
  char b[512];
  std::snprintf(b, sizeof b, "recording %s: %s, %zu samples every %gs%s%s\n\n", r.recording.c_str(),
                r.info.source.c_str(), r.info.samples, r.info.interval_seconds, r.info.hostname.empty() ? "" : ", host ",
                r.info.hostname.c_str());
  o += b;
  o += "run                      offered     received   CPU %  (acct)  soaker idle  intr/s    bus %   drops/s  verdict\n";
  for (const RunReport& x : r.runs) {
    std::string offered = x.offered_bits_per_second ? Mbps(*x.offered_bits_per_second) : "-";
    std::string idle = x.soaker_idle ? std::to_string(static_cast<int>(std::lround(*x.soaker_idle * 100))) + " %" : "-";
    std::string bus = "-";
    if (x.bus_utilisation) {
      char t[16];
      std::snprintf(t, sizeof t, "%.1f", *x.bus_utilisation * 100);
      bus = t;
    }
    std::snprintf(b, sizeof b, "%-22s %10s %12s %6.1f %7.1f %12s %7.0f %8s %9.0f  %s %.2f%s%s\n", x.name.c_str(),
                  offered.c_str(), Mbps(x.delivered_bits_per_second).c_str(), x.cpu_busy * 100, x.accounting_busy * 100,
                  idle.c_str(), x.interrupts_per_second, bus.c_str(), x.drops_per_second, BoundName(x.verdict.label),
                  x.verdict.confidence, x.verdict.resource.empty() ? "" : " ", x.verdict.resource.c_str());
    o += b;
    for (const std::string& e : x.verdict.evidence) o += "    - " + e + "\n";
    for (const std::string& e : x.verdict.reasons) o += "    ? " + e + "\n";
    if (!x.expected_label.empty()) {
      bool ok = x.expected_label == BoundName(x.verdict.label) &&
                (x.expected_resource.empty() || x.expected_resource == x.verdict.resource);
      o += "    expected " + x.expected_label + (x.expected_resource.empty() ? "" : " " + x.expected_resource) +
           (ok ? " (matches)\n" : " (DIFFERS)\n");
    }
  }
  o += "\n";
  if (r.plateau.detected) {
    o += "plateau: " + r.plateau.evidence + "\n";
  } else {
    o += "plateau: none across the runs\n";
  }
  if (r.mlfrr.rate) {
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

std::string ReportJson(const Report& r) {
  std::string o = "{\"recording\":" + JsonString(r.recording) + ",\"source\":" + JsonString(r.info.source) +
                  ",\"samples\":" + std::to_string(r.info.samples) +
                  ",\"interval_seconds\":" + JsonNumber(r.info.interval_seconds) + ",\"runs\":[";
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const RunReport& x = r.runs[i];
    o += i ? "," : "";
    o += "{\"name\":" + JsonString(x.name) + ",\"start\":" + JsonNumber(x.start) + ",\"end\":" + JsonNumber(x.end) +
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
         ",\"verdict\":{\"label\":" + JsonString(BoundName(x.verdict.label)) +
         ",\"resource\":" + JsonString(x.verdict.resource) + ",\"confidence\":" + JsonNumber(x.verdict.confidence) +
         ",\"windows\":" + std::to_string(x.verdict_windows) + ",\"evidence\":[";
    for (size_t j = 0; j < x.verdict.evidence.size(); ++j) o += (j ? "," : "") + JsonString(x.verdict.evidence[j]);
    o += "],\"reasons\":[";
    for (size_t j = 0; j < x.verdict.reasons.size(); ++j) o += (j ? "," : "") + JsonString(x.verdict.reasons[j]);
    o += "]}";
    if (!x.expected_label.empty())
      o += ",\"expected\":{\"label\":" + JsonString(x.expected_label) +
           ",\"resource\":" + JsonString(x.expected_resource) + "}";
    o += "}";
  }
  o += "],\"plateau\":{\"detected\":" + std::string(r.plateau.detected ? "true" : "false") +
       ",\"level\":" + JsonNumber(r.plateau.level) + ",\"evidence\":" + JsonString(r.plateau.evidence) + "}";
  o += ",\"mlfrr_packets_per_second\":" + JsonOptional(r.mlfrr.rate);
  o += ",\"throughput_tracks_cpu_cost\":" +
       std::string(r.throughput_tracks_cpu_cost ? (*r.throughput_tracks_cpu_cost ? "true" : "false") : "null");
  return o + "}\n";
}

}  // namespace bottleneckd
