#include "sources/soaker_background.h"

#include <cstdio>

#include "base/clock.h"
#include "base/log.h"

namespace bottleneckd {

SoakerBackgroundCalibration::SoakerBackgroundCalibration(const HostRoots& roots, const SoakerOptions& o)
    : fs_(roots), calibrator_(&fs_, o) {
  char per_cpu[32];
  std::snprintf(per_cpu, sizeof(per_cpu), "%gs", o.calibration_seconds);
  note_ = "calibrating since " + FormatUtc(WallSeconds()) + " (" + per_cpu +
          " of CPU time per CPU, longer on a loaded host); until it is done the soaker does not run "
          "and CPU idle comes from accounting only";
  Log(LogLevel::kInfo,
      "calibrating the soaker in the background (none stored, stale, or older than soaker.calibration_max_age); "
      "the soaker starts when it is done",
      {{"state_dir", o.state_dir}, {"per_cpu", per_cpu}});
  thread_ = std::thread([this] {
    int64_t t0 = MonotonicNanos();
    SoakerCalibrationFile f;
    Status s = calibrator_.Calibrate(&f);
    char took[32];
    std::snprintf(took, sizeof(took), "%.1fs", static_cast<double>(MonotonicNanos() - t0) / 1e9);
    if (s.ok()) {
      Log(LogLevel::kInfo, "soaker calibrated", {{"cpus", std::to_string(f.cpus.size())}, {"took", took}});
    } else {
      // Start() measures again (in the tick) when nothing usable was stored.
      Log(LogLevel::kWarn, "soaker calibration", {{"err", s.ToString()}, {"took", took}});
    }
    running_.store(false);
  });
}

SoakerBackgroundCalibration::~SoakerBackgroundCalibration() {
  calibrator_.CancelCalibration();
  if (thread_.joinable()) thread_.join();
}

}  // namespace bottleneckd
