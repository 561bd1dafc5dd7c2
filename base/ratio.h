// Ratios: a share of a whole, a number in [0, 1].
#pragma once

#include <algorithm>
#include <cmath>

namespace bottleneckd {

// v held to [0, 1]; a ratio that is no number (0/0, x/0) is 0, never NaN or
// infinity in a metric.
inline double Clamp01(double v) { return std::isfinite(v) ? std::clamp(v, 0.0, 1.0) : 0.0; }

}  // namespace bottleneckd
