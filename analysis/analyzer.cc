#include "analysis/analyzer.h"

#include <algorithm>

#include "analysis/capture_evidence.h"
#include "analysis/profile_evidence.h"

namespace bottleneckd {

LoadStep StepOfWindow(const Signals& s) {
  LoadStep step;
  step.offered_packets_per_second = s.offered_packets_per_second;
  step.delivered_packets_per_second = s.delivered_packets_per_second;  // what the applications got
  // Utilisation as /proc/stat reports it (what top shows: the seed's
  // 80-85 %) of the application's CPU: the plateau is that symptom,
  // whatever the soaker says.
  if (const CpuSignal* app = ApplicationCpu(s)) {
    step.utilisation = app->accounting_busy;
    // The target threads' running time on it, by schedstat's nanoseconds:
    // the application's own share, which the tick samples behind
    // accounting_busy cannot give a thread that runs 30 us at a time.
    double own = 0;
    bool known = false;
    for (const ThreadSignal& th : s.threads) {
      if (th.cpu != app->cpu) continue;
      if (!th.state) {
        known = false;
        break;
      }
      own += th.state->running;
      known = true;
    }
    if (known) step.application_utilisation = own;
  }
  for (const CpuSignal& c : s.cpus) step.cpu_seconds_per_second += c.busy;
  step.drops_per_second = s.ladder.nic + s.ladder.backlog + s.ladder.socket;
  return step;
}

Analyzer::Analyzer(const VerdictThresholds& t, const PlateauOptions& p, const LiveStepOptions& l)
    : thresholds_(t), plateau_options_(p), step_options_(l), tracker_(t) {}

Analysis Analyzer::Analyze(const WindowInput& in) {
  signals_ = ExtractSignals(in.window, in.cur, in.bus_paths, in.bus, thresholds_.signal_options());
  waits_.Record(&signals_);
  delivery_.Observe(signals_);
  delivery_.Apply(&signals_);
  Analysis out;
  out.window = Classify(signals_, thresholds_);
  out.verdict = tracker_.Update(out.window);
  out.cpu_budget = CpuBudgets(signals_);
  out.thread_waits = ThreadWaits(signals_);
  out.thread_wait_seconds = wait_seconds_.Add(out.thread_waits, in.window.seconds);
  for (std::string& e : CaptureEvidence(signals_.captures)) {
    out.window.evidence.push_back(e);
    out.verdict.evidence.push_back(std::move(e));
  }
  if (in.cur.profile) {
    for (Verdict* v : {&out.window, &out.verdict}) {
      std::string e = ProfileEvidence(*v, *in.cur.profile, signals_);
      if (!e.empty()) v->evidence.push_back(std::move(e));
    }
  }

  // Average windows into steps so one noisy second does not make or break a
  // plateau.
  LoadStep w = StepOfWindow(signals_);
  partial_.offered_packets_per_second += w.offered_packets_per_second;
  partial_.delivered_packets_per_second += w.delivered_packets_per_second;
  partial_.utilisation += w.utilisation;
  if (w.application_utilisation) {
    partial_.application_utilisation = partial_.application_utilisation.value_or(0) + *w.application_utilisation;
    ++partial_application_windows_;
  }
  partial_.cpu_seconds_per_second += w.cpu_seconds_per_second;
  partial_.drops_per_second += w.drops_per_second;
  if (++partial_windows_ >= std::max(1, step_options_.windows_per_step)) {
    double n = partial_windows_;
    partial_.offered_packets_per_second /= n;
    partial_.delivered_packets_per_second /= n;
    partial_.utilisation /= n;
    // The step's application share only when each of its windows had one.
    if (partial_application_windows_ == partial_windows_)
      *partial_.application_utilisation /= n;
    else
      partial_.application_utilisation.reset();
    partial_.cpu_seconds_per_second /= n;
    partial_.drops_per_second /= n;
    steps_.push_back(partial_);
    while (steps_.size() > static_cast<size_t>(std::max(1, step_options_.steps))) steps_.pop_front();
    partial_ = LoadStep();
    partial_windows_ = partial_application_windows_ = 0;
  }
  out.plateau = DetectPlateau(std::vector<LoadStep>(steps_.begin(), steps_.end()), plateau_options_);
  return out;
}

}  // namespace bottleneckd
