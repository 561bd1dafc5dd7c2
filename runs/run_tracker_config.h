// The run tracker's keys of the config's `runs` section (docs/runs.md):
// continuous window runs and segmentation. The section's other keys (the
// control socket, the store) are the daemon's (daemon/config.cc).
#pragma once

#include "base/config_fields.h"
#include "runs/run_tracker.h"

namespace bottleneckd {

// window, keep_windows, segments, segment_tolerance, segment_min_windows.
const FieldTable<RunTrackerOptions>& RunTrackerFields();

}  // namespace bottleneckd
