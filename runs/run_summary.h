// Run summary: the per-second timeline of a run (one TimelinePoint per
// window, the row the run store keeps) and the figures of a run built from
// it: the seeds' sweep-table columns (with the live capture's applied vs
// echoed rates), the verdict most windows held, the run's flows, and the
// run as one step of a sweep (plateau, MLFRR). Shared by the report of a
// recording, the live daemon's runs and the run store, so a run reads the
// same whichever way it was taken.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cpu_budget.h"
#include "analysis/plateau.h"
#include "analysis/signals.h"
#include "analysis/verdict.h"
#include "recording/recording.h"
#include "sources/profile_fold.h"
#include "window/capture_window.h"

namespace bottleneckd {

// Packets lost per second on each rung of the receive drop ladder
// (docs/verdict-rules.md section 1, "The drop ladder"), in the order a
// received packet meets them. nic, backlog and socket are always set for a
// window (LadderSignal); a run store row written before schema version 3
// reads them unset. application: echo requests never
// answered, over the trusted live captures (CaptureWindow::lost_per_second),
// unset without one. drops_per_second sums nic, backlog and socket only.
struct RungDrops {
  std::optional<double> nic, backlog, socket, application;
};

// One window of a run, reduced to what reports and the store need.
struct TimelinePoint {
  double t = 0;                            // window end: seconds since the recording's first sample, or Unix time live
  double offered_packets_per_second = 0;   // received + NIC drops
  double received_packets_per_second = 0;  // received by the NICs
  double received_bits_per_second = 0;
  double application_packets_per_second = 0;  // received less backlog and socket drops
  double cpu_busy = 0;                        // the application's busiest CPU (ApplicationCpu; soaker when it ran)
  double accounting_busy = 0;                 // that CPU's /proc/stat busy
  double cpu_seconds_per_second = 0;          // all CPUs' busy time per second
  std::optional<double> soaker_idle;          // least delivered idle among CPUs
  double interrupts_per_second = 0;           // all NICs
  std::optional<double> bus_utilisation;      // busiest non-emulated NIC bus path
  double drops_per_second = 0;                // all rungs
  std::string first_losing_rung = "none";     // RungName
  RungDrops rungs;                            // drops per second on each rung
  Bound label = Bound::kUndetermined;         // the window's verdict (after hysteresis)
  std::string resource;
  double confidence = 0;
  // From the live capture (window/capture_window.h), over the interfaces
  // whose capture is trusted this window (lost nothing); unset without
  // capture or when every capture dropped frames.
  std::optional<double> applied_per_second, echoed_per_second;           // requests, replies (all trusted interfaces)
  std::optional<double> echo_loss_ratio;                                 // UDP lost / (paired + lost)
  std::optional<double> turnaround_p50_seconds, turnaround_p99_seconds;  // the interface with most pairs
  std::optional<double> capture_drops_per_second;  // all captures' pcap drops (set whenever a capture ran)
  // Each kept CPU's time budget over the window (analysis/cpu_budget.h), in
  // CPU order, at most kPointBudgetCpus of them (PointOfWindow); empty when
  // unknown (a run store row written before schema version 5).
  std::vector<CpuBudget> cpu_budget;
};

// A recording replayed into what a run keeps of each window (daemon/
// replay.h ReplayTimeline): the point and the verdict (with its evidence) of
// every window that had one, t in seconds since the first sample.
struct ReplayedTimeline {
  std::string dir;
  RecordingInfo info;
  std::vector<TimelinePoint> points;
  std::vector<Verdict> verdicts;  // points[i]'s
};

// A flow of a run, from the live capture's window top flows, summed over
// the run (docs/runs.md). `flow` is FlowKey::ToString() with the interface:
// "eth0 udp 10.0.0.1:40000 > 10.0.0.2:7".
struct RunFlow {
  std::string flow;
  uint64_t requests = 0, replies = 0, paired = 0, lost = 0, packets = 0, bytes = 0;
};

// How many CPUs' budgets a timeline point keeps, so a run's memory and rows
// stay bounded on a many-CPU host.
inline constexpr size_t kPointBudgetCpus = 16;

// The window's point. `budget` is the window's CpuBudgets (Analysis::
// cpu_budget); the point keeps all of them when there are at most
// kPointBudgetCpus, else the verdict's CPU (a "cpuN" resource) and the
// busiest others (least idle; ties: the lower CPU), in CPU order.
TimelinePoint PointOfWindow(double t, const Signals& s, const Verdict& v, const std::vector<CpuBudget>& budget = {});

// A CPU's time budget over a run: each part's and the overlap's mean over
// the settled windows that kept the CPU (`windows` of them). A flag holds
// when it held in every one of them, but delivery_learned when a learned
// cost was applied in any (the delivery part is then partly an estimate).
struct RunCpuBudget {
  CpuBudget budget;
  size_t windows = 0;
};

// The budgets a point keeps of a window's `budget` (PointOfWindow's rule).
std::vector<CpuBudget> KeptBudgets(const std::vector<CpuBudget>& budget, const Verdict& v);
// Each CPU's RunCpuBudget over `settled`, in CPU order.
std::vector<RunCpuBudget> RunBudgets(const std::vector<TimelinePoint>& settled);

// How many flows a run's summary keeps (most packets first).
inline constexpr size_t kRunFlows = 16;

// A run's flows as the windows go by: each window's top flows (trusted
// captures only, like the figures: an untrusted capture's "lost" may be
// replies it missed) summed by `flow` into a bounded table. When a new flow
// finds the table full, the entry with the fewest packets goes (the new one
// itself when it has fewest; ties: the first in `flow` order), so memory
// stays flat whatever the traffic: a flow among the `max_entries` biggest
// in the end is never dropped, though a flow dropped early and seen again
// counts again from then. Not thread-safe.
class RunFlowTable {
 public:
  static constexpr size_t kMaxEntries = 256;
  explicit RunFlowTable(size_t max_entries = kMaxEntries) : max_entries_(max_entries ? max_entries : 1) {}
  // Adds one window's flows of `interface`.
  void Add(const std::string& interface, const std::vector<FlowStats>& flows);
  // Adds the top flows of each trusted capture of a window.
  void Add(const std::vector<CaptureWindow>& captures);
  size_t size() const { return entries_.size(); }
  // The `n` flows with most packets, most first (ties in `flow` order).
  std::vector<RunFlow> Top(size_t n = kRunFlows) const;

 private:
  std::map<std::string, RunFlow> entries_;  // by flow
  size_t max_entries_;
};

struct RunReport {
  std::string name;
  double start = 0, end = 0;                      // same clock as the points' t
  std::optional<double> offered_bits_per_second;  // from the recording's run, when given
  double offered_packets_per_second = 0;          // the run's, else received + NIC drops
  double received_packets_per_second = 0;
  double received_bits_per_second = 0;
  double application_packets_per_second = 0;
  double cpu_busy = 0;         // the application's busiest CPU's mean busy (ApplicationCpu; soaker when it ran)
  double accounting_busy = 0;  // that CPU's /proc/stat busy
  double cpu_seconds_per_second = 0;
  std::optional<double> soaker_idle;  // least delivered idle among CPUs, mean
  double interrupts_per_second = 0;
  std::optional<double> bus_utilisation;  // busiest NIC bus path, highest window
  double drops_per_second = 0;
  std::string first_losing_rung = "none";  // the rung most losing windows lost at first ("none": none lost)
  RungDrops rungs;                         // each rung's mean over the settled windows that have it
  // The live capture's figures (TimelinePoint's), each the mean over the
  // settled windows that have it; unset when none has it. The turnaround
  // percentiles are the mean of the windows' p50 and p99, not percentiles
  // of the run's pairs (the windows' histograms are not kept).
  std::optional<double> applied_per_second, echoed_per_second;
  std::optional<double> echo_loss_ratio;
  std::optional<double> turnaround_p50_seconds, turnaround_p99_seconds;
  std::optional<double> capture_drops_per_second;
  // The run's flows, most packets first, at most kRunFlows (RunFlowTable,
  // over every window of the run, settling ones too: counts, not rates).
  // Set by the live daemon's runs (RunTracker); segments and recordings
  // have none. Summarise leaves them alone.
  std::vector<RunFlow> flows;
  // Each CPU's budget over the run (RunCpuBudget), in CPU order, from the
  // settled points that kept it (Summarise); empty when none did.
  std::vector<RunCpuBudget> cpu_budget;
  // The on-CPU profile merged over the run's windows (sources/profile_fold.h),
  // set by the live daemon's runs while the profiler is loaded; written with
  // the run, read back only on request (RunStore::Profile).
  FoldedProfile profile;
  // The target threads' off-CPU stacks merged over the run's windows, in
  // microseconds (window/offcpu_stacks.h), set by the live daemon's runs
  // while offcpu is loaded; written with the run, read back only on request
  // (RunStore::OffCpu).
  FoldedProfile offcpu;
  size_t windows = 0;          // settled windows the figures average
  Verdict verdict;             // label most settled windows held (Summarise), evidence when known
  size_t verdict_windows = 0;  // how many held the label (whatever their resource)
  // The run is judged where it is limited (LimitedPart): the windows of that
  // part (0: it has none, the verdict is every settled window's), and the
  // rest of the run, the light part: how many windows and the label most of
  // them held (kNone when there is no light part).
  size_t limited_windows = 0, light_windows = 0;
  Bound light_label = Bound::kNone;
  // How many of the profiler's readings (one a window while it was loaded)
  // the run merged into `profile`; nullopt where unknown (a run stored
  // before the store kept it). 0 with a profile: the profiler was not loaded.
  std::optional<int> profile_readings;
  // Likewise offcpu's readings (one a window while it was loaded) the run
  // merged into `offcpu`; nullopt where unknown (stored before schema
  // version 11).
  std::optional<int> offcpu_readings;
  std::string expected_label, expected_resource;  // ground truth, simulated recordings
  // Live runs and the store.
  std::string source;             // "command", "control", "window", "segment", "recording"
  std::string state;              // "active", "finished", "interrupted"
  std::string command;            // the wrapped command line
  std::optional<int> exit_code;   // the wrapped command's
  int64_t id = 0, parent_id = 0;  // store ids (0: none)
};

// Windows at the start of a run left out of its figures (the load step
// itself and the verdict's hysteresis): kSettleWindows, but never more than
// half the run's windows, so a short run still has figures.
inline constexpr size_t kSettleWindows = 5;
size_t SettleWindows(size_t windows);

// The run's limited part (docs/report.md, "Run verdict"): a settled window
// is limited when it loses (a rung over the loss tolerance) or its label is
// a limit (cpu, interrupt, bus, wait). A run's verdict is the verdict of that
// part, where it stops keeping up, not of the light steps before the knee
// (issue 49: a lock-bound server's run said `none`, 62 of its 138 windows
// light). A part of fewer than kMinLimitedWindows windows (half of a shorter
// run) or under a tenth of the run is a blip, not a part: every element false,
// and the whole run is judged.
inline constexpr size_t kMinLimitedWindows = 3;
std::vector<bool> LimitedPart(const std::vector<TimelinePoint>& settled);
// "judged where it is limited: 76 of its 138 windows lose or meet a limit;
// the light part (62 windows) was none"; "" when the run has no limited part
// or no light part (the verdict is then every window's).
std::string LimitedPartSentence(const RunReport& r);

// Fills r's figures and verdict label/resource/confidence from the settled
// points (the caller drops the settling ones). The verdict is judged on the
// limited part's points when the run has one (LimitedPart), else on all of
// them; limited_windows, light_windows and light_label say which. The
// verdict's label is the one most of those points hold (ties: the first in Bound order); its resource the
// one most of that label's points name (ties: the larger confidence sum,
// then the first name in byte order); its confidence the mean over all of
// that label's points, which verdict_windows counts. None of it depends on
// the points' order. `evidence`, when given, maps (label, resource) to the
// latest full Verdict seen with it, so the run's verdict carries the
// sentences of its (label, resource); else the verdict has none.
//
// A run that lost (its settled windows' drops over `loss`, the verdict's
// tolerance, against their offered load) is never `none`: where most of
// its windows said none (its losses a burst too short to be a limited
// part, or held behind the verdict's hysteresis) it is `undetermined`, loss
// that nothing measured explains, its reasons saying how much and where
// (docs/report.md, "Run verdict").
using VerdictEvidence = std::map<std::pair<int, std::string>, Verdict>;
void Summarise(const std::vector<TimelinePoint>& settled, const VerdictEvidence* evidence, RunReport* r,
               const LossTolerance& loss = {});

// The run as one step of a sweep. The plateau is on /proc/stat busy (the
// seed's 80-85 %, the symptom as top shows it), not the soaker's truth.
LoadStep StepOfRun(const RunReport& r);

// Across runs in order: plateau, MLFRR (runs sorted by offered rate) and the
// sensitivity check.
struct SweepAnalysis {
  Plateau plateau;
  Mlfrr mlfrr;
  std::optional<bool> throughput_tracks_cpu_cost;
  std::string throughput_tracks_cpu_cost_why;  // CpuCostCheck::why; "" when unset
};
SweepAnalysis AnalyseSweep(const std::vector<RunReport>& runs, const LossTolerance& loss);

}  // namespace bottleneckd
