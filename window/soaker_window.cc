#include "window/soaker_window.h"

#include <algorithm>
#include <cmath>

#include "base/ratio.h"

namespace bottleneckd {

bool ComputeSoakerCpuWindow(const SoakerCpu& a, const SoakerCpu& b, double window_seconds, SoakerCpuWindow* out) {
  const double rate = b.iterations_per_second;
  if (a.cpu != b.cpu || a.generation != b.generation) return false;
  if (!(window_seconds > 0) || !std::isfinite(window_seconds)) return false;
  if (!(rate > 0) || !std::isfinite(rate)) return false;
  if (b.iterations < a.iterations || b.thread_cpu_ns < a.thread_cpu_ns) return false;
  const double work_seconds = static_cast<double>(b.iterations - a.iterations) / rate;
  const double cpu_seconds = static_cast<double>(b.thread_cpu_ns - a.thread_cpu_ns) / 1e9;
  out->cpu = b.cpu;
  out->iterations_per_second = rate;
  out->delivered_idle_unclamped = work_seconds / window_seconds;
  out->delivered_idle_ratio = Clamp01(out->delivered_idle_unclamped);
  out->busy_ratio = 1.0 - out->delivered_idle_ratio;
  out->soaker_cpu_seconds = cpu_seconds;
  out->hidden_ratio = Clamp01(std::max(0.0, cpu_seconds - work_seconds) / window_seconds);
  return true;
}

namespace {

// Calls fn(a's, b's) for every CPU in both readings (each sorted by cpu).
template <typename Fn>
void ForEachCpuInBoth(const SoakerReading& a, const SoakerReading& b, Fn fn) {
  auto ia = a.cpus.begin();
  for (const SoakerCpu& cb : b.cpus) {
    while (ia != a.cpus.end() && ia->cpu < cb.cpu) ++ia;
    if (ia == a.cpus.end()) break;
    if (ia->cpu == cb.cpu) fn(*ia, cb);
  }
}

// The CPU time the soaker's calibrations spent on the CPU between a and b:
// all of b's when the Soaker changed (it was made after a was read), none
// when a counter went backwards.
double CalibrationSeconds(const SoakerReading& a, const SoakerReading& b, const SoakerCpu& ca, const SoakerCpu& cb) {
  if (a.calibration_generation != b.calibration_generation) return static_cast<double>(cb.calibration_cpu_ns) / 1e9;
  if (cb.calibration_cpu_ns < ca.calibration_cpu_ns) return 0;
  return static_cast<double>(cb.calibration_cpu_ns - ca.calibration_cpu_ns) / 1e9;
}

}  // namespace

void ComputeSoakerWindows(const SoakerReading& a, const SoakerReading& b, double window_seconds,
                          std::vector<SoakerCpuWindow>* out) {
  out->clear();
  ForEachCpuInBoth(a, b, [&](const SoakerCpu& ca, const SoakerCpu& cb) {
    SoakerCpuWindow w;
    if (!ComputeSoakerCpuWindow(ca, cb, window_seconds, &w)) return;
    // A calibration preempts the loop: the time it took was idle to
    // everything but the daemon ('bottleneckd calibrate' during a run).
    const double calibration = CalibrationSeconds(a, b, ca, cb) / window_seconds;
    if (calibration > 0) {
      w.delivered_idle_unclamped += calibration;
      w.delivered_idle_ratio = Clamp01(w.delivered_idle_unclamped);
      w.busy_ratio = 1.0 - w.delivered_idle_ratio;
    }
    out->push_back(w);
  });
}

void ComputeSoakerCpuSeconds(const SoakerReading& a, const SoakerReading& b, std::vector<SoakerCpuSeconds>* out) {
  out->clear();
  ForEachCpuInBoth(a, b, [&](const SoakerCpu& ca, const SoakerCpu& cb) {
    // A new thread (generation changed) started after a was read: all of its
    // time lies in the window; the old thread's last moments are not known.
    const bool same = ca.generation == cb.generation;
    if (same && cb.thread_cpu_ns < ca.thread_cpu_ns) return;
    out->push_back({cb.cpu, static_cast<double>(cb.thread_cpu_ns - (same ? ca.thread_cpu_ns : 0)) / 1e9 +
                                CalibrationSeconds(a, b, ca, cb)});
  });
}

double SoakerWindowSeconds(const SoakerReading& a, const SoakerReading& b) {
  if (a.mono_ns <= 0 || b.mono_ns <= a.mono_ns) return 0;
  return static_cast<double>(b.mono_ns - a.mono_ns) / 1e9;
}

double BusyRatioWithoutSoaker(double accounting_busy_ratio, double elapsed_seconds, double soaker_cpu_seconds) {
  if (!(elapsed_seconds > 0)) return Clamp01(accounting_busy_ratio);
  return Clamp01(accounting_busy_ratio - soaker_cpu_seconds / elapsed_seconds);
}

}  // namespace bottleneckd
