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
constexpr size_t kMaxSmallFile = 64 << 10;  // time and soaker files
// An irqtime file: a line per CPU and per (IRQ, CPU) that fired; a large
// host with every queue's IRQ on every CPU is a few MB.
constexpr size_t kMaxIrqTimeFile = 64 << 20;
constexpr int64_t kNanos = 1000000000;

// Splits "key=value"; false when there is no '='.
bool KeyValue(std::string_view tok, std::string_view* key, std::string_view* value) {
  size_t eq = tok.find('=');
  if (eq == std::string_view::npos) return false;
  *key = tok.substr(0, eq);
  *value = tok.substr(eq + 1);
  return true;
}

std::string Shortest(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

}  // namespace

std::string SampleDirName(size_t index) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "samples/%06zu", index);
  return buf;
}

std::string FormatSecondsNs(int64_t ns) {
  char buf[48];
  if (ns < 0) return "0";
  std::snprintf(buf, sizeof(buf), "%lld.%09lld", static_cast<long long>(ns / kNanos),
                static_cast<long long>(ns % kNanos));
  return buf;
}

bool ParseSecondsNs(std::string_view s, int64_t* ns) {
  size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  auto all_digits = [](std::string_view t) {
    return std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!whole.empty() && all_digits(whole) && all_digits(frac)) {  // exact: "12", "12.", "12.000000500"
    uint64_t w = 0;
    if (!ParseU64(whole, &w) || w > static_cast<uint64_t>(INT64_MAX / kNanos) - 1) return false;
    int64_t f = 0;
    for (size_t i = 0; i < 9; ++i) f = f * 10 + (i < frac.size() ? frac[i] - '0' : 0);
    *ns = static_cast<int64_t>(w) * kNanos + f;
    return true;
  }
  double d = 0;
  if (s.empty() || s.front() == '-' || s.front() == '+' || !ParseDouble(s, &d) || !std::isfinite(d) || d < 0 ||
      d >= 9.2e9)
    return false;
  *ns = std::llround(d * 1e9);
  return true;
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

std::string SoakerFileText(const SoakerReading& r) {
  std::string t = "# cpu iterations thread_cpu_ns calibrated_iterations_per_second [key=value...]\n";
  if (r.mono_ns > 0) t += "mono_seconds " + FormatSecondsNs(r.mono_ns) + "\n";
  t += std::string("sched_idle ") + (r.sched_idle ? "1" : "0") + "\n";
  t += "calibration_unix_seconds " + std::to_string(r.calibration_unix_seconds) + "\n";
  if (!r.caveat.empty()) {
    std::string c = r.caveat;
    std::replace(c.begin(), c.end(), '\n', ' ');
    t += "caveat " + c + "\n";
  }
  for (const SoakerCpu& c : r.cpus) {
    t += std::to_string(c.cpu) + " " + std::to_string(c.iterations) + " " + std::to_string(c.thread_cpu_ns) + " " +
         Shortest(c.iterations_per_second);
    t += " generation=" + std::to_string(c.generation);
    t += " calibrated_unix_seconds=" + std::to_string(c.calibrated_unix_seconds);
    if (c.calibration_borrowed) t += " borrowed=1";
    t += "\n";
  }
  return t;
}

Status ParseSoakerFile(std::string_view text, SoakerReading* out) {
  SoakerReading r;
  std::string_view line;
  int n = 0;
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("line " + std::to_string(n) + ": " + why + ", got " + Quoted(line));
  };
  while (NextLine(&text, &line)) {
    ++n;
    std::string_view rest = line;
    std::string_view first = NextToken(&rest);
    if (first.empty() || first.front() == '#') continue;
    if (first == "caveat") {
      r.caveat.assign(Trim(rest));
      continue;
    }
    if (first == "mono_seconds" || first == "sched_idle" || first == "calibration_unix_seconds") {
      std::string_view v = NextToken(&rest);
      int64_t i = 0;
      if (!NextToken(&rest).empty()) return bad("one value expected");
      if (first == "mono_seconds") {
        if (!ParseSecondsNs(v, &r.mono_ns)) return bad("mono_seconds must be seconds");
      } else if (first == "sched_idle") {
        if (v != "0" && v != "1") return bad("sched_idle must be 0 or 1");
        r.sched_idle = v == "1";
      } else {
        if (!ParseI64(v, &i)) return bad("calibration_unix_seconds must be a whole number");
        r.calibration_unix_seconds = i;
      }
      continue;
    }
    SoakerCpu c;
    int64_t cpu = 0;
    if (!ParseI64(first, &cpu) || cpu < 0 || cpu > kMaxCpuId) return bad("expected a CPU number or a known key");
    c.cpu = static_cast<int>(cpu);
    std::string_view it = NextToken(&rest), ns = NextToken(&rest), rate = NextToken(&rest);
    if (!ParseU64(it, &c.iterations) || !ParseU64(ns, &c.thread_cpu_ns) ||
        !ParseDouble(rate, &c.iterations_per_second) || !std::isfinite(c.iterations_per_second) ||
        c.iterations_per_second < 0)
      return bad("expected 'cpu iterations thread_cpu_ns calibrated_iterations_per_second'");
    for (std::string_view tok = NextToken(&rest); !tok.empty(); tok = NextToken(&rest)) {
      std::string_view key, value;
      int64_t v = 0;
      if (!KeyValue(tok, &key, &value)) return bad("expected key=value after the four columns");
      if (key == "generation") {
        if (!ParseU64(value, &c.generation)) return bad("generation must be a whole number");
      } else if (key == "calibrated_unix_seconds") {
        if (!ParseI64(value, &v)) return bad("calibrated_unix_seconds must be a whole number");
        c.calibrated_unix_seconds = v;
      } else if (key == "borrowed") {
        if (value != "0" && value != "1") return bad("borrowed must be 0 or 1");
        c.calibration_borrowed = value == "1";
      } else {
        return bad("unknown key '" + std::string(key.substr(0, 40)) + "'");
      }
    }
    r.cpus.push_back(c);
  }
  std::sort(r.cpus.begin(), r.cpus.end(), [](const SoakerCpu& a, const SoakerCpu& b) { return a.cpu < b.cpu; });
  for (size_t i = 1; i < r.cpus.size(); ++i) {
    if (r.cpus[i].cpu == r.cpus[i - 1].cpu)
      return Status::InvalidArgument("cpu " + std::to_string(r.cpus[i].cpu) + " appears twice");
  }
  *out = std::move(r);
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
      return Status::InvalidArgument(yaml_path + ": run '" + run.name + "' ends at " + Shortest(run.end) +
                                     " s, after the last sample at " + Shortest(span) + " s");
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

Status ReplayFs::EthtoolStats(const std::string& ifname, NamedCounters* out) const {
  if (ifname.empty() || ifname == "." || ifname == ".." || ifname.find('/') != std::string::npos)
    return Status::NotSupported(ifname + ": not an interface name");
  return Serve([&](const HostFs& t) { return t.EthtoolStats(ifname, out); }, /*ethtool=*/true);
}

Status ReplayFs::ReadSampleFile(const char* name, size_t max_bytes, std::string* text, std::string* path) const {
  if (!selected_) return Status::NotFound(dir_ + ": no sample selected");
  *path = dir_ + "/" + SampleDirName(index_) + "/" + name;
  return ReadRecordingFile(*path, max_bytes, text);
}

Status ReplayFs::ReadSoaker(SoakerReading* out) const {
  std::string text, path;
  BN_RETURN_IF_ERROR(ReadSampleFile("soaker", kMaxSmallFile, &text, &path));
  return ParseSoakerFile(text, out).WithContext(path);
}

Status ReplayFs::ReadIrqTime(IrqTimeReading* out) const {
  std::string text, path;
  BN_RETURN_IF_ERROR(ReadSampleFile("irqtime", kMaxIrqTimeFile, &text, &path));
  return ParseIrqTimeFile(text, out).WithContext(path);
}

}  // namespace bottleneckd
