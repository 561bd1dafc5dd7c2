#include "exporters/report/json_writer.h"
#include "fleet/fleet_render.h"

namespace bottleneckd {

std::string FleetJson(const FleetReport& r) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("url").String(r.url);
  w.Key("selector").String(r.selector);
  w.Key("run");
  if (r.run.empty())
    w.Null();
  else
    w.String(r.run);
  w.Key("start").Number(r.span.start);
  w.Key("end").Number(r.span.end);
  w.Key("step_seconds").Number(r.span.step);
  w.Key("warnings").BeginArray();
  for (const std::string& s : r.warnings) w.String(s);
  w.EndArray();
  auto instance_name = [&](const std::optional<size_t>& i) {
    if (i)
      w.String(r.instances[*i].instance);
    else
      w.Null();
  };
  w.Key("limited_first");
  instance_name(r.limited_first);
  w.Key("limited_longest");
  instance_name(r.limited_longest);
  w.Key("instances").BeginArray();
  for (const FleetInstance& x : r.instances) {
    w.BeginObject();
    w.Key("instance").String(x.instance);
    w.Key("job").String(x.job);
    if (!r.run.empty()) w.Key("in_run").Bool(x.in_run);
    w.Key("bound").String(x.main_bound);
    w.Key("resource").String(x.main_resource);
    w.Key("bound_share").Number(x.bound_share);
    w.Key("coverage").Number(x.coverage);
    w.Key("shares").BeginObject();
    for (const auto& [label, share] : x.share) w.Key(label).Number(share);
    w.EndObject();
    w.Key("first_bound");
    w.Optional(x.first_bound);
    w.Key("worst");
    if (!x.worst) {
      w.Null();
    } else {
      w.BeginObject();
      w.Key("start").Number(x.worst->start);
      w.Key("end").Number(x.worst->end);
      w.Key("bound").String(x.worst->bound);
      w.Key("resource").String(x.worst->resource);
      w.Key("mean_confidence").Number(x.worst->mean_confidence);
      w.Key("evidence").String(EvidenceName(x.worst->bound));
      w.Key("evidence_peak");
      w.Optional(x.worst->evidence_peak);
      w.EndObject();
    }
    w.Key("plateau_share").Number(x.plateau_share);
    w.Key("plateau_level").Number(x.plateau_level);
    w.Key("evidence_query").String(x.evidence_query);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.Finish();
  return out;
}

}  // namespace bottleneckd
