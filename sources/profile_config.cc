// collectors.profile: the on-CPU profiler (sources/profile.h).
//   collectors:
//     profile:
//       mode: auto          # auto (default) | on | off
//       frequency: 49       # samples per second per CPU, 1..999
//       stacks: named       # named (default) | runs | all: whose stacks are walked
#include "base/config_fields.h"
#include "sources/source_config.h"

namespace bottleneckd {

bool ParseProfileStacks(std::string_view s, ProfileStacks* out) {
  if (s == "named") {
    *out = ProfileStacks::kNamed;
  } else if (s == "runs") {
    *out = ProfileStacks::kRuns;
  } else if (s == "all") {
    *out = ProfileStacks::kAll;
  } else {
    return false;
  }
  return true;
}

const char* ProfileStacksName(ProfileStacks s) {
  switch (s) {
    case ProfileStacks::kNamed: return "named";
    case ProfileStacks::kRuns: return "runs";
    case ProfileStacks::kAll: return "all";
  }
  return "?";
}

Status ParseProfile(const ConfigReader& r, const YAML::Node& n, ProfileOptions* out) {
  static const FieldTable<ProfileOptions> kFields = {
      CustomField<ProfileOptions>("mode",
                                  [](const ConfigReader& r, const YAML::Node& v, ProfileOptions* o) {
                                    if (!v.IsScalar() || !ParseLoadMode(v.Scalar(), &o->mode))
                                      return At(r.file(), v.Mark(), "collectors.profile.mode must be auto, on or off");
                                    return Status::OK();
                                  }),
      WholeField("frequency", &ProfileOptions::frequency_hz, 1, kProfileMaxFrequencyHz),
      CustomField<ProfileOptions>("stacks",
                                  [](const ConfigReader& r, const YAML::Node& v, ProfileOptions* o) {
                                    if (!v.IsScalar() || !ParseProfileStacks(v.Scalar(), &o->stacks))
                                      return At(r.file(), v.Mark(),
                                                "collectors.profile.stacks must be named, runs or all");
                                    return Status::OK();
                                  }),
  };
  return kFields.Parse(r, n, "collectors.profile", out, {"enabled"});
}

}  // namespace bottleneckd
