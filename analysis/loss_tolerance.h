// When drops count as losing packets (VerdictThresholds' drop_floor_per_second
// and loss_ratio_min): a rung, a window or a step loses when its drops exceed
// the floor and are more than `ratio` of the offered load. One lost burst of a
// few packets in a light second (the echo lab's 0.07 % at 2 k/s) is not a
// limit. Used by the ladder (ExtractSignals) and the MLFRR (FindMlfrr).
#pragma once

namespace bottleneckd {

struct LossTolerance {
  double floor_per_second = 1;
  double ratio = 0.002;
  bool Losing(double drops_per_second, double offered_per_second) const {
    return drops_per_second > floor_per_second && drops_per_second > ratio * offered_per_second;
  }
};

}  // namespace bottleneckd
