// RunTracker: the live daemon's runs (docs/runs.md). Runs are
// started and stopped by name (from the control socket or an in-process
// `bottleneckd run`); every analysed window is appended to each active run's
// timeline; within a run, the steady load phases of a sweep become segment
// runs (analysis/segments.h); and every `window_seconds` the host's
// own window run is closed with its verdict, so a live host has a verdict
// history without anyone starting a run. Runs (not segments) also sum the
// live capture's top flows of their windows (docs/runs.md).
//
// Everything goes to the RunStore as it happens. A write that fails (full
// disk) is logged once and retried at the next window: the run stays in
// memory until it is stored, so nothing finished is lost while the daemon
// lives. Thread-safe: control requests and the tick thread share one mutex.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/segments.h"
#include "base/mutex.h"
#include "base/status.h"
#include "runs/run_store.h"
#include "runs/run_summary.h"

namespace bottleneckd {

struct RunTrackerOptions {
  double window_seconds = 60;               // continuous window runs; 0 turns them off
  double keep_windows_seconds = 7 * 86400;  // window runs older than this are pruned
  bool segments = true;                     // segment runs within runs
  SegmentOptions segment;
  size_t max_active = 16;
  // When a run's drops are loss (the verdict's, analysis/verdict.h
  // VerdictThresholds::loss(); not a field of `runs.tracker`): a run that
  // lost is never `none` (Summarise).
  LossTolerance loss{};
};

class RunTracker {
 public:
  // `store` may be null (no state directory): runs live in memory only.
  RunTracker(std::unique_ptr<RunStore> store, const RunTrackerOptions& o);
  ~RunTracker();

  // Begins a run at `now` (Unix seconds). source: "control" or "command".
  // InvalidArgument for a name already active or too many active runs.
  Status Start(const std::string& name, const std::string& source, const std::string& command, double now)
      LOCKS_EXCLUDED(mu_);
  // Ends it at `now` and returns its summary (verdict with evidence) and its
  // segments. NotFound when no run of that name is active.
  Status Stop(const std::string& name, std::optional<int> exit_code, double now, RunReport* out,
              std::vector<RunReport>* segments = nullptr) LOCKS_EXCLUDED(mu_);
  // The active run `name` follows process `pid` (the command `bottleneckd
  // run` started): the threads collector reads its threads as targets while
  // the run is active (FollowedPids), so offcpu and the profile cover it
  // without collectors.threads.targets. NotFound when no run of that name is
  // active; InvalidArgument past kMaxFollowedPids for the run.
  Status Follow(const std::string& name, int pid) LOCKS_EXCLUDED(mu_);
  // The processes the active runs follow, sorted, each once.
  std::vector<int> FollowedPids() const LOCKS_EXCLUDED(mu_);
  static constexpr size_t kMaxFollowedPids = 16;
  // Forgets the active run `name` and deletes it from the store: its command
  // never started (exec failed), so there is nothing to judge or keep.
  // NotFound when no run of that name is active.
  Status Discard(const std::string& name) LOCKS_EXCLUDED(mu_);
  // A window analysed by the daemon: p.t is its end (Unix seconds);
  // `captures` are its live capture windows, whose top flows (trusted
  // captures only) are summed into each active run's and the window run's
  // flows (RunFlowTable; a run's summary keeps the kRunFlows biggest).
  // Segments get no flows: their windows' flows are not kept apart.
  // `profile`: the window's on-CPU samples (sources/profile.h), merged into
  // each active run's profile and the window run's (segments get none);
  // `offcpu`: the window's off-CPU stacks (window/offcpu_stacks.h), likewise.
  void OnWindow(const TimelinePoint& p, const Verdict& v, const std::vector<CaptureWindow>& captures = {},
                const ProfileReading* profile = nullptr, const FoldedProfile* offcpu = nullptr) LOCKS_EXCLUDED(mu_);
  // Ends every active run as "interrupted" (daemon shutdown) and stores
  // what can be stored. Returns the finished runs the store would not take
  // (each "'NAME' (STATE, N windows, started T)"), which the exit loses; an
  // error log names them too. Empty without a store: then runs were never
  // meant to outlive the process.
  std::vector<std::string> Close(double now) LOCKS_EXCLUDED(mu_);

  bool active() const LOCKS_EXCLUDED(mu_);
  // Runs started since the tracker was made: the daemon rescans its targets
  // when this moves (Sampler::Rescan).
  uint64_t starts() const LOCKS_EXCLUDED(mu_);
  std::vector<RunReport> Active() const LOCKS_EXCLUDED(mu_);         // name, source, start, points so far
  std::vector<std::string> ActiveNames() const LOCKS_EXCLUDED(mu_);  // the same runs' names, cheaply (each tick)
  size_t unsaved() const LOCKS_EXCLUDED(mu_);                        // finished runs waiting for the store
  bool has_store() const { return store_ != nullptr; }
  std::string store_path() const LOCKS_EXCLUDED(mu_);

 private:
  struct Live {
    RunReport run;
    std::vector<TimelinePoint> points;
    std::vector<Verdict> verdicts;
    size_t stored_points = 0;  // points written to the store
    SegmentTracker segments;
    size_t segment_count = 0;
    std::vector<RunReport> finished_segments;
    RunFlowTable flows;        // every window's, from the run's start
    FoldedProfile profile;     // likewise
    int profile_readings = 0;  // the profiler's readings merged into it (one a window while loaded)
    FoldedProfile offcpu;      // every window's off-CPU stacks
    int offcpu_readings = 0;   // offcpu's readings merged into it (one a window while loaded)
    std::vector<int> pids;     // the processes it follows (Follow)
  };
  // A finished run on its way to the store.
  struct Pending {
    RunReport run;
    std::vector<TimelinePoint> timeline;
    size_t stored_points = 0;
    bool finished = false;            // run's summary written
    std::vector<RunReport> children;  // its segments, stored after it (they need its id)
    size_t stored_children = 0;
  };
  Status StopLocked(const std::string& name, std::optional<int> exit_code, double now, const char* state,
                    RunReport* out, std::vector<RunReport>* segments) EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The run's figures over points [first, last] (settling windows dropped).
  RunReport SummariseSpan(const Live& l, size_t first, size_t last) const;
  void EndSegment(Live* l, const Segment& s);
  void AppendPending(Live* l) EXCLUSIVE_LOCKS_REQUIRED(mu_);  // points not yet in the store
  bool Store(Pending* p) EXCLUSIVE_LOCKS_REQUIRED(mu_);       // finishes p in the store; false on failure
  void Save(Pending p) EXCLUSIVE_LOCKS_REQUIRED(mu_);         // Store, else queue for retry
  void RetryUnsaved() EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Logs a failure once, recovery once.
  void StoreResult(const char* what, const Status& s) EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable Mutex mu_;
  // Set at construction; the RunStore is not thread-safe: used under mu_.
  const std::unique_ptr<RunStore> store_ PT_GUARDED_BY(mu_);
  RunTrackerOptions o_;
  std::map<std::string, Live> active_ GUARDED_BY(mu_);  // by name
  uint64_t starts_ GUARDED_BY(mu_) = 0;
  Live window_ GUARDED_BY(mu_);  // the continuous window run in progress
  bool window_open_ GUARDED_BY(mu_) = false;
  std::vector<Pending> unsaved_ GUARDED_BY(mu_);
  bool store_failing_ GUARDED_BY(mu_) = false;
  double last_prune_ GUARDED_BY(mu_) = 0;
};

}  // namespace bottleneckd
