// Microbenchmarks (Google Benchmark) of the per-tick work: each pure parser on
// the kernel text of a fixture tree (large-host: 128 CPUs, ~1100 IRQs, a
// 1.6 MB /proc/interrupts), a whole Sampler::Take and Daemon::Tick over each
// fixture tree through HostFs, ComputeWindow between two samples, and the
// scrape path (BuildMetricFamilies + prometheus::TextSerializer, and + our
// AppendTextFormat as the daemon now serves it).
// Run by bench/run.sh; targets and results are in docs/performance.md.
// Nothing here asserts a time: a parse failure aborts the run instead.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <prometheus/text_serializer.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "analysis/delivery_cost.h"
#include "analysis/signals.h"
#include "analysis/snapshot.h"
#include "base/log.h"
#include "collectors/cpu.h"
#include "collectors/host_fs.h"
#include "collectors/interrupts.h"
#include "collectors/sockets.h"
#include "collectors/softirqs.h"
#include "collectors/threads.h"
#include "daemon/config.h"
#include "daemon/daemon.h"
#include "daemon/sampler.h"
#include "exporters/prometheus/metrics.h"
#include "exporters/prometheus/text_format.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"
#include "window/window.h"

namespace bottleneckd {
namespace {

using testing::FixtureDir;
using testing::FixtureRoots;

std::string ReadOrDie(const std::string& path) { return testing::ReadFileOrDie(path); }

std::string ProcFile(const std::string& scenario, const std::string& rel) {
  return ReadOrDie(FixtureDir(scenario) + "/proc/" + rel);
}

void CheckOk(const Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "parsers_bench: %s: %s\n", what, s.ToString().c_str());
    std::abort();
  }
}

// The collectors config the golden tests use: the fixtures' thread targets.
CollectorsConfig BenchCollectors() {
  CollectorsConfig c;
  c.threads.targets.push_back(ThreadTarget{"udpecho", std::nullopt});
  c.threads.targets.push_back(ThreadTarget{"python3", std::nullopt});
  return c;
}

// --- Parsers ---------------------------------------------------------------
// Each iteration parses into a fresh output object, as the daemon does (the
// Sample is reset every tick), so allocation is part of the figure.

void BM_ParseProcInterrupts(benchmark::State& state, const char* scenario) {
  const std::string text = ProcFile(scenario, "interrupts");
  size_t lines = 0;
  for (auto _ : state) {
    Interrupts out;
    CheckOk(ParseProcInterrupts(text, &out), "ParseProcInterrupts");
    lines = out.lines.size();
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["irq_lines"] = static_cast<double>(lines);
}
BENCHMARK_CAPTURE(BM_ParseProcInterrupts, large_host, "large-host")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ParseProcInterrupts, vm, "vm")->Unit(benchmark::kMicrosecond);

// The same parse into one output object kept across iterations: the share of
// the figure above that is allocation (if the parser reuses vectors).
void BM_ParseProcInterruptsReused(benchmark::State& state, const char* scenario) {
  const std::string text = ProcFile(scenario, "interrupts");
  Interrupts out;
  for (auto _ : state) {
    CheckOk(ParseProcInterrupts(text, &out), "ParseProcInterrupts");
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK_CAPTURE(BM_ParseProcInterruptsReused, large_host, "large-host")->Unit(benchmark::kMicrosecond);

void BM_ParseProcStat(benchmark::State& state, const char* scenario) {
  const std::string text = ProcFile(scenario, "stat");
  for (auto _ : state) {
    ProcStat out;
    CheckOk(ParseProcStat(text, &out), "ParseProcStat");
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK_CAPTURE(BM_ParseProcStat, large_host, "large-host")->Unit(benchmark::kMicrosecond);

void BM_ParseProcSoftirqs(benchmark::State& state, const char* scenario) {
  const std::string text = ProcFile(scenario, "softirqs");
  for (auto _ : state) {
    Softirqs out;
    CheckOk(ParseProcSoftirqs(text, &out), "ParseProcSoftirqs");
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK_CAPTURE(BM_ParseProcSoftirqs, large_host, "large-host")->Unit(benchmark::kMicrosecond);

void BM_ParseSoftnetStat(benchmark::State& state, const char* scenario) {
  const std::string text = ProcFile(scenario, "net/softnet_stat");
  for (auto _ : state) {
    std::vector<SoftnetCpu> out;
    CheckOk(ParseSoftnetStat(text, &out), "ParseSoftnetStat");
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK_CAPTURE(BM_ParseSoftnetStat, large_host, "large-host")->Unit(benchmark::kMicrosecond);

void BM_ParseProcNetSnmp(benchmark::State& state, const char* scenario) {
  const std::string text = ProcFile(scenario, "net/snmp");
  for (auto _ : state) {
    SocketStats out;
    CheckOk(ParseProcNetSnmp(text, &out), "ParseProcNetSnmp");
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK_CAPTURE(BM_ParseProcNetSnmp, large_host, "large-host")->Unit(benchmark::kMicrosecond);

void BM_ParseProcNetNetstat(benchmark::State& state, const char* scenario) {
  const std::string text = ProcFile(scenario, "net/netstat");
  for (auto _ : state) {
    SocketStats out;
    CheckOk(ParseProcNetNetstat(text, &out), "ParseProcNetNetstat");
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK_CAPTURE(BM_ParseProcNetNetstat, large_host, "large-host")->Unit(benchmark::kMicrosecond);

// --- Whole tick --------------------------------------------------------------

// One Sampler::Take over a fixture tree: every default collector's file reads
// (page cache), parsing and the NIC/IRQ mapping, exactly as the daemon does.
void BM_SamplerTake(benchmark::State& state, const char* scenario) {
  HostFs fs(FixtureRoots(scenario));
  Sampler sampler(&fs, BenchCollectors());
  Sample sample;
  sampler.Take(&sample);  // warm: the first Take builds the NIC/IRQ mapping
  for (auto _ : state) {
    sampler.Take(&sample);
    benchmark::DoNotOptimize(sample);
  }
  int ok = 0;
  for (const CollectorResult& r : sample.results) ok += r.success ? 1 : 0;
  state.counters["collectors_ok"] = ok;
  state.counters["collectors"] = static_cast<double>(sample.results.size());
}
BENCHMARK_CAPTURE(BM_SamplerTake, vm, "vm")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SamplerTake, seed_box, "seed-box")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SamplerTake, large_host, "large-host")->Unit(benchmark::kMicrosecond);

// The threads collector on the live /proc, this process the target, with 8
// sleeping threads beside the benchmark's own: per target thread, stat plus
// schedstat, status, wchan and syscall (the thread state budget, issue 27),
// against the floor of the same reads of stat alone ("stat_only": what the
// collector read before).
void BM_ThreadsCollectLive(benchmark::State& state) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> sleepers;
  for (int i = 0; i < 8; ++i)
    sleepers.emplace_back([&stop] {
      while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
  HostFs fs(HostRoots{});
  ThreadsOptions o;
  o.targets.push_back(ThreadTarget{"", static_cast<int>(::getpid())});
  ThreadsCollector c(o);
  Sample sample;
  size_t threads = 0;
  std::vector<std::string> tids;
  std::string pid = std::to_string(::getpid()), buf;
  if (!fs.ListProc(pid + "/task", &tids).ok()) std::abort();
  for (auto _ : state) {
    if (state.range(0) == 0) {
      if (!c.Collect(fs, &sample).ok()) std::abort();
      threads = sample.threads->size();
    } else {
      for (const std::string& tid : tids) benchmark::DoNotOptimize(fs.ReadProc(pid + "/task/" + tid + "/stat", &buf));
      threads = tids.size();
    }
  }
  stop = true;
  for (std::thread& t : sleepers) t.join();
  state.counters["threads"] = static_cast<double>(threads);
  state.counters["us_per_thread"] = benchmark::Counter(
      static_cast<double>(threads) * 1e-6, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ThreadsCollectLive)->ArgName("stat_only")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The same collector with the 8 threads blocked in recv on 10 UDP sockets
// (8 connected to a ninth, one unconnected), so each tick resolves the
// object every thread waits on (collectors/wait_object.h): the descriptor's
// link each time, the socket tables once per (pid, fd, inode); and the
// process's inputs (collectors/input_sockets.h: udp and udp6 read each
// tick, its descriptors listed every 10). Against
// BM_ThreadsCollectLive's sleepers, whose clock_nanosleep names no
// descriptor: the difference is the object's cost per thread per tick.
void BM_ThreadsCollectLiveOnSockets(benchmark::State& state) {
  std::atomic<bool> stop{false};
  auto udp = [] {
    int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{0, 5000};  // 5 ms: the threads look at `stop` again
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
      std::abort();
    return fd;
  };
  const int backend = udp(), spare = udp();
  sockaddr_in to{};
  socklen_t len = sizeof to;
  if (::getsockname(backend, reinterpret_cast<sockaddr*>(&to), &len) != 0) std::abort();
  std::vector<int> fds;
  std::vector<std::thread> waiters;
  for (int i = 0; i < 8; ++i) {
    fds.push_back(udp());
    if (::connect(fds.back(), reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) std::abort();
    waiters.emplace_back([&stop, fd = fds.back()] {
      char b[8];
      while (!stop.load()) (void)::recv(fd, b, sizeof b, 0);
    });
  }
  HostFs fs(HostRoots{});
  ThreadsOptions o;
  o.targets.push_back(ThreadTarget{"", static_cast<int>(::getpid())});
  ThreadsCollector c(o);
  Sample sample;
  size_t threads = 0, resolved = 0, inputs = 0;
  for (auto _ : state) {
    if (!c.Collect(fs, &sample).ok()) std::abort();
    threads = sample.threads->size();
    inputs = sample.input_sockets ? sample.input_sockets->size() : 0;
    resolved = 0;
    for (const ThreadSample& t : *sample.threads) resolved += t.wait.object.kind == WaitObject::Kind::kSocket;
  }
  stop = true;
  for (std::thread& t : waiters) t.join();
  for (int fd : fds) ::close(fd);
  ::close(backend);
  ::close(spare);
  state.counters["threads"] = static_cast<double>(threads);
  state.counters["resolved"] = static_cast<double>(resolved);
  state.counters["inputs"] = static_cast<double>(inputs);  // the unconnected two, read each tick
  state.counters["us_per_thread"] = benchmark::Counter(
      static_cast<double>(threads) * 1e-6, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ThreadsCollectLiveOnSockets)->Unit(benchmark::kMicrosecond);

// The same collector with the 8 threads each blocked in epoll_wait on its
// own epoll instance watching 10 UDP sockets (one unconnected): each tick
// reads every epoll's interest list (its fdinfo: not cached, the list
// changes), the sockets' table rows once per (pid, inode).
void BM_ThreadsCollectLiveOnEpoll(benchmark::State& state) {
  std::atomic<bool> stop{false};
  std::vector<int> fds;
  auto udp = [&fds] {
    int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) std::abort();
    fds.push_back(fd);
    return fd;
  };
  const int backend = udp();
  sockaddr_in to{};
  socklen_t len = sizeof to;
  if (::getsockname(backend, reinterpret_cast<sockaddr*>(&to), &len) != 0) std::abort();
  std::vector<std::thread> loops;
  for (int i = 0; i < 8; ++i) {
    const int ep = ::epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) std::abort();
    fds.push_back(ep);
    for (int k = 0; k < 10; ++k) {
      const int fd = udp();
      if (k > 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) std::abort();
      epoll_event e{};
      e.events = EPOLLIN;
      if (::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) != 0) std::abort();
    }
    loops.emplace_back([&stop, ep] {
      epoll_event got{};
      while (!stop.load()) (void)::epoll_wait(ep, &got, 1, 5);  // 5 ms: `stop` looked at again
    });
  }
  HostFs fs(HostRoots{});
  ThreadsOptions o;
  o.targets.push_back(ThreadTarget{"", static_cast<int>(::getpid())});
  ThreadsCollector c(o);
  Sample sample;
  size_t threads = 0, resolved = 0;
  for (auto _ : state) {
    if (!c.Collect(fs, &sample).ok()) std::abort();
    threads = sample.threads->size();
    resolved = 0;
    for (const ThreadSample& t : *sample.threads) resolved += t.wait.object.epoll_inputs + t.wait.object.epoll_peers;
  }
  stop = true;
  for (std::thread& t : loops) t.join();
  for (int fd : fds) ::close(fd);
  state.counters["threads"] = static_cast<double>(threads);
  state.counters["watched_sockets_resolved"] = static_cast<double>(resolved);
  state.counters["us_per_thread"] = benchmark::Counter(
      static_cast<double>(threads) * 1e-6, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ThreadsCollectLiveOnEpoll)->Unit(benchmark::kMicrosecond);

// Daemon::Tick: Take + ComputeWindow + publishing the Snapshot, the whole
// per-second cost of the sampling thread.
void BM_DaemonTick(benchmark::State& state, const char* scenario) {
  Config config;
  config.roots = FixtureRoots(scenario);
  config.collectors.threads = BenchCollectors().threads;
  SnapshotStore store;
  Daemon daemon(config, &store);
  daemon.Tick();
  for (auto _ : state) daemon.Tick();
}
BENCHMARK_CAPTURE(BM_DaemonTick, vm, "vm")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_DaemonTick, seed_box, "seed-box")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_DaemonTick, large_host, "large-host")->Unit(benchmark::kMicrosecond);

void TakeTwo(const char* scenario, Sample* prev, Sample* cur) {
  HostFs fs(FixtureRoots(scenario));
  Sampler sampler(&fs, BenchCollectors());
  sampler.Take(prev);
  sampler.Take(cur);
  // The fixture does not move; pretend one second passed.
  cur->mono_ns = prev->mono_ns + 1000000000;
}

void BM_ComputeWindow(benchmark::State& state, const char* scenario) {
  Sample prev, cur;
  TakeTwo(scenario, &prev, &cur);
  for (auto _ : state) {
    Window w;
    if (!ComputeWindow(prev, cur, &w)) std::abort();
    benchmark::DoNotOptimize(w);
  }
}
BENCHMARK_CAPTURE(BM_ComputeWindow, large_host, "large-host")->Unit(benchmark::kMicrosecond);

// The learned delivery cost (analysis/delivery_cost.h) per window: Observe (one
// fit sample per CPU whose soaker held) and Apply (each CPU's delivery share),
// for 128 CPUs (the large host's count), every one a learning CPU: the soaker
// holding 60 % of it, interrupts from 1 k to 128 k/s, 2 % unexplained. The
// worst case per window; the fit is usable after the first iteration.
void BM_DeliveryCost(benchmark::State& state) {
  Signals s;
  s.cpus.resize(128);
  for (size_t i = 0; i < s.cpus.size(); ++i) {
    CpuSignal& c = s.cpus[i];
    c.cpu = static_cast<int>(i);
    c.busy_from_soaker = true;
    c.busy = 0.4;
    c.accounting_busy = 0.38;
    c.interrupts_per_second = 1000.0 * static_cast<double>(i + 1);
  }
  DeliveryCost cost;
  for (auto _ : state) {
    Signals applied = s;
    cost.Observe(applied);
    cost.Apply(&applied);
    benchmark::DoNotOptimize(applied);
  }
}
BENCHMARK(BM_DeliveryCost)->Unit(benchmark::kMicrosecond);

// --- Scrape path -------------------------------------------------------------

std::shared_ptr<Snapshot> MakeSnapshot(const char* scenario, bool per_cpu_matrix) {
  auto snap = std::make_shared<Snapshot>();
  Sample prev;
  TakeTwo(scenario, &prev, &snap->sample);
  Window w;
  if (!ComputeWindow(prev, snap->sample, &w)) std::abort();
  snap->window = std::move(w);
  snap->samples_total = 2;
  snap->per_cpu_irq_matrix = per_cpu_matrix;
  return snap;
}

size_t CountSeries(const std::vector<prometheus::MetricFamily>& families) {
  size_t n = 0;
  for (const auto& f : families) n += f.metric.size();
  return n;
}

void BM_BuildMetricFamilies(benchmark::State& state, const char* scenario) {
  auto snap = MakeSnapshot(scenario, state.range(0) != 0);
  const BuildInfo build = GetBuildInfo();
  size_t series = 0;
  for (auto _ : state) {
    auto families = BuildMetricFamilies(snap.get(), build);
    series = CountSeries(families);
    benchmark::DoNotOptimize(families);
  }
  state.counters["series"] = static_cast<double>(series);
}
BENCHMARK_CAPTURE(BM_BuildMetricFamilies, large_host, "large-host")
    ->ArgName("per_cpu_matrix")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

void BM_TextSerializer(benchmark::State& state, const char* scenario) {
  auto snap = MakeSnapshot(scenario, state.range(0) != 0);
  const auto families = BuildMetricFamilies(snap.get(), GetBuildInfo());
  const prometheus::TextSerializer serializer;
  size_t bytes = 0;
  for (auto _ : state) {
    std::ostringstream out;
    serializer.Serialize(out, families);
    bytes = out.str().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["response_bytes"] = static_cast<double>(bytes);
}
BENCHMARK_CAPTURE(BM_TextSerializer, large_host, "large-host")
    ->ArgName("per_cpu_matrix")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

// What one scrape of /metrics costs in the exporter, minus HTTP: build the
// families from the snapshot and serialize them.
void BM_Scrape(benchmark::State& state, const char* scenario) {
  auto snap = MakeSnapshot(scenario, state.range(0) != 0);
  const BuildInfo build = GetBuildInfo();
  const prometheus::TextSerializer serializer;
  size_t series = 0, bytes = 0;
  for (auto _ : state) {
    auto families = BuildMetricFamilies(snap.get(), build);
    std::ostringstream out;
    serializer.Serialize(out, families);
    series = CountSeries(families);
    bytes = out.str().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["series"] = static_cast<double>(series);
  state.counters["response_bytes"] = static_cast<double>(bytes);
}
BENCHMARK_CAPTURE(BM_Scrape, vm, "vm")->ArgName("per_cpu_matrix")->Arg(0)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Scrape, seed_box, "seed-box")->ArgName("per_cpu_matrix")->Arg(0)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Scrape, large_host, "large-host")
    ->ArgName("per_cpu_matrix")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

// The same scrape as the daemon serves it now: AppendTextFormat into a reused
// string (BM_Scrape above keeps TextSerializer + ostringstream for comparison).
void BM_ScrapeTextFormat(benchmark::State& state, const char* scenario) {
  auto snap = MakeSnapshot(scenario, state.range(0) != 0);
  const BuildInfo build = GetBuildInfo();
  std::string out;
  size_t series = 0, bytes = 0;
  for (auto _ : state) {
    auto families = BuildMetricFamilies(snap.get(), build);
    out.clear();
    AppendTextFormat(families, &out);
    series = CountSeries(families);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["series"] = static_cast<double>(series);
  state.counters["response_bytes"] = static_cast<double>(bytes);
}
BENCHMARK_CAPTURE(BM_ScrapeTextFormat, vm, "vm")->ArgName("per_cpu_matrix")->Arg(0)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ScrapeTextFormat, seed_box, "seed-box")
    ->ArgName("per_cpu_matrix")
    ->Arg(0)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ScrapeTextFormat, large_host, "large-host")
    ->ArgName("per_cpu_matrix")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

// The scrape as the daemon serves it since the text is written straight from
// the family builders (AppendMetricsText, no prometheus-cpp model), into a
// reused string.
void BM_ScrapeDirect(benchmark::State& state, const char* scenario) {
  auto snap = MakeSnapshot(scenario, state.range(0) != 0);
  const BuildInfo build = GetBuildInfo();
  std::string out;
  for (auto _ : state) {
    out.clear();
    AppendMetricsText(snap.get(), build, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["response_bytes"] = static_cast<double>(out.size());
}
BENCHMARK_CAPTURE(BM_ScrapeDirect, vm, "vm")->ArgName("per_cpu_matrix")->Arg(0)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ScrapeDirect, seed_box, "seed-box")
    ->ArgName("per_cpu_matrix")
    ->Arg(0)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ScrapeDirect, large_host, "large-host")
    ->ArgName("per_cpu_matrix")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace bottleneckd

int main(int argc, char** argv) {
  // Collector state changes are logged once; keep them out of the tables.
  bottleneckd::SetLogLevel(bottleneckd::LogLevel::kError);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
