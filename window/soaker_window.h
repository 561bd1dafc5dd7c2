// Soaker windows: delivered idle, soaker busy and hidden time of each CPU
// between two SoakerReadings (sources/soaker.h). Pure arithmetic, no I/O;
// the formulas and their caveats are in docs/soaker.md.
//
//   delivered idle = d_iterations / (rate x window)           clamped to [0, 1]
//   soaker busy    = 1 - delivered idle
//   hidden         = max(0, d_thread_cpu - d_iterations / rate) / window, clamped to [0, 1]
//
// `rate` is the calibration of the later reading: a recalibration during the
// window ("bottleneckd calibrate") applies to the whole window, and the CPU
// time the calibration took (SoakerCpu::calibration_cpu_ns, at normal
// priority, so the loop ran less) counts as delivered idle
// (ComputeSoakerWindows).
#pragma once

#include <vector>

#include "sources/soaker.h"

namespace bottleneckd {

struct SoakerCpuWindow {
  int cpu = -1;
  // Clamped to [0, 1]. The raw ratio exceeds 1 when the CPU ran the loop faster
  // than when it was calibrated (turbo with idle neighbours, an idle SMT sibling,
  // a calibration disturbed at every slice); it is never below 0. A delivered
  // idle above 100 % means nothing, so the ratios use the clamped value.
  double delivered_idle_ratio = 0;
  // d_iterations / (rate x window), unclamped: persistently above ~1.02 on an
  // idle CPU says the calibration is stale.
  double delivered_idle_unclamped = 0;
  double busy_ratio = 0;             // 1 - delivered_idle_ratio
  double hidden_ratio = 0;           // charged to the soaker but not spent on its loop
  double soaker_cpu_seconds = 0;     // thread CPU time over the window (unclamped)
  double iterations_per_second = 0;  // calibration used (the later reading's)
};

// One CPU over a window of `window_seconds`. False (and *out untouched) when the
// two are different CPUs or threads (generation changed: counters restarted),
// window_seconds is not > 0, the later calibration is not > 0, or a counter
// went backwards.
bool ComputeSoakerCpuWindow(const SoakerCpu& a, const SoakerCpu& b, double window_seconds, SoakerCpuWindow* out);

// Every CPU present in both readings (matched by cpu; both sorted by cpu as
// Soaker::Read gives them) for which ComputeSoakerCpuWindow succeeds, in cpu
// order; CPUs in only one reading are left out. Replaces *out (keeps capacity).
// For window_seconds pass SoakerWindowSeconds(a, b): the readings' own clock.
void ComputeSoakerWindows(const SoakerReading& a, const SoakerReading& b, double window_seconds,
                          std::vector<SoakerCpuWindow>* out);

// The soaker thread's CPU time over the window on each CPU present in both
// readings, whether or not its delivered idle can be computed there (no
// calibration yet, a thread restarted), and its calibrations' (the daemon's
// background calibration at start, `bottleneckd calibrate`): what /proc/stat
// charged to the soaker itself, never the CPU's own work. A restarted thread counts from its start
// (a lower bound); counters that went backwards leave the CPU out. Replaces
// *out, in cpu order.
struct SoakerCpuSeconds {
  int cpu = -1;
  double seconds = 0;
};
void ComputeSoakerCpuSeconds(const SoakerReading& a, const SoakerReading& b, std::vector<SoakerCpuSeconds>* out);

// (b.mono_ns - a.mono_ns) in seconds; 0 when either is unset or b is not later.
double SoakerWindowSeconds(const SoakerReading& a, const SoakerReading& b);

// /proc/stat busy with the soaker's own time taken out, so the `accounting` and
// `soaker` sources are comparable: the kernel charges the soaker as user (or, at
// nice 19, nice) time. accounting_busy_ratio is of elapsed_seconds of the CPU's
// ticks; the result is clamped to [0, 1] (tick sampling makes it noisy by about
// one tick per window).
double BusyRatioWithoutSoaker(double accounting_busy_ratio, double elapsed_seconds, double soaker_cpu_seconds);

}  // namespace bottleneckd
