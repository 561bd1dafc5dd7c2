#include "collectors/threads.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <string>

#include "base/parse_util.h"
#include "collectors/host_readings.h"
#include "collectors/pid_stat_fields.h"

namespace bottleneckd {
namespace {

using pid_stat::kProcessor;
using pid_stat::kState;
using pid_stat::kStime;
using pid_stat::kUtime;

// Name scans of the procfs root happen at most once per this many Collect calls,
// or sooner when a cached pid disappears.
constexpr int kRescanEvery = 10;

// A thread's wait is read as (syscall, wchan, syscall) at most this many
// times a tick (ReadTaskState). More cost more than they find: the kernel
// may sleep a jiffy in each syscall read of a sleeper still on its run
// queue, and eight tries (128 retries a tick) slowed the lab daemon's ticks
// so that its metrics poller got one scrape in 41 s of lab.echo's wait
// scenario (a fresh-clone CI of ae210a3).
constexpr int kWaitReads = 2;

bool ParseInt(std::string_view s, int* out) {
  uint64_t v = 0;
  if (!ParseU64(s, &v) || v > INT_MAX) return false;
  *out = static_cast<int>(v);
  return true;
}

bool IsNumeric(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// /proc/PID/comm holds at most 15 characters: a longer target name matches its prefix.
bool CommMatches(std::string_view comm, std::string_view name) {
  constexpr size_t kCommMax = 15;
  if (comm == name) return true;
  return comm.size() == kCommMax && name.size() > kCommMax && StartsWith(name, comm);
}

}  // namespace

Status ParseTaskStat(std::string_view text, TaskStat* out) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return Status::Corruption("task stat without (comm)");
  }
  int tid = 0;
  std::string_view tid_text = Trim(text.substr(0, open));
  if (!ParseInt(tid_text, &tid) || tid == 0) {
    return Status::Corruption("bad tid '" + std::string(tid_text) + "'");
  }
  std::string_view rest = Trim(text.substr(close + 1));
  char state = '?';
  uint64_t utime = 0, stime = 0;
  int processor = -1;
  size_t i = 0;
  for (std::string_view tok = NextToken(&rest); !tok.empty(); tok = NextToken(&rest), ++i) {
    bool good = true;
    switch (i) {
      case kState:
        good = tok.size() == 1;
        state = tok.front();
        break;
      case kUtime: good = ParseU64(tok, &utime); break;
      case kStime: good = ParseU64(tok, &stime); break;
      case kProcessor: good = ParseInt(tok, &processor); break;
      default: break;  // other fields may be negative or added by newer kernels
    }
    if (!good) {
      return Status::Corruption("task " + std::to_string(tid) + ": bad field " + std::to_string(i + 3) + " '" +
                                std::string(tok) + "'");
    }
  }
  if (i <= kStime) {
    return Status::Corruption("task " + std::to_string(tid) + ": truncated after " + std::to_string(i + 2) + " fields");
  }
  out->tid = tid;
  out->comm.assign(text.substr(open + 1, close - open - 1));
  out->state = state;
  out->utime = utime;
  out->stime = stime;
  out->processor = processor;
  return Status::OK();
}

Status ThreadsCollector::ScanNames(const HostFs& fs) {
  name_pids_.clear();
  BN_RETURN_IF_ERROR(fs.ListProc("", &names_));
  for (const std::string& n : names_) {
    int pid = 0;
    if (!IsNumeric(n) || !ParseInt(n, &pid)) continue;
    path_.assign(n).append("/comm");
    if (!fs.ReadProc(path_, &buf_).ok()) continue;  // gone, or not ours to read
    std::string_view comm = Trim(buf_);
    for (const ThreadTarget& t : options_.targets) {
      if (!t.pid && !t.name.empty() && CommMatches(comm, t.name)) {
        name_pids_.push_back(pid);
        break;
      }
    }
  }
  std::sort(name_pids_.begin(), name_pids_.end());
  calls_since_scan_ = 0;
  need_scan_ = false;
  return Status::OK();
}

Status ThreadsCollector::CollectPid(const HostFs& fs, int pid, std::vector<ThreadSample>* out, bool* vanished) {
  *vanished = false;
  std::string pid_text = std::to_string(pid);
  path_.assign(pid_text).append("/comm");
  Status s = fs.ReadProc(path_, &buf_);
  if (s.ok()) {
    process_.assign(Trim(buf_));
    path_.assign(pid_text).append("/task");
    s = fs.ListProc(path_, &names_);
  }
  if (s.IsNotFound()) {
    *vanished = true;
    return Status::OK();
  }
  BN_RETURN_IF_ERROR(s);
  for (const std::string& tid : names_) {
    path_.assign(pid_text).append("/task/").append(tid).append("/stat");
    s = fs.ReadProc(path_, &buf_);
    // An exiting thread: ENOENT on open, ESRCH or an empty read after it.
    if (!s.ok() || buf_.empty()) {
      if (s.ok() || s.IsNotFound() || !TaskExists(fs, pid_text, tid)) continue;
      return s;
    }
    ThreadSample& t = out->emplace_back();
    t.pid = pid;
    t.process = process_;
    s = ParseTaskStat(buf_, &t.task);
    if (!s.ok()) return s.WithContext(fs.ProcPath(path_));
    ReadTaskState(fs, pid_text, tid, &t);
  }
  return Status::OK();
}

// Reads one file of the task directory into buf_; false (with the reason
// noted, unless it is an expected absence) when it cannot be read.
// `private_file`: wchan and syscall, which need ptrace access to the task.
bool ThreadsCollector::ReadTaskFile(const HostFs& fs, const std::string& pid, const std::string& tid,
                                    std::string_view name, bool private_file, bool* hidden) {
  path_.assign(pid).append("/task/").append(tid).append("/").append(name);
  Status s = fs.ReadProc(path_, &buf_);
  if (s.ok()) return true;
  // Not ours to inspect (no ptrace access): unknown, and said so.
  if (private_file && s.IsPermissionDenied()) {
    if (hidden) *hidden = true;
  } else {
    LeftOut(fs.ProcPath(path_), s);
  }
  return false;
}

void ThreadsCollector::ReadTaskState(const HostFs& fs, const std::string& pid, const std::string& tid,
                                     ThreadSample* t) {
  auto parsed = [&](const Status& s) {
    if (!s.ok()) LeftOut(fs.ProcPath(path_), s);
    return s.ok();
  };
  if (ReadTaskFile(fs, pid, tid, "schedstat", false)) {
    TaskSchedstat st;
    if (parsed(ParseTaskSchedstat(buf_, &st))) t->schedstat = st;
  }
  if (ReadTaskFile(fs, pid, tid, "status", false)) {
    TaskSwitches sw;
    if (parsed(ParseTaskStatusSwitches(buf_, &sw))) t->switches = sw;
  }
  // wchan and syscall are two reads: a thread that moved between them (a
  // convoy's thread woken from its futex and asleep in clock_nanosleep
  // 50 us later) paired one wait's function with the next one's call,
  // "futex_do_wait (clock_nanosleep)" in 9 of a thread's 18 samples (a
  // fresh-clone CI of 414b4be, lab.echo's convoy: its lock read as a
  // sleep). So syscall is read before and after wchan, and the pair is
  // kept only when both reads agree.
  // A thread running at the first read has no wait to pair; one that
  // disagrees twice, or runs at the second try, is unseen this tick (a
  // stale first wchan is not kept beside a "running" call).
  bool consistent = false;
  for (int attempt = 0; attempt < kWaitReads && !consistent; ++attempt) {
    if (!ReadTaskFile(fs, pid, tid, "syscall", true, &t->wait.hidden)) break;
    if (buf_.rfind("running", 0) == 0) {
      if (attempt > 0) break;
      consistent = true;
      break;
    }
    syscall_first_.swap(buf_);
    if (!ReadTaskFile(fs, pid, tid, "wchan", true, &t->wait.hidden)) break;
    t->wait.wchan = ParseTaskWchan(buf_);
    if (!ReadTaskFile(fs, pid, tid, "syscall", true, &t->wait.hidden)) break;
    consistent = buf_ == syscall_first_;
  }
  if (!consistent) t->wait.wchan.clear();
  if (consistent && parsed(ParseTaskSyscall(buf_, &t->wait.syscall, &t->wait.args)) && t->wait.syscall &&
      *t->wait.syscall >= 0)
    objects_.Resolve(fs, t->pid, SyscallName(*t->wait.syscall), t->wait.args, &t->wait.object);
}

void ThreadsCollector::AddRunDescendants(const HostFs& fs) {
  // Breadth first from the commands: each process's threads' children
  // files list the processes it forked (CONFIG_PROC_CHILDREN; without it,
  // only the commands themselves are followed).
  std::vector<int> run(run_pids_.begin(), run_pids_.end());
  if (run.size() > kMaxRunProcesses) run.resize(kMaxRunProcesses);
  for (size_t i = 0; i < run.size() && run.size() < kMaxRunProcesses; ++i) {
    const std::string pid = std::to_string(run[i]);
    if (!fs.ListProc(pid + "/task", &names_).ok()) continue;  // gone
    // The main thread's children first, then at most 15 other threads'
    // (a process of thousands of threads costs no thousand reads a tick).
    auto main = std::find(names_.begin(), names_.end(), pid);
    if (main != names_.end()) std::iter_swap(names_.begin(), main);
    if (names_.size() > 16) names_.resize(16);
    for (const std::string& tid : names_) {
      if (!fs.ReadProc(pid + "/task/" + tid + "/children", &buf_).ok()) continue;
      for (std::string_view rest(buf_); !rest.empty();) {
        const size_t space = rest.find(' ');
        int child = 0;
        std::string_view word = rest.substr(0, space);
        if (std::from_chars(word.data(), word.data() + word.size(), child).ec == std::errc() && child > 0 &&
            std::find(run.begin(), run.end(), child) == run.end() && run.size() < kMaxRunProcesses)
          run.push_back(child);
        rest.remove_prefix(space == std::string_view::npos ? rest.size() : space + 1);
      }
    }
  }
  pids_.insert(pids_.end(), run.begin(), run.end());
}

bool ThreadsCollector::TaskExists(const HostFs& fs, const std::string& pid, const std::string& tid) {
  std::vector<std::string> tids;
  if (!fs.ListProc(pid + "/task", &tids).ok()) return false;
  return std::binary_search(tids.begin(), tids.end(), tid);
}

Status ThreadsCollector::Collect(const HostFs& fs, HostReadings* out) {
  std::vector<ThreadSample>& threads = out->threads ? *out->threads : out->threads.emplace();
  threads.clear();
  std::vector<InputSocket>& inputs = out->input_sockets ? *out->input_sockets : out->input_sockets.emplace();
  inputs.clear();
  bool by_name = false;
  pids_.clear();
  for (const ThreadTarget& t : options_.targets) {
    if (t.pid) {
      pids_.push_back(*t.pid);
    } else if (!t.name.empty()) {
      by_name = true;
    }
  }
  if (by_name && (need_scan_ || ++calls_since_scan_ >= kRescanEvery)) {
    Status s = ScanNames(fs);
    if (!s.ok()) {
      out->threads.reset();
      out->input_sockets.reset();
      return s;
    }
  }
  if (by_name) pids_.insert(pids_.end(), name_pids_.begin(), name_pids_.end());
  std::sort(pids_.begin(), pids_.end());
  pids_.erase(std::unique(pids_.begin(), pids_.end()), pids_.end());
  targeted_ = pids_;
  AddRunDescendants(fs);
  std::sort(pids_.begin(), pids_.end());
  pids_.erase(std::unique(pids_.begin(), pids_.end()), pids_.end());
  for (int pid : pids_) {
    bool vanished = false;
    const size_t first = threads.size();
    Status s = CollectPid(fs, pid, &threads, &vanished);
    if (!s.ok()) {
      out->threads.reset();
      out->input_sockets.reset();
      return s;
    }
    const bool run_only = !std::binary_search(targeted_.begin(), targeted_.end(), pid);
    for (size_t i = first; i < threads.size(); ++i) threads[i].run_only = run_only;
    // A run-only process is not judged: its inputs are not read.
    if (!vanished && !run_only) inputs_.Collect(fs, pid, &inputs);
    if (vanished && std::binary_search(name_pids_.begin(), name_pids_.end(), pid)) {
      need_scan_ = true;  // the next call finds its successor, if any
    }
  }
  objects_.Keep(pids_);
  inputs_.Keep(pids_);
  for (const ThreadSample& t : threads) {
    std::pair<int, int> device;
    // Major 0 is no block device (tmpfs, overlay, NFS): not in diskstats.
    if (t.wait.object.kind == WaitObject::Kind::kFile && ParseDeviceNumber(t.wait.object.device, &device) &&
        device.first != 0 && std::find(disk_devices_.begin(), disk_devices_.end(), device) == disk_devices_.end() &&
        disk_devices_.size() < kMaxDisks)
      disk_devices_.push_back(device);
  }
  if (!disk_devices_.empty()) {
    std::vector<DiskStat>& disks = out->disks ? *out->disks : out->disks.emplace();
    if (!fs.ReadProc("diskstats", &buf_).ok() || !ParseProcDiskstats(buf_, &disks, &disk_devices_).ok())
      out->disks.reset();
  }
  return Status::OK();
}

}  // namespace bottleneckd
