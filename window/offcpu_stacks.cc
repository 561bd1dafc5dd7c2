#include "window/offcpu_stacks.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "window/offcpu_window.h"

namespace bottleneckd {
namespace {

// involuntary, sampled, where, stack: a site's wakers summed (a period under
// way moves from no waker to its waker between readings).
using StackKey = std::tuple<bool, bool, std::string, std::string>;

std::map<StackKey, uint64_t> StacksOf(const OffCpuReading& r, int tid) {
  std::map<StackKey, uint64_t> out;
  for (const OffCpuSite& s : r.sites)
    if (s.tid == tid) out[{s.involuntary, s.sampled, s.where, s.stack}] += s.ns;
  return out;
}

// "do_nanosleep (clock_nanosleep)" is at wchan "do_nanosleep".
bool AtSite(std::string_view where, std::string_view wchan) {
  return !wchan.empty() && where.substr(0, wchan.size()) == wchan &&
         (where.size() == wchan.size() || where[wchan.size()] == ' ');
}

void AddFoldedUs(std::string stack, double ns, FoldedProfile* out) {
  const uint64_t us = static_cast<uint64_t>(std::llround(ns / 1000));
  if (us > 0) AddFolded(stack, us, out);
}

// The thread's waiting the readings did not measure, at the place its
// window-end sample saw (none when it saw none).
void AddMissed(const OffCpuStackThread& t, FoldedProfile* out) {
  if (t.missed_seconds <= 0 || t.wait_function.empty()) return;
  std::string stack = FoldedFrame(t.thread.empty() ? "[unnamed]" : t.thread) + ";" +
                      FoldedFrame(t.syscall.empty() ? "(no system call)" : t.syscall) + kMissedMark + ";" +
                      FoldedFrame(t.wait_function) + " [kernel]";
  if (!t.object.empty()) stack += ";[" + FoldedFrame(t.object) + "]";
  AddFoldedUs(std::move(stack), t.missed_seconds * 1e9, out);
}

}  // namespace

void AddOffCpuStacks(const OffCpuReading& a, const OffCpuReading& b, const std::vector<OffCpuStackThread>& threads,
                     FoldedProfile* out) {
  if (a.generation != b.generation || b.mono_ns <= a.mono_ns) return;
  for (const OffCpuStackThread& t : threads) {
    if (!Follows(a, t.tid) || !Follows(b, t.tid)) continue;
    AddMissed(t, out);
    const std::map<StackKey, uint64_t> before = StacksOf(a, t.tid), after = StacksOf(b, t.tid);
    std::vector<std::pair<const StackKey*, double>> walked;
    double walked_ns = 0, all_ns = 0;
    bool went_down = false;
    for (const auto& [key, ns] : after) {
      auto was = before.find(key);
      const uint64_t old = was != before.end() ? was->second : 0;
      if (ns < old) went_down = true;
      if (ns <= old) continue;
      const double d = static_cast<double>(ns - old);
      all_ns += d;
      if (!std::get<1>(key)) continue;
      walked.emplace_back(&key, d);
      walked_ns += d;
    }
    if (went_down || all_ns <= 0) continue;
    const std::string root = FoldedFrame(t.thread.empty() ? "[unnamed]" : t.thread);
    auto add = [&](std::string stack, double ns) { AddFoldedUs(std::move(stack), ns, out); };
    if (walked_ns <= 0) {
      add(root + ";" + kNotWalkedFrame, all_ns);
      continue;
    }
    const double scale = all_ns / walked_ns;
    for (const auto& [key, ns] : walked) {
      const auto& [involuntary, sampled, where, stack] = *key;
      std::string folded = root + ";" + (stack.empty() ? std::string(kStackNotKeptFrame) : stack);
      if (involuntary)
        folded += std::string(";") + kPreemptedFrame;
      else if (!t.object.empty() && AtSite(where, t.wait_function))
        folded += ";[" + FoldedFrame(t.object) + "]";
      add(std::move(folded), ns * scale);
    }
  }
}

}  // namespace bottleneckd
