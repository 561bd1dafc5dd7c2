// The soaker's work loop and the two things that run it, kept in one file so
// that both run the very same machine code: a soaker thread's body
// (Soaker::Worker::Run) and the calibration's slice measurement on one CPU
// (CalibrateCpu: 5 ms slices of thread CPU time, the percentile of their rates).
// kSoakerLoopVersion versions WorkUnit and RunBatch. Also pinning a thread to
// its CPU, which both do first.
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <vector>

#include "base/clock.h"
#include "sources/soaker_internal.h"

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

}  // namespace

void CalibrateCpu(double cpu_seconds, int percentile, const std::atomic<bool>* cancel, std::atomic<uint64_t>* spent_ns,
                  CpuCalibration* r) {
  pthread_setname_np(pthread_self(), kSoakerThreadName);
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
  const int64_t wall_start = ClockNanos(CLOCK_MONOTONIC);
  const int64_t deadline = wall_start + 8 * budget_ns + 1'000'000'000;
  const int64_t start = ClockNanos(CLOCK_THREAD_CPUTIME_ID);
  int64_t slice_start = start;
  int64_t counted = start;  // of the thread's time, what *spent_ns holds
  uint64_t slice_units = 0;
  while (true) {
    RunBatch(&counter, &sink, &stop, kBatchUnits);
    int64_t now = ClockNanos(CLOCK_THREAD_CPUTIME_ID);
    spent_ns->fetch_add(static_cast<uint64_t>(now - counted), std::memory_order_relaxed);
    counted = now;
    uint64_t units = counter.load(std::memory_order_relaxed);
    if (now - slice_start >= kSliceNs) {
      rates.push_back(static_cast<double>(units - slice_units) * 1e9 / static_cast<double>(now - slice_start));
      slice_start = now;
      slice_units = units;
    }
    if (now - start >= budget_ns || ClockNanos(CLOCK_MONOTONIC) >= deadline) break;
    if (cancel->load(std::memory_order_relaxed)) break;
  }
  const int64_t wall = ClockNanos(CLOCK_MONOTONIC) - wall_start;
  r->ran_share =
      wall > 0 ? static_cast<double>(ClockNanos(CLOCK_THREAD_CPUTIME_ID) - start) / static_cast<double>(wall) : 0;
  if (cancel->load(std::memory_order_relaxed)) {
    r->error = "cancelled";
  } else if (::sched_getcpu() != r->cpu) {
    r->error = "moved off the CPU during calibration (hotplug?)";
  } else if (rates.size() < kMinSlices) {
    r->error = "only " + std::to_string(rates.size()) + " slices of CPU time in the time allowed";
  } else {
    std::sort(rates.begin(), rates.end());
    size_t i = static_cast<size_t>(std::ceil(percentile / 100.0 * static_cast<double>(rates.size()))) - 1;
    r->rate = rates[std::min(i, rates.size() - 1)];
  }
}

void Soaker::Worker::Run(bool want_idle, std::promise<WorkerSetup> setup) {
  pthread_setname_np(pthread_self(), kSoakerThreadName);
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

}  // namespace bottleneckd
