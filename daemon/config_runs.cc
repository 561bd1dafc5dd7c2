// The runs section of the config: run control, the run store, continuous
// window runs and segmentation (docs/runs.md). Every key is optional.
#include "base/config_reader.h"
#include "daemon/config.h"
#include "runs/control_socket.h"

namespace bottleneckd {
namespace {

// A duration key, or "0"/"off" for none when `allow_off`.
Status Duration(const ConfigReader& r, const YAML::Node& n, const char* key, bool allow_off, double lo, double hi,
                double* out) {
  if (!n.IsMap() || !n[key]) return Status::OK();
  const YAML::Node v = n[key];
  std::string text = v.IsScalar() ? v.Scalar() : "";
  if (allow_off && (text == "0" || text == "off" || text == "false")) {
    *out = 0;
    return Status::OK();
  }
  double d = 0;
  if (!v.IsScalar() || !ParseDuration(text, &d) || d < lo || d > hi)
    return At(r.file(), v.Mark(),
              std::string("runs.") + key + " must be a duration like 60s, 5m or 7d" + (allow_off ? ", or off" : "") +
                  ", got '" + text + "'");
  *out = d;
  return Status::OK();
}

}  // namespace

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
    if (!s.ok()) return At(r.file(), n["control_group"].Mark(), "runs.control_group: " + s.message());
  }
  BN_RETURN_IF_ERROR(r.Bool(n, "store", &out->store));
  RunTrackerOptions& t = out->tracker;
  BN_RETURN_IF_ERROR(Duration(r, n, "window", true, 1, 86400, &t.window_seconds));
  BN_RETURN_IF_ERROR(Duration(r, n, "keep_windows", false, 60, 3650 * 86400.0, &t.keep_windows_seconds));
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
