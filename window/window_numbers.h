// The window's contract with analysis/ (docs/architecture.md, "Stage
// contracts"): every number a Window hands on is finite. A rate or ratio
// whose arithmetic gave no number (0/0, x/0, a counter at the edge of a
// double) is 0, or unset where the field is optional, so analysis/ reads
// the window's values as they are, and /metrics never shows NaN.
//
// ForEachWindowNumber is the one list of a Window's numbers: MakeWindowFinite
// (ComputeWindow's last step) enforces the contract over it, tests check it
// over the same list. A new double in a window struct goes on the list.
#pragma once

#include <functional>
#include <optional>

#include "window/window.h"

namespace bottleneckd {

// Calls `plain` with each double of *w and `optional` with each
// std::optional<double>, set or not, in every CPU, NIC, thread, soaker,
// capture, irqtime and wait site part.
void ForEachWindowNumber(Window* w, const std::function<void(double*)>& plain,
                         const std::function<void(std::optional<double>*)>& optional);

// Sets every double of *w that is not finite to 0 and unsets every such
// optional one; returns how many it changed.
int MakeWindowFinite(Window* w);

// Whether every number of w is finite (set optionals only).
bool WindowIsFinite(const Window& w);

}  // namespace bottleneckd
