#include "daemon/replay.h"

#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "analysis/analyzer.h"
#include "analysis/signals.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/parse_util.h"
#include "daemon/tick_pipeline.h"
#include "daemon/tick_schedule.h"
#include "sources/source_registry.h"

namespace bottleneckd {
namespace {

// The /proc tables a collector's successful read must have left in a
// recorded sample: a sample without them replays as a CPU at 0 % and
// `undetermined` (every live recording lost /proc when kept descriptors
// read around the recorder).
struct RecordedTable {
  const char* collector;
  const char* rel;
};
constexpr RecordedTable kRecordedTables[] = {
    {"cpu", "stat"}, {"interrupts", "interrupts"}, {"softirqs", "softirqs"}, {"sockets", "net/snmp"}};

Status CheckSampleTables(const RecordingFs& capture, const Sample& sample, size_t index) {
  for (const RecordedTable& t : kRecordedTables) {
    bool read = std::any_of(sample.results.begin(), sample.results.end(),
                            [&](const CollectorResult& r) { return r.name == t.collector && r.success; });
    if (read && !capture.SampleHoldsProc(t.rel))
      return Status::Corruption("sample " + std::to_string(index) + " lacks proc/" + t.rel + ", which the " +
                                t.collector + " collector read this tick: a read went around the recorder (a bug)");
  }
  return Status::OK();
}

// An absent or empty directory, created when absent.
Status PrepareOutDir(const std::string& dir) {
  std::error_code ec;
  auto st = std::filesystem::status(dir, ec);
  if (!ec && std::filesystem::exists(st)) {
    if (!std::filesystem::is_directory(st))
      return Status::InvalidArgument(dir + " exists and is not a directory; record into a new directory");
    if (!std::filesystem::is_empty(dir, ec) || ec)
      return Status::InvalidArgument(dir + " exists and is not empty; record into a new directory");
    return Status::OK();
  }
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir + ": " + ec.message());
  return Status::OK();
}

// recording.yaml through a temporary file and rename: a reader (or a kill)
// never sees half of it.
Status WriteInfo(const std::string& dir, const RecordingInfo& info) {
  const std::string path = dir + "/recording.yaml", tmp = dir + "/.recording.yaml.tmp";
  const std::string text = RecordingInfoYaml(info);
  FILE* f = std::fopen(tmp.c_str(), "we");
  if (f == nullptr) return Status::FromErrno(errno, tmp);
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int err = ok ? 0 : errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    return Status::FromErrno(err, tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return Status::FromErrno(errno, path);
  return Status::OK();
}

std::string ReadTrimmed(const HostFs& fs, const char* rel) {
  std::string s;
  if (!fs.ReadProc(rel, &s).ok()) return "";
  return std::string(Trim(s));
}

std::string NowRfc3339() {
  time_t now = ::time(nullptr);
  struct tm tm;
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// ReplayRecording, with each window's signals as the analyzer left them
// (amended by the wait history and the learned delivery cost: what the live
// tick's run timeline reads, Daemon::Tick's PointOfWindow); null before the
// first window.
Status Replay(const std::string& dir, const Config& config,
              const std::function<void(const Snapshot&, const Signals*)>& each, RecordingInfo* info_out) {
  RecordingInfo info;
  BN_RETURN_IF_ERROR(OpenRecording(dir, &info));
  if (info_out) *info_out = info;
  ReplayFs fs(dir);
  TickPipeline pipeline(&fs, config);  // one Sampler and Analyzer for the whole recording, as live
  for (size_t i = 0; i < info.samples; ++i) {
    BN_RETURN_IF_ERROR(fs.Select(i));
    std::shared_ptr<Snapshot> snap = pipeline.Read();
    BN_RETURN_IF_ERROR(ReadSampleTime(dir, i, &snap->sample.mono_ns, &snap->sample.wall_ns));
    ReadRecordedSources(fs, info, &snap->sample);
    pipeline.Finish(snap, info.interval_seconds);
    each(*snap, snap->window ? &pipeline.analyzer().last_signals() : nullptr);
  }
  return Status::OK();
}

}  // namespace

Status ReplayRecording(const std::string& dir, const Config& config, const std::function<void(const Snapshot&)>& each,
                       RecordingInfo* info) {
  return Replay(
      dir, config, [&](const Snapshot& snap, const Signals*) { each(snap); }, info);
}

Status ReplayTimeline(const std::string& dir, const Config& config, ReplayedTimeline* out) {
  *out = ReplayedTimeline();
  out->dir = dir;
  int64_t first_mono = 0;
  bool first = true;
  return Replay(
      dir, config,
      [&](const Snapshot& snap, const Signals* signals) {
        if (first) first = false, first_mono = snap.sample.mono_ns;
        if (signals && snap.verdict) {
          double t = static_cast<double>(snap.window->end_mono_ns - first_mono) / 1e9;
          out->points.push_back(PointOfWindow(t, *signals, *snap.verdict, snap.cpu_budget));
          out->verdicts.push_back(*snap.verdict);
        }
      },
      &out->info);
}

uint64_t DiskUsage(const std::string& dir) {
  uint64_t total = 0;
  std::set<std::pair<dev_t, ino_t>> seen;
  auto add = [&](const std::string& path) {
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && seen.insert({st.st_dev, st.st_ino}).second)
      total += static_cast<uint64_t>(st.st_blocks) * 512;
  };
  std::error_code ec;
  add(dir);
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    add(it->path().string());
  return total;
}

void ReadRecordedSources(const ReplayFs& fs, const RecordingInfo& info, Sample* sample) {
  for (const SourceEntry* e : SourceRegistry()) {
    // Versions 1 and 2 kept a soaker file whenever the soaker ran, whatever
    // recording.yaml said.
    if (!info.HasSource(e->name()) && !(info.version < 3 && e->name() == "soaker")) continue;
    std::string text, path;
    Status s = fs.ReadSampleFile(e->name(), e->max_file_bytes(), &text, &path);
    if (s.IsNotFound()) continue;  // the source did not read this tick
    if (s.ok()) s = e->Decode(text, sample).WithContext(path);
    CollectorResult r;
    r.name = std::string(e->name());
    r.success = s.ok();
    if (!s.ok()) r.error = s.ToString();
    sample->results.push_back(std::move(r));
  }
}

Recorder::Recorder(const Config& config, std::string out_dir, SourceSet* sources)
    : config_(config),
      out_dir_(std::move(out_dir)),
      sources_(sources),
      host_(config.roots),
      capture_(config.roots, out_dir_),
      pipeline_(&capture_, config) {}

Status Recorder::Open() {
  BN_RETURN_IF_ERROR(PrepareOutDir(out_dir_));
  info_ = RecordingInfo();
  info_.interval_seconds = config_.interval_seconds;
  info_.source = "recorded";
  info_.created = NowRfc3339();
  info_.hostname = ReadTrimmed(host_, "sys/kernel/hostname");
  info_.kernel = ReadTrimmed(host_, "sys/kernel/osrelease");
  return Status::OK();
}

Status Recorder::Tick(int64_t mono_ns, int64_t wall_ns, std::shared_ptr<const Snapshot>* out) {
  const size_t index = info_.samples;
  BN_RETURN_IF_ERROR(capture_.BeginSample(index, mono_ns, wall_ns));
  std::shared_ptr<Snapshot> snap = pipeline_.Read();
  Sample& sample = snap->sample;
  // The sample's time is the time file's (exact to the nanosecond), as a
  // replay reads it.
  sample.mono_ns = mono_ns;
  sample.wall_ns = wall_ns;
  if (index == 0) first_mono_ = mono_ns;
  sources_->Read(&sample);
  for (const SourceEntry* e : sources_->Running()) {
    std::string text;
    if (!e->Encode(sample, &text)) continue;                  // no reading this tick
    capture_.WriteSampleFile(e->name(), text).IgnoreError();  // a failure is kept, returned by EndSample
    if (!info_.HasSource(e->name())) info_.sources.push_back(std::string(e->name()));
  }
  // Registry order, whatever order the sources first read in.
  std::vector<std::string> ordered;
  for (const SourceEntry* e : SourceRegistry())
    if (info_.HasSource(e->name())) ordered.push_back(std::string(e->name()));
  info_.sources = std::move(ordered);
  pipeline_.Finish(snap, config_.interval_seconds);
  // The window, computed here from the live readings and stored with the
  // sample: a replay must compute the same (--replay says where it does not).
  if (snap->window) capture_.WriteWindow(WindowSummaryLine(*snap, first_mono_)).IgnoreError();
  BN_RETURN_IF_ERROR(CheckSampleTables(capture_, sample, index));
  BN_RETURN_IF_ERROR(capture_.EndSample());
  if (index == 0 && sample.stat) info_.cpus = static_cast<int>(sample.stat->cpus.size());
  info_.samples = index + 1;
  BN_RETURN_IF_ERROR(WriteInfo(out_dir_, info_));
  SteerProfile(sources_, *snap, config_.profile.stacks == ProfileStacks::kRuns && config_.run_active);
  if (out) *out = snap;
  return Status::OK();
}

Status RecordHost(const Config& config, const std::string& out_dir, double duration_seconds,
                  const std::atomic<bool>* stop, RecordProgress* progress) {
  RecordProgress local;
  RecordProgress& p = progress ? *progress : local;
  p = RecordProgress();
  if (!(duration_seconds > 0) || duration_seconds > kMaxRecordSeconds)
    return Status::InvalidArgument("the duration must be more than 0 and at most 24h");
  SourceSet sources;
  Recorder recorder(config, out_dir, &sources);
  BN_RETURN_IF_ERROR(recorder.Open());
  HostFs host(config.roots);  // the soaker's: not part of the recording
  const SourceConfig source_config = SourceConfigOf(config, &host, config.run_active, false);
  sources.Sync(source_config);
  if (Status s = sources.fatal_error(); !s.ok()) return s.WithContext("a source in mode on did not load");

  using Clock = TickSchedule::Clock;
  const double interval = config.interval_seconds;
  const TickSchedule schedule(interval);
  const auto start = schedule.start();
  auto stopped = [&] { return stop != nullptr && stop->load(); };
  const int64_t last_tick = static_cast<int64_t>(std::floor(duration_seconds / interval + 1e-9));
  std::string running;
  for (const SourceEntry* e : sources.Running()) running += (running.empty() ? "" : ",") + std::string(e->name());
  Log(LogLevel::kInfo, "recording",
      {{"out", out_dir},
       {"interval", std::to_string(interval) + "s"},
       {"samples", std::to_string(last_tick + 1)},
       {"sources", running.empty() ? "none" : running}});
  auto next_progress = start + std::chrono::seconds(5);
  Status result;
  for (int64_t tick = 0; tick <= last_tick;) {
    for (auto now = Clock::now(); now < schedule.Due(tick) && !stopped(); now = Clock::now())
      std::this_thread::sleep_for(std::min<Clock::duration>(schedule.Due(tick) - now, std::chrono::milliseconds(100)));
    if (stopped()) break;
    sources.Sync(source_config);  // a soaker that could not start is tried again, as the daemon does
    result = recorder.Tick(MonotonicNanos(), WallNanos());
    if (!result.ok()) break;
    p.samples = recorder.samples();
    p.bytes = recorder.bytes();
    auto now = Clock::now();
    if (now >= next_progress) {
      std::fprintf(stderr, "bottleneckd record: %zu of %lld samples, %.1f MB, %.0f s\n", p.samples,
                   static_cast<long long>(last_tick + 1), static_cast<double>(p.bytes) / 1e6,
                   std::chrono::duration<double>(now - start).count());
      next_progress = now + std::chrono::seconds(5);
    }
    tick = tick == last_tick ? tick + 1 : schedule.After(tick, now, last_tick);
  }
  sources.StopAll();
  p.disk_bytes = DiskUsage(out_dir);
  if (!result.ok()) {
    return result.WithContext("recording stopped after " + std::to_string(p.samples) + " samples (" + out_dir +
                              " keeps them)");
  }
  if (p.samples == 0) return Status::InvalidArgument("stopped before the first sample; nothing recorded");
  return Status::OK();
}

std::string WindowSummaryLine(const Snapshot& snap, int64_t first_mono_ns) {
  if (!snap.window) return "";
  const Window& w = *snap.window;
  char buf[128];
  std::snprintf(buf, sizeof(buf), "+%.3fs", static_cast<double>(w.end_mono_ns - first_mono_ns) / 1e9);
  std::string line = buf;
  const CpuWindow* busiest = nullptr;
  for (const CpuWindow& c : w.cpus)
    if (!busiest || c.busy_ratio > busiest->busy_ratio) busiest = &c;
  if (busiest) {
    std::snprintf(buf, sizeof(buf), "  busiest cpu%d %.1f%%", busiest->cpu, busiest->busy_ratio * 100);
    line += buf;
  } else {
    line += "  busiest cpu -";
  }
  for (const NicWindow& n : w.nics) {
    line += "  " + n.interface + " rx ";
    if (n.rx_packets_per_second) {
      std::snprintf(buf, sizeof(buf), "%.0f/s", *n.rx_packets_per_second);
      line += buf;
    } else {
      line += "?/s";
    }
    const BusNicEstimate* b = snap.bus ? snap.bus->FindNic(n.interface) : nullptr;
    if (b && !b->bottleneck_device.empty()) {  // "" : no link of known capacity and load
      std::snprintf(buf, sizeof(buf), " bus %.1f%%", b->path_utilisation * 100);
      line += buf;
    }
  }
  if (snap.verdict) {
    std::snprintf(buf, sizeof(buf), "  verdict %s %.2f", BoundName(snap.verdict->label), snap.verdict->confidence);
    line += buf;
    if (!snap.verdict->resource.empty()) line += " [" + snap.verdict->resource + "]";
  }
  return line;
}

}  // namespace bottleneckd
