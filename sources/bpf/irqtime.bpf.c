// SPDX-License-Identifier: GPL-2.0
// irqtime: CPU time in hard and soft interrupt handlers, per CPU, per IRQ and
// per softirq vector, accumulated in per-CPU maps that bottleneckd reads once
// a tick (sources/irqtime.h; docs/irqtime.md explains what is measured).
//
// Two copies of the four handlers, one per attach type; the loader enables one:
// - tp_btf/: typed by the running kernel's BTF, so the verifier checks the
//   arguments against this kernel's tracepoint prototypes;
// - raw_tp/: the untyped raw tracepoints, for kernels without BTF. Only the
//   first argument (irq number, vector number) is read, stable since 4.17.
// Nothing here depends on a kernel structure's layout: no vmlinux.h, no CO-RE
// relocations; the object loads on any kernel with these tracepoints.
//
// Softirq time excludes hard interrupts that arrived during it (they are
// counted once, as hardirq), so hardirq + softirq never exceeds the CPU's time.
// NET_RX and NET_TX softirq time is also charged to the last device IRQ that
// ran on the CPU since the previous network softirq (the queue interrupt that
// raised it); with none (RPS/RFS backlog work raised by an IPI, busy polling)
// it is counted as unattributed.
// The kernel's UAPI types first: libbpf's helper headers use them.
// clang-format off
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
// clang-format on

#include "sources/bpf/irqtime_maps.h"

char LICENSE[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct irqtime_cpu_slot);
} cpu_times SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(max_entries, IRQTIME_MAX_IRQS);
  __type(key, __u32);
  __type(value, struct irqtime_irq);
} irq_times SEC(".maps");

// The IRQ's slot, created on its first interrupt; null when the map is full.
static __always_inline struct irqtime_irq* irq_slot(__u32 irq) {
  struct irqtime_irq* v = bpf_map_lookup_elem(&irq_times, &irq);
  if (v) return v;
  struct irqtime_irq zero = {};
  bpf_map_update_elem(&irq_times, &irq, &zero, BPF_NOEXIST);
  return bpf_map_lookup_elem(&irq_times, &irq);
}

static __always_inline struct irqtime_cpu_slot* this_cpu(void) {
  __u32 k = 0;
  return bpf_map_lookup_elem(&cpu_times, &k);
}

static __always_inline void hard_entry(__u32 irq) {
  struct irqtime_cpu_slot* s = this_cpu();
  if (s) s->hard_start = bpf_ktime_get_ns();
}

static __always_inline void hard_exit(__u32 irq) {
  struct irqtime_cpu_slot* s = this_cpu();
  if (!s || s->hard_start == 0) return;
  __u64 d = bpf_ktime_get_ns() - s->hard_start;
  s->hard_start = 0;
  s->times.hardirq_ns += d;
  s->times.hardirq_count += 1;
  if (s->soft_start) s->nested_hard_ns += d;
  s->last_irq_plus1 = irq + 1;
  struct irqtime_irq* v = irq_slot(irq);
  if (v) {
    v->hardirq_ns += d;
    v->hardirq_count += 1;
  } else {
    s->times.irq_overflow_count += 1;
  }
}

static __always_inline void soft_entry(__u32 vec) {
  struct irqtime_cpu_slot* s = this_cpu();
  if (!s) return;
  s->soft_start = bpf_ktime_get_ns();
  s->soft_vec = vec;
  s->nested_hard_ns = 0;
}

static __always_inline void soft_exit(__u32 vec) {
  struct irqtime_cpu_slot* s = this_cpu();
  if (!s || s->soft_start == 0 || s->soft_vec != vec || vec >= IRQTIME_SOFTIRQ_VECTORS) return;
  __u64 d = bpf_ktime_get_ns() - s->soft_start;
  __u64 nested = s->nested_hard_ns;
  s->soft_start = 0;
  d = d > nested ? d - nested : 0;
  s->times.softirq_ns[vec] += d;
  s->times.softirq_count[vec] += 1;
  if (vec != IRQTIME_NET_RX && vec != IRQTIME_NET_TX) return;
  __u32 irq = s->last_irq_plus1 - 1;
  struct irqtime_irq* v = s->last_irq_plus1 ? bpf_map_lookup_elem(&irq_times, &irq) : 0;
  s->last_irq_plus1 = 0;
  if (v) {
    v->net_softirq_ns += d;
    v->net_softirq_count += 1;
  } else {
    s->times.net_unattributed_ns += d;
  }
}

// Each handler twice, once per attach type (see the top); the loader enables
// the btf_ or the raw_ set.
#define IRQTIME_HANDLER(name, tracepoint, type, fn) \
  SEC("tp_btf/" tracepoint)                         \
  int BPF_PROG(btf_##name, type arg) {              \
    fn(arg);                                        \
    return 0;                                       \
  }                                                 \
  SEC("raw_tp/" tracepoint)                         \
  int BPF_PROG(raw_##name, type arg) {              \
    fn(arg);                                        \
    return 0;                                       \
  }

IRQTIME_HANDLER(irq_entry, "irq_handler_entry", int, hard_entry)
IRQTIME_HANDLER(irq_exit, "irq_handler_exit", int, hard_exit)
IRQTIME_HANDLER(softirq_entry, "softirq_entry", unsigned int, soft_entry)
IRQTIME_HANDLER(softirq_exit, "softirq_exit", unsigned int, soft_exit)
