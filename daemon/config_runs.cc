// The runs section of the config (docs/runs.md): the daemon's run control
// (the control socket, the run store) and the run tracker's keys
// (runs/run_tracker_config.h). Every key is optional.
#include "base/config_fields.h"
#include "base/unix_group.h"
#include "daemon/config.h"
#include "runs/run_tracker_config.h"

namespace bottleneckd {

Status ParseRuns(const ConfigReader& r, const YAML::Node& n, RunsConfig* out) {
  static const FieldTable<RunsConfig> kFields = [] {
    FieldTable<RunsConfig> t = {
        LineField("control_socket", &RunsConfig::control_socket),
        {"control_group",
         [](const ConfigReader& r, const YAML::Node& n, std::string_view key, RunsConfig* o) {
           BN_RETURN_IF_ERROR(r.Line(n, key, &o->control_group));
           if (o->control_group.empty()) return Status::OK();
           // Resolved now, so a typo fails --config.check and a reload, not the
           // control socket's start after the reload was taken.
           gid_t gid;
           std::string shown;
           Status s = ResolveGroup(o->control_group, &gid, &shown);
           if (!s.ok())
             return At(r.file(), n[std::string(key)].Mark(),
                       "runs.control_group: " + s.message() + " for the control socket");
           return Status::OK();
         }},
        BoolField("store", &RunsConfig::store),
    };
    t.Add(RunTrackerFields().Within(&RunsConfig::tracker));
    return t;
  }();
  return kFields.Parse(r, n, "runs", out);
}

}  // namespace bottleneckd
