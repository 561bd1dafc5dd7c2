// Fuzzes ProcMaps::Parse with arbitrary bytes as /proc/PID/maps and checks
// what a success promises: at most one range per line, sorted, disjoint and
// non-empty, paths taken from the input, and Find answering for every
// range's first and last byte and for addresses between.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "collectors/proc_maps.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::ProcMaps maps;
  bottleneckd::Status s = maps.Parse(text);
  if (!s.ok()) {
    // An error leaves the table empty and names the line.
    if (!maps.ranges().empty() || !s.IsCorruption() || s.message().rfind("maps line ", 0) != 0) std::abort();
    return 0;
  }
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  const auto& ranges = maps.ranges();
  if (ranges.size() > lines) std::abort();
  for (size_t i = 0; i < ranges.size(); ++i) {
    const bottleneckd::MappedRange& r = ranges[i];
    if (r.start >= r.end || (i > 0 && ranges[i - 1].end > r.start)) std::abort();
    if (r.path.size() > size || (!r.path.empty() && text.find(r.path) == std::string_view::npos)) std::abort();
    if (maps.Find(r.start) != &r || maps.Find(r.end - 1) != &r) std::abort();
    if (bottleneckd::FileOffsetOf(r, r.start) != r.offset) std::abort();
  }
  // The input's first bytes as addresses: a range found must hold them.
  uint64_t addrs[4] = {};
  std::memcpy(addrs, data, size < sizeof addrs ? size : sizeof addrs);
  for (uint64_t a : addrs) {
    const bottleneckd::MappedRange* r = maps.Find(a);
    if (r != nullptr && (a < r->start || a >= r->end)) std::abort();
  }
  return 0;
}
