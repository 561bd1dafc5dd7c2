// libFuzzer target: arbitrary bytes as a recorded source's file
// (docs/recording-format.md, "Source files"), for every entry of the source
// registry: the first byte picks the entry, the rest is the file. Checks what
// each codec promises: a file Decode accepts encodes to a text that decodes
// back to the same text (nothing lost or invented by a round trip), and the
// irqtime file's own rules (CPUs sorted and unique, (IRQ, CPU) entries sorted
// and unique, a known attach mode).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "sources/sample.h"
#include "sources/source_registry.h"

namespace {

void CheckIrqTime(const bottleneckd::IrqTimeReading& r) {
  using namespace bottleneckd;
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
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bottleneckd;
  if (size == 0) return 0;
  const auto& entries = SourceRegistry();
  const SourceEntry& e = *entries[data[0] % entries.size()];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  Sample sample;
  sample.mono_ns = 1;
  if (!e.Decode(text, &sample).ok()) return 0;
  if (sample.irqtime) CheckIrqTime(*sample.irqtime);
  std::string again;
  if (!e.Encode(sample, &again)) __builtin_trap();  // a decoded reading always encodes
  Sample back;
  back.mono_ns = 1;
  if (!e.Decode(again, &back).ok()) __builtin_trap();
  std::string third;
  if (!e.Encode(back, &third) || third != again) __builtin_trap();
  if (sample.irqtime && !(*back.irqtime == *sample.irqtime)) __builtin_trap();
  return 0;
}
