// irqtime's pure parts (sources/irqtime.h): vector names and sums. The
// loader, which needs libbpf, is in irqtime.cc.
#include <numeric>

#include "sources/irqtime.h"

namespace bottleneckd {
namespace {

// include/linux/interrupt.h, enum { HI_SOFTIRQ = 0, ... RCU_SOFTIRQ };
// /proc/softirqs prints the same names in the same order.
constexpr std::array<std::string_view, kSoftirqVectors> kVectorNames = {
    "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};

}  // namespace

std::string_view SoftirqVectorName(int vector) {
  if (vector < 0 || vector >= kSoftirqVectors) return {};
  return kVectorNames[vector];
}

int SoftirqVectorIndex(std::string_view name) {
  for (int i = 0; i < kSoftirqVectors; ++i)
    if (kVectorNames[i] == name) return i;
  return -1;
}

uint64_t IrqTimeCpu::softirq_total_ns() const {
  return std::accumulate(softirq_ns.begin(), softirq_ns.end(), uint64_t{0});
}

}  // namespace bottleneckd
