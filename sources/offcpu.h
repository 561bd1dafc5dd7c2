// offcpu: where the target threads wait, measured (docs/offcpu.md). An eBPF
// program on sched:sched_switch (sources/bpf/offcpu.bpf.c) adds, for each
// target thread, the time from each switch away to the next switch back to
// the kernel stack it left with; Read() copies those totals once a tick and
// names each stack's wait site from /proc/kallsyms as the kernel names
// /proc/PID/wchan ("hrtimer_nanosleep (clock_nanosleep)").
//
// Why: the threads collector samples wchan and syscall once a tick, a coin
// toss for a thread that sleeps 50 us at a time (analysis/wait_history.h).
// These totals are every wait's time.
//
// The targets are the threads collector's: each Read() follows the threads of
// the Sample it completes (so a thread found this tick is followed from the
// next). Loading needs CAP_BPF and CAP_PERFMON (or root), the kernel's BTF
// (the switch's next task is read through it) and a readable kallsyms; each
// refusal is one Status naming the cause.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sources/source.h"

namespace bottleneckd {

// One target thread's waits at one site, cumulative since the program loaded.
struct OffCpuSite {
  int tid = 0;
  // "hrtimer_nanosleep (clock_nanosleep)"; "" when the stack was not kept
  // or names nothing.
  std::string where;
  bool involuntary = false;  // preempted: runnable all along, not its own wait
  uint64_t ns = 0;           // off the CPU, run-queue delay after the wakeup included
  uint64_t count = 0;        // periods off the CPU
  // Whether these periods' stacks were walked. A thread that switches more
  // than kOffCpuStacksPerSecond times a second has a random share of its
  // periods walked; the others are counted in one unsampled site per
  // (tid, involuntary) with where "", so the time is whole and the sampled
  // sites' shares are estimates of the thread's (window/offcpu_window.h).
  bool sampled = true;
  // Who ended these periods (sched_waking): the thread current when the
  // wakeup was raised; kWokenByInterrupt (a timer's expiry, or the idle
  // task: an interrupt on an idle CPU); kNoWaker (preempted, or no wakeup
  // seen). Another hardware interrupt's wakeup names the task it interrupted.
  // waker_softirq: raised in a softirq in the waker thread's context (a
  // datagram it sent over loopback, or a packet whose interrupt came while
  // it ran). kOtherWaker: a thread past the first OFFCPU_WAKER_SLOTS (6)
  // that woke this thread since it was followed (the slots keep the
  // program's sites bounded; docs/offcpu.md "Wakers").
  int waker = -1;
  bool waker_softirq = false;
  // The whole stack it left with, as folded frames outermost first (the
  // user frames, then the kernel's; sources/profile_fold.h):
  // "main (udpecho);recv_loop (udpecho);__libc_recv (libc.so.6);
  // entry_SYSCALL_64 [kernel];...;schedule [kernel]". The outermost user
  // frame is "[truncated]" where a binary keeps no frame pointers (the walk
  // stopped before the thread's entry). "" when no stack was walked.
  std::string stack{};
  bool operator==(const OffCpuSite&) const = default;
};
inline constexpr int kNoWaker = -1;
inline constexpr int kWokenByInterrupt = 0;
inline constexpr int kOtherWaker = -2;
// A period still under way at the read (count 0): its waker is not known
// yet; the next read adds the whole period to its waker's site.
inline constexpr int kWakerNotYet = -3;
inline constexpr int kOffCpuWakerSlots = 6;  // OFFCPU_WAKER_SLOTS

// A waker's names: its thread name and its process, read from
// /proc/TID/status, or as the kernel gave them at the wakeup where the
// thread exited before the read or its tid is another process's now.
struct OffCpuWaker {
  int tid = 0;
  int pid = 0;       // its process (Tgid); 0 unknown
  std::string name;  // its thread name (comm); "" unknown
  bool operator==(const OffCpuWaker&) const = default;
};

// Stacks walked per followed thread per second, at most about (the walk's
// share of the periods is set each Read from the thread's last rate): 1000
// walks at 1.5-2.6 us each is 0.3 % of a CPU per thread on this VM.
inline constexpr double kOffCpuStacksPerSecond = 1000;
// ... and for all of them together: the threads that switched since the
// last Read share it. Each walk may be a new stack (a binary without frame
// pointers walks a new one nearly every period), and a stack map refuses a
// new stack whose bucket is taken: a 1 s tick's 2000 in the 8192 buckets
// of an epoch's user map refuse about one in eight (sources/offcpu.cc
// "Epochs").
inline constexpr double kOffCpuStacksPerSecondAll = 2000;

struct OffCpuReading {
  int64_t mono_ns = 0;      // CLOCK_MONOTONIC when the maps were read
  uint64_t generation = 0;  // the program's id: a change means the totals restarted
  // Sites of the followed threads, sorted by (tid, involuntary, sampled,
  // where, stack, waker, waker_softirq).
  std::vector<OffCpuSite> sites;
  // The names of every waker tid of `sites` (not the interrupt), sorted by tid.
  std::vector<OffCpuWaker> wakers;
  std::vector<int> tids;  // the threads followed since the previous Read, sorted
  uint64_t dropped = 0;   // periods not counted (maps full), cumulative
  bool operator==(const OffCpuReading&) const = default;
};

class OffCpuSource : public Source {
 public:
  // kallsyms_path: "" is /proc/kallsyms. btf_path: "" is the kernel's own
  // (/sys/kernel/btf/vmlinux); tests point either at a missing file.
  explicit OffCpuSource(std::string kallsyms_path = "", std::string btf_path = "");
  ~OffCpuSource() override;
  OffCpuSource(const OffCpuSource&) = delete;
  OffCpuSource& operator=(const OffCpuSource&) = delete;

  std::string_view name() const override { return "offcpu"; }
  // Reads kallsyms and loads and attaches the program. PermissionDenied
  // (capabilities; kallsyms addresses hidden), NotSupported (no kernel BTF;
  // the verifier refused it), NotFound (no sched_switch tracepoint), IOError.
  // Idempotent.
  Status Start() override;
  void Stop() override;
  bool running() const;

  // Follows exactly these threads from now on (others are forgotten).
  // pids: each thread's process, whose maps name its user frames (absent:
  // the thread's own /proc entry is read).
  Status SetTargets(const std::vector<int>& tids, const std::map<int, int>& pids = {});
  // Copies the followed threads' totals into *out (replaced). NotSupported
  // when not running.
  Status Read(OffCpuReading* out);
  // Source: follows out->threads' tids, then sets out->offcpu.
  Status Read(Sample* out) override;

 private:
  struct Bpf;
  // Sets each followed thread's share of stacks walked from its periods
  // (each followed tid's, all its sites, at mono_ns) since the last Read
  // (kOffCpuStacksPerSecond).
  void AdjustStackSampling(std::map<int, uint64_t> periods, int64_t mono_ns);
  std::string kallsyms_path_, btf_path_;
  std::unique_ptr<Bpf> bpf_;
};

// What the epoch in use holds at a Read (sources/offcpu.cc "Epochs"): the
// distinct kernel and user stack ids its keys name, the keys in `totals`,
// and its periods walked and, of those, the ones whose kernel stack was
// refused (its bucket held another stack: -EEXIST).
struct OffCpuEpochUse {
  size_t kernel_stacks = 0, user_stacks = 0, keys = 0;
  uint64_t walked = 0, refused = 0;
};
// Whether the reader turns to the other pair of maps: either map of the pair
// an eighth full (a new stack is refused one time in eight), `totals` a
// quarter full, or a tenth of the epoch's walks (at least 8) refused. A
// stack hashes to one bucket: one that finds its bucket taken is refused at
// every walk until the map is emptied, so a thread whose one wait stack
// collided read "an unnamed kernel stack" 100 % for as long as the epoch
// lasted (14 s of lab.irqtime's pipe scenario in the fresh-clone CI of
// 2a7cf48, late in the lab daemon's life, the map not yet an eighth full).
bool TurnEpoch(const OffCpuEpochUse& u);

// The recording's offcpu file (docs/recording-format.md, "offcpu";
// sources/offcpu_reading_file.cc). Parse errors are Corruption "offcpu line N: ...".
std::string OffCpuFileText(const OffCpuReading& r);
Status ParseOffCpuFile(std::string_view text, OffCpuReading* out);

}  // namespace bottleneckd
