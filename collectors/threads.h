// threads collector: CPU time and last CPU of each thread of configured target
// processes (by comm name or pid), and what it does off the CPU.
// Reads /proc/PID/comm and /proc/PID/task/TID/stat:
//   1234 (udpecho) R 1 1234 1234 0 -1 4194304 ... 42 17 ... 1 ...
//         field 14 utime, 15 stime (USER_HZ ticks), 39 processor
// and the same task's schedstat, status, wchan and syscall
// (collectors/task_state.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector.h"
#include "collectors/collectors_config.h"
#include "collectors/diskstats.h"
#include "collectors/input_sockets.h"
#include "collectors/task_state.h"

namespace bottleneckd {

struct TaskStat {
  int tid = 0;
  std::string comm;  // between the outermost parentheses; may hold spaces and ')'
  char state = '?';
  uint64_t utime = 0, stime = 0;  // USER_HZ ticks (base/kernel_units.h: TicksToSeconds)
  int processor = -1;             // CPU last run on
};

// Parses one /proc/PID/task/TID/stat line. Corruption without "(comm)", with a
// bad tid, state, utime, stime or processor, or when the line ends before stime;
// a line ending before processor (field 39) leaves processor -1. *out is
// written only on success.
Status ParseTaskStat(std::string_view text, TaskStat* out);

struct ThreadSample {
  int pid = 0;
  std::string process;  // comm of the pid
  TaskStat task;
  // Each nullopt (wait: empty) when its file is missing or unreadable: a
  // kernel without CONFIG_SCHED_INFO, a recording made before they were read,
  // or (wchan, syscall) a reader without ptrace access to the task.
  std::optional<TaskSchedstat> schedstat;
  std::optional<TaskSwitches> switches;
  TaskWait wait;
  // A thread of a process only a run follows (the command `bottleneckd run`
  // started: SetRunPids), not a configured target: read for where it waits
  // (offcpu's stacks), never judged by the rules nor walked by the profile
  // as a target (the wrapped command is often the load generator).
  bool run_only = false;
};

class ThreadsCollector : public Collector {
 public:
  explicit ThreadsCollector(const ThreadsOptions& options) : options_(options) {}
  std::string_view name() const override { return "threads"; }
  // Fills out->threads with every thread of every target (empty without
  // targets), and out->input_sockets with their processes' inputs
  // (collectors/input_sockets.h), and out->disks once a target thread
  // waited on a file on a device (collectors/diskstats.h; unset when
  // /proc/diskstats cannot be read, which is not this collector's error). Name targets match /proc/PID/comm exactly (a
  // name longer than 15 characters matches its 15-character prefix); their pids are cached and the procfs root is
  // rescanned every 10 calls or when a cached pid disappears. A process or thread that vanishes while being read is
  // skipped, not an error. A task's schedstat, status, wchan or syscall file that cannot be read or parsed leaves that
  // part unknown (counted in unreadable_files()); only a bad stat line is an error.
  Status Collect(const HostFs& fs, HostReadings* out) override;
  // Named targets are looked for again at the next Collect (otherwise every
  // kRescanEvery ticks, or when one vanishes): a run's start, so a process
  // started just before it is followed from the run's first window.
  void Rescan() override { need_scan_ = true; }
  // The runs' commands: read as pid targets too (collectors/collector.h),
  // with their descendants (/proc/PID/task/TID/children: a shell's
  // program, a server's workers), at most kMaxRunProcesses.
  void SetRunPids(const std::vector<int>& pids) override { run_pids_ = pids; }
  static constexpr size_t kMaxRunProcesses = 64;
  // (Their threads are marked ThreadSample::run_only unless a configured
  // target names the process too.)

 private:
  Status ScanNames(const HostFs& fs);
  // Appends the descendants of run_pids_ to pids_ (kMaxRunProcesses in all).
  void AddRunDescendants(const HostFs& fs);
  // Appends pid's threads to *out; *vanished when the process is gone.
  Status CollectPid(const HostFs& fs, int pid, std::vector<ThreadSample>* out, bool* vanished);
  static bool TaskExists(const HostFs& fs, const std::string& pid, const std::string& tid);
  void ReadTaskState(const HostFs& fs, const std::string& pid, const std::string& tid, ThreadSample* t);
  // *hidden (when given) is set when a private file was refused: no ptrace access.
  bool ReadTaskFile(const HostFs& fs, const std::string& pid, const std::string& tid, std::string_view name,
                    bool private_file, bool* hidden = nullptr);

  ThreadsOptions options_;
  std::string buf_;
  std::string syscall_first_;  // ReadTaskState's first syscall read, kept to compare
  std::string path_;
  std::string process_;
  std::vector<std::string> names_;  // directory listing scratch
  std::vector<int> pids_;           // this call's pids, sorted, unique
  std::vector<int> name_pids_;      // cached pids of name targets, sorted
  std::vector<int> run_pids_;       // the active runs' processes (SetRunPids)
  std::vector<int> targeted_;       // this call's configured and named pids, sorted
  int calls_since_scan_ = 0;
  bool need_scan_ = true;       // set by Rescan, a vanished target, and at start
  WaitObjectResolver objects_;  // what a blocked thread's descriptor names
  InputSocketFinder inputs_;    // the targets' unconnected UDP sockets
  // The devices target threads were seen waiting on a file of: from the
  // first, each call reads /proc/diskstats for them (collectors/diskstats.h).
  static constexpr size_t kMaxDisks = 64;
  std::vector<std::pair<int, int>> disk_devices_;  // (major, minor) of those files, read each tick
};

}  // namespace bottleneckd
