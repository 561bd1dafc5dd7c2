// The soaker section of the config (sources/soaker.h, docs/soaker.md).
#include "base/config_fields.h"
#include "base/parse_util.h"
#include "sources/source_config.h"

namespace bottleneckd {

Status ParseSoaker(const ConfigReader& r, const YAML::Node& n, SoakerOptions* out) {
  using S = SoakerOptions;
  static const FieldTable<S> kFields = {
      CustomField<S>("mode",
                     [](const ConfigReader& r, const YAML::Node& v, S* o) {
                       if (!v.IsScalar() || !ParseSoakerMode(v.Scalar(), &o->mode))
                         return At(r.file(), v.Mark(), "soaker.mode must be off, runs or always");
                       return Status::OK();
                     }),
      DurationField("calibration_time", &S::calibration_seconds, {"soaker.calibration_time", 0.05, 10, "500ms"}),
      DurationField("calibration_max_age", &S::calibration_max_age_seconds,
                    {"soaker.calibration_max_age", 1, 3650 * 86400.0, "1h"}),
      CustomField<S>("calibration_percentile",
                     [](const ConfigReader& r, const YAML::Node& v, S* o) {
                       int64_t p = 0;
                       if (v.IsScalar() && v.Scalar() == "auto") {
                         o->calibration_percentile = 0;
                       } else if (v.IsScalar() && ParseI64(v.Scalar(), &p) && p >= 1 && p <= 99) {
                         o->calibration_percentile = static_cast<int>(p);
                       } else {
                         return At(r.file(), v.Mark(),
                                   "soaker.calibration_percentile must be auto or a whole number from 1 to 99");
                       }
                       return Status::OK();
                     }),
  };
  return kFields.Parse(r, n, "soaker", out);
}

}  // namespace bottleneckd
