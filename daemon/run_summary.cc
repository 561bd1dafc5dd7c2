#include "daemon/run_summary.h"

#include <algorithm>

namespace bottleneckd {

TimelinePoint PointOfWindow(double t, const Signals& s, const Verdict& v) {
  TimelinePoint p;
  p.t = t;
  p.offered_packets_per_second = s.offered_packets_per_second;
  p.delivered_packets_per_second = s.delivered_packets_per_second;
  double bus_max = -1;
  for (const NicSignal& nic : s.nics) {
    p.delivered_bits_per_second += nic.rx_bits_per_second;
    p.interrupts_per_second += nic.interrupts_per_second;
    if (nic.bus_utilisation && !nic.bus_emulated) bus_max = std::max(bus_max, *nic.bus_utilisation);
  }
  if (bus_max >= 0) p.bus_utilisation = bus_max;
  double busiest = -1;
  for (const CpuSignal& c : s.cpus) {
    if (c.busy > busiest) busiest = c.busy, p.cpu_busy = c.busy, p.accounting_busy = c.accounting_busy;
    p.cpu_seconds_per_second += c.busy;
    if (c.soaker_idle) p.soaker_idle = std::min(p.soaker_idle.value_or(1.0), *c.soaker_idle);
  }
  p.drops_per_second = s.ladder.nic + s.ladder.backlog + s.ladder.socket;
  p.application_packets_per_second =
      std::max(0.0, s.delivered_packets_per_second - s.ladder.backlog - s.ladder.socket);
  p.first_losing_rung = RungName(s.ladder.first_losing);
  p.label = v.label;
  p.resource = v.resource;
  p.confidence = v.confidence;
  return p;
}

size_t SettleWindows(size_t windows) { return std::min(kSettleWindows, windows / 2); }

void Summarise(const std::vector<TimelinePoint>& settled, const VerdictEvidence* evidence, RunReport* r) {
  r->windows = settled.size();
  if (settled.empty()) return;
  double n = static_cast<double>(settled.size());
  double idle_sum = 0;
  size_t idle_n = 0;
  std::map<std::string, size_t> rungs;
  std::map<std::pair<int, std::string>, std::pair<size_t, double>> labels;  // count, confidence sum
  r->offered_packets_per_second = r->delivered_packets_per_second = r->delivered_bits_per_second = 0;
  r->application_packets_per_second = r->cpu_busy = r->accounting_busy = r->cpu_seconds_per_second = 0;
  r->interrupts_per_second = r->drops_per_second = 0;
  r->bus_utilisation.reset();
  for (const TimelinePoint& p : settled) {
    r->offered_packets_per_second += p.offered_packets_per_second / n;
    r->delivered_packets_per_second += p.delivered_packets_per_second / n;
    r->delivered_bits_per_second += p.delivered_bits_per_second / n;
    r->application_packets_per_second += p.application_packets_per_second / n;
    r->cpu_busy += p.cpu_busy / n;
    r->accounting_busy += p.accounting_busy / n;
    r->cpu_seconds_per_second += p.cpu_seconds_per_second / n;
    r->interrupts_per_second += p.interrupts_per_second / n;
    r->drops_per_second += p.drops_per_second / n;
    if (p.soaker_idle) idle_sum += *p.soaker_idle, ++idle_n;
    if (p.bus_utilisation) r->bus_utilisation = std::max(r->bus_utilisation.value_or(0.0), *p.bus_utilisation);
    ++rungs[p.first_losing_rung];
    auto& l = labels[{static_cast<int>(p.label), p.resource}];
    ++l.first;
    l.second += p.confidence;
  }
  r->soaker_idle.reset();
  if (idle_n) r->soaker_idle = idle_sum / static_cast<double>(idle_n);
  auto more = [](auto& a, auto& b) { return a.second < b.second; };
  // The rung most losing windows lost at first; "none" only when no window lost.
  std::map<std::string, size_t> losing = rungs;
  losing.erase("none");
  r->first_losing_rung = losing.empty() ? "none" : std::max_element(losing.begin(), losing.end(), more)->first;
  // Ties go to the first label in Bound order (map order), so the result
  // does not depend on the windows' order.
  auto best = std::max_element(labels.begin(), labels.end(),
                               [](auto& a, auto& b) { return a.second.first < b.second.first; });
  r->verdict_windows = best->second.first;
  r->verdict = Verdict();
  if (evidence) {
    auto it = evidence->find(best->first);
    if (it != evidence->end()) r->verdict = it->second;
  }
  r->verdict.label = static_cast<Bound>(best->first.first);
  r->verdict.resource = best->first.second;
  r->verdict.confidence = best->second.second / static_cast<double>(best->second.first);
}

LoadStep StepOfRun(const RunReport& r) {
  LoadStep step;
  step.name = r.name;
  step.offered_packets_per_second = r.offered_packets_per_second;
  step.delivered_packets_per_second = r.application_packets_per_second;
  step.utilisation = r.accounting_busy;
  step.cpu_seconds_per_second = r.cpu_seconds_per_second;
  step.drops_per_second = r.drops_per_second;
  step.delivered_bytes_per_second = r.delivered_bits_per_second / 8;
  step.first_losing_rung = r.first_losing_rung;
  return step;
}

SweepAnalysis AnalyseSweep(const std::vector<RunReport>& runs, double drop_floor_per_second) {
  SweepAnalysis a;
  std::vector<LoadStep> steps;
  for (const RunReport& r : runs) steps.push_back(StepOfRun(r));
  PlateauOptions po;
  po.min_steps = 2;
  a.plateau = DetectPlateau(steps, po);
  std::vector<LoadStep> sorted = steps;
  std::stable_sort(sorted.begin(), sorted.end(), [](const LoadStep& x, const LoadStep& y) {
    return x.offered_packets_per_second < y.offered_packets_per_second;
  });
  a.mlfrr = FindMlfrr(sorted, drop_floor_per_second);
  if (steps.size() >= 2) a.throughput_tracks_cpu_cost = ThroughputTracksCpuCost(steps, 0.05);
  return a;
}

}  // namespace bottleneckd
