// Verdict rules (docs/verdict-rules.md sections 2-4): from one window's
// Signals, the label (cpu, interrupt, bus, wait, none, undetermined), the resource
// it names, a confidence, and the evidence sentences with their numbers. The rules are a
// readable table (analysis/rules.cc, one function per label) scored
// independently; the winner must beat the runner-up by a margin, else the
// verdict is `undetermined` with the reasons. VerdictTracker adds hysteresis
// so steady load does not flap between labels.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/signals.h"
#include "base/verdict_labels.h"

namespace bottleneckd {

// The labels (Bound, BoundName, ParseBound, IsLimit) are one list,
// base/verdict_labels.def. kWait: the limit is a target thread's own waits
// (a sleep, a lock, a peer) while no CPU, interrupt or bus resource is full:
// the plateau below 100 %.

// Thresholds: configuration defaults (etc/bottleneckd.yaml `verdict:`),
// listed in docs/verdict-rules.md section 6.
struct VerdictThresholds {
  double cpu_idle_max = 0.05;         // a CPU with less delivered idle is saturated
  double thread_busy_min = 0.95;      // a target thread at this share of a CPU is saturated
  double interrupt_share_min = 0.50;  // hardirq+softirq share of a saturated CPU's busy time
  double bus_utilisation_min = 0.70;  // modelled utilisation of the NIC's busiest link
  double bus_cpu_idle_min = 0.20;     // every CPU on the path keeps this much idle for `bus`
  double busy_min_for_none = 0.80;    // `none` needs every CPU below this busy
  double thread_wait_min = 0.50;      // a target thread off-CPU in its own waits this share of a window: `wait`
  double drop_floor_per_second = 1;   // drops at or below this rate are noise
  double loss_ratio_min = 0.002;      // and so are drops of at most this share of the offered load
  double margin = 0.15;               // winner's score - runner-up's below this: undetermined
  double min_score = 0.50;            // a winner scoring less is weak evidence: undetermined
  int hysteresis_windows = 3;         // windows a new label must hold before it replaces the old
  double switch_confidence = 0.50;    // from undetermined or none, a bound this confident replaces it at once

  // The interfaces carrying the load (SignalOptions); empty: all but loopback.
  std::vector<std::string> packet_path_interfaces;
  // The CPUs this host's verdict judges (SignalOptions), sorted; empty: all.
  std::vector<int> cpus;

  LossTolerance loss() const { return {drop_floor_per_second, loss_ratio_min}; }
  SignalOptions signal_options() const { return {loss(), packet_path_interfaces, cpus}; }
};

struct Verdict {
  Bound label = Bound::kUndetermined;
  // The window lost packets (a rung over the loss tolerance): a bound that
  // costs packets is published at once; one that costs none must hold.
  bool losing = false;
  std::string resource;               // "cpu1", "thread udpecho", "em0 (0000:02:01.0)", "segment 0000:02"; "" for none
  int resource_cpu = -1;              // the CPU the resource is or its thread ran on (cpu); else -1
  double confidence = 0;              // [0, 1]: how clearly the winner beats the runner-up
  std::vector<std::string> evidence;  // the sentences that fired, with numbers
  std::vector<std::string> reasons;   // undetermined: why no label won
  std::array<double, kBoundCount> scores{};  // per Bound, [0, 1]
  // A `wait` verdict: the largest of its thread's own wait classes (peer,
  // lock, disk, sleep, other: analysis/wait_class.h); "" for other labels.
  std::string wait_class{};
};

// The CPU a resource names ("cpu1" -> 1); false for any other resource.
bool ResourceCpu(std::string_view resource, int* cpu);
// The thread a resource names ("thread udpecho" -> "udpecho"); "" for any other.
std::string_view ResourceThread(std::string_view resource);

// Scores every label and picks the verdict of one window.
Verdict Classify(const Signals& s, const VerdictThresholds& t);

// Hysteresis over consecutive windows: a verdict that names something else
// (another label, or the same label with another resource) replaces the
// current one only after `hysteresis_windows` windows in a row named it; but
// at once when its confidence is at least switch_confidence and the current
// label is undetermined, or the current label is none and the new one is a
// bound (cpu, interrupt, bus, wait) in a window that loses packets (a busy
// second that costs nothing is not a bottleneck until it holds).
// A window that agrees with the current label and resource refreshes the
// published verdict (evidence, confidence) and clears any pending change;
// until a change is accepted the old verdict stays published (with the
// window's confidence and scores when only the resource is contested).
class VerdictTracker {
 public:
  explicit VerdictTracker(const VerdictThresholds& t) : t_(t) {}
  // The verdict to publish for this window.
  const Verdict& Update(const Verdict& raw);
  const Verdict& current() const { return current_; }

 private:
  VerdictThresholds t_;
  Verdict current_;
  Bound pending_ = Bound::kUndetermined;
  std::string pending_resource_;
  int pending_count_ = 0;
};

}  // namespace bottleneckd
