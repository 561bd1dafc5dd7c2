// The map keys and values shared by the on-CPU profiler's program
// (sources/bpf/profile.bpf.c) and its reader (sources/profile.cc). Plain C,
// fixed-width fields, no padding: the same layout on both sides.
#ifndef BOTTLENECKD_SOURCES_BPF_PROFILE_MAPS_H_
#define BOTTLENECKD_SOURCES_BPF_PROFILE_MAPS_H_

#include <linux/types.h>

// Distinct (thread, CPU, stacks) keys counted between two reads; a sample
// whose key finds no slot is counted in profile_drops.no_slot. At 49 Hz on
// 128 CPUs a one-second tick takes at most 6272 samples.
#define PROFILE_MAX_KEYS 16384
// Distinct stacks kept, kernel and user together (the reader empties the map
// after every read, so it holds one tick's), and their depth: perf's default
// kernel.perf_event_max_stack is 127. A stack map is allocated whole (1 KiB a
// slot at this depth), so the loader sizes it to the host:
// PROFILE_STACKS_PER_CPU a CPU, between the two bounds (4 MiB on 2 CPUs, where
// a 1 s tick walks at most 196 stacks at 49 Hz: 5 % of the slots).
#define PROFILE_MAX_STACKS 16384
#define PROFILE_MIN_STACKS 4096
#define PROFILE_STACKS_PER_CPU 512
#define PROFILE_STACK_DEPTH 127
// CPUs whose samples may be walked (profile_walk_cpus).
#define PROFILE_MAX_CPUS 4096
// Threads whose samples are walked on any CPU (the target threads).
#define PROFILE_MAX_TIDS 4096

// The stack id of a sample whose stack was not walked (neither its CPU nor
// its thread was asked for, or the CPU was idle).
#define PROFILE_NOT_WALKED (-1000000)

// One thread on one CPU with one pair of stacks, in one read's epoch.
struct profile_key {
  __u32 pid;  // thread group (process) id; 0 with tid 0: the CPU was idle
  __u32 tid;
  __u32 cpu;
  __u32 epoch;    // profile.bpf.c's `epoch` when the sample was taken
  __s32 kstack;   // in `stacks`; PROFILE_NOT_WALKED; other < 0: not kept (-errno)
  __s32 ustack;   // likewise; -EFAULT for a kernel thread
  char comm[16];  // the thread's name ("" when idle)
};

// What the program could not count (per CPU, cumulative).
struct profile_drops {
  __u64 no_slot;  // samples whose key found no slot in `counts`
};

#endif  // BOTTLENECKD_SOURCES_BPF_PROFILE_MAPS_H_
