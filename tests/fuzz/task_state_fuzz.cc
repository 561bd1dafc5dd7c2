// Fuzzes the parsers of a task's schedstat, status and syscall files
// (collectors/task_state.h) with the same bytes as each, and checks what a
// success promises: a schedstat within the input's digits, a syscall number
// of at least -1 (never for "running"), a wchan without "0".
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "collectors/task_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::TaskSchedstat st;
  if (bottleneckd::ParseTaskSchedstat(text, &st).ok() && size < 5) std::abort();  // three numbers, two blanks
  bottleneckd::TaskSwitches sw;
  (void)bottleneckd::ParseTaskStatusSwitches(text, &sw);
  std::optional<int64_t> nr;
  if (bottleneckd::ParseTaskSyscall(text, &nr).ok() && nr) {
    if (*nr < -1) std::abort();
    (void)bottleneckd::SyscallName(*nr);
  }
  if (bottleneckd::ParseTaskWchan(text) == "0") std::abort();
  return 0;
}
