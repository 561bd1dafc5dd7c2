// Fuzzes the process_* parsers (ParseSelfStat, ParseStatBtime,
// ParseLimitsMaxOpenFiles) with arbitrary bytes as /proc/self/stat,
// /proc/stat and /proc/self/limits; a success must not promise more than the
// input held (a parsed rss needs a pid, "()" and 22 fields: 46 bytes at least).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "collectors/self_process.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::SelfStat s;
  if (bottleneckd::ParseSelfStat(text, &s).ok() && size < 3 + 22 + 21) std::abort();
  uint64_t btime = 0;
  (void)bottleneckd::ParseStatBtime(text, &btime);
  std::optional<uint64_t> max_fds;
  (void)bottleneckd::ParseLimitsMaxOpenFiles(text, &max_fds);
  return 0;
}
