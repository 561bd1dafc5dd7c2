#include "analysis/wait_history.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "analysis/wait_class.h"

namespace bottleneckd {
namespace {

bool FutexPlace(const ThreadState::Place& p) {
  const std::string& w = p.where;
  return w.ends_with("(futex)") || w.ends_with("(futex_waitv)");
}

}  // namespace

std::vector<bool> WaitHistory::Counted(const std::deque<Sampled>& h, bool losing) {
  std::vector<bool> counted(h.size(), !losing);
  if (!losing) return counted;
  int waits = 0;
  for (size_t i = 0; i < h.size(); ++i)
    if (h[i].losing) counted[i] = true, waits += !h[i].place.empty();
  for (size_t i = h.size(); i-- > 0 && waits < kSampledPlacesMin;)
    if (!h[i].losing) counted[i] = true, waits += !h[i].place.empty();
  return counted;
}

std::string WaitPlace(const std::string& wchan, const std::string& syscall) {
  bool in_call = !syscall.empty() && syscall != "none";
  if (wchan.empty()) return in_call ? "(" + syscall + ")" : "";
  return in_call ? wchan + " (" + syscall + ")" : wchan;
}

void WaitHistory::Record(Signals* s) {
  std::set<int> seen;
  const bool losing = s->ladder.first_losing != Rung::kNone;
  for (ThreadSignal& th : s->threads) {
    if (!th.state) continue;
    seen.insert(th.tid);
    std::deque<Sampled>& h = by_tid_[th.tid];
    h.push_back({WaitPlace(th.state->wchan, th.state->syscall), th.state->object, th.state->object_peer, losing});
    while (h.size() > static_cast<size_t>(kWaitSamples)) h.pop_front();
    const std::vector<bool> counted = Counted(h, losing);
    // Samples of one kernel function count together: wchan and syscall are
    // two reads, and the thread may wake between them ("hrtimer_nanosleep"
    // beside "hrtimer_nanosleep (clock_nanosleep)"); the place keeps the
    // longest name it was seen with, and the object seen most in it.
    std::map<std::string, ThreadState::Place> by_function;
    std::map<std::string, std::map<std::string, int>> objects;  // function -> object -> samples
    for (size_t i = 0; i < h.size(); ++i) {
      const Sampled& p = h[i];
      if (p.place.empty() || !counted[i]) continue;
      const std::string function = p.place.substr(0, p.place.find(" ("));
      ThreadState::Place& place = by_function[function];
      if (p.place.size() > place.where.size()) place.where = p.place;
      ++place.samples;
      if (!p.object.empty()) {
        ++place.object_samples;
        ++objects[function][p.object];
      }
      if (p.peer) ++place.peer_samples;
    }
    for (auto& [function, place] : by_function) {
      int most = 0;
      for (const auto& [object, n] : objects[function])
        if (n > most) most = n, place.object = object;
    }
    th.state->place_samples = static_cast<int>(std::count(counted.begin(), counted.end(), true));
    if (th.state->places_measured) {
      // The window's measured waits say how long; the samples say on what.
      for (ThreadState::Place& m : th.state->places) {
        auto it = by_function.find(m.where.substr(0, m.where.find(" (")));
        if (it == by_function.end()) continue;
        m.object_samples = it->second.object_samples;
        m.peer_samples = it->second.peer_samples;
        m.object = it->second.object;
      }
      continue;
    }
    std::vector<ThreadState::Place> places;
    for (auto& [function, place] : by_function) places.push_back(std::move(place));
    std::stable_sort(places.begin(), places.end(),
                     [](const ThreadState::Place& a, const ThreadState::Place& b) { return a.samples > b.samples; });
    th.state->places = std::move(places);
  }
  std::erase_if(by_tid_, [&](const auto& e) { return !seen.count(e.first); });
  std::erase_if(receiver_, [&](const auto& e) { return !seen.count(e.first); });
  MarkHandoffs(s);
}

void WaitHistory::MarkHandoffs(Signals* s) {
  for (ThreadSignal& th : s->threads) {
    if (!th.state) continue;
    bool& receiver = receiver_[th.tid];
    for (const ThreadState::Place& p : th.state->places)
      if (WaitedForInput(p)) receiver = true;
    th.state->receiver = receiver;
  }
  for (ThreadSignal& th : s->threads) {
    if (!th.state || th.state->receiver) continue;
    for (ThreadState::Place& p : th.state->places) {
      if (!FutexPlace(p)) continue;
      p.handoff = 0;
      for (const WakerShare& w : p.wakers) {
        auto it = receiver_.find(w.tid);
        if (w.tid > 0 && w.tid != th.tid && it != receiver_.end() && it->second) p.handoff += w.ratio;
      }
    }
  }
}

}  // namespace bottleneckd
