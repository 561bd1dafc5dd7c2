// The collectors section's keys of the polled collectors: one field table per
// options struct, and the `enabled` switch every collector has.
#include "collectors/collectors_config.h"

#include <algorithm>
#include <cstdint>

#include "base/config_fields.h"
#include "base/parse_util.h"

namespace bottleneckd {
namespace {

Status ThreadTargets(const ConfigReader& r, const YAML::Node& t, ThreadsOptions* o) {
  if (t.IsNull()) return Status::OK();
  if (!t.IsSequence()) return At(r.file(), t.Mark(), "targets must be a list of {name: N} or {pid: P}");
  BN_RETURN_IF_ERROR(r.ListSize(t, "collectors.threads.targets"));
  o->targets.clear();
  for (const auto& item : t) {
    BN_RETURN_IF_ERROR(r.Map(item, "a thread target", {"name", "pid"}));
    ThreadTarget target;
    BN_RETURN_IF_ERROR(r.Line(item, "name", &target.name));
    if (item.IsMap() && item["pid"]) {
      int64_t pid;
      if (!ParseI64(item["pid"].Scalar(), &pid) || pid <= 0 || pid > INT32_MAX)
        return At(r.file(), item["pid"].Mark(), "pid must be a positive integer");
      target.pid = static_cast<int>(pid);
    }
    if (target.name.empty() == !target.pid.has_value())
      return At(r.file(), item.Mark(), "a thread target needs exactly one of name or pid");
    o->targets.push_back(target);
  }
  return Status::OK();
}

const FieldTable<CollectorsConfig>* OptionsOf(std::string_view name) {
  using C = CollectorsConfig;
  static const FieldTable<C> kNetdev(FieldTable<NetdevOptions>{
      PatternsField("include", &NetdevOptions::include),
      PatternsField("exclude", &NetdevOptions::exclude),
      BoolField("hide_idle_virtual", &NetdevOptions::hide_idle_virtual),
      BoolField("ethtool", &NetdevOptions::ethtool),
  }
                                         .Within(&C::netdev));
  static const FieldTable<C> kInterrupts(FieldTable<InterruptsOptions>{
      BoolField("per_cpu_matrix", &InterruptsOptions::per_cpu_matrix),
  }
                                             .Within(&C::interrupts));
  static const FieldTable<C> kThreads(FieldTable<ThreadsOptions>{
      CustomField<ThreadsOptions>("targets", ThreadTargets),
  }
                                          .Within(&C::threads));
  static const FieldTable<C> kNone(std::vector<ConfigField<C>>{});
  if (name == "netdev") return &kNetdev;
  if (name == "interrupts") return &kInterrupts;
  if (name == "threads") return &kThreads;
  return &kNone;
}

}  // namespace

Status ParseCollectorSection(const ConfigReader& r, const std::string& name, const YAML::Node& n, CollectorsConfig* c,
                             bool keys_parsed_elsewhere) {
  if (!keys_parsed_elsewhere) BN_RETURN_IF_ERROR(OptionsOf(name)->Parse(r, n, "collectors." + name, c, {"enabled"}));
  if (n.IsDefined() && n.IsMap() && n["enabled"]) {
    bool on = true;
    BN_RETURN_IF_ERROR(r.Bool(n, "enabled", &on));
    auto& add = on ? c->enabled : c->disabled;
    auto& del = on ? c->disabled : c->enabled;
    del.erase(std::remove(del.begin(), del.end(), name), del.end());
    if (std::find(add.begin(), add.end(), name) == add.end()) add.push_back(name);
  }
  return Status::OK();
}

bool CollectorEnabled(const CollectorsConfig& c, std::string_view name, bool default_enabled) {
  if (std::find(c.disabled.begin(), c.disabled.end(), name) != c.disabled.end()) return false;
  if (std::find(c.enabled.begin(), c.enabled.end(), name) != c.enabled.end()) return true;
  return default_enabled;
}

}  // namespace bottleneckd
