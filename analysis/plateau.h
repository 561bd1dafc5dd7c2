// Plateau, MLFRR and service demand (docs/verdict-rules.md section 5), over a
// sequence of steps (consecutive windows of a live host, or the runs of a
// sweep): the seed's symptom is offered load rising while utilisation stays
// flat below 100 % and delivered throughput stays flat or falls.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/loss_tolerance.h"

namespace bottleneckd {

// One step of a sweep (a run) or one window.
struct LoadStep {
  std::string name;
  double offered_packets_per_second = 0;
  double delivered_packets_per_second = 0;
  double utilisation = 0;  // busiest CPU's busy ratio (soaker when available)
  // The application's own share of that CPU: its target threads' running
  // time there (schedstat), when the kernel gave it for each of them. The
  // plateau's flatness is judged on it when every step has it: a CPU's
  // utilisation also holds other work that moves on its own.
  std::optional<double> application_utilisation;
  double cpu_seconds_per_second = 0;     // all CPUs' busy time per second (for service demand)
  double drops_per_second = 0;           // all rungs
  double received_bytes_per_second = 0;  // for service demand per byte; 0 when unknown
  std::string first_losing_rung;         // the step's ladder (RungName), "none" or "" when unknown
};

struct PlateauOptions {
  double offered_rise_min = 0.05;  // offered must rise by this share across the steps
  double offered_dip_max = 0.01;   // and never fall by more than this share from one step to the next
  // max - min utilisation within this band: the echo lab's waiting echo,
  // steady past capacity, spread 0.29-0.37 over 5-window steps
  // (docs/verdict-rules.md section 10)
  double utilisation_band = 0.08;
  double utilisation_max = 0.98;  // and below this (a plateau short of 100 %)
  // and above this (an idle box is not a plateau): the waiting echo read
  // 0.24-0.37 on a faster host than the one it first ran on
  double utilisation_min = 0.15;
  double delivered_flat = 0.03;  // delivered rises by less than this share (or falls),
  // or by less than this share of the offered load's rise: the waiting echo
  // delivered 3.3 % more at 74 % more offered (docs/verdict-rules.md
  // section 10)
  double delivered_elasticity = 0.1;
  int min_steps = 3;
};

// The live plateau's tolerances (Analyzer: 5-window steps of a load the
// daemon does not control). A live step is 5 s of a server whose capacity
// wanders on its own: lab.echo's waiting echo, steady past capacity,
// delivered 12.8-14.0 k/s from one step to the next (2026-12-06, this VM),
// so a later step read up to 5.5 % over an earlier one while offered rose
// 22 %. Against delivered_flat's 3 % the live metric dropped in and out,
// and one fresh-clone CI read 1 in 1 of 20 scrapes. Flat is 7 % here, and
// offered must rise 15 % (twice that) so that a server whose delivered
// follows its offered load is never flat within it (docs/verdict-rules.md
// section 10). Steps of runs (a sweep) are whole runs and keep the defaults.
PlateauOptions LivePlateauOptions();

struct Plateau {
  bool detected = false;
  double level = 0;            // mean utilisation on the plateau
  size_t first = 0, last = 0;  // step indices it spans
  std::string evidence;        // one sentence with the numbers
};

// The longest run of consecutive steps (at least min_steps) that forms a
// plateau: offered never falls by more than offered_dip_max from one step to
// the next (measurement noise) and rises by at least offered_rise_min over
// the run; every step's utilisation lies in
// (utilisation_min, utilisation_max), and within utilisation_band of each
// other the steps' application_utilisation when every step has it, else
// their utilisation; no step delivers more than the run's first step x (1 +
// max(delivered_flat, delivered_elasticity x the step's offered rise over the
// first's)). The earliest of equally long runs wins; detected false
// when none qualifies (fewer steps than min_steps included).
Plateau DetectPlateau(const std::vector<LoadStep>& steps, const PlateauOptions& o);

struct Mlfrr {
  std::optional<double> rate;     // highest offered rate with no drops on any rung
  std::optional<size_t> knee;     // first step that loses packets
  std::string first_losing_rung;  // at the knee, from the caller's ladder ("socket")
};
// The MLFRR over steps sorted by offered rate (the caller's ladder names the
// rung: LoadStep::first_losing_rung of the knee). A step loses packets when its
// drops_per_second are losing under `loss` (over the floor and over the loss
// ratio of its offered rate). rate: the offered rate of the step before
// the knee, the last step's when none loses, nullopt when the first already
// does, when there are no steps, or when none loses and no step was offered
// more than `loss.floor_per_second` (no load: no limit was measured, and 0
// would read as a box that receives nothing).
Mlfrr FindMlfrr(const std::vector<LoadStep>& steps, const LossTolerance& loss);

// Service demand: CPU microseconds per delivered packet of each step; nullopt
// when nothing was delivered.
std::optional<double> CpuMicrosecondsPerPacket(const LoadStep& s);
// CPU nanoseconds per delivered byte; nullopt when no bytes were delivered (or unknown).
std::optional<double> CpuNanosecondsPerByte(const LoadStep& s);

// The sensitivity check: throughput x CPU cost per packet constant across the
// steps (within `tolerance`) means the CPU is the limit whatever idle says.
// Constant: (max - min) / mean of the products <= tolerance. Only steps that
// delivered packets count; false with fewer than two of them, or when the cost
// per packet itself did not change by more than `tolerance` (the same
// relative spread): with nothing varied, nothing was tested.
bool ThroughputTracksCpuCost(const std::vector<LoadStep>& steps, double tolerance);
// The same check with its reason, for the report's line: "yes: the CPU cost
// per packet varied 48 % across the runs while throughput x cost stayed
// within 3 %: the CPU's work per second is the limit"; "no: ..." saying
// which condition failed (fewer than two runs delivered packets; the cost
// per packet did not vary enough to test anything; the product varied).
struct CpuCostCheck {
  bool tracks = false;
  std::string why;
};
CpuCostCheck CheckThroughputTracksCpuCost(const std::vector<LoadStep>& steps, double tolerance);

}  // namespace bottleneckd
