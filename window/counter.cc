#include "window/counter.h"

namespace bottleneckd {

std::optional<uint64_t> CounterDelta(uint64_t prev, uint64_t cur, CounterWidth width, std::vector<CounterIssue>* issues,
                                     const char* source, std::string_view object, std::string_view counter) {
  auto record = [&](CounterAnomaly kind) {
    if (issues == nullptr) return;
    std::string key(object);
    key += '/';
    key += counter;
    issues->push_back({source, std::move(key), kind});
  };
  if (cur >= prev) return cur - prev;
  if (width == CounterWidth::k32 && prev <= UINT32_MAX) {
    uint64_t wrapped = (uint64_t{1} << 32) - prev + cur;
    if (wrapped < (uint64_t{1} << 31)) {
      record(CounterAnomaly::kWrap);
      return wrapped;
    }
  }
  record(CounterAnomaly::kReset);
  return std::nullopt;
}

}  // namespace bottleneckd
