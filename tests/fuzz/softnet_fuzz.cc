// libFuzzer target: arbitrary bytes as /proc/net/softnet_stat and as
// /proc/softirqs. Parsing twice into the same struct exercises the
// storage-reusing path.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "collectors/softirqs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<bottleneckd::SoftnetCpu> softnet;
  if (bottleneckd::ParseSoftnetStat(text, &softnet).ok()) {
    for (const bottleneckd::SoftnetCpu& c : softnet) {
      if (c.cpu < 0 || !c.cpu_collision) __builtin_trap();  // OK promises >= 9 columns
    }
  }
  bottleneckd::Softirqs softirqs;
  for (int i = 0; i < 2; ++i) {
    if (!bottleneckd::ParseProcSoftirqs(text, &softirqs).ok()) continue;
    for (const bottleneckd::SoftirqRow& row : softirqs.rows) {
      if (row.per_cpu.size() != softirqs.cpus.size()) __builtin_trap();
    }
  }
  return 0;
}
