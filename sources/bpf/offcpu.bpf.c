// SPDX-License-Identifier: GPL-2.0
// offcpu: where the target threads wait. On every context switch
// (sched:sched_switch), a target thread leaving the CPU records when and (for
// a random share of its periods, offcpu_target) its kernel stack; when it
// comes back, the time between is added to its
// (thread, stack, voluntary or not) site in `totals`, which bottleneckd reads
// once a tick (sources/offcpu.h; docs/offcpu.md says what is measured).
//
// Only tp_btf: the switch's `next` task is a pointer, and its pid is read
// through the kernel's BTF (a CO-RE relocation of task_struct's pid field, the
// only structure read). Without kernel BTF the program does not load and the
// daemon samples /proc's wchan instead.
// clang-format off
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
// clang-format on

#include "sources/bpf/offcpu_maps.h"

char LICENSE[] SEC("license") = "GPL";

// The one field read, relocated against the running kernel's task_struct.
struct task_struct {
  int pid;
} __attribute__((preserve_access_index));

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, OFFCPU_MAX_TARGETS);
  __type(key, __u32);  // tid
  __type(value, struct offcpu_target);
} targets SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, OFFCPU_MAX_TARGETS);
  __type(key, __u32);  // tid
  __type(value, struct offcpu_start);
} starts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, OFFCPU_MAX_SITES);
  __type(key, struct offcpu_key);
  __type(value, struct offcpu_value);
} totals SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_STACK_TRACE);
  __uint(max_entries, OFFCPU_MAX_STACKS);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, OFFCPU_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct offcpu_drops);
} drops SEC(".maps");

static __always_inline struct offcpu_drops* this_cpu_drops(void) {
  __u32 k = 0;
  return bpf_map_lookup_elem(&drops, &k);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, _Bool preempt, struct task_struct* prev, struct task_struct* next) {
  // The tracepoint runs in the context of the task leaving: current is prev.
  __u32 prev_tid = (__u32)bpf_get_current_pid_tgid();
  __u32 next_tid = (__u32)next->pid;
  __u64 now = 0;
  struct offcpu_target* t = prev_tid != 0 ? bpf_map_lookup_elem(&targets, &prev_tid) : 0;
  if (t) {
    now = bpf_ktime_get_ns();
    struct offcpu_start s = {.ns = now, .involuntary = preempt ? 1 : 0, .stack_id = OFFCPU_UNSAMPLED};
    if (t->stack_threshold == 0xffffffffu || bpf_get_prandom_u32() < t->stack_threshold)
      s.stack_id = bpf_get_stackid(ctx, &stacks, 0);
    if (bpf_map_update_elem(&starts, &prev_tid, &s, BPF_ANY) != 0) {
      struct offcpu_drops* d = this_cpu_drops();
      if (d) d->no_start += 1;
    }
  }
  if (next_tid == 0) return 0;
  struct offcpu_start* s = bpf_map_lookup_elem(&starts, &next_tid);
  if (!s) return 0;
  if (now == 0) now = bpf_ktime_get_ns();
  struct offcpu_key key = {.tid = next_tid, .stack_id = s->stack_id, .involuntary = s->involuntary};
  __u64 d = now > s->ns ? now - s->ns : 0;
  bpf_map_delete_elem(&starts, &next_tid);
  struct offcpu_value* v = bpf_map_lookup_elem(&totals, &key);
  if (!v) {
    struct offcpu_value zero = {};
    bpf_map_update_elem(&totals, &key, &zero, BPF_NOEXIST);
    v = bpf_map_lookup_elem(&totals, &key);
  }
  if (v) {
    // One thread comes back on one CPU at a time: no other CPU updates its
    // keys concurrently, but the reader may; the adds are atomic anyway.
    __sync_fetch_and_add(&v->ns, d);
    __sync_fetch_and_add(&v->count, 1);
  } else {
    struct offcpu_drops* dr = this_cpu_drops();
    if (dr) dr->no_site += 1;
  }
  return 0;
}
