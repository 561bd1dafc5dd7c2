// SPDX-License-Identifier: GPL-2.0
// profile: what the CPUs run. Attached to one CPU-clock perf event per CPU
// (sources/profile.cc opens them at a low prime rate, 49 Hz by default), each
// sample adds one to its (thread, CPU, kernel stack, user stack) key in
// `counts`; bottleneckd reads and empties the map once a tick. No sample
// travels to user space on its own.
//
// Only the samples asked for are walked (a stack walk is most of a sample's
// cost): those of the CPUs flagged in `walk_cpus` and of the threads in
// `walk_tids` (sources/profile.h: the CPUs and threads the verdict names, or
// every CPU during a run); the others are counted with no stack, so each
// CPU's busy and idle samples are always whole.
//
// Reads no kernel structure: no BTF, no CO-RE.
// clang-format off
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
// clang-format on

#include "sources/bpf/profile_maps.h"

char LICENSE[] SEC("license") = "GPL";

// Set by the reader before it reads: samples of earlier epochs are its to
// take; later ones stay for the next read.
__u32 epoch = 0;
// 1: walk every CPU's samples (walk_cpus is not read).
__u32 walk_all = 0;

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, PROFILE_MAX_KEYS);
  __type(key, struct profile_key);
  __type(value, __u64);
} counts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_STACK_TRACE);
  __uint(max_entries, PROFILE_MAX_STACKS);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, PROFILE_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, PROFILE_MAX_CPUS);
  __type(key, __u32);
  __type(value, __u32);  // 1: walk this CPU's samples
} walk_cpus SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, PROFILE_MAX_TIDS);
  __type(key, __u32);    // tid
  __type(value, __u32);  // unused
} walk_tids SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct profile_drops);
} drops SEC(".maps");

static __always_inline int walked(__u32 cpu, __u32 tid) {
  if (walk_all) return 1;
  __u32* c = bpf_map_lookup_elem(&walk_cpus, &cpu);
  if (c && *c) return 1;
  return bpf_map_lookup_elem(&walk_tids, &tid) != 0;
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data* ctx) {
  __u64 id = bpf_get_current_pid_tgid();
  struct profile_key key = {};
  key.pid = (__u32)(id >> 32);
  key.tid = (__u32)id;
  key.cpu = bpf_get_smp_processor_id();
  key.epoch = epoch;
  key.kstack = PROFILE_NOT_WALKED;
  key.ustack = PROFILE_NOT_WALKED;
  if (key.tid != 0) {
    bpf_get_current_comm(key.comm, sizeof key.comm);
    if (walked(key.cpu, key.tid)) {
      key.kstack = bpf_get_stackid(ctx, &stacks, 0);
      key.ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
    }
  }
  __u64* v = bpf_map_lookup_elem(&counts, &key);
  if (!v) {
    __u64 zero = 0;
    bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST);
    v = bpf_map_lookup_elem(&counts, &key);
  }
  if (v) {
    __sync_fetch_and_add(v, 1);
  } else {
    __u32 k = 0;
    struct profile_drops* d = bpf_map_lookup_elem(&drops, &k);
    if (d) d->no_slot += 1;
  }
  return 0;
}
