// Soaker: per-CPU idle measured as delivered cycles (docs/soaker.md "How it works").
//
// One thread per online CPU in the daemon's affinity mask, pinned to it, at
// SCHED_IDLE (falls back to nice 19 where the policy is refused), runs a fixed
// unit of work and counts completed units in a counter on its own cache line.
// The sampler reads the counters and each thread's CPU time every tick. Over a
// window,
//   delivered idle = iterations / (calibrated rate x window)
//   soaker busy    = 1 - delivered idle
//   hidden         = thread CPU time - iterations / calibrated rate
// (cycles the kernel charged to the soaker that its work does not account for:
// interrupts without IRQ time accounting, steal, cache and frequency effects).
// The window arithmetic lives in window/soaker_window.h; docs/soaker.md explains
// the method, the calibration and the caveats.
//
// Calibration: per CPU, the rate in iterations per second of thread CPU time,
// measured in short slices keeping a high percentile (the best undisturbed rate,
// as netperf's looper does). Stored in <state_dir>/soaker-calibration with what it
// depends on (CPU model, frequency driver and governor, loop version) and redone
// when any of those changes.
//
// Reads /sys/devices/system/cpu/online ("0-3,5"), /proc/cpuinfo
// ("model name\t: AMD EPYC"), /sys/devices/system/cpu/cpufreq/policy0/scaling_{driver,governor}
// ("acpi-cpufreq", "performance"; absent in most VMs).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "collectors/host_fs.h"
#include "sources/source.h"

namespace bottleneckd {

// Version of the work loop; bump when its body changes (invalidates calibrations).
inline constexpr int kSoakerLoopVersion = 1;

// The slice-rate percentile a calibration keeps. Bare metal: the 95th, the best
// undisturbed rate (disturbances only slow the loop down). Under a hypervisor the
// host makes the loop's speed vary both ways around its usual rate (5 ms slices
// spread by several percent), so the 95th is a rate the loop rarely reaches and
// an idle CPU reads a few points busy; there the median is kept instead
// (docs/soaker.md "Calibration", docs/performance-history.md "Soaker").
inline constexpr int kSoakerBareMetalPercentile = 95;
inline constexpr int kSoakerVmPercentile = 50;

// Largest CPU id ParseCpuList accepts (Linux NR_CPUS tops out at 8192).
inline constexpr int kMaxCpuId = 65535;
// The soaker's threads' name (/proc/PID/task/TID/comm, top -H): the
// profiler counts their samples as idle, the time they soak
// (sources/profile.cc).
inline constexpr const char* kSoakerThreadName = "bn-soaker";

enum class SoakerMode { kOff, kRuns, kAlways };
// "off", "runs", "always"; false (and *out untouched) for anything else.
bool ParseSoakerMode(std::string_view s, SoakerMode* out);
const char* SoakerModeName(SoakerMode m);

// Per-CPU calibration.
struct SoakerCalibration {
  int cpu = -1;
  double iterations_per_second = 0;  // per second of the thread's own CPU time
  int64_t measured_unix_seconds = 0;
  // Measured while other work held the CPU (its thread queued) or far below
  // the other CPUs of its model: delivered idle reads high on it. Stored with
  // the mark; such a file is measured again at the next start.
  bool disturbed = false;
  std::string disturbed_why = {};  // "its thread ran 61 % of the time ..."; not stored
};

// What a calibration depends on; a stored calibration whose key differs is stale.
struct SoakerCalibrationKey {
  std::string cpu_model;      // /proc/cpuinfo "model name" of the first CPU
  std::string freq_driver;    // "" when there is no cpufreq (VMs)
  std::string freq_governor;  // ""
  int loop_version = kSoakerLoopVersion;
  int percentile = kSoakerBareMetalPercentile;  // of the slice rates (absent in older files: 95)
  bool operator==(const SoakerCalibrationKey&) const = default;
};

struct SoakerCalibrationFile {
  SoakerCalibrationKey key;
  std::vector<SoakerCalibration> cpus;  // sorted by cpu, unique
};

// Text form of the calibration file (versioned, line-oriented, see docs/soaker.md):
//   format 1
//   cpu_model AMD EPYC
//   freq_driver
//   freq_governor
//   loop_version 1
//   percentile 50
//   cpu 0 2087512.25 1732960000
// Blank lines, '#' comments and unknown keys are skipped. Key strings are stored
// trimmed and on one line (newlines in them become blanks). Parse returns
// Corruption "line N: ..." on a malformed line, and Corruption when format,
// cpu_model or loop_version is missing or there is no cpu line; *out is
// unspecified on failure.
std::string FormatSoakerCalibration(const SoakerCalibrationFile& f);
Status ParseSoakerCalibration(std::string_view text, SoakerCalibrationFile* out);

// Parses a CPU list ("0-3,5,7-8\n") as in /sys/devices/system/cpu/online into
// sorted, unique ids. Blank input gives an empty list. Corruption on junk, a
// reversed range, an empty element or an id past kMaxCpuId.
Status ParseCpuList(std::string_view text, std::vector<int>* out);
// The inverse for sorted unique ids: {0,1,2,3,5} -> "0-3,5"; {} -> "".
std::string FormatCpuList(const std::vector<int>& cpus);
// The CPUs the calling thread may run on (a container's cpuset, a taskset),
// sorted; empty when the kernel does not say.
std::vector<int> AllowedCpus();

// The CPU model in /proc/cpuinfo: the first "model name" (x86), else "cpu model"
// (MIPS), "cpu" (POWER) or "CPU part" (Arm) value, trimmed; "" when none.
std::string ParseCpuinfoModel(std::string_view cpuinfo);

// True when the first "flags" line of /proc/cpuinfo has the word "hypervisor"
// (x86 guests); false elsewhere, including architectures without that line.
bool ParseCpuinfoHypervisor(std::string_view cpuinfo);

// The percentile a calibration keeps for the configured `option`: 1-99 as
// given; 0 (auto) gives kSoakerVmPercentile on a hypervisor, else
// kSoakerBareMetalPercentile.
int SoakerCalibrationPercentile(int option, bool hypervisor);

// Reads the calibration key of the host behind `fs` (loop_version is
// kSoakerLoopVersion, percentile SoakerCalibrationPercentile(percentile_option,
// cpuinfo's hypervisor flag)). A missing cpufreq directory leaves driver and
// governor ""; a failure to read cpuinfo is returned.
Status ReadSoakerCalibrationKey(const HostFs& fs, int percentile_option, SoakerCalibrationKey* out);

// True when `f` was measured under `key` and has a positive rate for every CPU
// in `cpus`, each measured at most `max_age_seconds` before `now_unix_seconds`
// (and not more than that after it: a clock set back makes it stale too): a
// stored calibration that can be used as it is. max_age_seconds <= 0: no age
// limit.
bool SoakerCalibrationUsable(const SoakerCalibrationFile& f, const SoakerCalibrationKey& key,
                             const std::vector<int>& cpus, int64_t now_unix_seconds, double max_age_seconds);

// <state_dir>/soaker-calibration.
std::string SoakerCalibrationPath(const std::string& state_dir);
// Reads and parses the calibration file; NotFound when there is none.
Status LoadSoakerCalibration(const std::string& path, SoakerCalibrationFile* out);
// Writes the file atomically (temporary file, fsync, rename), creating
// `state_dir` when missing.
Status StoreSoakerCalibration(const std::string& state_dir, const SoakerCalibrationFile& f);

// One CPU's cumulative soaker counters at a tick.
struct SoakerCpu {
  int cpu = -1;
  uint64_t iterations = 0;              // completed work units since the thread started
  uint64_t thread_cpu_ns = 0;           // the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) since it started
  uint64_t generation = 0;              // unique per thread in the process: a change means counters restarted
  double iterations_per_second = 0;     // calibration in use
  int64_t calibrated_unix_seconds = 0;  // when that calibration was measured
  bool calibration_borrowed = false;    // CPU came online uncalibrated: median of the others
  // CPU time this Soaker's calibrations spent on the CPU (at normal priority,
  // so it preempts the loop and reads as busy in /proc/stat) since the Soaker
  // was made: the daemon's own work, never the CPU's (SoakerReading::
  // calibration_generation). A CPU only calibrated so far has no thread:
  // generation, iterations and thread_cpu_ns 0.
  uint64_t calibration_cpu_ns = 0;
  bool operator==(const SoakerCpu&) const = default;
};

struct SoakerReading {
  int64_t mono_ns = 0;                   // CLOCK_MONOTONIC when the counters were read
  std::vector<SoakerCpu> cpus;           // sorted by cpu
  bool sched_idle = true;                // false: running at nice 19 (SCHED_IDLE refused or disabled)
  int64_t calibration_unix_seconds = 0;  // oldest calibration in use
  // False while the Soaker's threads do not run (a calibration in the
  // background before it starts): the reading then carries only the
  // calibration's CPU time.
  bool running = true;
  // Unique per Soaker in the process: calibration_cpu_ns counts from 0 again
  // when it changes.
  uint64_t calibration_generation = 0;
  // "" or what limits the figures, for the metric help and the log: nice-19
  // fallback, CPUs that refused the affinity (not measured), calibration kept
  // in memory only, borrowed calibrations. Changes rarely; log it when it does.
  std::string caveat;
  bool operator==(const SoakerReading&) const = default;
};

struct SoakerOptions {
  SoakerMode mode = SoakerMode::kRuns;
  std::string state_dir = "/var/lib/bottleneckd";
  // Calibration length per CPU in thread CPU seconds (5 ms slices; keeps the
  // calibration_percentile; at least 10 slices, so >= 0.05). Wall time is capped at
  // 8x this + 1 s on a busy host: Start() may take that long.
  double calibration_seconds = 0.5;
  // A stored calibration older than this is measured again when the soaker
  // starts (each run in mode "runs"): a VM's host changes how fast it runs the
  // loop over minutes to hours, and live migration moves it to another host.
  // <= 0: no age limit (only a changed key makes it stale).
  double calibration_max_age_seconds = 3600;
  // Slice-rate percentile kept: 0 = auto (SoakerCalibrationPercentile), or 1-99.
  // Part of the calibration key: changing it makes a stored calibration stale.
  int calibration_percentile = 0;
  // Use SCHED_IDLE; false runs the threads at nice 19 (what the fallback does).
  bool sched_idle = true;
  // How often Read() re-reads the online CPU list (tests use 0: every Read).
  double hotplug_check_seconds = 1.0;
};

class Soaker : public Source {
 public:
  // `fs` must outlive the Soaker. Nothing starts until Start().
  Soaker(const HostFs* fs, SoakerOptions options);
  ~Soaker() override;  // stops the threads
  Soaker(const Soaker&) = delete;
  Soaker& operator=(const Soaker&) = delete;

  // mode kOff: does nothing and returns OK. Otherwise loads the stored
  // calibration (or calibrates and stores it when missing or stale), then starts
  // one thread per online CPU in the calling thread's affinity mask (a
  // container's cpuset or a taskset; CPUs outside it are named in caveat()). A calibration that cannot be stored is
  // kept in memory (said in caveat()) and the soaker still starts. Errors: the online list or cpuinfo cannot be read,
  // or no CPU could be calibrated. Idempotent.
  Status Start() LOCKS_EXCLUDED(mu_, calibrate_mu_) override;
  // Stops and joins every thread. Idempotent. Blocks until each thread (at
  // SCHED_IDLE, so possibly starved) has seen its stop flag.
  void Stop() LOCKS_EXCLUDED(mu_) override;
  bool running() const LOCKS_EXCLUDED(mu_);

  // Measures every online CPU now (at most a few seconds; runs alongside the
  // soaker threads, which it preempts) and stores the result. *out and the
  // calibration in use are updated even when storing fails (that error is
  // returned). Thread-safe; concurrent calls are serialised.
  Status Calibrate(SoakerCalibrationFile* out) LOCKS_EXCLUDED(mu_, calibrate_mu_);

  // Whether the calibration stored in the state directory is the one Start()
  // would load rather than measure: readable, made for this host's key, for
  // every CPU the soaker would run on, and younger than calibration_max_age;
  // and, unlike what Start loads, with no CPU's calibration disturbed (the
  // daemon's start measures those again, before any run).
  // False also when the key or the CPU list cannot be read. Thread-safe.
  bool StoredCalibrationUsable() LOCKS_EXCLUDED(mu_, calibrate_mu_);
  // Makes a Calibrate (or a Start that calibrates) in another thread return
  // within a millisecond, with an error and nothing stored; for shutdown.
  // Every later calibration of this Soaker fails at once. Thread-safe.
  void CancelCalibration() { cancel_calibration_.store(true); }

  // Fills *out with the counters of every running thread, and the CPU time
  // the calibrations spent on each CPU (also before Start: a calibration in
  // another thread is read while it runs). Also notices CPU
  // hotplug (re-reads the online list at most every hotplug_check_seconds): a
  // CPU that went offline loses its thread, one that came online gets a thread
  // with a new generation (Read waits for the new thread's set-up, normally
  // well under a millisecond). Never waits for a stopping thread. Thread-safe.
  void Read(SoakerReading* out) LOCKS_EXCLUDED(mu_);
  // Source: sets out->soaker to Read()'s reading; always OK.
  Status Read(Sample* out) override;
  std::string_view name() const override { return "soaker"; }

  // The same text as SoakerReading::caveat.
  std::string caveat() const LOCKS_EXCLUDED(mu_);

 private:
  struct Worker;
  Status LoadOrCalibrate() LOCKS_EXCLUDED(mu_, calibrate_mu_);
  // The calibration key and the CPUs to measure (ListCpus under mu_).
  Status KeyAndCpus(SoakerCalibrationKey* key, std::vector<int>* cpus) LOCKS_EXCLUDED(mu_);
  // Loads the stored calibration into *f; true when it is usable for key and
  // cpus now (the rule of StoredCalibrationUsable).
  bool LoadUsable(const SoakerCalibrationKey& key, const std::vector<int>& cpus, SoakerCalibrationFile* f) const;
  Status MeasureAndStore(const std::vector<int>& cpus, const SoakerCalibrationKey& key, SoakerCalibrationFile* out)
      EXCLUSIVE_LOCKS_REQUIRED(calibrate_mu_) LOCKS_EXCLUDED(mu_);
  // The counter of cpu's calibration time, made on first use.
  std::atomic<uint64_t>* CalibrationCounter(int cpu) LOCKS_EXCLUDED(mu_);
  // Online CPUs this process may pin to; the others go in the "affinity" caveat.
  Status ListCpus(std::vector<int>* cpus) EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Status SyncThreads() EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StartWorker(int cpu) EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RetireWorker(size_t i) EXCLUSIVE_LOCKS_REQUIRED(mu_);  // stop now, join later
  void ReapRetired() EXCLUSIVE_LOCKS_REQUIRED(mu_);           // joins those that exited
  // Caveats by topic ("sched", "affinity", ...): a new text replaces the
  // topic's old one, "" removes it.
  void SetCaveat(const std::string& topic, const std::string& text) EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SetCalibration(const SoakerCalibrationFile& f) EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void UpdateBorrowedCaveat() EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const HostFs* fs_;
  SoakerOptions options_;
  Mutex calibrate_mu_ ACQUIRED_BEFORE(mu_);  // serialises calibrations
  std::atomic<bool> cancel_calibration_{false};
  mutable Mutex mu_;
  std::vector<std::unique_ptr<Worker>> workers_ GUARDED_BY(mu_);  // sorted by cpu
  std::vector<std::unique_ptr<Worker>> retired_ GUARDED_BY(mu_);  // stopping, not yet joined
  std::vector<int> unpinnable_ GUARDED_BY(mu_);                   // affinity refused
  SoakerCalibrationFile calibration_ GUARDED_BY(mu_);
  SoakerCalibration borrowed_ GUARDED_BY(mu_);  // median, for new CPUs
  bool running_ GUARDED_BY(mu_) = false;
  bool sched_idle_ GUARDED_BY(mu_) = true;
  int64_t last_online_check_ns_ GUARDED_BY(mu_) = 0;
  std::map<std::string, std::string> caveats_ GUARDED_BY(mu_);
  std::string caveat_text_ GUARDED_BY(mu_);  // caveats_ joined
  std::string online_buf_ GUARDED_BY(mu_);
  // Each CPU's calibration CPU time (CalibrateCpu adds to it as it runs).
  std::map<int, std::unique_ptr<std::atomic<uint64_t>>> calibration_ns_ GUARDED_BY(mu_);
  const uint64_t calibration_generation_;
};

// The recording's soaker file (docs/recording-format.md, "soaker";
// sources/soaker_reading_file.cc). Parse errors are InvalidArgument "line N: ...".
std::string SoakerFileText(const SoakerReading& r);
Status ParseSoakerFile(std::string_view text, SoakerReading* out);

}  // namespace bottleneckd
