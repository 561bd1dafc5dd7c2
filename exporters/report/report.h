// The report (`bottleneckd --report --replay DIR [--format text|json]`):
// each run of a recording with its verdict, evidence and the seeds' sweep
// table (offered, delivered, CPU %, soaker idle, interrupts/s, bus %, and
// applied vs echoed from the live capture when a run has it), and
// across the runs the plateau, the MLFRR and the sensitivity check. A
// recording without runs is reported by its steady load phases (segments),
// or as one run spanning it when it has none. The run store's report reads
// runs.db (runs/run_store.h), which the running daemon keeps current.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/plateau.h"
#include "analysis/verdict.h"
#include "base/status.h"
#include "daemon/config.h"
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
  Plateau plateau;  // across the runs, in order
  Mlfrr mlfrr;
  std::optional<bool> throughput_tracks_cpu_cost;
};

// Replays `dir` and builds its report. Errors are OpenRecording's/replay's.
Status BuildReplayReport(const std::string& dir, const Config& config, Report* out);

// The run store's report: with `run` "" the newest `last` runs (not window
// runs), else the newest run of that name with its segments as the sweep
// (the run itself when it has none). NotFound names an unknown run.
Status BuildStoreReport(RunStore* store, const std::string& run, size_t last, double drop_floor_per_second,
                        Report* out);

// The rows of the sweep table (with the header line) and each run's
// evidence: what ReportText prints for its runs, and what `bottleneckd run`
// prints when its run ends. The columns applied/s, echoed/s, loss and p99
// appear only when a run has capture figures (so a table without them reads
// as before); with `flows`, each run's flows follow its evidence.
std::string RunTable(const std::vector<RunReport>& runs, bool flows = false);

std::string ReportText(const Report& r);
std::string ReportJson(const Report& r);

}  // namespace bottleneckd
