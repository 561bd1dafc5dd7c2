// bottleneckd: entry point. Parses flags, loads the config, starts the HTTP
// endpoint and runs the sampling loop until SIGTERM/SIGINT; SIGHUP reloads.
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <utility>

#include "base/clock.h"
#include "base/log.h"
#include "cmd/flags.h"
#include "cmd/fleet_command.h"
#include "cmd/run_command.h"
#include "daemon/config.h"
#include "daemon/daemon.h"
#include "daemon/replay.h"
#include "exporters/http/http_server.h"
#include "exporters/prometheus/metrics.h"
#include "exporters/prometheus/text_format.h"
#include "exporters/report/pcap_report.h"
#include "exporters/report/report.h"
#include "exporters/report/report_html.h"
#include "sources/profile_fold.h"

namespace bottleneckd {
namespace {

// The soft limit on open files up to the hard one (at most 65536), as Go's
// runtime does for node_exporter: the HTTP server holds a descriptor per
// connection and sizes its connection limit from this (event_server.h);
// systemd's default soft limit of 1024 would cap it near 900 clients.
void RaiseFileLimit() {
  rlimit nofile{};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) != 0) return;
  rlim_t want = nofile.rlim_max == RLIM_INFINITY ? 65536 : std::min<rlim_t>(nofile.rlim_max, 65536);
  if (want <= nofile.rlim_cur) return;
  nofile.rlim_cur = want;
  if (::setrlimit(RLIMIT_NOFILE, &nofile) != 0)
    Log(LogLevel::kDebug, "cannot raise the open-files limit", {{"err", std::strerror(errno)}});
}

// Loads the config named by the flags and applies the flags over it. A missing
// default config file means built-in defaults; a missing named one is an error.
Status LoadEffectiveConfig(const Flags& flags, Config* out) {
  Config c;
  Status s = LoadConfigFile(flags.config_file, &c);
  if (s.IsNotFound() && !flags.config_file_given) {
    c = Config();
  } else if (!s.ok()) {
    return s;
  }
  BN_RETURN_IF_ERROR(ApplyFlags(flags, &c));
  BN_RETURN_IF_ERROR(CheckCaptureInterfaces(c.collectors));
  ListenAddress addr;
  BN_RETURN_IF_ERROR(ParseListenAddress(c.listen_address, &addr));
  *out = std::move(c);
  return Status::OK();
}

int RunOnce(const Config& config) {
  SnapshotStore store;
  Daemon d(config, &store);
  d.Tick();
  std::this_thread::sleep_for(std::chrono::duration<double>(config.interval_seconds));
  d.Tick();
  auto snap = store.Latest();
  std::string body;
  AppendMetricsText(snap.get(), GetBuildInfo(), &body);
  std::cout.write(body.data(), static_cast<std::streamsize>(body.size()));
  std::cout.flush();
  return 0;
}

// `bottleneckd calibrate`: measure every CPU's soaker rate and store it.
int RunCalibrate(const Config& config) {
  HostFs fs(config.roots);
  SoakerOptions o = config.soaker;
  Soaker soaker(&fs, o);
  SoakerCalibrationFile f;
  std::fprintf(stderr, "calibrating the soaker on every online CPU (%.1f s)...\n", o.calibration_seconds);
  Status s = soaker.Calibrate(&f);
  for (const SoakerCalibration& c : f.cpus)
    std::printf("cpu%d %.0f iterations/s%s%s\n", c.cpu, c.iterations_per_second, c.disturbed ? ", disturbed: " : "",
                c.disturbed_why.c_str());
  if (std::any_of(f.cpus.begin(), f.cpus.end(), [](const SoakerCalibration& c) { return c.disturbed; }))
    std::fprintf(stderr,
                 "bottleneckd: calibrate: the CPUs were busy: a disturbed calibration reads idle high; stored with its "
                 "mark and measured again at the daemon's next start; run 'bottleneckd calibrate' again when they "
                 "are quiet\n");
  if (!f.cpus.empty()) std::printf("percentile %d of 5 ms slice rates\n", f.key.percentile);
  if (!s.ok()) {
    std::fprintf(stderr, "bottleneckd: calibrate: %s\n", s.ToString().c_str());
    return f.cpus.empty() ? 1 : 0;
  }
  std::printf("stored in %s/soaker-calibration\n", o.state_dir.c_str());
  return 0;
}

std::atomic<bool> g_record_stop{false};

void StopRecording(int) { g_record_stop.store(true); }

// `bottleneckd record --out DIR --duration D`: SIGINT/SIGTERM stop early,
// keeping the samples so far. Exit 2 for a directory that cannot be used.
int RunRecord(const Config& config, const Flags& flags) {
  struct sigaction sa = {};
  sa.sa_handler = StopRecording;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  RecordProgress p;
  Status s = RecordHost(config, flags.record_out, flags.record_seconds, &g_record_stop, &p);
  if (!s.ok()) {
    std::fprintf(stderr, "bottleneckd: record: %s\n", s.message().c_str());
    // 2: the arguments (a directory that cannot be used); 1: the recording failed.
    bool usage = s.code() == Status::Code::kInvalidArgument && p.samples == 0 && !g_record_stop.load();
    return usage ? 2 : 1;
  }
  // The files' contents and what they take on disk (du: many small files,
  // each a block or more).
  std::fprintf(stderr, "bottleneckd record: %zu samples (%.3f MB of kernel files, %.1f MB on disk) in %s%s\n",
               p.samples, static_cast<double>(p.bytes) / 1e6, static_cast<double>(p.disk_bytes) / 1e6,
               flags.record_out.c_str(), g_record_stop.load() ? " (stopped early)" : "");
  return 0;
}

// `bottleneckd --replay DIR` without --report: one summary line per window,
// each checked against the line `record` computed live and stored with the
// sample: a window that replays otherwise is said on stderr (a recording
// that lost what the live tick read, or a different config), and the last
// line says how many matched. Exit 2, with one line naming the file, for a
// recording that cannot be read; 1 when a stored window differs.
int RunReplay(const Config& config, const std::string& dir) {
  RecordingInfo info;
  int64_t first_mono = 0;
  size_t index = 0, compared = 0, differ = 0;
  Status s = ReplayRecording(
      dir, config,
      [&](const Snapshot& snap) {
        if (index++ == 0) {
          first_mono = snap.sample.mono_ns;
          std::printf("# %s: %zu samples every %gs, %s%s%s\n", dir.c_str(), info.samples, info.interval_seconds,
                      info.source.c_str(), info.hostname.empty() ? "" : " on ", info.hostname.c_str());
        }
        std::string line = WindowSummaryLine(snap, first_mono);
        if (line.empty()) return;
        std::printf("%s\n", line.c_str());
        std::string recorded;
        if (!ReadRecordedWindow(dir, index - 1, &recorded).ok()) return;
        ++compared;
        if (recorded == line) return;
        if (++differ <= 3)
          std::fprintf(stderr,
                       "bottleneckd: replay: sample %zu's window differs from the one recorded:\n  recorded %s\n"
                       "  replayed %s\n",
                       index - 1, recorded.c_str(), line.c_str());
      },
      &info);
  std::fflush(stdout);
  if (!s.ok()) {
    std::fprintf(stderr, "bottleneckd: replay: %s\n", s.message().c_str());
    return 2;
  }
  if (compared > 0)
    std::fprintf(
        stderr, "bottleneckd: replay: %zu of %zu windows as recorded%s\n", compared - differ, compared,
        differ ? " (the others differ: the recording lacks what the live tick read, or the config differs)" : "");
  return differ ? 1 : 0;
}

// The report in `format` (flags.cc checked it: text, json or html; folded is written by RunStoreReport).
std::string FormatReport(const Report& report, const std::string& format) {
  if (format == "json") return ReportJson(report);
  if (format == "html") return ReportHtml(report);
  return ReportText(report);
}

// `bottleneckd --report [--run NAME] [--last N] [--format json|html]`: the run
// store, read-only (the daemon may be writing it: WAL lets both).
// The store is STATE_DIR/runs.db, or with --control.socket (and no
// --path.state) the one the daemon listening there names in its status.
int RunStoreReport(const Config& config, const Flags& flags) {
  std::string path = config.state_dir + "/runs.db";
  if (flags.control_socket && !flags.state_dir) {
    Status s = DaemonRunStore(*flags.control_socket, &path);
    if (!s.ok()) {
      std::fprintf(stderr, "bottleneckd: report: %s (--path.state=DIR reads the store in DIR without a daemon)\n",
                   s.message().c_str());
      return 2;
    }
  }
  std::unique_ptr<RunStore> store;
  Status s = RunStore::Open(path, true, &store);
  Report report;
  if (s.ok()) s = BuildStoreReport(store.get(), flags.report_run, flags.report_last, config.verdict.loss(), &report);
  if (!s.ok()) {
    std::fprintf(stderr, "bottleneckd: report: %s%s\n", s.message().c_str(),
                 s.IsNotFound() && flags.report_run.empty()
                     ? " (no runs yet: start the daemon, or `bottleneckd run -- CMD`; --path.state selects another "
                       "state directory, --control.socket asks a daemon where its store is)"
                     : "");
    return 2;
  }
  if (flags.format == "folded" && report.profile.samples == 0) {
    std::fprintf(stderr, "bottleneckd: report: run '%s' has no on-CPU profile (%s)\n", report.profile_of.c_str(),
                 EmptyProfileReason(report).c_str());
    return 2;
  }
  if (flags.format == "folded-offcpu" && report.offcpu.samples == 0) {
    std::fprintf(stderr, "bottleneckd: report: run '%s' has no off-CPU stacks (%s)\n", report.profile_of.c_str(),
                 EmptyOffCpuReason(report).c_str());
    return 2;
  }
  std::string text = flags.format == "folded"          ? WriteFolded(report.profile)
                     : flags.format == "folded-offcpu" ? WriteFolded(report.offcpu)
                                                       : FormatReport(report, flags.format);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

// `bottleneckd --report --replay DIR [--format json|html]`.
int RunReplayReport(const Config& config, const std::string& dir, const std::string& format) {
  ReplayedTimeline replay;
  Status s = ReplayTimeline(dir, config, &replay);
  if (!s.ok()) {
    std::fprintf(stderr, "bottleneckd: report: %s\n", s.message().c_str());
    return 2;
  }
  const Report report = ReportOfRecording(replay, config.runs.tracker.segment, config.verdict.loss());
  std::string text = FormatReport(report, format);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

// The control socket (runs.control_socket), serving start, stop and status
// on `runs`; null when it is off or cannot open (the daemon then still
// samples and keeps window runs: logged, e.g. no permission for /run).
std::unique_ptr<ControlServer> StartRunControl(const Config& config, RunTracker* runs, const SnapshotStore* store) {
  std::unique_ptr<ControlServer> control;
  if (config.runs.control_socket.empty()) return control;
  ControlServerOptions co;
  co.path = config.runs.control_socket;
  co.group = config.runs.control_group;
  const LossTolerance loss = config.verdict.loss();
  Status s = ControlServer::Start(
      co, [runs, store, loss](const ControlRequest& r) { return HandleControlRequest(r, runs, store, loss); },
      &control);
  if (!s.ok()) {
    Log(LogLevel::kWarn, "run control off: cannot open the control socket", {{"err", s.message()}});
  } else {
    Log(LogLevel::kInfo, "run control", {{"socket", control->path()}});
  }
  return control;
}

// The daemon: samples every interval, serves HTTP and the control socket,
// reloads on SIGHUP and stops on SIGTERM or SIGINT. The process's exit code:
// 1 when it cannot start or runs were lost at the stop.
int RunDaemon(Config config, const Flags& flags) {
  // Signals go to one thread (sigwait); every other thread inherits the mask.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGHUP);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  signal(SIGPIPE, SIG_IGN);

  SnapshotStore store;
  RunTracker runs(OpenDaemonRunStore(config), config.runs.tracker);
  config.drop_capabilities = true;  // once the captures are open; no thread exists yet
  Daemon daemon(config, &store, &runs);
  if (!daemon.source_error().ok()) return 1;  // a source in mode on (irqtime, profile) could not load (logged)
  // Listen first: a soaker with no stored calibration measures it in the
  // background (0.6 s idle, 16 s loaded), said on "/" meanwhile.
  daemon.CalibrateSoakerInBackground();
  daemon.Tick();  // the first scrape already has data
  // Start-up's transient memory (the /proc/kallsyms text the profile and
  // offcpu sources parse, about 5 MB read whole, and its growth copies) is
  // free now but stays resident under TuneMalloc's raised trim threshold:
  // hand it back once (the live daemon at start: 33.4 -> 21.5 MB resident,
  // docs/performance-history.md "RSS (issue 32)").
  malloc_trim(0);

  // Run control: a Unix socket only, never the network.
  std::unique_ptr<ControlServer> control = StartRunControl(config, &runs, &store);

  RaiseFileLimit();
  ListenAddress addr;
  Status s = ParseListenAddress(config.listen_address, &addr);  // checked by LoadEffectiveConfig already
  std::unique_ptr<HttpServer> http;
  RunReportSource reports;  // "/" and "/report" read the store the tracker writes, when it has one
  if (runs.has_store()) reports.runs_db = config.state_dir + "/runs.db";
  reports.loss = config.verdict.loss();
  std::shared_ptr<WebSecurity> security;
  if (s.ok() && !config.web_config_file.empty()) s = WebSecurity::Load(config.web_config_file, &security);
  // Read before the loop runs: from then on only its thread asks for the configuration.
  const bool tls = security && security->tls(), basic_auth = security && security->Current()->auth();
  if (s.ok()) s = HttpServer::Start(addr, &store, &http, reports, security);
  if (!s.ok()) {
    Log(LogLevel::kError, "cannot start HTTP server", {{"err", s.message()}});
    return 1;
  }
  Log(LogLevel::kInfo, "listening",
      {{"address", http->BoundAddress()},
       {"tls", tls ? "on" : "off"},
       {"basic_auth", basic_auth ? "on" : "off"},
       {"config", config.file.empty() ? "(defaults)" : config.file},
       {"interval", std::to_string(config.interval_seconds) + "s"}});

  // Blocks in sigwait: no periodic wake-ups. Run() returns only after this
  // thread called Stop(), so it has already returned by then. A stop that
  // does not end sampling within kStopSeconds (a read stuck in the kernel:
  // HostFs never blocks on a FIFO, but a hung filesystem can) ends the
  // process anyway, with exit 1 and the reason.
  constexpr int kStopSeconds = 10;
  std::atomic<bool> run_returned{false};
  std::thread signals([&] {
    for (;;) {
      int sig = 0;
      if (sigwait(&sigs, &sig) != 0) continue;
      if (sig == SIGTERM || sig == SIGINT) {
        Log(LogLevel::kInfo, "stopping", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
        daemon.Stop();
        for (int i = 0; i < kStopSeconds * 10 && !run_returned.load(); ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (!run_returned.load()) {
          Log(LogLevel::kError, "sampling did not stop: a read is stuck; exiting without a clean shutdown",
              {{"waited", std::to_string(kStopSeconds) + "s"}});
          std::_Exit(1);
        }
        return;
      }
      if (sig == SIGHUP) {
        Config next;
        Status rs = LoadEffectiveConfig(flags, &next);
        if (!rs.ok()) {
          Log(LogLevel::kError, "reload failed; keeping the running config", {{"err", rs.message()}});
          malloc_trim(0);  // hand back what parsing the refused file took
          continue;
        }
        if (next.listen_address != config.listen_address)
          Log(LogLevel::kWarn, "web.listen_address changes need a restart", {{"kept", config.listen_address}});
        // The web config's own files are re-read when they change
        // (exporters/http/web_security.h); naming another is a restart.
        if (next.web_config_file != config.web_config_file)
          Log(LogLevel::kWarn, "web.config_file changes need a restart",
              {{"kept", config.web_config_file.empty() ? "(none: plain HTTP)" : config.web_config_file}});
        SetLogLevel(next.log_level);
        daemon.Reconfigure(next);
      }
    }
  });
  daemon.Run();
  run_returned.store(true);
  signals.join();
  control.reset();
  http.reset();
  // Finished runs the store would not take are lost with the process: the
  // exit says so (Close logged their names), for the service manager.
  std::vector<std::string> lost = runs.Close(WallSeconds());
  Log(lost.empty() ? LogLevel::kInfo : LogLevel::kError, "stopped", {{"unsaved_runs", std::to_string(lost.size())}});
  return lost.empty() ? 0 : 1;
}

void TuneMalloc() {
  // Keep freed scrape buffers instead of returning them to the kernel after
  // every scrape (madvise + page faults were 22 % of a small scrape's CPU;
  // docs/performance.md). Both thresholds: raising only the trim threshold
  // pins the mmap threshold and large bodies get mmapped every scrape.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  // Two malloc arenas, not glibc's 8 per core: each thread that allocates
  // (sampler, HTTP loop and worker, sources) would otherwise get its own, and
  // each arena keeps its freed memory under that trim threshold (with
  // civetweb's 256 workers: 5 MB more RSS under 50 scrapers + 200 slowloris,
  // docs/performance-history.md "HTTP under hostile clients").
  mallopt(M_ARENA_MAX, 2);
}

// The binary: flags, then the one mode they name (the daemon by default).
int Main(int argc, char** argv) {
  TuneMalloc();
  Flags flags;
  Status s = ParseFlags(argc, argv, &flags);
  if (!s.ok()) {  // every usage error: 2 (a config file that cannot be used: 1)
    std::fprintf(stderr, "bottleneckd: %s\n", s.message().c_str());
    return 2;
  }
  if (flags.help) {
    std::fputs(flags.help_text.c_str(), stdout);
    return 0;
  }
  if (flags.version) {
    BuildInfo b = GetBuildInfo();
    std::printf("bottleneckd %s (%s)\n", b.version.c_str(), b.revision.c_str());
    return 0;
  }
  if (flags.command == "pcap") return RunPcapCommand(flags.pcap_files, flags.format, TrafficOptions());
  if (flags.report && !flags.prometheus_url.empty()) return RunFleetReport(flags);  // no config: nothing local
  Config config;
  s = LoadEffectiveConfig(flags, &config);
  if (!s.ok()) {
    std::fprintf(stderr, "bottleneckd: config error: %s\n", s.message().c_str());
    return 1;
  }
  if (flags.config_check) {
    if (!config.web_config_file.empty()) {
      // The web config whole, as the daemon's start reads it: the file, its
      // certificate, key and CA, its users' hashes.
      std::shared_ptr<WebSecurity> security;
      s = WebSecurity::Load(config.web_config_file, &security);
      if (!s.ok()) {
        std::fprintf(stderr, "bottleneckd: web config error: %s\n", s.message().c_str());
        return 1;
      }
      std::printf("web config OK: %s (TLS %s, basic auth %s)\n", config.web_config_file.c_str(),
                  security->tls() ? "on" : "off", security->Current()->auth() ? "on" : "off");
    }
    std::printf("config OK: %s\n", config.file.empty() ? "(built-in defaults)" : config.file.c_str());
    return 0;
  }
  SetLogLevel(config.log_level);
  std::string bad;
  if (!ValidateMetricNames(&bad)) {
    Log(LogLevel::kError, "invalid metric or label name", {{"name", bad}});
    return 1;
  }
  if (flags.command == "calibrate") return RunCalibrate(config);
  if (flags.command == "record") return RunRecord(config, flags);
  if (flags.command == "run") {
    if (!flags.log_level && config.log_level < LogLevel::kWarn) SetLogLevel(LogLevel::kWarn);
    return RunCommand(config, flags);
  }
  if (!flags.pcap_files.empty()) return RunPcapCommand(flags.pcap_files, flags.format, TrafficOptions());
  if (flags.replay && flags.report) return RunReplayReport(config, *flags.replay, flags.format);
  if (flags.report) return RunStoreReport(config, flags);
  if (flags.replay) return RunReplay(config, *flags.replay);
  if (flags.once) return RunOnce(config);

  return RunDaemon(std::move(config), flags);
}

}  // namespace
}  // namespace bottleneckd

int main(int argc, char** argv) { return bottleneckd::Main(argc, argv); }
