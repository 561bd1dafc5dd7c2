// Fuzzes ParseTaskStat with arbitrary bytes as /proc/PID/task/TID/stat and
// checks what a success promises: a positive tid and a comm shorter than the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "collectors/threads.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::TaskStat t;
  if (bottleneckd::ParseTaskStat(text, &t).ok()) {
    if (t.tid <= 0 || t.comm.size() + 2 > size || t.processor < -1) std::abort();
  }
  return 0;
}
