// Analyzer: the analysis of a sequence of snapshots (a live daemon's ticks,
// or a recording's replay), the stateful part of step 5 of
// docs/architecture.md "One sample's way through": each window's signals
// are classified, the label goes through hysteresis (VerdictTracker), and
// the plateau detector runs over the recent windows grouped into steps.
#pragma once

#include <deque>
#include <vector>

#include "analysis/cpu_budget.h"
#include "analysis/delivery_cost.h"
#include "analysis/plateau.h"
#include "analysis/signals.h"
#include "analysis/verdict.h"
#include "analysis/wait_class.h"
#include "analysis/wait_history.h"
#include "bus/bus_model.h"
#include "bus/bus_path.h"
#include "sources/sample.h"
#include "window/window.h"

namespace bottleneckd {

struct LiveStepOptions {
  int windows_per_step = 5;  // windows averaged into one plateau step
  int steps = 12;            // steps kept (12 x 5 windows: a minute at 1 s)
};

// One window and what it is read against: the Samples at its ends, and the
// NICs' bus paths with the bus model's estimate for the window (both null
// without the pci collector). Borrowed for the call only.
struct WindowInput {
  const Window& window;  // every difference the analysis needs (window/)
  const Sample& cur;     // the devices' attributes, the profile
  const std::vector<BusPath>* bus_paths = nullptr;
  const BusEstimate* bus = nullptr;
};

// What the analysis says of a window: the verdict after hysteresis, and the
// plateau detector over the recent windows.
struct Analysis {
  Verdict verdict;  // published: after hysteresis
  // This window's own classification, before hysteresis: its scores and
  // evidence, which differ from the published verdict's while a change is
  // pending.
  Verdict window;
  Plateau plateau;
  std::vector<CpuBudget> cpu_budget;                   // each CPU's time over the window
  std::vector<ThreadWaitShares> thread_waits;          // each target thread's waits by class
  std::vector<ThreadWaitSeconds> thread_wait_seconds;  // and their seconds since first seen
};

class Analyzer {
 public:
  explicit Analyzer(const VerdictThresholds& t, const PlateauOptions& p = LivePlateauOptions(),
                    const LiveStepOptions& l = {});

  // Analyses the next window of the sequence (they must come in order: the
  // hysteresis and the plateau steps carry over from the windows before).
  Analysis Analyze(const WindowInput& in);

  // The signals of the last analysed window (for reports and tests).
  const Signals& last_signals() const { return signals_; }

  // The host's interrupt delivery cost, learned from the windows so far
  // (the daemon restores and keeps it across restarts).
  DeliveryCost& delivery_cost() { return delivery_; }

 private:
  VerdictThresholds thresholds_;
  PlateauOptions plateau_options_;
  LiveStepOptions step_options_;
  VerdictTracker tracker_;
  WaitHistory waits_;
  WaitSecondsTotals wait_seconds_;
  DeliveryCost delivery_;
  Signals signals_;
  LoadStep partial_;  // the step being filled
  int partial_windows_ = 0;
  int partial_application_windows_ = 0;  // of them, those with an application utilisation
  std::deque<LoadStep> steps_;
};

// One window's load as a plateau step: offered and delivered packets, the
// application CPU's /proc/stat busy ratio (ApplicationCpu: the utilisation
// users see) and the target threads' running share of it (schedstat: the
// application's own, whose flatness the plateau judges), all CPUs' busy time
// per second, drops on every rung.
LoadStep StepOfWindow(const Signals& s);

}  // namespace bottleneckd
