// libFuzzer target: arbitrary bytes as a recording's irqtime file
// (docs/recording-format.md). Checks what ParseIrqTimeFile promises: an
// accepted file has CPUs sorted and unique, (IRQ, CPU) entries sorted and
// unique, a known attach mode, and formats and parses back to the same
// reading (and the same text).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "recording/recording.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bottleneckd;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  IrqTimeReading r;
  if (!ParseIrqTimeFile(text, &r).ok()) return 0;
  if (r.mono_ns < 0) __builtin_trap();
  if (!r.attach.empty() && r.attach != "tp_btf" && r.attach != "raw_tp") __builtin_trap();
  for (size_t i = 0; i < r.cpus.size(); ++i) {
    if (r.cpus[i].cpu < 0 || r.cpus[i].cpu > kMaxCpuId || (i > 0 && r.cpus[i - 1].cpu >= r.cpus[i].cpu))
      __builtin_trap();
  }
  for (size_t i = 0; i < r.irqs.size(); ++i) {
    const IrqTimeIrq& q = r.irqs[i];
    if (q.cpu < 0 || q.cpu > kMaxCpuId) __builtin_trap();
    if (i > 0 && std::pair(r.irqs[i - 1].irq, r.irqs[i - 1].cpu) >= std::pair(q.irq, q.cpu)) __builtin_trap();
  }
  const std::string again = IrqTimeFileText(r);
  IrqTimeReading back;
  if (!ParseIrqTimeFile(again, &back).ok() || !(back == r)) __builtin_trap();
  if (IrqTimeFileText(back) != again) __builtin_trap();
  return 0;
}
