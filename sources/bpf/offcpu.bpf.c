// SPDX-License-Identifier: GPL-2.0
// offcpu: where the target threads wait. On every context switch
// (sched:sched_switch), a target thread leaving the CPU records when and (for
// a random share of its periods, offcpu_target) its kernel and user stacks; when it
// comes back, the time between is added to its
// (thread, kernel and user stack, voluntary or not, waker) site in `totals`, which bottleneckd reads
// once a tick (sources/offcpu.h; docs/offcpu.md says what is measured).
//
// Only tp_btf: the switch's `next` task is a pointer, and its pid is read
// through the kernel's BTF (a CO-RE relocation of task_struct's pid field, the
// only structure read). On every wakeup (sched:sched_waking, raised on the
// waker's CPU in the waker's context) of a target thread off the CPU, the
// task raising it is kept as that period's waker. Without kernel BTF the program does not load and the
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

// Each followed thread's named wakers; written by the reader with the
// thread's `targets` entry (all slots free), filled here.
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, OFFCPU_MAX_TARGETS);
  __type(key, __u32);  // tid
  __type(value, struct offcpu_wakers);
} waker_slots SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, OFFCPU_MAX_TARGETS);
  __type(key, __u32);  // tid
  __type(value, struct offcpu_overflow);
} overflow SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, OFFCPU_MAX_SITES);
  __type(key, struct offcpu_key);
  __type(value, struct offcpu_value);
} totals SEC(".maps");

// The two pairs of stack maps (offcpu_maps.h "epoch"): stacks0 and
// user_stacks0 in even epochs, stacks1 and user_stacks1 in odd ones.
#define OFFCPU_STACK_MAP(name, entries)                     \
  struct {                                                  \
    __uint(type, BPF_MAP_TYPE_STACK_TRACE);                 \
    __uint(max_entries, entries);                           \
    __uint(key_size, sizeof(__u32));                        \
    __uint(value_size, OFFCPU_STACK_DEPTH * sizeof(__u64)); \
  } name SEC(".maps")
OFFCPU_STACK_MAP(stacks0, OFFCPU_MAX_STACKS);
OFFCPU_STACK_MAP(stacks1, OFFCPU_MAX_STACKS);
OFFCPU_STACK_MAP(user_stacks0, OFFCPU_MAX_USER_STACKS);
OFFCPU_STACK_MAP(user_stacks1, OFFCPU_MAX_USER_STACKS);

// Turned by the reader (sources/offcpu.cc "Epochs").
__u32 epoch = 0;

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

// The waker as the key keeps it: a timer, none and a thread already in
// `tid`'s slots as they are, a new thread in a free slot (with its names as
// the wakeup found them), else OFFCPU_OTHER_WAKER. One thread comes back on
// one CPU at a time: its slots are written by one CPU at a time.
static __always_inline __u32 slotted_waker(__u32 tid, const struct offcpu_start* s) {
  const __u32 waker = s->waker;
  if (waker == 0 || waker == OFFCPU_NO_WAKER) return waker;
  struct offcpu_wakers* w = bpf_map_lookup_elem(&waker_slots, &tid);
  if (!w) return OFFCPU_OTHER_WAKER;
#pragma unroll
  for (int i = 0; i < OFFCPU_WAKER_SLOTS; ++i) {
    if (w->tid[i] == waker) return waker;
    if (w->tid[i] == 0) {
      w->tgid[i] = s->waker_tgid;
      __builtin_memcpy(w->comm[i], s->waker_comm, OFFCPU_COMM_LEN);
      w->tid[i] = waker;
      return waker;
    }
  }
  return OFFCPU_OTHER_WAKER;
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
    struct offcpu_start s = {.ns = now,
                             .involuntary = preempt ? 1 : 0,
                             .stack_id = OFFCPU_UNSAMPLED,
                             .waker = OFFCPU_NO_WAKER,
                             .user_stack_id = OFFCPU_UNSAMPLED,
                             .epoch = epoch};
    if (t->walks_left > 0 && (t->stack_threshold == 0xffffffffu || bpf_get_prandom_u32() < t->stack_threshold)) {
      t->walks_left -= 1;  // one thread leaves one CPU at a time
      // The thread's user registers as it entered the kernel: the user
      // walk is of the call that blocked, from the system call's caller out.
      if (s.epoch & 1) {
        s.stack_id = bpf_get_stackid(ctx, &stacks1, 0);
        s.user_stack_id = bpf_get_stackid(ctx, &user_stacks1, BPF_F_USER_STACK);
      } else {
        s.stack_id = bpf_get_stackid(ctx, &stacks0, 0);
        s.user_stack_id = bpf_get_stackid(ctx, &user_stacks0, BPF_F_USER_STACK);
      }
    }
    if (bpf_map_update_elem(&starts, &prev_tid, &s, BPF_ANY) != 0) {
      struct offcpu_drops* d = this_cpu_drops();
      if (d) d->no_start += 1;
    }
  }
  if (next_tid == 0) return 0;
  struct offcpu_start* s = bpf_map_lookup_elem(&starts, &next_tid);
  if (!s) return 0;
  if (now == 0) now = bpf_ktime_get_ns();
  struct offcpu_key key = {.tid = next_tid,
                           .stack_id = s->stack_id,
                           .user_stack_id = s->user_stack_id,
                           .involuntary = s->involuntary,
                           .waker = slotted_waker(next_tid, s),
                           .epoch = s->epoch};
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
    return 0;
  }
  struct offcpu_overflow* o = bpf_map_lookup_elem(&overflow, &next_tid);
  if (o) {
    const int i = key.involuntary ? 1 : 0;
    __sync_fetch_and_add(&o->ns[i], d);
    __sync_fetch_and_add(&o->count[i], 1);
  } else {
    struct offcpu_drops* dr = this_cpu_drops();
    if (dr) dr->no_site += 1;
  }
  return 0;
}

// What each CPU runs now, as the timer and softirq tracepoints say: inside
// an hrtimer's expiry (a sleep's timer: clock_nanosleep, a futex or poll
// timeout), or serving a softirq (its vector + 1). A wakeup raised in a
// timer's expiry is the timer's, not the task's it interrupted (on a CPU
// the soaker keeps busy, that task is the soaker); one raised in a softirq
// is kept with its task and marked so. (The preempt count would say it for
// every interrupt, but x86 keeps it in a per-CPU variable kallsyms does not
// list on every kernel, and a typed ksym needs its kallsyms address.)
// Flags set at entry and cleared at exit, not counts: the programs attach
// one after another, and an expiry under way when the entry's program
// attached and over before the exit's did would leave a count one too high
// for good (the lab's echo CPU runs 20 k hrtimers a second: every wakeup
// there read as a timer's). A soft hrtimer's expiry (in a softirq) that a
// hard one interrupts loses its flag at the inner exit: a rare wakeup left
// in it then names its task.
struct offcpu_cpu_context {
  __u32 in_hrtimer;
  __u32 softirq;  // vector + 1; 0: none
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct offcpu_cpu_context);
} cpu_context SEC(".maps");

static __always_inline struct offcpu_cpu_context* this_cpu_context(void) {
  __u32 k = 0;
  return bpf_map_lookup_elem(&cpu_context, &k);
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(on_hrtimer_entry) {
  struct offcpu_cpu_context* c = this_cpu_context();
  if (c) c->in_hrtimer = 1;
  return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(on_hrtimer_exit) {
  struct offcpu_cpu_context* c = this_cpu_context();
  if (c) c->in_hrtimer = 0;
  return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(on_softirq_entry, unsigned int vec) {
  struct offcpu_cpu_context* c = this_cpu_context();
  if (c) c->softirq = vec + 1;
  return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(on_softirq_exit) {
  struct offcpu_cpu_context* c = this_cpu_context();
  if (c) c->softirq = 0;
  return 0;
}

// The softirq vectors of timers (include/linux/interrupt.h): TIMER, HRTIMER.
#define OFFCPU_TIMER_SOFTIRQ 1
#define OFFCPU_HRTIMER_SOFTIRQ 8

// The waker: the task current when a followed thread off the CPU is woken
// (offcpu_key.waker). One lookup in `starts` (the followed threads off the
// CPU now) per wakeup on the host; a wakeup of a task already runnable
// raises no event.
SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct* p) {
  __u32 tid = (__u32)p->pid;
  if (tid == 0) return 0;
  struct offcpu_start* s = bpf_map_lookup_elem(&starts, &tid);
  if (!s || s->involuntary) return 0;
  const __u64 pid_tgid = bpf_get_current_pid_tgid();
  const __u32 current = (__u32)pid_tgid;
  struct offcpu_cpu_context* c = this_cpu_context();
  const __u32 vec = c && c->softirq ? c->softirq - 1 : 0xffffffffu;
  if (current == 0 || (c && c->in_hrtimer) || vec == OFFCPU_TIMER_SOFTIRQ || vec == OFFCPU_HRTIMER_SOFTIRQ) {
    s->waker = 0;
    return 0;
  }
  s->waker = c && c->softirq ? current | OFFCPU_WAKER_SOFTIRQ : current;
  s->waker_tgid = (__u32)(pid_tgid >> 32);
  bpf_get_current_comm(s->waker_comm, sizeof s->waker_comm);
  return 0;
}
