// The soaker threads' lifecycle and CPU hotplug, all under mu_: which CPUs get
// a thread (online and inside the daemon's CPU affinity: ListCpus), starting
// one and taking in what its set-up did (StartWorker: the "sched", "pin" and
// "thread" caveats), and for a CPU that went away stopping its thread at once
// and joining it once it has exited (SyncThreads, RetireWorker, ReapRetired).
// The thread's body is in soaker_loop.cc.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <future>
#include <system_error>
#include <utility>
#include <vector>

#include "sources/soaker_internal.h"

namespace bottleneckd {
namespace {

// Thread generations, unique in the process: a reading from a Soaker that was
// destroyed never matches one from its successor.
std::atomic<uint64_t> next_generation{1};

}  // namespace

uint64_t NextSoakerGeneration() { return next_generation.fetch_add(1, std::memory_order_relaxed); }

std::vector<int> AllowedCpus() {
  std::vector<int> out;
  size_t size = CPU_ALLOC_SIZE(kMaxCpuId + 1);
  cpu_set_t* set = CPU_ALLOC(kMaxCpuId + 1);
  if (set == nullptr) return out;
  if (::sched_getaffinity(0, size, set) == 0) {
    const size_t count = static_cast<size_t>(CPU_COUNT_S(size, set));
    for (int c = 0; c <= kMaxCpuId && out.size() < count; ++c) {
      if (CPU_ISSET_S(c, size, set)) out.push_back(c);
    }
  }
  CPU_FREE(set);
  return out;
}

Status Soaker::ListCpus(std::vector<int>* cpus) {
  BN_RETURN_IF_ERROR(fs_->ReadSys("devices/system/cpu/online", &online_buf_));
  std::vector<int> online;
  BN_RETURN_IF_ERROR(ParseCpuList(online_buf_, &online).WithContext(fs_->SysPath("devices/system/cpu/online")));
  std::vector<int> allowed = AllowedCpus(), outside;
  cpus->clear();
  for (int c : online) {
    (std::binary_search(allowed.begin(), allowed.end(), c) ? cpus : &outside)->push_back(c);
  }
  SetCaveat("affinity", outside.empty() ? ""
                                        : "cpus " + FormatCpuList(outside) +
                                              " outside the daemon's CPU affinity (cpuset or "
                                              "taskset): not measured");
  return Status::OK();
}

Status Soaker::SyncThreads() {
  std::vector<int> cpus;
  BN_RETURN_IF_ERROR(ListCpus(&cpus));
  for (size_t i = workers_.size(); i-- > 0;) {
    if (!std::binary_search(cpus.begin(), cpus.end(), workers_[i]->cpu)) RetireWorker(i);
  }
  // A CPU that went away may accept the affinity when it is back.
  std::erase_if(unpinnable_, [&](int c) { return !std::binary_search(cpus.begin(), cpus.end(), c); });
  for (int c : cpus) {
    bool have = std::any_of(workers_.begin(), workers_.end(), [c](const auto& w) { return w->cpu == c; });
    if (!have && std::find(unpinnable_.begin(), unpinnable_.end(), c) == unpinnable_.end()) {
      StartWorker(c);
    }
  }
  std::sort(workers_.begin(), workers_.end(), [](const auto& a, const auto& b) { return a->cpu < b->cpu; });
  SetCaveat("pin",
            unpinnable_.empty() ? "" : "cpus " + FormatCpuList(unpinnable_) + " refused the affinity: not measured");
  UpdateBorrowedCaveat();
  return Status::OK();
}

void Soaker::StartWorker(int cpu) {
  auto w = std::make_unique<Worker>();
  w->cpu = cpu;
  w->generation = NextSoakerGeneration();
  std::promise<WorkerSetup> promise;
  std::future<WorkerSetup> future = promise.get_future();
  try {
    w->thread = std::thread(&Worker::Run, w.get(), options_.sched_idle, std::move(promise));
  } catch (const std::system_error& e) {  // out of threads: try again at the next check
    SetCaveat("thread", "cannot start a soaker thread: " + std::string(e.what()));
    return;
  }
  SetCaveat("thread", "");
  // The thread starts at normal priority: its set-up is done within moments.
  WorkerSetup s = future.get();
  if (s.pin_error != 0) {
    w->thread.join();
    unpinnable_.push_back(cpu);
    std::sort(unpinnable_.begin(), unpinnable_.end());
    return;
  }
  // The thread is alive now (it exits only when stopped or moved).
  w->clock_ok = ::pthread_getcpuclockid(w->thread.native_handle(), &w->clock) == 0;
  if (!s.sched_idle) {
    sched_idle_ = false;
    std::string why = options_.sched_idle ? "SCHED_IDLE refused (" + std::string(std::strerror(s.idle_error)) + ")"
                                          : "SCHED_IDLE disabled in the configuration";
    std::string text = why +
                       ": soaker threads run at nice 19, take about 1.5 % of a CPU from a "
                       "saturating nice-0 task and report it as idle";
    if (s.nice_error != 0) {
      text += "; nice 19 refused too (" + std::string(std::strerror(s.nice_error)) +
              "): the soaker competes with the workload as an equal";
    }
    SetCaveat("sched", text);
  }
  workers_.push_back(std::move(w));
}

void Soaker::RetireWorker(size_t i) {
  workers_[i]->stop.store(true, std::memory_order_relaxed);
  retired_.push_back(std::move(workers_[i]));
  workers_.erase(workers_.begin() + static_cast<std::ptrdiff_t>(i));
}

void Soaker::ReapRetired() {
  for (size_t i = retired_.size(); i-- > 0;) {
    if (!retired_[i]->exited.load(std::memory_order_acquire)) continue;
    retired_[i]->thread.join();  // it has returned: no wait
    retired_.erase(retired_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace bottleneckd
