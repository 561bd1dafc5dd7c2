// The map keys and values shared by the off-CPU program
// (sources/bpf/offcpu.bpf.c) and its reader (sources/offcpu.cc). Plain C,
// fixed-width fields, no padding: the same layout on both sides.
#ifndef BOTTLENECKD_SOURCES_BPF_OFFCPU_MAPS_H_
#define BOTTLENECKD_SOURCES_BPF_OFFCPU_MAPS_H_

#include <linux/types.h>

// Target threads the program follows (the threads collector's targets).
#define OFFCPU_MAX_TARGETS 4096
// Distinct (thread, kernel stack, voluntary or not) sites; a switch whose
// site finds no slot is counted in offcpu_drops.no_site.
#define OFFCPU_MAX_SITES 16384
// Kernel stacks kept per epoch (one per distinct stack at the switch), and
// their depth: the scheduler's own frames, the function it waits in and the
// system call fit in 32.
#define OFFCPU_MAX_STACKS 4096
// User stacks have a map of their own: a binary without frame pointers
// walks into garbage, a new stack nearly every period, and the map (whose
// ids are its hash buckets, never reused) fills; sharing one map, its
// kernel stacks then found their buckets taken and the wait sites went
// unnamed (lab.irqtime's pipe scenario, late in the lab's daemon's life).
#define OFFCPU_MAX_USER_STACKS 8192
#define OFFCPU_STACK_DEPTH 32

// Stacks are walked into one of two pairs of maps (kernel and user), the
// pair of the program's epoch (epoch & 1). A stack map is a hash without
// chaining whose id is the stack's bucket: a new stack whose bucket is
// taken is not kept, so a map n/8 full refuses one new stack in 8. The
// reader turns the epoch when either map of the pair in use is an eighth
// full, or `totals` half; a tick later (no switch away can still be walking
// into the old pair) it names what the old pair holds, folds the old
// epoch's totals into its own, and empties the old pair, which the next
// turn uses again (sources/offcpu.cc "Epochs").

// The stack_id of a period whose stack was not taken (see offcpu_target).
#define OFFCPU_UNSAMPLED (-1000000)

// A followed thread. Walking a kernel stack costs 1.5-2.6 us a switch on this
// VM (docs/performance-history.md "offcpu"), so a thread that switches often has a
// random share of its periods walked: each switch away walks it when
// bpf_get_prandom_u32() < stack_threshold (0xffffffff: always). The periods
// walked are a random sample, so their sites' shares are the thread's; every
// period's time is counted either way (unsampled ones under OFFCPU_UNSAMPLED).
// walks_left caps the walks until the reader's next Read, which sets it
// again: a thread followed a moment ago walks every period (its rate is not
// known yet) but not a million of them, nor does a sudden burst.
struct offcpu_target {
  __u32 stack_threshold;
  __u32 walks_left;
};

// The periods of a followed thread whose key found no slot in `totals`
// (full): counted here, per thread, as periods whose stacks were not kept,
// so their time is not lost. The reader writes a zeroed entry as it follows
// the thread.
struct offcpu_overflow {
  __u64 ns[2], count[2];  // [involuntary]
};

// The waker of a period no wakeup was seen for: a preempted thread (it was
// runnable all along), or one that slept before the program was loaded.
#define OFFCPU_NO_WAKER 0xffffffffu

// Where a target thread went off the CPU, and who ended its wait.
struct offcpu_key {
  __u32 tid;
  __s32 stack_id;  // in the stacks map; OFFCPU_UNSAMPLED; other < 0: not kept (-errno)
  // The user stack (in user_stacks), walked with the kernel's (frame
  // pointers: the walk stops where a binary keeps none); < 0: none (a
  // kernel thread: -EFAULT), not kept (-EEXIST: its bucket taken) or not
  // walked (OFFCPU_UNSAMPLED).
  __s32 user_stack_id;
  __u32 involuntary;  // 1: preempted (runnable all along); 0: it blocked
  // The task running when the wakeup was raised (sched_waking: on the
  // waker's CPU, not the woken one's): the thread that released the lock,
  // wrote the pipe; with OFFCPU_WAKER_SOFTIRQ, raised in a softirq in that
  // task's context (a datagram it sent over loopback, or a packet whose
  // interrupt came while it ran); 0: a timer (in an hrtimer's expiry or the
  // timer softirqs), or the idle task (an interrupt on an idle CPU);
  // OFFCPU_NO_WAKER.
  __u32 waker;
  __u32 epoch;  // the epoch the period began in: its stack ids are that epoch's pair's
};
#define OFFCPU_WAKER_SOFTIRQ 0x80000000u
// The waker of a period raised by a thread that found its waiter's slots
// full (offcpu_wakers): "another thread", never a tid (pid_max is at most
// 2^22).
#define OFFCPU_OTHER_WAKER 0x7fffffffu

// The threads that may be named as a followed thread's wakers, the first
// OFFCPU_WAKER_SLOTS seen (0: a free slot). Without a bound, a thread woken
// by many short-lived tasks (a shell reaping its children, a server woken in
// the softirq of whatever task the NIC's interrupt came on) would add a site
// per waker until `totals` is full; with it, each thread has at most
// OFFCPU_WAKER_SLOTS + 3 wakers per stack (the slots, a timer, none, other).
// Each slot keeps its waker's process and thread name as the wakeup found
// them: a waker that exits before the next read (a short-lived helper) is
// still named, and a tid taken again by another process is not misnamed.
#define OFFCPU_WAKER_SLOTS 6
#define OFFCPU_COMM_LEN 16  // the kernel's TASK_COMM_LEN
struct offcpu_wakers {
  __u32 tid[OFFCPU_WAKER_SLOTS];  // as offcpu_key.waker, OFFCPU_WAKER_SOFTIRQ included
  __u32 tgid[OFFCPU_WAKER_SLOTS];
  char comm[OFFCPU_WAKER_SLOTS][OFFCPU_COMM_LEN];
};

// Cumulative since the program was loaded: time off the CPU from the switch
// away to the next switch back (run-queue delay after the wakeup included),
// and how many such periods.
struct offcpu_value {
  __u64 ns, count;
};

// A target thread off the CPU now: since when, and where.
struct offcpu_start {
  __u64 ns;
  __s32 stack_id;
  __u32 involuntary;
  __u32 waker;  // as offcpu_key's; set by sched_waking
  __s32 user_stack_id;
  __u32 epoch;                       // when it went off the CPU (offcpu_key.epoch)
  __u32 waker_tgid;                  // the waker's process, set with waker
  char waker_comm[OFFCPU_COMM_LEN];  // its thread name, set with waker
};

// What the program could not count (per CPU, cumulative).
struct offcpu_drops {
  __u64 no_site;   // periods whose site found no slot in `totals` nor the thread's `overflow`
  __u64 no_start;  // switches away that found no slot in `starts`
};

#endif  // BOTTLENECKD_SOURCES_BPF_OFFCPU_MAPS_H_
