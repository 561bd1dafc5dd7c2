#include "daemon/config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>

#include "base/config_reader.h"
#include "base/listen_address.h"
#include "base/parse_util.h"
#include "base/unique_fd.h"
#include "sources/source_registry.h"

namespace bottleneckd {
namespace {

Status TooLarge(std::string_view file, uint64_t bytes) {
  return Status::InvalidArgument(std::string(file) + ": the config is " + std::to_string(bytes) +
                                 " bytes, over the limit of " + std::to_string(kMaxConfigBytes) + " bytes");
}

Status ParseCollectors(const ConfigReader& r, std::string_view file, const YAML::Node& n, CollectorsSection* c) {
  if (!n.IsDefined() || n.IsNull()) return Status::OK();
  if (!n.IsMap()) return At(file, n.Mark(), "collectors must be a mapping");
  for (const auto& kv : n) {
    std::string name = kv.first.Scalar();
    if (!KnownCollectorName(name)) return At(file, kv.first.Mark(), "unknown collector '" + name + "'");
    const YAML::Node& opts = kv.second;
    if (name == "pcap") {
      BN_RETURN_IF_ERROR(ParseCapture(r, opts, &c->pcap));
    } else if (name == "irqtime") {
      // collectors.irqtime: parsed into Config::irqtime by ParseIrqTime;
      // only `enabled` is handled here, as for every collector.
    } else if (name == "netdev") {
      BN_RETURN_IF_ERROR(
          r.Map(opts, "collectors.netdev", {"enabled", "include", "exclude", "hide_idle_virtual", "ethtool"}));
      BN_RETURN_IF_ERROR(r.Patterns(opts, "include", &c->netdev.include));
      BN_RETURN_IF_ERROR(r.Patterns(opts, "exclude", &c->netdev.exclude));
      BN_RETURN_IF_ERROR(r.Bool(opts, "hide_idle_virtual", &c->netdev.hide_idle_virtual));
      BN_RETURN_IF_ERROR(r.Bool(opts, "ethtool", &c->netdev.ethtool));
    } else if (name == "interrupts") {
      BN_RETURN_IF_ERROR(r.Map(opts, "collectors.interrupts", {"enabled", "per_cpu_matrix"}));
      BN_RETURN_IF_ERROR(r.Bool(opts, "per_cpu_matrix", &c->interrupts.per_cpu_matrix));
    } else if (name == "threads") {
      BN_RETURN_IF_ERROR(r.Map(opts, "collectors.threads", {"enabled", "targets"}));
      if (opts.IsMap() && opts["targets"] && !opts["targets"].IsNull()) {
        const YAML::Node t = opts["targets"];
        if (!t.IsSequence()) return At(file, t.Mark(), "targets must be a list of {name: N} or {pid: P}");
        BN_RETURN_IF_ERROR(r.ListSize(t, "collectors.threads.targets"));
        c->threads.targets.clear();
        for (const auto& item : t) {
          BN_RETURN_IF_ERROR(r.Map(item, "a thread target", {"name", "pid"}));
          ThreadTarget target;
          BN_RETURN_IF_ERROR(r.Line(item, "name", &target.name));
          if (item.IsMap() && item["pid"]) {
            int64_t pid;
            if (!ParseI64(item["pid"].Scalar(), &pid) || pid <= 0 || pid > INT32_MAX)
              return At(file, item["pid"].Mark(), "pid must be a positive integer");
            target.pid = static_cast<int>(pid);
          }
          if (target.name.empty() == !target.pid.has_value())
            return At(file, item.Mark(), "a thread target needs exactly one of name or pid");
          c->threads.targets.push_back(target);
        }
      }
    } else {
      BN_RETURN_IF_ERROR(r.Map(opts, "collectors." + name, {"enabled"}));
    }
    if (opts.IsMap() && opts["enabled"]) {
      bool on = true;
      BN_RETURN_IF_ERROR(r.Bool(opts, "enabled", &on));
      auto& add = on ? c->enabled : c->disabled;
      auto& del = on ? c->disabled : c->enabled;
      del.erase(std::remove(del.begin(), del.end(), name), del.end());
      if (std::find(add.begin(), add.end(), name) == add.end()) add.push_back(name);
    }
  }
  return Status::OK();
}

}  // namespace

bool CollectorEnabled(const CollectorsConfig& c, std::string_view name, bool default_enabled) {
  if (std::find(c.disabled.begin(), c.disabled.end(), name) != c.disabled.end()) return false;
  if (std::find(c.enabled.begin(), c.enabled.end(), name) != c.enabled.end()) return true;
  return default_enabled;
}

Status ParseConfig(std::string_view yaml, std::string_view filename, Config* out) {
  if (yaml.size() > kMaxConfigBytes) return TooLarge(filename, yaml.size());
  Config c;
  c.file = std::string(filename);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return At(filename, e.mark, e.msg);
  }
  ConfigReader r(filename, yaml);
  try {
    if (root.IsNull()) {
      *out = c;
      return Status::OK();
    }
    BN_RETURN_IF_ERROR(r.UniqueKeys(root));
    BN_RETURN_IF_ERROR(r.Map(root, "the top level",
                             {"interval", "web", "paths", "log", "collectors", "state_dir", "soaker", "bus_model",
                              "verdict", "runs", "limits"}));
    BN_RETURN_IF_ERROR(r.Duration(root, "interval", {"interval", 0.01, 3600, "1s or 500ms"}, &c.interval_seconds));
    const YAML::Node web = root["web"];
    BN_RETURN_IF_ERROR(r.Map(web, "web", {"listen_address"}));
    BN_RETURN_IF_ERROR(r.Line(web, "listen_address", &c.listen_address));
    if (web.IsMap() && web["listen_address"]) {
      ListenAddress addr;
      Status s = ParseListenAddress(c.listen_address, &addr);
      if (!s.ok()) return At(filename, web["listen_address"].Mark(), "web.listen_address: " + s.message());
    }
    const YAML::Node paths = root["paths"];
    BN_RETURN_IF_ERROR(r.Map(paths, "paths", {"procfs", "sysfs", "ethtool"}));
    BN_RETURN_IF_ERROR(r.Line(paths, "procfs", &c.roots.procfs));
    BN_RETURN_IF_ERROR(r.Line(paths, "sysfs", &c.roots.sysfs));
    BN_RETURN_IF_ERROR(r.Line(paths, "ethtool", &c.roots.ethtool));
    const YAML::Node log = root["log"];
    BN_RETURN_IF_ERROR(r.Map(log, "log", {"level"}));
    if (log.IsMap() && log["level"]) {
      if (!ParseLogLevel(log["level"].Scalar(), &c.log_level))
        return At(filename, log["level"].Mark(), "log.level must be debug, info, warn or error");
    }
    BN_RETURN_IF_ERROR(ParseCollectors(r, filename, root["collectors"], &c.collectors));
    BN_RETURN_IF_ERROR(r.Line(root, "state_dir", &c.state_dir));
    if (c.state_dir.empty()) return At(filename, root["state_dir"].Mark(), "state_dir must not be empty");
    const YAML::Node soaker = root["soaker"];
    BN_RETURN_IF_ERROR(
        r.Map(soaker, "soaker", {"mode", "calibration_time", "calibration_max_age", "calibration_percentile"}));
    if (soaker.IsMap() && soaker["mode"]) {
      if (!ParseSoakerMode(soaker["mode"].Scalar(), &c.soaker.mode))
        return At(filename, soaker["mode"].Mark(), "soaker.mode must be off, runs or always");
    }
    BN_RETURN_IF_ERROR(r.Duration(soaker, "calibration_time", {"soaker.calibration_time", 0.05, 10, "500ms"},
                                  &c.soaker.calibration_seconds));
    BN_RETURN_IF_ERROR(r.Duration(soaker, "calibration_max_age",
                                  {"soaker.calibration_max_age", 1, 3650 * 86400.0, "1h"},
                                  &c.soaker.calibration_max_age_seconds));
    if (soaker.IsMap() && soaker["calibration_percentile"]) {
      const YAML::Node v = soaker["calibration_percentile"];
      int64_t p = 0;
      if (v.IsScalar() && v.Scalar() == "auto") {
        c.soaker.calibration_percentile = 0;
      } else if (v.IsScalar() && ParseI64(v.Scalar(), &p) && p >= 1 && p <= 99) {
        c.soaker.calibration_percentile = static_cast<int>(p);
      } else {
        return At(filename, v.Mark(), "soaker.calibration_percentile must be auto or a whole number from 1 to 99");
      }
    }
    c.soaker.state_dir = c.state_dir;
    if (root["collectors"].IsMap()) BN_RETURN_IF_ERROR(ParseIrqTime(r, root["collectors"]["irqtime"], &c.irqtime));
    BN_RETURN_IF_ERROR(ParseBusModel(r, root["bus_model"], &c.bus_model));
    BN_RETURN_IF_ERROR(ParseVerdict(r, root["verdict"], &c.verdict));
    BN_RETURN_IF_ERROR(ParseRuns(r, root["runs"], &c.runs));
    BN_RETURN_IF_ERROR(ParseLimits(r, root["limits"], &c.limits));
  } catch (const YAML::Exception& e) {
    return At(filename, e.mark, e.msg);
  }
  *out = std::move(c);
  return Status::OK();
}

Status LoadConfigFile(const std::string& path, Config* out) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Status::FromErrno(errno, "config file " + path);
  struct stat st;
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxConfigBytes)
    return TooLarge(path, static_cast<uint64_t>(st.st_size));
  // Not sized by stat alone (a pipe, a file growing): at most one byte over.
  std::string text;
  char buf[65536];
  while (text.size() <= kMaxConfigBytes) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, "config file " + path);
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  if (text.size() > kMaxConfigBytes) return TooLarge(path, text.size());
  return ParseConfig(text, path, out);
}

}  // namespace bottleneckd
