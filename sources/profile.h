// profile: what the CPUs run, as sampled stacks (docs/profile.md). One
// CPU-clock perf event per CPU at a low prime rate (49 Hz by default) runs an
// eBPF program (sources/bpf/profile.bpf.c) that counts each sample under its
// (thread, CPU, kernel stack, user stack) key; Read() takes the samples since
// the previous Read once a tick, names their frames (sources/profile_symbols.h)
// and merges them. No sample travels to user space on its own.
//
// Why: a `cpu` or `interrupt` verdict says what is full; the stacks of the
// named CPU or thread say what fills it, in the same window, while the moment
// lasts (analysis/profile_evidence.h).
//
// Which stacks are walked (SetWalk): those of the CPUs and threads asked for,
// or every CPU's; every sample is counted either way, so each CPU's busy and
// idle samples are whole. Loading needs CAP_BPF and CAP_PERFMON (or root) and
// perf events (kernel.perf_event_paranoid does not matter with CAP_PERFMON);
// each refusal is one Status naming the cause.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "sources/source.h"

namespace bottleneckd {

using ProfileMode = LoadMode;

// Whose stacks are walked. A walk is most of a sample's cost, and a stack
// nobody asked about is a stack to keep.
enum class ProfileStacks {
  kNamed,  // the CPU the last verdict named and the target threads, runs or not
  kRuns,   // those, and every CPU's while a run is active
  kAll,    // every CPU's, always
};
bool ParseProfileStacks(std::string_view s, ProfileStacks* out);
const char* ProfileStacksName(ProfileStacks s);

// collectors.profile (sources/profile_config.cc).
struct ProfileOptions {
  ProfileMode mode = ProfileMode::kAuto;
  // Samples per second per CPU. Prime, so the samples do not beat with the
  // kernel's tick or a periodic load; 49 is 0.1 % of a CPU at the walk's cost
  // (docs/performance-history.md "profile").
  int frequency_hz = 49;
  ProfileStacks stacks = ProfileStacks::kNamed;
  bool operator==(const ProfileOptions&) const = default;
};
inline constexpr int kProfileMaxFrequencyHz = 999;

// One frame, named: "copy_loop (udpecho)" for a function of a user binary,
// "__udp4_lib_rcv [kernel]" or "e1000_clean [e1000]" for the kernel's,
// "0x7f3a2c01b2e0 (libfoo.so.1)" for an address in a binary without a symbol
// for it, "[unknown]" for one in no mapping. A stack whose user part stops
// before a thread's entry (no frame pointers) starts with "[truncated]".
using ProfileFrames = std::vector<std::string>;

// Samples of one thread on one CPU with one stack.
struct ProfileStack {
  int pid = 0, tid = 0, cpu = -1;
  std::string comm;      // the thread's name when sampled
  ProfileFrames frames;  // outermost first; the user frames, then the kernel's
  uint64_t samples = 0;
  bool operator==(const ProfileStack&) const = default;
};

// One CPU's samples since the previous Read: every sample, walked or not.
struct ProfileCpu {
  int cpu = -1;
  uint64_t samples = 0;  // all, idle included
  uint64_t idle = 0;     // the idle task's and the soaker's (whose time would be idle)
  bool operator==(const ProfileCpu&) const = default;
};

struct ProfileReading {
  int64_t mono_ns = 0;      // CLOCK_MONOTONIC when the map was read
  int64_t since_ns = 0;     // the previous Read's mono_ns (or the load's)
  uint64_t generation = 0;  // the program's id
  int frequency_hz = 0;
  // The walked samples since the previous Read, merged by (pid, tid, cpu,
  // comm, frames), most samples first. Unlike the other sources' readings
  // these are not cumulative: the map is emptied at each Read.
  std::vector<ProfileStack> stacks;
  std::vector<ProfileCpu> cpus;  // sorted by cpu; CPUs with no sample left out
  // Every CPU's samples since the program loaded (cumulative, for the
  // exported counters), sorted by cpu.
  std::vector<ProfileCpu> cpu_totals;
  uint64_t dropped = 0;     // samples not counted (map full), cumulative
  uint64_t stack_lost = 0;  // walked samples whose stack was lost (map full, cleared), cumulative
  bool operator==(const ProfileReading&) const = default;
};

class Symbolizer;

class ProfileSource : public Source {
 public:
  // procfs: where /proc/PID/maps and the binaries (/proc/PID/root/...) are
  // read; kallsyms_path "" is /proc/kallsyms.
  explicit ProfileSource(ProfileOptions options, std::string kallsyms_path = "");
  ~ProfileSource() override;
  ProfileSource(const ProfileSource&) = delete;
  ProfileSource& operator=(const ProfileSource&) = delete;

  std::string_view name() const override { return "profile"; }
  // Reads kallsyms, loads the program and opens one perf event per online
  // CPU. PermissionDenied (capabilities; perf events refused), NotSupported
  // (the verifier refused it; no CPU-clock event), IOError. Idempotent.
  Status Start() override;
  void Stop() override;
  bool running() const;

  // Walks the stacks of these CPUs and threads from now on, or every CPU's.
  Status SetWalk(const std::vector<int>& cpus, const std::vector<int>& tids, bool all);
  // Takes the samples since the previous Read into *out (replaced).
  // NotSupported when not running.
  Status Read(ProfileReading* out);
  // Source: sets out->profile.
  Status Read(Sample* out) override;

  // Bytes held by the symbol cache and the maps read back (an estimate).
  size_t cache_bytes() const;

  // A test's seam: called in each Read after the read's stacks are copied
  // out and deleted from the kernel's map, before any frame is named (the
  // naming reads a binary's symbols the first time one of its stacks is
  // seen, and takes as long as that binary makes it).
  void SetBeforeNamingForTest(std::function<void()> hook) { before_naming_ = std::move(hook); }

 private:
  struct Bpf;
  ProfileOptions options_;
  std::string kallsyms_path_;
  std::unique_ptr<Bpf> bpf_;
  std::function<void()> before_naming_;
};

// The recording's profile file (docs/recording-format.md, "profile";
// sources/profile_reading_file.cc): the frames as named at record time.
// Parse errors are Corruption "profile line N: ...".
std::string ProfileFileText(const ProfileReading& r);
Status ParseProfileFile(std::string_view text, ProfileReading* out);

}  // namespace bottleneckd
