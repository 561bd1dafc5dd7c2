// Recordings: sample names and times, the soaker file, OpenRecording's
// validation and ReplayFs (docs/recording-format.md). RecordingFs is in
// recording_fs.cc, recording.yaml in recording_info.cc, the irqtime file
// in recording_irqtime.cc.
#include "recording/recording.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "base/parse_util.h"
#include "recording/recording_files.h"

namespace bottleneckd {
namespace {

constexpr size_t kMaxInfoBytes = 4 << 20;   // recording.yaml
constexpr size_t kMaxSmallFile = 64 << 10;  // time and window files

}  // namespace

std::string SampleDirName(size_t index) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "samples/%06zu", index);
  return buf;
}

Status ReadRecordedWindow(const std::string& dir, size_t index, std::string* line) {
  BN_RETURN_IF_ERROR(ReadRecordingFile(dir + "/" + SampleDirName(index) + "/window", kMaxSmallFile, line));
  while (!line->empty() && line->back() == '\n') line->pop_back();
  return Status::OK();
}

Status ReadSampleTime(const std::string& dir, size_t index, int64_t* mono_ns, int64_t* wall_ns) {
  std::string path = dir + "/" + SampleDirName(index) + "/time";
  std::string text;
  BN_RETURN_IF_ERROR(ReadRecordingFile(path, kMaxSmallFile, &text));
  std::string_view rest = Trim(text);
  std::string_view mono = NextToken(&rest), wall = NextToken(&rest);
  int64_t m = 0, w = 0;
  if (mono.empty() || wall.empty() || !Trim(rest).empty() || !ParseSecondsNs(mono, &m) || !ParseSecondsNs(wall, &w))
    return Status::InvalidArgument(path + ": expected '<monotonic seconds> <unix seconds>', got " + Quoted(Trim(text)));
  *mono_ns = m;
  *wall_ns = w;
  return Status::OK();
}

Status OpenRecording(const std::string& dir, RecordingInfo* info) {
  const std::string yaml_path = dir + "/recording.yaml";
  std::string text;
  Status s = ReadRecordingFile(yaml_path, kMaxInfoBytes, &text);
  if (s.IsNotFound()) return Status::NotFound(yaml_path + ": missing: not a bottleneckd recording");
  BN_RETURN_IF_ERROR(s);
  RecordingInfo r;
  BN_RETURN_IF_ERROR(ParseRecordingInfo(text, yaml_path, &r));
  if (r.samples == 0) return Status::InvalidArgument(yaml_path + ": samples is 0: nothing to replay");

  // samples/: exactly NNNNNN for 0 .. samples-1 (a recorder's unfinished
  // NNNNNN.partial is ignored).
  const std::string samples_dir = dir + "/samples";
  std::vector<DirEntry> entries;
  s = ListRecordingDir(samples_dir, &entries);
  if (s.IsNotFound())
    return Status::NotFound(samples_dir + ": missing (" + yaml_path + " says " + std::to_string(r.samples) +
                            " samples)");
  BN_RETURN_IF_ERROR(s);
  std::vector<bool> present(r.samples, false);
  for (const DirEntry& e : entries) {
    const std::string path = samples_dir + "/" + e.name;
    if (e.name.size() > 8 && e.name.compare(e.name.size() - 8, 8, ".partial") == 0) continue;
    uint64_t index = 0;
    if (!ParseU64(e.name, &index) || "samples/" + e.name != SampleDirName(index))
      return Status::InvalidArgument(path + ": not a sample directory (expected six-digit names from 000000)");
    if (index >= r.samples)
      return Status::InvalidArgument(path + ": beyond the " + std::to_string(r.samples) + " samples " + yaml_path +
                                     " declares");
    if (e.type != DirEntry::kDir) return Status::InvalidArgument(path + ": not a directory");
    present[index] = true;
  }
  for (size_t i = 0; i < r.samples; ++i) {
    if (!present[i])
      return Status::NotFound(dir + "/" + SampleDirName(i) + ": missing (" + yaml_path + " says " +
                              std::to_string(r.samples) + " samples, numbered from 0)");
  }
  int64_t first = 0, prev = 0, mono = 0, wall = 0;
  for (size_t i = 0; i < r.samples; ++i) {
    BN_RETURN_IF_ERROR(ReadSampleTime(dir, i, &mono, &wall));
    if (i == 0) first = mono;
    if (i > 0 && mono <= prev)
      return Status::InvalidArgument(dir + "/" + SampleDirName(i) + "/time: monotonic time " + FormatSecondsNs(mono) +
                                     " s is not after sample " + std::to_string(i - 1) + "'s " + FormatSecondsNs(prev) +
                                     " s");
    prev = mono;
  }
  const double span = static_cast<double>(prev - first) / 1e9;
  for (const RecordingRun& run : r.runs) {
    if (run.end > span + 1e-6)
      return Status::InvalidArgument(yaml_path + ": run '" + run.name + "' ends at " + ShortestDouble(run.end) +
                                     " s, after the last sample at " + ShortestDouble(span) + " s");
  }
  *info = std::move(r);
  return Status::OK();
}

// ---- ReplayFs ----

ReplayFs::ReplayFs(std::string dir)
    : HostFs(HostRoots{dir + "/samples/*/proc", dir + "/samples/*/sys", dir + "/samples/*/ethtool"}),
      dir_(std::move(dir)),
      sample_(HostRoots{dir_ + "/samples/none/proc", dir_ + "/samples/none/sys", dir_ + "/samples/none/ethtool"}),
      static_(HostRoots{dir_ + "/static/proc", dir_ + "/static/sys", dir_ + "/static/ethtool"}) {}

Status ReplayFs::Select(size_t index) {
  if (!static_checked_) {
    Status s = CheckRecordingTree(dir_ + "/static");
    if (!s.ok() && !s.IsNotFound()) return s;
    static_checked_ = true;
  }
  const std::string d = dir_ + "/" + SampleDirName(index);
  struct stat st;
  if (::lstat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    selected_ = false;
    return Status::NotFound(d + ": no such sample directory");
  }
  BN_RETURN_IF_ERROR(CheckRecordingTree(d));
  sample_ = HostFs(HostRoots{d + "/proc", d + "/sys", d + "/ethtool"});
  index_ = index;
  selected_ = true;
  return Status::OK();
}

template <typename Op>
Status ReplayFs::Serve(const Op& op, bool ethtool) const {
  if (!selected_) return Status::NotFound(dir_ + ": no sample selected");
  Status s = op(sample_);
  if (!(ethtool ? s.IsNotSupported() : s.IsNotFound())) return s;
  return op(static_);
}

Status ReplayFs::ReadProc(std::string_view rel, std::string* out) const {
  if (!SafeRel(rel)) return Status::NotFound(std::string(rel) + ": not a path inside the recording");
  return Serve([&](const HostFs& t) { return t.ReadProc(rel, out); });
}

Status ReplayFs::ReadSys(std::string_view rel, std::string* out, size_t max_bytes) const {
  if (!SafeRel(rel)) return Status::NotFound(std::string(rel) + ": not a path inside the recording");
  return Serve([&](const HostFs& t) { return t.ReadSys(rel, out, max_bytes); });
}

Status ReplayFs::ReadSysPrefix(std::string_view rel, std::string* out, size_t max_bytes) const {
  if (!SafeRel(rel)) return Status::NotFound(std::string(rel) + ": not a path inside the recording");
  return Serve([&](const HostFs& t) { return t.ReadSysPrefix(rel, out, max_bytes); });
}

Status ReplayFs::ReadProcPrefix(std::string_view rel, std::string* out, size_t max_bytes) const {
  if (!SafeRel(rel)) return Status::NotFound(std::string(rel) + ": not a path inside the recording");
  return Serve([&](const HostFs& t) { return t.ReadProcPrefix(rel, out, max_bytes); });
}

Status ReplayFs::OpenSys(std::string_view rel, UniqueFd*) const {
  return Status::NotSupported(std::string(rel) + ": a replay is read by path");
}

Status ReplayFs::OpenProc(std::string_view rel, UniqueFd*) const {
  return Status::NotSupported(std::string(rel) + ": a replay is read by path");
}

Status ReplayFs::ListProc(std::string_view rel, std::vector<std::string>* names) const {
  if (!SafeRel(rel)) return Status::NotFound(std::string(rel) + ": not a path inside the recording");
  return Serve([&](const HostFs& t) { return t.ListProc(rel, names); });
}

Status ReplayFs::ListSys(std::string_view rel, std::vector<std::string>* names) const {
  if (!SafeRel(rel)) return Status::NotFound(std::string(rel) + ": not a path inside the recording");
  return Serve([&](const HostFs& t) { return t.ListSys(rel, names); });
}

Status ReplayFs::ReadLinkSys(std::string_view rel, std::string* target) const {
  if (!SafeRel(rel)) return Status::NotFound(std::string(rel) + ": not a path inside the recording");
  return Serve([&](const HostFs& t) { return t.ReadLinkSys(rel, target); });
}

Status ReplayFs::ReadLinkProc(std::string_view rel, std::string* target) const {
  if (!SafeRel(rel)) return Status::NotFound(std::string(rel) + ": not a path inside the recording");
  return Serve([&](const HostFs& t) { return t.ReadLinkProc(rel, target); });
}

Status ReplayFs::EthtoolStats(const std::string& ifname, NamedCounters* out) const {
  if (ifname.empty() || ifname == "." || ifname == ".." || ifname.find('/') != std::string::npos)
    return Status::NotSupported(ifname + ": not an interface name");
  return Serve([&](const HostFs& t) { return t.EthtoolStats(ifname, out); }, /*ethtool=*/true);
}

Status ReplayFs::ReadSampleFile(std::string_view name, size_t max_bytes, std::string* text, std::string* path) const {
  if (!selected_) return Status::NotFound(dir_ + ": no sample selected");
  if (name.empty() || name.find('/') != std::string_view::npos || name == "." || name == "..")
    return Status::InvalidArgument(std::string(name) + ": not a sample file name");
  *path = dir_ + "/" + SampleDirName(index_) + "/" + std::string(name);
  return ReadRecordingFile(*path, max_bytes, text);
}

bool RecordingInfo::HasSource(std::string_view name) const {
  return std::find(sources.begin(), sources.end(), name) != sources.end();
}

}  // namespace bottleneckd
