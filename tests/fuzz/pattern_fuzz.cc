// Fuzz target: user patterns (base/pattern.h). Any bytes as a pattern must
// compile or be refused with a Status, and a compiled one must search any
// text, within RE2's memory bound, without crashing. The input's first byte
// splits it into pattern and text.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "base/pattern.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  const size_t split = data[0] < in.size() ? data[0] : in.size();
  std::unique_ptr<bottleneckd::Pattern> p;
  if (bottleneckd::Pattern::Compile(in.substr(0, split), &p).ok()) {
    (void)p->Search(in.substr(split));
    (void)p->Search(in);
  }
  return 0;
}
