// Sample: one tick's cumulative readings, complete: the polled collectors'
// (collectors/host_readings.h), the continuous sources' (soaker, capture),
// the time it was taken and how each collector and source did. This is what
// window/ differences; nothing in a Sample is derived.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "collectors/collector.h"
#include "collectors/host_readings.h"
#include "sources/capture.h"
#include "sources/irqtime.h"
#include "sources/offcpu.h"
#include "sources/profile.h"
#include "sources/soaker.h"

namespace bottleneckd {

struct Sample : HostReadings {
  int64_t mono_ns = 0;  // CLOCK_MONOTONIC
  int64_t wall_ns = 0;  // CLOCK_REALTIME, for display only

  std::optional<SoakerReading> soaker;  // while the soaker runs
  // Live capture (sources/capture.h), one reading per configured interface,
  // while capture is configured.
  std::optional<std::vector<CaptureReading>> capture;
  // Measured interrupt time (sources/irqtime.h), while the eBPF program is loaded.
  std::optional<IrqTimeReading> irqtime;
  // Measured waits of the target threads (sources/offcpu.h), while its eBPF
  // program is loaded.
  std::optional<OffCpuReading> offcpu;
  // The sampled stacks since the previous tick (sources/profile.h), while
  // its eBPF program is loaded. Not cumulative: a window's profile is its
  // second sample's.
  std::optional<ProfileReading> profile;

  std::vector<CollectorResult> results;  // collectors, then sources
};

}  // namespace bottleneckd
