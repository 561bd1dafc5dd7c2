// Recordings (docs/recording-format.md): a directory of every kernel file the
// collectors read, tick by tick, replayed later through the same collectors.
// - RecordingFs wraps the live host's HostFs and writes what is read.
// - ReplayFs serves tick k of a recording: samples/k/ first, then static/.
// - recording.yaml (RecordingInfo) says what the recording is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "collectors/host_fs.h"
#include "sources/irqtime.h"
#include "sources/reading_file.h"
#include "sources/soaker.h"

namespace bottleneckd {

// The version bottleneckd record writes; readers take kOldestRecordingVersion
// to kRecordingVersion. 2 added the irqtime file (and recording.yaml's
// irqtime key); 3 records every continuous source (recording.yaml's
// `sources` lists them; offcpu, profile and pcap files came with it). Older
// versions replay as before, without what they lack.
inline constexpr int kRecordingVersion = 3;
inline constexpr int kOldestRecordingVersion = 1;

struct RecordingRun {
  std::string name;
  double start = 0, end = 0;  // seconds since sample 0's monotonic time
  std::optional<double> offered_bits_per_second, offered_packets_per_second;
  std::string expected_label, expected_resource;  // ground truth (simulated); "" when absent
};

struct RecordingInfo {
  int version = kRecordingVersion;
  double interval_seconds = 1;
  std::string source = "recorded";  // "recorded" | "simulated"
  std::string created;              // RFC 3339
  std::string hostname, kernel;
  int cpus = 0;
  // The continuous sources whose readings the samples carry, in registry
  // order (sources/source_registry.h): each sample has a file named after
  // the source while it read. Versions 1 and 2 said it as `soaker` and
  // `irqtime` (read into this list, written back as they were).
  std::vector<std::string> sources;
  bool HasSource(std::string_view name) const;
  size_t samples = 0;
  std::vector<RecordingRun> runs;
};

// Parses recording.yaml text; errors name `filename`:line:column. Unknown
// keys, a wrong format or an unknown version are InvalidArgument; so is the
// irqtime key in a version 1 file (it came with version 2), `sources` before
// version 3 or soaker and irqtime from it, and a source this bottleneckd
// does not know or lists twice.
Status ParseRecordingInfo(std::string_view yaml, std::string_view filename, RecordingInfo* out);
// The YAML text of `info`, written by yaml-cpp's emitter (ParseRecordingInfo
// reads it back unchanged, but for bytes that are not UTF-8 in its strings:
// those come back as U+FFFD).
std::string RecordingInfoYaml(const RecordingInfo& info);

// Opens a recording: reads and validates recording.yaml, checks the samples
// directories against it (numbered from 0, no gaps, each with a valid time
// file, times increasing) and the runs against the time span. Any problem is
// InvalidArgument/NotFound naming the file.
Status OpenRecording(const std::string& dir, RecordingInfo* info);

// The window line the recorder stored with sample `index` of `dir`
// (RecordingFs::WriteWindow), without its newline; NotFound when it has none
// (recordings made before it was stored, the first sample).
Status ReadRecordedWindow(const std::string& dir, size_t index, std::string* line);

// samples/NNNNNN, six digits (more past 999999).
std::string SampleDirName(size_t index);

// The time file of sample `index`: monotonic and wall clock, nanoseconds.
Status ReadSampleTime(const std::string& dir, size_t index, int64_t* mono_ns, int64_t* wall_ns);

// A HostFs over the live host (or any roots) that also writes everything read
// into a recording directory. Descriptor-kept reads (OpenSys, OpenProc) are refused
// with NotSupported so collectors fall back to ReadSys, which is recorded.
// A write failure (disk full) is kept in error() and stops further writes;
// the reads themselves still succeed, so sampling is never disturbed.
// Listings are written as their entries (symlinks recreated with their
// relative target, directories as directories, anything else as an empty
// file until it is read); a symlink whose target is absolute or leaves the
// tree is not recreated. Reads that fail are not recorded. One thread only.
class RecordingFs : public HostFs {
 public:
  RecordingFs(HostRoots roots, std::string out_dir);

  // Starts tick `index` (0, 1, 2, ...): creates samples/NNNNNN.partial with
  // its time file; reads from now on are written there (and, during tick 0, to
  // static/). Ends the previous tick first if it is still open.
  Status BeginSample(size_t index, int64_t mono_ns, int64_t wall_ns);
  // Writes samples/NNNNNN/NAME for the current tick: a source's reading in
  // its entry's codec (sources/source_entry.h), named after the source.
  Status WriteSampleFile(std::string_view name, std::string_view content);
  // Writes samples/NNNNNN/window: the window this tick closed as the recorder
  // computed it from the live readings (one summary line, WindowSummaryLine),
  // what a replay of the sample must compute again.
  Status WriteWindow(std::string_view line);
  // Whether the open tick (or, after EndSample, the last one) holds the /proc
  // file `rel` (its own copy, or static/'s for tick 0).
  bool SampleHoldsProc(std::string_view rel) const;
  // Ends the current tick: renames samples/NNNNNN.partial to samples/NNNNNN,
  // so a recorder killed mid-tick leaves only a .partial directory, which
  // readers ignore. No-op when no tick is open.
  Status EndSample();
  const Status& error() const { return error_; }
  // Bytes of file contents written so far.
  uint64_t bytes_written() const { return bytes_; }

  Status ReadProc(std::string_view rel, std::string* out) const override;
  Status ReadSys(std::string_view rel, std::string* out, size_t max_bytes = kMaxSysBytes) const override;
  Status ReadSysPrefix(std::string_view rel, std::string* out, size_t max_bytes) const override;
  Status ReadProcPrefix(std::string_view rel, std::string* out, size_t max_bytes) const override;
  Status OpenSys(std::string_view rel, UniqueFd* out) const override;
  Status OpenProc(std::string_view rel, UniqueFd* out) const override;
  Status ListProc(std::string_view rel, std::vector<std::string>* names) const override;
  Status ListSys(std::string_view rel, std::vector<std::string>* names) const override;
  Status ReadLinkSys(std::string_view rel, std::string* target) const override;
  Status ReadLinkProc(std::string_view rel, std::string* target) const override;
  Status EthtoolStats(const std::string& ifname, NamedCounters* out) const override;

 private:
  enum class Tree { kProc, kSys, kEthtool };
  // Writes `content` as `rel` of `tree` in the current tick (and static/ in
  // tick 0). `truncated`: the read stopped at its size cap, so it does not
  // replace a longer copy written earlier in this tick.
  void Record(Tree tree, std::string_view rel, std::string_view content, bool truncated) const;
  // Creates the entries of a listing (see docs/recording-format.md).
  void RecordListing(Tree tree, std::string_view rel, const std::vector<std::string>& names) const;
  void RecordLink(Tree tree, std::string_view rel, std::string_view target) const;
  // Per recording root (current sample, static/): the work itself.
  Status WriteIn(const std::string& root, Tree tree, const std::string& rel, std::string_view content,
                 bool truncated) const;
  Status ListIn(const std::string& root, Tree tree, const std::string& rel,
                const std::vector<std::string>& names) const;
  Status LinkIn(const std::string& root, Tree tree, const std::string& rel, std::string_view target) const;
  // Makes <root>/<tree>/<rel> a directory, recreating the live tree's
  // symlinks on the way (a path read through class/net/IF keeps the link).
  Status MirrorDir(const std::string& root, Tree tree, const std::string& rel, int depth) const;
  // Creates the symlink <root>/<tree>/<rel> -> target when the target stays
  // inside the tree (judged from where the link sits, live and recorded).
  Status MakeLink(const std::string& root, Tree tree, const std::string& rel, std::string_view target) const;
  std::string LiveRoot(Tree tree) const;
  std::vector<std::string> Roots() const;  // where this tick's files go
  void Fail(const Status& s) const;

  std::string out_dir_;
  std::string sample_dir_;  // current samples/NNNNNN.partial; "" between ticks
  std::string final_dir_;   // what it is renamed to
  bool first_ = true;       // tick 0: also write static/
  mutable Status error_;
  mutable uint64_t bytes_ = 0;
  // This tick, per recording root: file -> bytes written (see Record).
  mutable std::unordered_map<std::string, size_t> written_;
};

// A HostFs serving one tick of a recording: samples/NNNNNN/{proc,sys,ethtool}
// first, static/ second (per read: the sample's file, listing or link when it
// has one). Select() moves to another tick. Never reads outside the recording
// (a recording may come from anyone): Select refuses a sample holding a
// symlink that leads out of it, a FIFO or a device; paths with ".." are
// NotFound; OpenSys is NotSupported (collectors read by path).
class ReplayFs : public HostFs {
 public:
  explicit ReplayFs(std::string dir);
  // NotFound when the sample does not exist; InvalidArgument (naming the
  // entry) when it or static/ holds something a replay must not open.
  Status Select(size_t index);
  size_t selected() const { return index_; }

  Status ReadProc(std::string_view rel, std::string* out) const override;
  Status ReadSys(std::string_view rel, std::string* out, size_t max_bytes = kMaxSysBytes) const override;
  Status ReadSysPrefix(std::string_view rel, std::string* out, size_t max_bytes) const override;
  Status ReadProcPrefix(std::string_view rel, std::string* out, size_t max_bytes) const override;
  Status OpenSys(std::string_view rel, UniqueFd* out) const override;
  Status OpenProc(std::string_view rel, UniqueFd* out) const override;
  Status ListProc(std::string_view rel, std::vector<std::string>* names) const override;
  Status ListSys(std::string_view rel, std::vector<std::string>* names) const override;
  Status ReadLinkSys(std::string_view rel, std::string* target) const override;
  Status ReadLinkProc(std::string_view rel, std::string* target) const override;
  Status EthtoolStats(const std::string& ifname, NamedCounters* out) const override;

  // The selected sample's file `name` (a source's reading), at most
  // max_bytes; *path receives its path for messages. NotFound when the
  // sample has none.
  Status ReadSampleFile(std::string_view name, size_t max_bytes, std::string* text, std::string* path) const;

 private:
  // The selected sample's answer, else static/'s when the sample lacks the
  // entry (NotFound; NotSupported for ethtool).
  template <typename Op>
  Status Serve(const Op& op, bool ethtool = false) const;

  std::string dir_;
  size_t index_ = 0;
  bool selected_ = false;
  bool static_checked_ = false;
  HostFs sample_, static_;  // roots of the selected sample and of static/
};

}  // namespace bottleneckd
