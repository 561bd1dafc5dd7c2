// The report (`bottleneckd --report --replay DIR [--format text|json]`):
// each run of a recording with its verdict, evidence and the seeds' sweep
// table (offered, received, delivered to the application, CPU %, soaker
// idle, interrupts/s, bus %, drops/s, and applied vs echoed from the live
// capture when a run has it), and across the runs the plateau, the MLFRR and the sensitivity check. A
// recording without runs is reported by its steady load phases (segments),
// or as one run spanning it when it has none. The run store's report reads
// runs.db (runs/run_store.h), which the running daemon keeps current.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/plateau.h"
#include "analysis/segments.h"
#include "analysis/verdict.h"
#include "base/status.h"
#include "recording/recording.h"
#include "runs/run_store.h"
#include "runs/run_summary.h"

namespace bottleneckd {

struct Report {
  std::string recording;  // the directory (a recording's report)
  RecordingInfo info;
  std::string store;                // the database (a run store's report)
  std::optional<RunReport> parent;  // --run NAME: the run whose segments are `runs`
  bool flows = false;               // --run NAME: print each run's flows under its evidence
  std::vector<RunReport> runs;
  // What the plateau, MLFRR and sensitivity check are computed over, in
  // order: the runs themselves (a recording, --run NAME), or for the run
  // store's newest runs only those that belong together (SweepOfNewest), with
  // `sweep_of` saying which ("" when the sweep is `runs`).
  std::vector<RunReport> sweep;  // empty unless sweep_of is set
  std::string sweep_of;
  Plateau plateau;  // across the sweep, in order
  Mlfrr mlfrr;
  std::optional<bool> throughput_tracks_cpu_cost;
  std::string throughput_tracks_cpu_cost_why;  // its reason (CpuCostCheck::why), "" when unset
  // The windows the runs were taken from, in time order (the HTML report's
  // timelines): every window of a recording; a run store's listed runs'
  // (the parent's with --run).
  std::vector<TimelinePoint> timeline;
  // --run NAME: that run's merged on-CPU profile (empty when it was not
  // profiled), with the run's name.
  FoldedProfile profile;
  std::string profile_of;
  // The profiler's readings that run merged (RunReport::profile_readings):
  // why an empty profile is empty (EmptyProfileReason).
  std::optional<int> profile_readings;
  // --run NAME: that run's merged off-CPU stacks in microseconds (empty when
  // offcpu followed none of its threads; window/offcpu_stacks.h), and
  // offcpu's readings it merged (RunReport::offcpu_readings).
  FoldedProfile offcpu;
  std::optional<int> offcpu_readings;
};

// Why `r`'s profile has no sample, one sentence: the profiler was not loaded
// while the run ran (no reading), or it was loaded for N windows and walked
// no stack (collectors.profile.stacks), or the store is older than the count.
std::string EmptyProfileReason(const Report& r);
// Why `r`'s off-CPU stacks are empty, one sentence: offcpu was not loaded
// while the run ran, or it was loaded for N windows and measured no time
// off the CPU of a thread it followed, or the store is older than the count.
std::string EmptyOffCpuReason(const Report& r);

// The runs r's plateau, MLFRR and sensitivity check are over: r.sweep when
// r.sweep_of says it was chosen, else r.runs.
const std::vector<RunReport>& SweptRuns(const Report& r);

// A recording's report from its replayed timeline (daemon/replay.h
// ReplayTimeline): its runs, or without any the steady load phases found by
// `segment`, or the whole recording as one run.
Report ReportOfRecording(const ReplayedTimeline& replay, const SegmentOptions& segment, const LossTolerance& loss);

// The run store's report: with `run` "" the newest `last` runs (not window
// runs), swept as SweepOfNewest says; else the newest run of that name as
// ReportOfRun gives it. NotFound names an unknown run.
Status BuildStoreReport(RunStore* store, const std::string& run, size_t last, const LossTolerance& loss, Report* out);

// Which of the newest runs make one sweep: a run whose command exited with
// another code than 0 is in none (a command that did not exist, a benchmark
// that failed); of the others, the newest run and every listed run whose
// name is its name but for the numbers in it ("echo 20k" and "echo 44k";
// "udp_echo.py --rates 1000" and "--rates 2000"; not "sleep 2"). Alone, a run
// with segments is swept by its segments, so the report of the newest runs
// gives the MLFRR `--report --run NAME` gives for it.
struct NewestSweep {
  std::vector<size_t> runs;  // indices into the listed runs, in their order
  bool by_segments = false;  // runs has one entry, swept by its segments
  std::string of;            // Report::sweep_of
};
NewestSweep SweepOfNewest(const std::vector<RunReport>& runs, bool newest_has_segments);
// A run's name with every number in it written '#': "echo #k".
std::string SweepKey(const std::string& name);

// The report of one run (`--report --run NAME`, without `store`): the run
// with its segments (in start order) as the sweep, or the run itself as the
// sweep when it has none; its flows shown; the plateau, MLFRR and
// sensitivity check across the sweep.
Report ReportOfRun(const RunReport& run, std::vector<RunReport> segments, const LossTolerance& loss);

// The rows of the sweep table (with the header line) and each run's
// evidence: what ReportText prints for its runs. The columns applied/s,
// echoed/s, loss and p99 appear only when a run has capture figures (so a
// table without them reads as before); with `flows`, each run's flows
// and its CPU budget (BudgetText) follow its evidence.
std::string RunTable(const std::vector<RunReport>& runs, bool flows = false);

// The sweep table's cells as RunTable prints them (unpadded): the header
// and one row per run (with the capture columns when a run has them). The
// HTML report's table.
struct SweepTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
SweepTable SweepTableCells(const std::vector<RunReport>& runs);

// ReportBody's lines across the runs: the plateau, the MLFRR and the
// sensitivity check (without newlines).
std::vector<std::string> SweepLines(const Report& r);

// A report's text and JSON. The text is its first line (the run store or
// the recording), a blank line, then ReportBody: the parent's table and
// "its steady load phases (segments):" when there is a parent, the runs'
// table, and the plateau, MLFRR and sensitivity lines.
std::string ReportText(const Report& r);
std::string ReportHeading(const Report& r);  // that first line, without its newline
std::string ReportBody(const Report& r);
std::string ReportJson(const Report& r);

// What `bottleneckd run` and the control socket's stop print when a run
// ends: ReportBody(ReportOfRun(...)), so it reads as `--report --run NAME`
// will for that run, less the first line.
std::string FinishedRunText(const RunReport& run, const std::vector<RunReport>& segments, const LossTolerance& loss);

}  // namespace bottleneckd
