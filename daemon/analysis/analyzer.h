// Analyzer: the analysis of a sequence of snapshots (a live daemon's ticks,
// or a recording's replay), the stateful part of DESIGN.md section 2's
// "Signals -> analysis -> Verdict": each window's signals are classified,
// the label goes through hysteresis (VerdictTracker), and the plateau
// detector runs over the recent windows grouped into steps.
#pragma once

#include <deque>

#include "daemon/analysis/plateau.h"
#include "daemon/analysis/signals.h"
#include "daemon/analysis/verdict.h"
#include "daemon/snapshot.h"

namespace bottleneckd {

struct LiveStepOptions {
  int windows_per_step = 5;  // windows averaged into one plateau step
  int steps = 12;            // steps kept (12 x 5 windows: a minute at 1 s)
};

class Analyzer {
 public:
  explicit Analyzer(const VerdictThresholds& t, const PlateauOptions& p = {}, const LiveStepOptions& l = {});

  // Sets snap->verdict and snap->plateau from snap->window (left unset when
  // there is no window). `prev` is the Sample the window starts at.
  void Analyze(const Sample& prev, Snapshot* snap);

  // The signals of the last analysed window (for reports and tests).
  const Signals& last_signals() const { return signals_; }

 private:
  VerdictThresholds thresholds_;
  PlateauOptions plateau_options_;
  LiveStepOptions step_options_;
  VerdictTracker tracker_;
  Signals signals_;
  LoadStep partial_;           // the step being filled
  int partial_windows_ = 0;
  std::deque<LoadStep> steps_;
};

// One window's load as a plateau step: offered and delivered packets, the
// busiest CPU's /proc/stat busy ratio (the utilisation users see, which is
// what plateaus), all CPUs' busy time per second, drops on every rung.
LoadStep StepOfWindow(const Signals& s);

}  // namespace bottleneckd
