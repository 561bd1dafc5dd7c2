// Shared by the Soaker's .cc files, not part of its API: a soaker thread
// (Soaker::Worker; its body is in soaker_loop.cc, its start, retirement and
// join in soaker_workers.cc), what the thread's set-up reports to the one that
// started it, and the per-CPU calibration measurement (CalibrateCpu, in
// soaker_loop.cc) that soaker_calibrate.cc runs on every CPU at once.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <future>
#include <string>
#include <thread>

#include "sources/soaker.h"

namespace bottleneckd {

// What a soaker thread's set-up did (Worker::Run), for the thread that started
// it (StartWorker).
struct WorkerSetup {
  int pin_error = 0;
  bool sched_idle = false;
  int idle_error = 0;  // why SCHED_IDLE was refused
  int nice_error = 0;  // why nice 19 was refused too
};

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

  // The thread's body: pins itself to `cpu`, takes SCHED_IDLE (when
  // want_idle) or else nice 19, reports that through `setup`, then runs the
  // work loop until stopped or moved off its CPU; sets `exited` last.
  void Run(bool want_idle, std::promise<WorkerSetup> setup);
};

// One CPU's calibration: the rate, or why there is none.
struct CpuCalibration {
  int cpu = -1;
  double rate = 0;
  // The thread's CPU time over the wall time it took: under 1 by the time it
  // waited on the run queue behind other work (or a vCPU the host held back).
  double ran_share = 0;
  std::string error;
};

// A calibration is disturbed when its thread ran less than this share of the
// time it took, or measured less than kCalibrationMinOfMedian of the median
// rate of the CPUs calibrated with it (one model: 1.59 M against 2.64 M
// iterations/s on a busy box, 2.62 M both when quiet).
inline constexpr double kCalibrationMinRanShare = 0.9;
inline constexpr double kCalibrationMinOfMedian = 0.85;

// Sets `disturbed` (and why) on each calibration of `cpus` by the two tests
// above; `ran_share` is each one's, in the same order. Pure.
void JudgeCalibrations(const std::vector<double>& ran_share, std::vector<SoakerCalibration>* cpus);

// Pins the calling thread to r->cpu and sets r->rate: units per second of
// thread CPU time on that CPU, the `percentile` of 5 ms slice rates, at the
// calling thread's (normal) priority, over `cpu_seconds` of its CPU time (at
// most 8x that + 1 s of wall time). Sets r->error instead when it cannot,
// or when *cancel turns true (checked every batch, well under a millisecond).
// Adds the thread's CPU time to *spent_ns as it runs (read each tick, so the
// window takes the daemon's own calibration out of the CPU's busy time).
void CalibrateCpu(double cpu_seconds, int percentile, const std::atomic<bool>* cancel, std::atomic<uint64_t>* spent_ns,
                  CpuCalibration* r);

// A generation unique in the process (soaker threads, Soakers' calibrations).
uint64_t NextSoakerGeneration();

}  // namespace bottleneckd
