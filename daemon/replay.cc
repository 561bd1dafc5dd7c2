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
#include "daemon/daemon.h"
#include "daemon/sampler.h"
#include "daemon/tick_schedule.h"
#include "sources/irqtime.h"
#include "sources/soaker.h"

namespace bottleneckd {
namespace {

// A source's file of the selected sample (the soaker's, irqtime's) into
// *field, as the daemon's tick adds the source's reading and its
// CollectorResult `name`: none when the sample has no file, a failed result
// when it is malformed. A reading without its own time gets the sample's.
template <typename Reading>
void ReplaySource(const ReplayFs& fs, Status (ReplayFs::*read)(Reading*) const, const char* name,
                  std::optional<Reading>* field, Sample* sample) {
  Reading r;
  Status s = (fs.*read)(&r);
  if (s.IsNotFound()) return;
  CollectorResult res;
  res.name = name;
  res.success = s.ok();
  if (s.ok()) {
    if (r.mono_ns == 0) r.mono_ns = sample->mono_ns;
    *field = std::move(r);
  } else {
    res.error = s.ToString();
  }
  sample->results.push_back(std::move(res));
}

// A source's reading read live (record) into the sample, as ReplaySource
// reads it back: the field and a successful CollectorResult `name`.
template <typename Reading>
void AddSourceReading(const char* name, Reading r, std::optional<Reading>* field, Sample* sample) {
  if (r.mono_ns == 0) r.mono_ns = sample->mono_ns;
  *field = std::move(r);
  CollectorResult res;
  res.name = name;
  res.success = true;
  sample->results.push_back(std::move(res));
}

// The snapshot of a sample as Daemon::Tick publishes it: bus paths, the
// window from the previous snapshot with its bus estimate, the verdict. The
// one path for record and replay, so a recording replays to the windows the
// recorder computed.
void AnalyzeSample(const Config& config, double interval_seconds, const Snapshot* prev, Analyzer* analyzer,
                   Snapshot* snap) {
  snap->interval_seconds = interval_seconds;
  snap->per_cpu_irq_matrix = config.collectors.interrupts.per_cpu_matrix;
  CompleteSnapshot(prev, config.bus_model, snap);
  if (prev) AnalyzeSnapshot(analyzer, snap);
}

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

// The irqtime source for `bottleneckd record`, as the daemon loads it
// (IrqTimeToLoad). A refusal in
// mode auto is one warning and the recording goes on without it (nullptr);
// in mode on it is the recorder's error.
Status StartRecordIrqTime(const Config& config, std::unique_ptr<IrqTimeSource>* out) {
  out->reset();
  IrqTimeOptions o = config.irqtime;
  o.mode = IrqTimeWanted(config);
  if (!IrqTimeToLoad(config)) return Status::OK();
  auto src = std::make_unique<IrqTimeSource>(o);
  if (Status s = src->Start(); !s.ok()) {
    if (o.mode == IrqTimeMode::kOn) return s.WithContext("irqtime (collectors.irqtime.mode on)");
    Log(LogLevel::kWarn, "irqtime did not start; recording without it", {{"err", s.ToString()}});
    return Status::OK();
  }
  *out = std::move(src);
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
  Sampler sampler(&fs, config.collectors);
  Analyzer analyzer(config.verdict);  // verdicts and plateau, as the live daemon
  std::shared_ptr<const Snapshot> prev;
  for (size_t i = 0; i < info.samples; ++i) {
    BN_RETURN_IF_ERROR(fs.Select(i));
    auto snap = std::make_shared<Snapshot>();
    sampler.Take(&snap->sample);
    BN_RETURN_IF_ERROR(ReadSampleTime(dir, i, &snap->sample.mono_ns, &snap->sample.wall_ns));
    Sample& sample = snap->sample;
    ReplaySource(fs, &ReplayFs::ReadSoaker, "soaker", &sample.soaker, &sample);
    if (info.irqtime) ReplaySource(fs, &ReplayFs::ReadIrqTime, "irqtime", &sample.irqtime, &sample);
    AnalyzeSample(config, info.interval_seconds, prev.get(), &analyzer, snap.get());
    each(*snap, snap->window ? &analyzer.last_signals() : nullptr);
    prev = std::move(snap);
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

Status RecordHost(const Config& config, const std::string& out_dir, double duration_seconds,
                  const std::atomic<bool>* stop, RecordProgress* progress) {
  RecordProgress local;
  RecordProgress& p = progress ? *progress : local;
  p = RecordProgress();
  if (!(duration_seconds > 0) || duration_seconds > kMaxRecordSeconds)
    return Status::InvalidArgument("the duration must be more than 0 and at most 24h");
  BN_RETURN_IF_ERROR(PrepareOutDir(out_dir));

  HostFs host(config.roots);  // facts and the soaker: not part of the recording
  RecordingFs capture(config.roots, out_dir);
  Sampler sampler(&capture, config.collectors);
  std::unique_ptr<Soaker> soaker;
  const SoakerOptions& so = config.soaker;
  if (so.mode == SoakerMode::kAlways || (so.mode == SoakerMode::kRuns && config.run_active)) {
    soaker = std::make_unique<Soaker>(&host, so);
    if (Status s = soaker->Start(); !s.ok()) {
      Log(LogLevel::kWarn, "soaker did not start; recording without it", {{"err", s.ToString()}});
      soaker.reset();
    }
  }
  std::unique_ptr<IrqTimeSource> irqtime;
  if (Status s = StartRecordIrqTime(config, &irqtime); !s.ok()) {
    if (soaker) soaker->Stop();
    return s;
  }
  RecordingInfo info;
  info.interval_seconds = config.interval_seconds;
  info.source = "recorded";
  info.created = NowRfc3339();
  info.hostname = ReadTrimmed(host, "sys/kernel/hostname");
  info.kernel = ReadTrimmed(host, "sys/kernel/osrelease");
  info.soaker = soaker != nullptr;
  info.irqtime = irqtime != nullptr;

  using Clock = TickSchedule::Clock;
  const double interval = config.interval_seconds;
  const TickSchedule schedule(interval);
  const auto start = schedule.start();
  auto stopped = [&] { return stop != nullptr && stop->load(); };
  const int64_t last_tick = static_cast<int64_t>(std::floor(duration_seconds / interval + 1e-9));
  Log(LogLevel::kInfo, "recording",
      {{"out", out_dir},
       {"interval", std::to_string(interval) + "s"},
       {"samples", std::to_string(last_tick + 1)},
       {"soaker", info.soaker ? "on" : "off"},
       {"irqtime", info.irqtime ? irqtime->attach_note() : "off"}});
  auto next_progress = start + std::chrono::seconds(5);
  Status result;
  bool irqtime_failed = false;
  // The windows and verdicts, computed here from the live readings and
  // stored with each sample (its `window` file): a replay must compute the
  // same (--replay says where it does not).
  Analyzer analyzer(config.verdict);
  std::shared_ptr<const Snapshot> prev;
  int64_t first_mono = 0;
  for (int64_t tick = 0; tick <= last_tick;) {
    for (auto now = Clock::now(); now < schedule.Due(tick) && !stopped(); now = Clock::now())
      std::this_thread::sleep_for(std::min<Clock::duration>(schedule.Due(tick) - now, std::chrono::milliseconds(100)));
    if (stopped()) break;
    const int64_t mono_ns = MonotonicNanos(), wall_ns = WallNanos();
    result = capture.BeginSample(p.samples, mono_ns, wall_ns);
    if (!result.ok()) break;
    auto snap = std::make_shared<Snapshot>();
    Sample& sample = snap->sample;
    sampler.Take(&sample);
    // The sample's time is the time file's (exact to the nanosecond), as a
    // replay reads it.
    sample.mono_ns = mono_ns;
    sample.wall_ns = wall_ns;
    if (p.samples == 0) first_mono = sample.mono_ns;
    if (soaker) {
      SoakerReading reading;
      soaker->Read(&reading);
      capture.WriteSoaker(reading).IgnoreError();  // a failure is kept in capture.error(), returned by EndSample
      AddSourceReading("soaker", std::move(reading), &sample.soaker, &sample);
    }
    if (irqtime) {
      IrqTimeReading reading;
      Status s = irqtime->Read(&reading);
      if (s.ok()) {
        capture.WriteIrqTime(reading).IgnoreError();  // as the soaker's
        AddSourceReading("irqtime", std::move(reading), &sample.irqtime, &sample);
      } else if (!irqtime_failed) {  // the sample goes without it; said once
        Log(LogLevel::kWarn, "irqtime read failed; samples go without it until it reads again",
            {{"err", s.ToString()}});
      }
      irqtime_failed = !s.ok();
    }
    AnalyzeSample(config, interval, prev.get(), &analyzer, snap.get());
    if (snap->window) capture.WriteWindow(WindowSummaryLine(*snap, first_mono)).IgnoreError();  // as the soaker's
    result = CheckSampleTables(capture, sample, p.samples);
    if (!result.ok()) break;
    result = capture.EndSample();
    if (!result.ok()) break;
    prev = std::move(snap);
    ++p.samples;
    p.bytes = capture.bytes_written();
    if (p.samples == 1 && prev->sample.stat) info.cpus = static_cast<int>(prev->sample.stat->cpus.size());
    info.samples = p.samples;
    result = WriteInfo(out_dir, info);
    if (!result.ok()) break;
    auto now = Clock::now();
    if (now >= next_progress) {
      std::fprintf(stderr, "bottleneckd record: %zu of %lld samples, %.1f MB, %.0f s\n", p.samples,
                   static_cast<long long>(last_tick + 1), static_cast<double>(p.bytes) / 1e6,
                   std::chrono::duration<double>(now - start).count());
      next_progress = now + std::chrono::seconds(5);
    }
    tick = tick == last_tick ? tick + 1 : schedule.After(tick, now);
  }
  if (soaker) soaker->Stop();
  if (irqtime) irqtime->Stop();
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
