// libFuzzer target: arbitrary bytes as /proc/stat and as /proc/pressure/cpu.
// Parsing twice into the same struct exercises the storage-reusing path.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/cpu.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::ProcStat stat;
  for (int i = 0; i < 2; ++i) {
    if (bottleneckd::ParseProcStat(text, &stat).ok() && !stat.total && stat.cpus.empty()) {
      __builtin_trap();  // OK promises at least one cpu line
    }
  }
  bottleneckd::CpuPressure pressure;
  if (bottleneckd::ParsePressure(text, &pressure).ok() && !pressure.some && !pressure.full) {
    __builtin_trap();
  }
  return 0;
}
