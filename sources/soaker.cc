// The Soaker's public surface: construction, Start and Stop, the reading of
// every thread's counters each tick (Read, which also notices CPU hotplug and
// retires the threads that exited) and the caveats. The work loop is in
// soaker_loop.cc, the threads' lifecycle in soaker_workers.cc, calibrating in
// soaker_calibrate.cc, and the pure parts with the calibration file format in
// soaker_calibration_file.cc.
#include "sources/soaker.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <utility>

#include "base/clock.h"
#include "sources/sample.h"
#include "sources/soaker_internal.h"

namespace bottleneckd {

Soaker::Soaker(const HostFs* fs, SoakerOptions options)
    : fs_(fs), options_(std::move(options)), calibration_generation_(NextSoakerGeneration()) {}

Soaker::~Soaker() { Stop(); }

bool Soaker::running() const {
  MutexLock l(&mu_);
  return running_;
}

std::string Soaker::caveat() const {
  MutexLock l(&mu_);
  return caveat_text_;
}

Status Soaker::Start() {
  if (options_.mode == SoakerMode::kOff) return Status::OK();
  {
    MutexLock l(&mu_);
    if (running_) return Status::OK();
  }
  BN_RETURN_IF_ERROR(LoadOrCalibrate());
  MutexLock l(&mu_);
  if (running_) return Status::OK();
  last_online_check_ns_ = ClockNanos(CLOCK_MONOTONIC);
  BN_RETURN_IF_ERROR(SyncThreads());
  running_ = true;
  return Status::OK();
}

void Soaker::Stop() {
  std::vector<std::unique_ptr<Worker>> all;
  {
    MutexLock l(&mu_);
    running_ = false;
    for (auto& w : workers_) w->stop.store(true, std::memory_order_relaxed);
    for (auto& w : workers_) all.push_back(std::move(w));
    for (auto& w : retired_) all.push_back(std::move(w));
    workers_.clear();
    retired_.clear();
  }
  for (auto& w : all) w->thread.join();  // outside mu_: Read() is not held up
}

void Soaker::SetCaveat(const std::string& topic, const std::string& text) {
  auto it = caveats_.find(topic);
  if (text.empty() ? it == caveats_.end() : it != caveats_.end() && it->second == text) return;
  if (text.empty()) {
    caveats_.erase(it);
  } else {
    caveats_[topic] = text;
  }
  caveat_text_.clear();
  for (const auto& [t, line] : caveats_) {
    if (!caveat_text_.empty()) caveat_text_ += "; ";
    caveat_text_ += line;
  }
}

void Soaker::Read(SoakerReading* out) {
  MutexLock l(&mu_);
  out->cpus.clear();
  out->calibration_unix_seconds = 0;
  if (running_) {
    int64_t now = ClockNanos(CLOCK_MONOTONIC);
    if (static_cast<double>(now - last_online_check_ns_) >= options_.hotplug_check_seconds * 1e9) {
      last_online_check_ns_ = now;
      (void)SyncThreads();  // a failed re-read keeps the threads as they are
    }
    // A thread that noticed its CPU go away has exited; its CPU is left out
    // until the next online check restarts it (with a new generation).
    for (size_t i = workers_.size(); i-- > 0;) {
      if (workers_[i]->exited.load(std::memory_order_acquire)) RetireWorker(i);
    }
    ReapRetired();
  }
  out->mono_ns = ClockNanos(CLOCK_MONOTONIC);
  for (const auto& w : workers_) {
    int64_t cpu_ns = w->clock_ok ? ClockNanos(w->clock) : -1;
    if (cpu_ns < 0) continue;
    SoakerCpu& c = out->cpus.emplace_back();
    c.cpu = w->cpu;
    c.iterations = w->iterations.load(std::memory_order_relaxed);
    c.thread_cpu_ns = static_cast<uint64_t>(cpu_ns);
    c.generation = w->generation;
    auto it = std::find_if(calibration_.cpus.begin(), calibration_.cpus.end(),
                           [&](const SoakerCalibration& k) { return k.cpu == w->cpu; });
    const SoakerCalibration& cal = it != calibration_.cpus.end() ? *it : borrowed_;
    c.calibration_borrowed = it == calibration_.cpus.end();
    c.iterations_per_second = cal.iterations_per_second;
    c.calibrated_unix_seconds = cal.measured_unix_seconds;
    if (out->calibration_unix_seconds == 0 || cal.measured_unix_seconds < out->calibration_unix_seconds) {
      out->calibration_unix_seconds = cal.measured_unix_seconds;
    }
  }
  // The calibrations' time: on the CPU's thread, or a CPU of its own while
  // no thread runs there (a calibration before Start).
  for (const auto& [cpu, ns] : calibration_ns_) {
    auto it =
        std::lower_bound(out->cpus.begin(), out->cpus.end(), cpu, [](const SoakerCpu& c, int k) { return c.cpu < k; });
    if (it == out->cpus.end() || it->cpu != cpu) it = out->cpus.insert(it, SoakerCpu{.cpu = cpu});
    it->calibration_cpu_ns = ns->load(std::memory_order_relaxed);
  }
  out->running = running_;
  out->calibration_generation = calibration_generation_;
  out->sched_idle = sched_idle_;
  out->caveat = caveat_text_;  // reuses out's buffer
}

Status Soaker::Read(Sample* out) {
  Read(&out->soaker.emplace());
  return Status::OK();
}

}  // namespace bottleneckd
