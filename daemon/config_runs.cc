// The runs section of the config: run control, the run store, continuous
// window runs and segmentation (docs/runs.md). Every key is optional.
#include "base/config_reader.h"
#include "base/unix_group.h"
#include "daemon/config.h"

namespace bottleneckd {

Status ParseRuns(const ConfigReader& r, const YAML::Node& n, RunsConfig* out) {
  BN_RETURN_IF_ERROR(r.Map(n, "runs",
                           {"control_socket", "control_group", "store", "window", "keep_windows", "segments",
                            "segment_tolerance", "segment_min_windows"}));
  if (!n.IsDefined() || n.IsNull()) return Status::OK();
  BN_RETURN_IF_ERROR(r.Line(n, "control_socket", &out->control_socket));
  BN_RETURN_IF_ERROR(r.Line(n, "control_group", &out->control_group));
  if (!out->control_group.empty()) {
    // Resolved now, so a typo fails --config.check and a reload, not the
    // control socket's start after the reload was taken.
    gid_t gid;
    std::string shown;
    Status s = ResolveGroup(out->control_group, &gid, &shown);
    if (!s.ok())
      return At(r.file(), n["control_group"].Mark(), "runs.control_group: " + s.message() + " for the control socket");
  }
  BN_RETURN_IF_ERROR(r.Bool(n, "store", &out->store));
  RunTrackerOptions& t = out->tracker;
  BN_RETURN_IF_ERROR(r.Duration(n, "window", {"runs.window", 1, 86400, "60s, 5m or 1h", true}, &t.window_seconds));
  BN_RETURN_IF_ERROR(
      r.Duration(n, "keep_windows", {"runs.keep_windows", 60, 3650 * 86400.0, "7d"}, &t.keep_windows_seconds));
  BN_RETURN_IF_ERROR(r.Bool(n, "segments", &t.segments));
  double v = 0;
  if (n["segment_tolerance"]) {
    BN_RETURN_IF_ERROR(r.Number(n, "segment_tolerance", 0.01, 1, false, &v));
    t.segment.tolerance = v;
  }
  if (n["segment_min_windows"]) {
    BN_RETURN_IF_ERROR(r.Number(n, "segment_min_windows", 2, 10000, true, &v));
    t.segment.min_windows = static_cast<size_t>(v);
  }
  return Status::OK();
}

}  // namespace bottleneckd
