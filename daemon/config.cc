#include "daemon/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "analysis/verdict_config.h"
#include "base/config_fields.h"
#include "base/listen_address.h"
#include "bus/bus_model_config.h"
#include "sources/source_config.h"
#include "sources/source_registry.h"

namespace bottleneckd {
namespace {

Status TooLarge(std::string_view file, uint64_t bytes) {
  return ConfigTooLarge(file, "config", bytes, kMaxConfigBytes);
}

Status ParseCollectors(const ConfigReader& r, std::string_view file, const YAML::Node& n, CollectorsSection* c) {
  if (!n.IsDefined() || n.IsNull()) return Status::OK();
  if (!n.IsMap()) return At(file, n.Mark(), "collectors must be a mapping");
  for (const auto& kv : n) {
    std::string name = kv.first.Scalar();
    if (!KnownCollectorName(name)) return At(file, kv.first.Mark(), "unknown collector '" + name + "'");
    // The continuous sources' keys are theirs (sources/source_config.h):
    // collectors.irqtime and .profile go to Config::irqtime and ::profile
    // (ParseConfig), pcap here.
    const bool source = name == "pcap" || name == "irqtime" || name == "profile";
    if (name == "pcap") BN_RETURN_IF_ERROR(ParseCapture(r, kv.second, &c->pcap));
    BN_RETURN_IF_ERROR(ParseCollectorSection(r, name, kv.second, c, source));
  }
  return Status::OK();
}

// The one-section keys of the top level: web.listen_address, log.level.
Status ListenAddressValue(const ConfigReader& r, const YAML::Node& n, std::string_view key, Config* c) {
  BN_RETURN_IF_ERROR(r.Line(n, key, &c->listen_address));
  ListenAddress addr;
  Status s = ParseListenAddress(c->listen_address, &addr);
  if (!s.ok()) return At(r.file(), n[std::string(key)].Mark(), "web.listen_address: " + s.message());
  return Status::OK();
}

Status LogLevelValue(const ConfigReader& r, const YAML::Node& v, Config* c) {
  if (!v.IsScalar() || !ParseLogLevel(v.Scalar(), &c->log_level))
    return At(r.file(), v.Mark(), "log.level must be debug, info, warn or error");
  return Status::OK();
}

}  // namespace

bool CaptureEnabled(const CollectorsSection& c) {
  return !c.pcap.interfaces.empty() && std::find(c.disabled.begin(), c.disabled.end(), "pcap") == c.disabled.end();
}

Status CheckCaptureInterfaces(const CollectorsSection& c) {
  if (CollectorEnabled(c, "pcap", false) && c.pcap.interfaces.empty())
    return Status::InvalidArgument(
        "the pcap collector is on but has no interface: set collectors.pcap.interfaces or --capture.interface IF");
  return Status::OK();
}

Status ParseConfig(std::string_view yaml, std::string_view filename, Config* out) {
  if (yaml.size() > kMaxConfigBytes) return TooLarge(filename, yaml.size());
  Config c;
  c.file = std::string(filename);
  YAML::Node root;
  BN_RETURN_IF_ERROR(LoadYaml(yaml, filename, &root));
  ConfigReader r(filename, yaml);
  try {
    if (root.IsNull()) {
      *out = c;
      return Status::OK();
    }
    BN_RETURN_IF_ERROR(r.UniqueKeys(root));
    // Each section is parsed beside its options (the stage's *_config.h);
    // what is the daemon's own is here, one table per struct.
    static const FieldTable<Config> kTop = {
        DurationField("interval", &Config::interval_seconds, {"interval", 0.01, 3600, "1s or 500ms"}),
        CustomField<Config>("web",
                            [](const ConfigReader& r, const YAML::Node& v, Config* c) {
                              static const FieldTable<Config> kWeb = {
                                  {"listen_address", ListenAddressValue},
                                  LineField("config_file", &Config::web_config_file),
                              };
                              return kWeb.Parse(r, v, "web", c);
                            }),
        CustomField<Config>("paths",
                            [](const ConfigReader& r, const YAML::Node& v, Config* c) {
                              static const FieldTable<Config> kPaths(FieldTable<HostRoots>{
                                  LineField("procfs", &HostRoots::procfs),
                                  LineField("sysfs", &HostRoots::sysfs),
                                  LineField("ethtool", &HostRoots::ethtool),
                              }
                                                                         .Within(&Config::roots));
                              return kPaths.Parse(r, v, "paths", c);
                            }),
        CustomField<Config>("log",
                            [](const ConfigReader& r, const YAML::Node& v, Config* c) {
                              static const FieldTable<Config> kLog = {CustomField<Config>("level", LogLevelValue)};
                              return kLog.Parse(r, v, "log", c);
                            }),
        CustomField<Config>("collectors",
                            [](const ConfigReader& r, const YAML::Node& v, Config* c) {
                              BN_RETURN_IF_ERROR(ParseCollectors(r, r.file(), v, &c->collectors));
                              if (!v.IsMap()) return Status::OK();
                              BN_RETURN_IF_ERROR(ParseIrqTime(r, v["irqtime"], &c->irqtime));
                              return ParseProfile(r, v["profile"], &c->profile);
                            }),
        {"state_dir",
         [](const ConfigReader& r, const YAML::Node& n, std::string_view key, Config* c) {
           BN_RETURN_IF_ERROR(r.Line(n, key, &c->state_dir));
           if (c->state_dir.empty()) return At(r.file(), n[std::string(key)].Mark(), "state_dir must not be empty");
           return Status::OK();
         }},
        CustomField<Config>("soaker", [](const ConfigReader& r, const YAML::Node& v,
                                         Config* c) { return ParseSoaker(r, v, &c->soaker); }),
        CustomField<Config>("bus_model", [](const ConfigReader& r, const YAML::Node& v,
                                            Config* c) { return ParseBusModel(r, v, &c->bus_model); }),
        CustomField<Config>("verdict", [](const ConfigReader& r, const YAML::Node& v,
                                          Config* c) { return ParseVerdict(r, v, &c->verdict); }),
        CustomField<Config>(
            "runs", [](const ConfigReader& r, const YAML::Node& v, Config* c) { return ParseRuns(r, v, &c->runs); }),
        CustomField<Config>("limits", [](const ConfigReader& r, const YAML::Node& v,
                                         Config* c) { return ParseLimits(r, v, &c->limits); }),
    };
    BN_RETURN_IF_ERROR(kTop.Parse(r, root, "the top level", &c));
    c.soaker.state_dir = c.state_dir;
    c.runs.tracker.loss = c.verdict.loss();
  } catch (const YAML::Exception& e) {
    return At(filename, e.mark, e.msg);
  }
  *out = std::move(c);
  return Status::OK();
}

Status LoadConfigFile(const std::string& path, Config* out) {
  std::string text;
  BN_RETURN_IF_ERROR(ReadConfigText(path, "config", kMaxConfigBytes, &text));
  return ParseConfig(text, path, out);
}

}  // namespace bottleneckd
