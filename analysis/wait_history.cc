#include "analysis/wait_history.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace bottleneckd {

std::string WaitPlace(const std::string& wchan, const std::string& syscall) {
  bool in_call = !syscall.empty() && syscall != "none";
  if (wchan.empty()) return in_call ? "(" + syscall + ")" : "";
  return in_call ? wchan + " (" + syscall + ")" : wchan;
}

void WaitHistory::Record(Signals* s) {
  std::set<int> seen;
  for (ThreadSignal& th : s->threads) {
    if (!th.state) continue;
    seen.insert(th.tid);
    std::deque<std::string>& h = by_tid_[th.tid];
    h.push_back(WaitPlace(th.state->wchan, th.state->syscall));
    while (h.size() > static_cast<size_t>(kWaitSamples)) h.pop_front();
    // Samples of one kernel function count together: wchan and syscall are
    // two reads, and the thread may wake between them ("hrtimer_nanosleep"
    // beside "hrtimer_nanosleep (clock_nanosleep)"); the place keeps the
    // longest name it was seen with.
    std::map<std::string, ThreadState::Place> by_function;
    for (const std::string& p : h) {
      if (p.empty()) continue;
      ThreadState::Place& place = by_function[p.substr(0, p.find(" ("))];
      if (p.size() > place.where.size()) place.where = p;
      ++place.samples;
    }
    if (th.state->places_measured) continue;  // the window's measured waits say more
    std::vector<ThreadState::Place> places;
    for (auto& [function, place] : by_function) places.push_back(std::move(place));
    std::stable_sort(places.begin(), places.end(),
                     [](const ThreadState::Place& a, const ThreadState::Place& b) { return a.samples > b.samples; });
    th.state->places = std::move(places);
    th.state->place_samples = static_cast<int>(h.size());
  }
  std::erase_if(by_tid_, [&](const auto& e) { return !seen.count(e.first); });
}

}  // namespace bottleneckd
