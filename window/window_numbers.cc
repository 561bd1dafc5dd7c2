#include "window/window_numbers.h"

#include <cmath>

namespace bottleneckd {
namespace {

using Plain = std::function<void(double*)>;
using Optional = std::function<void(std::optional<double>*)>;

void CpuNumbers(CpuWindow* c, const Plain& p) {
  for (double* d : {&c->busy_ratio, &c->interrupt_ratio, &c->irq_ratio, &c->softirq_ratio, &c->steal_ratio,
                    &c->iowait_ratio, &c->user_ratio, &c->system_ratio, &c->elapsed_seconds, &c->interrupts_per_second,
                    &c->system_interrupts_per_second, &c->net_rx_softirqs_per_second, &c->rx_packets_per_second,
                    &c->time_squeeze_per_second, &c->backlog_drops_per_second})
    p(d);
}

}  // namespace

void ForEachWindowNumber(Window* w, const Plain& p, const Optional& o) {
  p(&w->seconds);
  for (CpuWindow& c : w->cpus) CpuNumbers(&c, p);
  if (w->cpu_total) CpuNumbers(&*w->cpu_total, p);
  o(&w->cpu_pressure_some_ratio);
  for (NicWindow& n : w->nics)
    for (std::optional<double>* d :
         {&n.rx_packets_per_second, &n.tx_packets_per_second, &n.rx_bits_per_second, &n.tx_bits_per_second,
          &n.interrupts_per_second, &n.packets_per_interrupt, &n.nic_drops_per_second})
      o(d);
  for (std::optional<double>* d : {&w->drops.nic, &w->drops.backlog, &w->drops.socket}) o(d);
  for (ThreadWindow& t : w->threads) {
    p(&t.cpu_ratio);
    for (std::optional<double>* d :
         {&t.running_ratio, &t.runnable_ratio, &t.waiting_ratio, &t.voluntary_per_second, &t.involuntary_per_second})
      o(d);
    if (t.measured_waits)
      for (WaitSiteWindow& s : *t.measured_waits) {
        p(&s.ratio);
        p(&s.periods_per_second);
        for (WakerShare& k : s.wakers) p(&k.ratio);
      }
  }
  for (InputSocketWindow& i : w->input_sockets) p(&i.drops_per_second);
  for (DiskWindow& d : w->disks)
    for (double* x : {&d.busy_ratio, &d.reads_per_second, &d.writes_per_second}) p(x);
  for (SoakerCpuWindow& s : w->soaker)
    for (double* d : {&s.delivered_idle_ratio, &s.delivered_idle_unclamped, &s.busy_ratio, &s.hidden_ratio,
                      &s.soaker_cpu_seconds, &s.iterations_per_second})
      p(d);
  for (CaptureWindow& c : w->captures) {
    for (double* d :
         {&c.seconds, &c.packets_per_second, &c.bits_per_second, &c.requests_per_second, &c.replies_per_second,
          &c.request_bits_per_second, &c.reply_bits_per_second, &c.paired_per_second, &c.lost_per_second})
      p(d);
    for (std::optional<double>* d :
         {&c.receive_packets_per_second, &c.transmit_packets_per_second, &c.receive_bits_per_second,
          &c.transmit_bits_per_second, &c.offered_packets_per_second, &c.loss_ratio, &c.turnaround_p50_seconds,
          &c.turnaround_p90_seconds, &c.turnaround_p99_seconds})
      o(d);
  }
  for (IrqTimeCpuWindow& i : w->irqtime) {
    for (double* d : {&i.hardirq_ratio, &i.softirq_ratio, &i.net_unattributed_ratio, &i.hardirqs_per_second,
                      &i.softirqs_per_second})
      p(d);
    for (double& v : i.vector_ratio) p(&v);
  }
  for (IrqTimeQueueWindow& q : w->irqtime_queues) {
    p(&q.hardirq_ratio);
    p(&q.net_softirq_ratio);
  }
}

int MakeWindowFinite(Window* w) {
  int changed = 0;
  ForEachWindowNumber(
      w,
      [&](double* d) {
        if (!std::isfinite(*d)) *d = 0, ++changed;
      },
      [&](std::optional<double>* d) {
        if (*d && !std::isfinite(**d)) d->reset(), ++changed;
      });
  return changed;
}

bool WindowIsFinite(const Window& w) {
  Window copy = w;
  return MakeWindowFinite(&copy) == 0;
}

}  // namespace bottleneckd
