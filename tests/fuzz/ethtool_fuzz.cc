// Fuzz target for ParseEthtoolStats: arbitrary bytes as `ethtool -S` output.
// Besides not crashing, a successful parse must be sorted by name with no
// duplicate and no empty name, and a failed one must leave the output empty.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "collectors/ethtool.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::NamedCounters out = {{"stale", 1}};
  bottleneckd::Status s = bottleneckd::ParseEthtoolStats(text, &out);
  if (!s.ok()) {
    if (!out.empty()) std::abort();
    return 0;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].first.empty()) std::abort();
    if (i > 0 && !(out[i - 1].first < out[i].first)) std::abort();
  }
  return 0;
}
