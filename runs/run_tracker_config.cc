#include "runs/run_tracker_config.h"

namespace bottleneckd {

const FieldTable<RunTrackerOptions>& RunTrackerFields() {
  using T = RunTrackerOptions;
  static const FieldTable<T> kFields = [] {
    FieldTable<T> t = {
        DurationField("window", &T::window_seconds, {"runs.window", 1, 86400, "60s, 5m or 1h", true}),
        DurationField("keep_windows", &T::keep_windows_seconds, {"runs.keep_windows", 60, 3650 * 86400.0, "7d"}),
        BoolField("segments", &T::segments),
    };
    t.Add(FieldTable<SegmentOptions>{
        NumberField("segment_tolerance", &SegmentOptions::tolerance, 0.01, 1),
        WholeField("segment_min_windows", &SegmentOptions::min_windows, 2, 10000),
    }
              .Within(&T::segment));
    return t;
  }();
  return kFields;
}

}  // namespace bottleneckd
