// Interrupt delivery cost, learned on the host: the time each interrupt
// costs a CPU that its interrupt source does not see (entry and exit, and
// under virtualisation the exits to the hypervisor that deliver it;
// docs/verdict-rules.md section 10, docs/irqtime.md "Cross-check").
//
// Each window in which the soaker measured a CPU is a sample: x, the CPU's
// interrupts per second (device IRQs, the local timer and IPIs); y, its
// budget's unexplained share before delivery (time the soaker lost that no
// source claims). A least-squares line y = a + b x is kept per interrupt
// source (irqtime's measurement, /proc/stat's ticks: each misses a different
// part); b, in seconds per interrupt, is the cost, a is what the soaker
// loses with no interrupts at all. A fit is used once it has
// kDeliveryMinSamples samples, interrupts that varied by at least
// kDeliveryMinSpread per second (standard deviation) and b > 0; before that
// the delivery share is 0 and the evidence says the cost is not learned.
// Older samples fade (the sums halve every kDeliveryHalfLife samples), so a
// fit follows the host; the daemon keeps the fits in its state directory
// and starts over when the host changes (daemon/delivery_cost_file.h).
#pragma once

#include <optional>
#include <string>

#include "analysis/signals.h"

namespace bottleneckd {

inline constexpr int kDeliveryMinSamples = 20;
inline constexpr double kDeliveryMinSpread = 500;  // interrupts per second
inline constexpr int kDeliveryHalfLife = 3600;     // samples (an hour of one CPU at 1 s)

// The running sums of one least-squares fit.
struct DeliveryFit {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;

  void Add(double x, double y);
  // The fitted cost, when the fit is usable (see above).
  std::optional<double> SecondsPerInterrupt() const;
  double Intercept() const;        // a, valid when SecondsPerInterrupt is
  double SpreadPerSecond() const;  // the standard deviation of x
  double R2() const;               // the fit's coefficient of determination, 0 when undefined
};

// Every interrupt the CPU took: device IRQs, the local timer and IPIs.
double AllInterruptsPerSecond(const CpuSignal& c);

enum class InterruptSource { kMeasured, kTicks };
const char* InterruptSourceName(InterruptSource s);  // "measured", "ticks"

class DeliveryCost {
 public:
  // Learns from one window's signals, before Apply.
  void Observe(const Signals& s);
  // Sets each CPU's delivery_ratio (the cost of its interrupts, within its
  // busy time not already claimed by steal and interrupt time) and counts it
  // in the CPU's and its threads' interrupt_share.
  void Apply(Signals* s) const;

  const DeliveryFit& fit(InterruptSource src) const { return fits_[Index(src)]; }
  void Restore(InterruptSource src, const DeliveryFit& f) { fits_[Index(src)] = f; }

 private:
  static size_t Index(InterruptSource src) { return src == InterruptSource::kMeasured ? 0 : 1; }
  DeliveryFit fits_[2];
};

// "17.9 us per interrupt (estimate: measured interrupt time, 412 windows, R2
// 0.93)", or why it is not learned yet.
std::string DeliveryCostSentence(const DeliveryFit& f, InterruptSource src);

}  // namespace bottleneckd
