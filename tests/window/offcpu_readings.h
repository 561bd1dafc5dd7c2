// Hand-built OffCpuReadings for the offcpu window tests (offcpu_window_test.cc,
// offcpu_stacks_test.cc): one program load (generation 3), thread 7 followed.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sources/offcpu.h"

namespace bottleneckd::testing {

inline OffCpuReading OffCpuReadingOf(int64_t mono_ns, std::vector<OffCpuSite> sites, std::vector<int> tids = {7}) {
  OffCpuReading r;
  r.mono_ns = mono_ns;
  r.generation = 3;
  r.sites = std::move(sites);
  r.tids = std::move(tids);
  return r;
}

}  // namespace bottleneckd::testing
