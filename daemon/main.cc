// bottleneckd: entry point. Parses flags, loads the config, starts the HTTP
// endpoint and runs the sampling loop until SIGTERM/SIGINT; SIGHUP reloads.
#include <prometheus/text_serializer.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <thread>

#include "daemon/config.h"
#include "daemon/daemon.h"
#include "daemon/flags.h"
#include "daemon/log.h"
#include "exporters/http_server.h"
#include "exporters/metrics.h"

namespace bottleneckd {
namespace {

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
  prometheus::TextSerializer().Serialize(std::cout, BuildMetricFamilies(snap.get(), GetBuildInfo()));
  std::cout.flush();
  return 0;
}

int Main(int argc, char** argv) {
  Flags flags;
  Status s = ParseFlags(argc, argv, &flags);
  if (!s.ok()) {
    std::fprintf(stderr, "bottleneckd: %s\n", s.message().c_str());
    return 2;
  }
  if (flags.help) {
    std::fputs(Usage().c_str(), stdout);
    return 0;
  }
  if (flags.version) {
    BuildInfo b = GetBuildInfo();
    std::printf("bottleneckd %s (%s)\n", b.version.c_str(), b.revision.c_str());
    return 0;
  }
  Config config;
  s = LoadEffectiveConfig(flags, &config);
  if (!s.ok()) {
    std::fprintf(stderr, "bottleneckd: config error: %s\n", s.message().c_str());
    return 1;
  }
  if (flags.config_check) {
    std::printf("config OK: %s\n", config.file.empty() ? "(built-in defaults)" : config.file.c_str());
    return 0;
  }
  SetLogLevel(config.log_level);
  std::string bad;
  if (!ValidateMetricNames(&bad)) {
    Log(LogLevel::kError, "invalid metric or label name", {{"name", bad}});
    return 1;
  }
  if (flags.once) return RunOnce(config);

  // Signals go to one thread (sigwait); every other thread inherits the mask.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGHUP);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  signal(SIGPIPE, SIG_IGN);

  SnapshotStore store;
  Daemon daemon(config, &store);
  daemon.Tick();  // the first scrape already has data

  ListenAddress addr;
  ParseListenAddress(config.listen_address, &addr);
  std::unique_ptr<HttpServer> http;
  s = HttpServer::Start(addr, &store, &http);
  if (!s.ok()) {
    Log(LogLevel::kError, "cannot start HTTP server", {{"err", s.message()}});
    return 1;
  }
  Log(LogLevel::kInfo, "listening", {{"address", http->BoundAddress()},
                                     {"config", config.file.empty() ? "(defaults)" : config.file},
                                     {"interval", std::to_string(config.interval_seconds) + "s"}});

  std::atomic<bool> done{false};
  std::thread signals([&] {
    struct timespec tick = {0, 200 * 1000 * 1000};
    while (!done.load()) {
      int sig = sigtimedwait(&sigs, nullptr, &tick);
      if (sig == SIGTERM || sig == SIGINT) {
        Log(LogLevel::kInfo, "stopping", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
        daemon.Stop();
        return;
      }
      if (sig == SIGHUP) {
        Config next;
        Status rs = LoadEffectiveConfig(flags, &next);
        if (!rs.ok()) {
          Log(LogLevel::kError, "reload failed; keeping the running config", {{"err", rs.message()}});
          continue;
        }
        if (next.listen_address != config.listen_address)
          Log(LogLevel::kWarn, "web.listen_address changes need a restart", {{"kept", config.listen_address}});
        SetLogLevel(next.log_level);
        daemon.Reconfigure(next);
      }
    }
  });
  daemon.Run();
  done.store(true);
  signals.join();
  http.reset();
  Log(LogLevel::kInfo, "stopped");
  return 0;
}

}  // namespace
}  // namespace bottleneckd

int main(int argc, char** argv) { return bottleneckd::Main(argc, argv); }
