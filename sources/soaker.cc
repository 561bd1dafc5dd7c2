#include "sources/soaker.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <system_error>
#include <utility>

#include "base/clock.h"
#include "sources/sample.h"

namespace bottleneckd {
namespace {

constexpr int kUnitSteps = 256;          // xorshift64 steps per work unit (~0.3 us)
constexpr uint64_t kBatchUnits = 1024;   // units between clock / cpu checks (~0.3 ms)
constexpr int64_t kSliceNs = 5'000'000;  // calibration slice, thread CPU time
constexpr size_t kMinSlices = 10;

// One work unit: a fixed chain of dependent xorshift64 steps. Not inlined, so
// the calibration and the soaker run the very same machine code.
[[gnu::noinline]] uint64_t WorkUnit(uint64_t x) {
  for (int i = 0; i < kUnitSteps; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

// The loop the soaker threads and the calibration both run: up to `units` work
// units, each counted in *counter as it completes (a plain store: the counter
// has one writer), checking *stop before each. The chain's value is published
// in *sink so no step can be optimised away. Returns the units done.
[[gnu::noinline]] uint64_t RunBatch(std::atomic<uint64_t>* counter, std::atomic<uint64_t>* sink,
                                    const std::atomic<bool>* stop, uint64_t units) {
  uint64_t n = counter->load(std::memory_order_relaxed);
  uint64_t x = sink->load(std::memory_order_relaxed) | 1;
  uint64_t done = 0;
  for (; done < units && !stop->load(std::memory_order_relaxed); ++done) {
    x = WorkUnit(x);
    counter->store(++n, std::memory_order_relaxed);
  }
  sink->store(x, std::memory_order_relaxed);
  return done;
}

// Pins the calling thread to `cpu`; returns 0 or the error number.
int PinSelf(int cpu) {
  cpu_set_t* set = CPU_ALLOC(cpu + 1);
  if (set == nullptr) return ENOMEM;
  size_t size = CPU_ALLOC_SIZE(cpu + 1);
  CPU_ZERO_S(size, set);
  CPU_SET_S(cpu, size, set);
  int err = ::pthread_setaffinity_np(::pthread_self(), size, set);
  CPU_FREE(set);
  return err;
}

// The CPUs the calling thread may run on (a container's cpuset, a taskset).
std::vector<int> AllowedCpus() {
  std::vector<int> out;
  size_t size = CPU_ALLOC_SIZE(kMaxCpuId + 1);
  cpu_set_t* set = CPU_ALLOC(kMaxCpuId + 1);
  if (set == nullptr) return out;
  if (::sched_getaffinity(0, size, set) == 0) {
    const size_t count = static_cast<size_t>(CPU_COUNT_S(size, set));
    for (int c = 0; c <= kMaxCpuId && out.size() < count; ++c) {
      if (CPU_ISSET_S(c, size, set)) out.push_back(c);
    }
  }
  CPU_FREE(set);
  return out;
}

// Units per second of thread CPU time on `cpu`, the `percentile` of 5 ms slice
// rates, at the calling thread's (normal) priority.
struct CpuCalibration {
  int cpu = -1;
  double rate = 0;
  std::string error;
};

void CalibrateCpu(double cpu_seconds, int percentile, CpuCalibration* r) {
  if (int err = PinSelf(r->cpu); err != 0) {
    r->error = "affinity refused: " + std::string(std::strerror(err));
    return;
  }
  std::atomic<uint64_t> counter{0}, sink{0x9e3779b97f4a7c15ull};
  std::atomic<bool> stop{false};
  std::vector<double> rates;
  const int64_t budget_ns = static_cast<int64_t>(cpu_seconds * 1e9);
  // A loaded host gives the thread a fraction of a CPU: allow 8x the budget
  // plus 1 s of wall time (5 s at the default 0.5 s) before giving up.
  const int64_t deadline = ClockNanos(CLOCK_MONOTONIC) + 8 * budget_ns + 1'000'000'000;
  const int64_t start = ClockNanos(CLOCK_THREAD_CPUTIME_ID);
  int64_t slice_start = start;
  uint64_t slice_units = 0;
  while (true) {
    RunBatch(&counter, &sink, &stop, kBatchUnits);
    int64_t now = ClockNanos(CLOCK_THREAD_CPUTIME_ID);
    uint64_t units = counter.load(std::memory_order_relaxed);
    if (now - slice_start >= kSliceNs) {
      rates.push_back(static_cast<double>(units - slice_units) * 1e9 /
                      static_cast<double>(now - slice_start));
      slice_start = now;
      slice_units = units;
    }
    if (now - start >= budget_ns || ClockNanos(CLOCK_MONOTONIC) >= deadline) break;
  }
  if (::sched_getcpu() != r->cpu) {
    r->error = "moved off the CPU during calibration (hotplug?)";
  } else if (rates.size() < kMinSlices) {
    r->error = "only " + std::to_string(rates.size()) + " slices of CPU time in the time allowed";
  } else {
    std::sort(rates.begin(), rates.end());
    size_t i = static_cast<size_t>(std::ceil(percentile / 100.0 * static_cast<double>(rates.size()))) - 1;
    r->rate = rates[std::min(i, rates.size() - 1)];
  }
}

// Thread generations, unique in the process: a reading from a Soaker that was
// destroyed never matches one from its successor.
std::atomic<uint64_t> next_generation{1};

struct WorkerSetup {
  int pin_error = 0;
  bool sched_idle = false;
  int idle_error = 0;  // why SCHED_IDLE was refused
  int nice_error = 0;  // why nice 19 was refused too
};

}  // namespace

// One soaker thread. The struct is cache-line aligned so no two threads'
// counters share a line; the sampler reads a line once a tick.
struct alignas(64) Soaker::Worker {
  std::atomic<uint64_t> iterations{0};  // written by the thread only
  std::atomic<uint64_t> sink{0x9e3779b97f4a7c15ull};
  std::atomic<bool> stop{false};
  std::atomic<bool> exited{false};
  int cpu = -1;
  uint64_t generation = 0;
  clockid_t clock{};  // the thread's CPU-time clock, read by the sampler
  bool clock_ok = false;
  std::thread thread;

  void Run(bool want_idle, std::promise<WorkerSetup> setup) {
    WorkerSetup s;
    s.pin_error = PinSelf(cpu);
    if (s.pin_error != 0) {
      exited.store(true, std::memory_order_release);
      setup.set_value(s);
      return;
    }
    if (want_idle) {
      sched_param param{};
      if (::sched_setscheduler(0, SCHED_IDLE, &param) == 0) {
        s.sched_idle = true;
      } else {
        s.idle_error = errno;
      }
    }
    if (!s.sched_idle && ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19) != 0) {
      s.nice_error = errno;
    }
    setup.set_value(s);
    while (!stop.load(std::memory_order_relaxed)) {
      RunBatch(&iterations, &sink, &stop, kBatchUnits);
      // A CPU going offline migrates its threads and breaks their affinity.
      if (::sched_getcpu() != cpu) break;
    }
    exited.store(true, std::memory_order_release);
  }
};

Soaker::Soaker(const HostFs* fs, SoakerOptions options) : fs_(fs), options_(std::move(options)) {}

Soaker::~Soaker() { Stop(); }

bool Soaker::running() const {
  MutexLock l(&mu_);
  return running_;
}

std::string Soaker::caveat() const {
  MutexLock l(&mu_);
  return caveat_text_;
}

Status Soaker::Start() {
  if (options_.mode == SoakerMode::kOff) return Status::OK();
  {
    MutexLock l(&mu_);
    if (running_) return Status::OK();
  }
  BN_RETURN_IF_ERROR(LoadOrCalibrate());
  MutexLock l(&mu_);
  if (running_) return Status::OK();
  last_online_check_ns_ = ClockNanos(CLOCK_MONOTONIC);
  BN_RETURN_IF_ERROR(SyncThreads());
  running_ = true;
  return Status::OK();
}

void Soaker::Stop() {
  std::vector<std::unique_ptr<Worker>> all;
  {
    MutexLock l(&mu_);
    running_ = false;
    for (auto& w : workers_) w->stop.store(true, std::memory_order_relaxed);
    for (auto& w : workers_) all.push_back(std::move(w));
    for (auto& w : retired_) all.push_back(std::move(w));
    workers_.clear();
    retired_.clear();
  }
  for (auto& w : all) w->thread.join();  // outside mu_: Read() is not held up
}

Status Soaker::KeyAndCpus(SoakerCalibrationKey* key, std::vector<int>* cpus) {
  BN_RETURN_IF_ERROR(ReadSoakerCalibrationKey(*fs_, options_.calibration_percentile, key));
  MutexLock l(&mu_);
  return ListCpus(cpus);
}

Status Soaker::Calibrate(SoakerCalibrationFile* out) {
  MutexLock c(&calibrate_mu_);
  SoakerCalibrationKey key;
  std::vector<int> cpus;
  BN_RETURN_IF_ERROR(KeyAndCpus(&key, &cpus));
  return MeasureAndStore(cpus, key, out);
}

Status Soaker::LoadOrCalibrate() {
  MutexLock c(&calibrate_mu_);
  SoakerCalibrationKey key;
  std::vector<int> cpus;
  BN_RETURN_IF_ERROR(KeyAndCpus(&key, &cpus));
  SoakerCalibrationFile f;
  if (LoadSoakerCalibration(SoakerCalibrationPath(options_.state_dir), &f).ok() &&
      SoakerCalibrationUsable(f, key, cpus, UnixSeconds(), options_.calibration_max_age_seconds)) {
    MutexLock l(&mu_);
    SetCalibration(f);
    return Status::OK();
  }
  // Missing, unreadable, malformed or stale: measure again. Failing to store
  // the result is in the caveat; the soaker runs on the calibration in memory.
  Status s = MeasureAndStore(cpus, key, &f);
  MutexLock l(&mu_);
  return calibration_.cpus.empty() ? s : Status::OK();
}

Status Soaker::MeasureAndStore(const std::vector<int>& cpus, const SoakerCalibrationKey& key,
                               SoakerCalibrationFile* out) {
  std::vector<CpuCalibration> results(cpus.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < cpus.size(); ++i) {
    results[i].cpu = cpus[i];
    try {
      threads.emplace_back(CalibrateCpu, options_.calibration_seconds, key.percentile, &results[i]);
    } catch (const std::system_error& e) {
      results[i].error = "cannot start a thread: " + std::string(e.what());
    }
  }
  for (std::thread& t : threads) t.join();

  SoakerCalibrationFile f;
  f.key = key;
  std::string failures;
  int64_t now = UnixSeconds();
  for (const CpuCalibration& r : results) {
    if (r.error.empty()) {
      f.cpus.push_back({r.cpu, r.rate, now});
    } else {
      failures += (failures.empty() ? "" : "; ") + ("cpu " + std::to_string(r.cpu) + ": " + r.error);
    }
  }
  if (f.cpus.empty()) {
    return Status::IOError("soaker calibration: no CPU measured" +
                           (failures.empty() ? std::string() : ": " + failures));
  }
  *out = f;
  Status s = StoreSoakerCalibration(options_.state_dir, f);
  MutexLock l(&mu_);
  SetCalibration(f);
  SetCaveat("calibration", failures.empty() ? "" : "not calibrated: " + failures);
  SetCaveat("store", s.ok() ? "" : "calibration kept in memory only (" + s.message() + ")");
  return s.WithContext("storing the soaker calibration");
}

void Soaker::SetCalibration(const SoakerCalibrationFile& f) {
  calibration_ = f;
  borrowed_ = SoakerCalibration();
  if (f.cpus.empty()) return;
  std::vector<SoakerCalibration> v = f.cpus;
  std::sort(v.begin(), v.end(), [](const SoakerCalibration& a, const SoakerCalibration& b) {
    return a.iterations_per_second < b.iterations_per_second;
  });
  borrowed_ = v[v.size() / 2];
  borrowed_.cpu = -1;
  UpdateBorrowedCaveat();
}

Status Soaker::ListCpus(std::vector<int>* cpus) {
  BN_RETURN_IF_ERROR(fs_->ReadSys("devices/system/cpu/online", &online_buf_));
  std::vector<int> online;
  BN_RETURN_IF_ERROR(ParseCpuList(online_buf_, &online)
                         .WithContext(fs_->SysPath("devices/system/cpu/online")));
  std::vector<int> allowed = AllowedCpus(), outside;
  cpus->clear();
  for (int c : online) {
    (std::binary_search(allowed.begin(), allowed.end(), c) ? cpus : &outside)->push_back(c);
  }
  SetCaveat("affinity", outside.empty() ? ""
                                        : "cpus " + FormatCpuList(outside) +
                                              " outside the daemon's CPU affinity (cpuset or "
                                              "taskset): not measured");
  return Status::OK();
}

Status Soaker::SyncThreads() {
  std::vector<int> cpus;
  BN_RETURN_IF_ERROR(ListCpus(&cpus));
  for (size_t i = workers_.size(); i-- > 0;) {
    if (!std::binary_search(cpus.begin(), cpus.end(), workers_[i]->cpu)) RetireWorker(i);
  }
  // A CPU that went away may accept the affinity when it is back.
  std::erase_if(unpinnable_,
                [&](int c) { return !std::binary_search(cpus.begin(), cpus.end(), c); });
  for (int c : cpus) {
    bool have = std::any_of(workers_.begin(), workers_.end(),
                            [c](const auto& w) { return w->cpu == c; });
    if (!have && std::find(unpinnable_.begin(), unpinnable_.end(), c) == unpinnable_.end()) {
      StartWorker(c);
    }
  }
  std::sort(workers_.begin(), workers_.end(),
            [](const auto& a, const auto& b) { return a->cpu < b->cpu; });
  SetCaveat("pin", unpinnable_.empty() ? ""
                                       : "cpus " + FormatCpuList(unpinnable_) +
                                             " refused the affinity: not measured");
  UpdateBorrowedCaveat();
  return Status::OK();
}

void Soaker::StartWorker(int cpu) {
  auto w = std::make_unique<Worker>();
  w->cpu = cpu;
  w->generation = next_generation.fetch_add(1, std::memory_order_relaxed);
  std::promise<WorkerSetup> promise;
  std::future<WorkerSetup> future = promise.get_future();
  try {
    w->thread = std::thread(&Worker::Run, w.get(), options_.sched_idle, std::move(promise));
  } catch (const std::system_error& e) {  // out of threads: try again at the next check
    SetCaveat("thread", "cannot start a soaker thread: " + std::string(e.what()));
    return;
  }
  SetCaveat("thread", "");
  // The thread starts at normal priority: its set-up is done within moments.
  WorkerSetup s = future.get();
  if (s.pin_error != 0) {
    w->thread.join();
    unpinnable_.push_back(cpu);
    std::sort(unpinnable_.begin(), unpinnable_.end());
    return;
  }
  // The thread is alive now (it exits only when stopped or moved).
  w->clock_ok = ::pthread_getcpuclockid(w->thread.native_handle(), &w->clock) == 0;
  if (!s.sched_idle) {
    sched_idle_ = false;
    std::string why = options_.sched_idle
                          ? "SCHED_IDLE refused (" + std::string(std::strerror(s.idle_error)) + ")"
                          : "SCHED_IDLE disabled in the configuration";
    std::string text = why +
                       ": soaker threads run at nice 19, take about 1.5 % of a CPU from a "
                       "saturating nice-0 task and report it as idle";
    if (s.nice_error != 0) {
      text += "; nice 19 refused too (" + std::string(std::strerror(s.nice_error)) +
              "): the soaker competes with the workload as an equal";
    }
    SetCaveat("sched", text);
  }
  workers_.push_back(std::move(w));
}

void Soaker::RetireWorker(size_t i) {
  workers_[i]->stop.store(true, std::memory_order_relaxed);
  retired_.push_back(std::move(workers_[i]));
  workers_.erase(workers_.begin() + static_cast<std::ptrdiff_t>(i));
}

void Soaker::ReapRetired() {
  for (size_t i = retired_.size(); i-- > 0;) {
    if (!retired_[i]->exited.load(std::memory_order_acquire)) continue;
    retired_[i]->thread.join();  // it has returned: no wait
    retired_.erase(retired_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void Soaker::SetCaveat(const std::string& topic, const std::string& text) {
  auto it = caveats_.find(topic);
  if (text.empty() ? it == caveats_.end() : it != caveats_.end() && it->second == text) return;
  if (text.empty()) {
    caveats_.erase(it);
  } else {
    caveats_[topic] = text;
  }
  caveat_text_.clear();
  for (const auto& [t, line] : caveats_) {
    if (!caveat_text_.empty()) caveat_text_ += "; ";
    caveat_text_ += line;
  }
}

void Soaker::UpdateBorrowedCaveat() {
  std::vector<int> borrowed;
  for (const auto& w : workers_) {
    bool have = std::any_of(calibration_.cpus.begin(), calibration_.cpus.end(),
                            [&](const SoakerCalibration& c) { return c.cpu == w->cpu; });
    if (!have) borrowed.push_back(w->cpu);
  }
  SetCaveat("borrowed", borrowed.empty() ? ""
                                         : "cpus " + FormatCpuList(borrowed) +
                                               " came online after the calibration and use "
                                               "the median rate of the others; run "
                                               "'bottleneckd calibrate'");
}

void Soaker::Read(SoakerReading* out) {
  MutexLock l(&mu_);
  out->cpus.clear();
  out->calibration_unix_seconds = 0;
  if (running_) {
    int64_t now = ClockNanos(CLOCK_MONOTONIC);
    if (static_cast<double>(now - last_online_check_ns_) >= options_.hotplug_check_seconds * 1e9) {
      last_online_check_ns_ = now;
      (void)SyncThreads();  // a failed re-read keeps the threads as they are
    }
    // A thread that noticed its CPU go away has exited; its CPU is left out
    // until the next online check restarts it (with a new generation).
    for (size_t i = workers_.size(); i-- > 0;) {
      if (workers_[i]->exited.load(std::memory_order_acquire)) RetireWorker(i);
    }
    ReapRetired();
  }
  out->mono_ns = ClockNanos(CLOCK_MONOTONIC);
  for (const auto& w : workers_) {
    int64_t cpu_ns = w->clock_ok ? ClockNanos(w->clock) : -1;
    if (cpu_ns < 0) continue;
    SoakerCpu& c = out->cpus.emplace_back();
    c.cpu = w->cpu;
    c.iterations = w->iterations.load(std::memory_order_relaxed);
    c.thread_cpu_ns = static_cast<uint64_t>(cpu_ns);
    c.generation = w->generation;
    auto it = std::find_if(calibration_.cpus.begin(), calibration_.cpus.end(),
                           [&](const SoakerCalibration& k) { return k.cpu == w->cpu; });
    const SoakerCalibration& cal = it != calibration_.cpus.end() ? *it : borrowed_;
    c.calibration_borrowed = it == calibration_.cpus.end();
    c.iterations_per_second = cal.iterations_per_second;
    c.calibrated_unix_seconds = cal.measured_unix_seconds;
    if (out->calibration_unix_seconds == 0 ||
        cal.measured_unix_seconds < out->calibration_unix_seconds) {
      out->calibration_unix_seconds = cal.measured_unix_seconds;
    }
  }
  out->sched_idle = sched_idle_;
  out->caveat = caveat_text_;  // reuses out's buffer
}

Status Soaker::Read(Sample* out) {
  Read(&out->soaker.emplace());
  return Status::OK();
}

}  // namespace bottleneckd
