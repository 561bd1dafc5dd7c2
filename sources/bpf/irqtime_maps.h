// The map values shared by the BPF program (sources/bpf/irqtime.bpf.c) and
// its reader (sources/irqtime.cc). Plain C, fixed-width fields, no padding:
// the same layout on both sides. Changing it changes the object's maps; the
// loader checks value sizes.
#ifndef BOTTLENECKD_SOURCES_BPF_IRQTIME_MAPS_H_
#define BOTTLENECKD_SOURCES_BPF_IRQTIME_MAPS_H_

#include <linux/types.h>

// Softirq vectors as in include/linux/interrupt.h (HI_SOFTIRQ .. RCU_SOFTIRQ),
// stable since 5.x (IRQ_POLL renamed from BLOCK_IOPOLL in 4.5).
#define IRQTIME_SOFTIRQ_VECTORS 10
#define IRQTIME_NET_TX 2
#define IRQTIME_NET_RX 3
// Device IRQs tracked one by one; more distinct IRQs than this are counted in
// irq_overflow_count (their time still counts in hardirq_ns).
#define IRQTIME_MAX_IRQS 4096

// Per CPU, cumulative since the program was loaded.
struct irqtime_cpu {
  __u64 hardirq_ns, hardirq_count;
  __u64 softirq_ns[IRQTIME_SOFTIRQ_VECTORS], softirq_count[IRQTIME_SOFTIRQ_VECTORS];
  __u64 net_unattributed_ns;  // NET_RX/NET_TX time with no device IRQ before it
  __u64 irq_overflow_count;   // hardirqs whose IRQ found no slot in irq_times
};

// The per-CPU array's one value: the counters and what is running now, in one
// slot so each handler does one lookup (docs/performance-history.md "irqtime").
struct irqtime_cpu_slot {
  struct irqtime_cpu times;
  __u64 hard_start;      // ktime of the current hardirq entry, 0 outside one
  __u64 soft_start;      // ktime of the current softirq entry, 0 outside one
  __u64 nested_hard_ns;  // hardirq time inside the current softirq
  __u32 soft_vec;
  __u32 last_irq_plus1;  // 1 + the last device IRQ since the previous network softirq; 0: none
};

// Per IRQ and CPU, cumulative.
struct irqtime_irq {
  __u64 hardirq_ns, hardirq_count;
  __u64 net_softirq_ns, net_softirq_count;  // network softirq time it raised
};

#endif  // BOTTLENECKD_SOURCES_BPF_IRQTIME_MAPS_H_
