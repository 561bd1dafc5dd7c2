// Fuzzes ParseProcInterrupts with arbitrary bytes as /proc/interrupts, twice
// into the same Interrupts (the collector reuses it), and checks the parsed
// shape: no line holds more counts than the header has CPUs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "collectors/interrupts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::Interrupts irqs;
  for (std::string_view t : {text, text.substr(size / 2)}) {
    if (!bottleneckd::ParseProcInterrupts(t, &irqs).ok()) continue;
    for (const bottleneckd::IrqLine& l : irqs.lines) {
      if (l.per_cpu.size() > irqs.cpus.size()) std::abort();
    }
  }
  return 0;
}
