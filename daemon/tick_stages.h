// Where one tick's time went, stage by stage, said in the warning when a
// tick overran its interval: which stage stalled (the collectors and which
// of them, the continuous sources, the analysis, the runs and their store,
// the publish). The labs of issue 49 saw ticks of 13 and 21 s under light
// load with nothing else running, and the skip warning alone could not say
// where the time went.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace bottleneckd {

class TickStages {
 public:
  using Clock = std::chrono::steady_clock;

  // A new tick: the stages and the slowest collector are forgotten.
  void Start();
  // The time since Start or the previous Mark was stage `name`'s.
  void Mark(const char* name);
  // A stage's time given outright (tests, and Mark).
  void Add(const char* name, double seconds);
  // A collector's (or source's) own read time, from the sample's results:
  // the slowest is kept and named beside the stages.
  void Collector(const std::string& name, double seconds);

  double total_seconds() const;
  // "collectors 12.912 s (slowest: threads 12.905 s), analysis 0.004 s,
  // runs and their store 0.002 s": the three slowest stages, most first.
  std::string Slowest() const;

 private:
  Clock::time_point at_{};
  std::vector<std::pair<const char*, double>> stages_;
  std::string slowest_collector_;
  double slowest_collector_seconds_ = -1;
};

}  // namespace bottleneckd
