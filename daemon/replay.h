// Replay and record: a recording (docs/recording-format.md) played back
// through the same Sampler, windows and bus model as a live host, and this
// host sampled into a new recording (`bottleneckd record`).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/snapshot.h"
#include "analysis/verdict.h"
#include "base/status.h"
#include "daemon/config.h"
#include "daemon/tick_pipeline.h"
#include "recording/recording.h"
#include "runs/run_summary.h"

namespace bottleneckd {

// Opens the recording in `dir` (OpenRecording: any problem is returned before
// `each` is called) and calls `each` with one Snapshot per sample, in order,
// as Daemon::Tick would have published it, through the same TickPipeline:
// collectors from config.collectors (one Sampler for the whole recording, so
// collectors keep their caches as they do live), mono_ns/wall_ns from the
// time files, each recorded source's reading (ReadRecordedSources), bus
// paths, the Window from the previous sample with its bus estimate
// (config.bus_model), the verdict, samples_total and the recording's
// interval.
// *info (optional) receives the recording's description. A sample that
// cannot be selected (removed or altered since it was opened, or holding an
// entry that leads outside the recording) stops the replay with its error.
Status ReplayRecording(const std::string& dir, const Config& config, const std::function<void(const Snapshot&)>& each,
                       RecordingInfo* info = nullptr);

// Replays `dir` (ReplayRecording) into *out (runs/run_summary.h). Errors are ReplayRecording's.
Status ReplayTimeline(const std::string& dir, const Config& config, ReplayedTimeline* out);

struct RecordProgress {
  size_t samples = 0;       // complete samples in the recording
  uint64_t bytes = 0;       // bytes of captured files (their contents)
  uint64_t disk_bytes = 0;  // what the recording takes on disk (du), set at the end
};

// What the directory tree at `dir` takes on disk, as du counts it (allocated
// blocks of every file, directory and link, hard links once); 0 when absent.
uint64_t DiskUsage(const std::string& dir);

// Each source that `info` lists and whose file the selected sample of `fs`
// holds, decoded by its entry (sources/source_entry.h) into *sample with a
// CollectorResult named after it, as SourceSet::Read adds a live reading: a
// malformed file is a failed result naming the file and line, never a stop.
void ReadRecordedSources(const ReplayFs& fs, const RecordingInfo& info, Sample* sample);

// `bottleneckd record`'s tick, the live daemon's pipeline with every read
// written down: the collectors through a RecordingFs over config.roots, each
// running source's reading in its entry's codec, the window the recorder
// computed, recording.yaml rewritten (a recorder killed at any point leaves
// a readable recording). RecordHost drives it on the clock; tests drive it
// with sources of their own.
class Recorder {
 public:
  // `sources` (synced by the caller) must outlive the Recorder.
  Recorder(const Config& config, std::string out_dir, SourceSet* sources);
  // Prepares out_dir: InvalidArgument when it exists and is not an empty
  // directory.
  Status Open();
  // Records one sample taken now, stamped (mono_ns, wall_ns) as its time
  // file says; *snap (optional) receives the snapshot the pipeline made of
  // it, what a replay must make again. A write failure (disk full) is the
  // error; the samples before it stay readable.
  Status Tick(int64_t mono_ns, int64_t wall_ns, std::shared_ptr<const Snapshot>* snap = nullptr);
  size_t samples() const { return info_.samples; }
  uint64_t bytes() const { return capture_.bytes_written(); }
  const RecordingInfo& info() const { return info_; }

 private:
  Config config_;
  std::string out_dir_;
  SourceSet* sources_;
  HostFs host_;  // hostname and kernel: not part of the recording
  RecordingFs capture_;
  TickPipeline pipeline_;
  RecordingInfo info_;
  int64_t first_mono_ = 0;
};

// Samples this host (config.roots, config.collectors, and every continuous
// source the daemon would load under config: sources/source_registry.h) into
// a new recording in out_dir every
// config.interval_seconds for duration_seconds (drift-free, as Daemon::Run:
// tick k at start + k x interval, missed ticks skipped), so a duration D at
// interval I gives floor(D / I) + 1 samples. recording.yaml is rewritten after
// every sample, so a recorder killed at any point leaves a readable recording
// of the samples so far. Stops early, keeping what it has, when *stop becomes
// true (SIGINT). Prints progress to stderr about every 5 s.
// A source that does not load is one log line and the recording goes on
// without it, except in mode on, where it is the error.
// Errors: out_dir exists and is not empty, or is not a directory
// (InvalidArgument); a duration outside (0, 24 h]; a source in mode on that
// does not load; a write failure such as a
// full disk (the recording keeps the samples before it; *progress says how many).
Status RecordHost(const Config& config, const std::string& out_dir, double duration_seconds,
                  const std::atomic<bool>* stop, RecordProgress* progress = nullptr);

inline constexpr double kMaxRecordSeconds = 24 * 3600;

// One line summarising a window for `bottleneckd --replay DIR` without
// --report: offset from the first sample, the busiest CPU, and per NIC its
// receive rate and the modelled bus utilisation of its path:
//   "+2.000s  busiest cpu0 81.0%  em0 rx 67139/s bus 14.2%  lo rx 0/s  verdict cpu 0.82 [cpu0]"
// (the verdict after hysteresis, its confidence and resource, when analysed)
// "" when the snapshot has no window.
std::string WindowSummaryLine(const Snapshot& snap, int64_t first_mono_ns);

}  // namespace bottleneckd
