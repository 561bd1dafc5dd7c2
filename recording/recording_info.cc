// recording.yaml (docs/recording-format.md): ParseRecordingInfo and
// RecordingInfoYaml. Every error names the file, line and column.
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <set>

#include "base/config_reader.h"
#include "base/number_text.h"
#include "base/parse_util.h"
#include "base/verdict_labels.h"
#include "recording/recording.h"
#include "sources/source_registry.h"

namespace bottleneckd {
namespace {

constexpr std::string_view kFormatName = "bottleneckd-recording";

// Reads the YAML of one recording.yaml; `r` labels errors with the file.
class InfoParser {
 public:
  explicit InfoParser(std::string_view file) : r_(file) {}

  Status Parse(YAML::Node root, RecordingInfo* out) {
    // Non-const nodes throughout: a const node's operator[] gives an invalid
    // node for a missing key, which throws on the first question.
    if (!root.IsDefined() || root.IsNull()) return Error(root, "empty: not a bottleneckd recording (no 'format')");
    if (!root.IsMap()) return Error(root, "must be a mapping (format: bottleneckd-recording, version: 2, ...)");
    BN_RETURN_IF_ERROR(Keys(root, "recording.yaml",
                            {"format", "version", "interval_seconds", "source", "created", "host", "soaker", "irqtime",
                             "sources", "samples", "runs"}));
    // What it is first (format, version), then what this version requires.
    if (!root["format"]) return Error(root, "missing required key 'format' (not a bottleneckd recording?)");
    const YAML::Node format = root["format"];
    if (!format.IsScalar() || format.Scalar() != kFormatName)
      return Error(format, "format must be '" + std::string(kFormatName) + "', got '" + Text(format) +
                               "' (not a bottleneckd recording)");
    if (!root["version"]) return Error(root, "missing required key 'version'");
    double d = 0;
    BN_RETURN_IF_ERROR(Number(root, "version", 0, 1e9, true, &d));
    // Versions 1 to kRecordingVersion: 1 has no irqtime (the key is refused).
    const std::string range = std::to_string(kOldestRecordingVersion) + "-" + std::to_string(kRecordingVersion);
    if (d > kRecordingVersion)
      return Error(root["version"],
                   "version " + Text(root["version"]) + " is newer than this bottleneckd reads (" + range + ")");
    if (d < kOldestRecordingVersion)
      return Error(root["version"], "version " + Text(root["version"]) + " is not a recording version (this " +
                                        "bottleneckd reads " + range + ")");
    out->version = static_cast<int>(d);
    for (std::string_view key : {"interval_seconds", "samples"}) {
      if (!root[std::string(key)]) return Error(root, "missing required key '" + std::string(key) + "'");
    }
    BN_RETURN_IF_ERROR(Number(root, "interval_seconds", 0.001, 86400, false, &out->interval_seconds));
    BN_RETURN_IF_ERROR(r_.String(root, "source", &out->source));
    if (out->source != "recorded" && out->source != "simulated")
      return Error(root["source"], "source must be recorded or simulated, got '" + out->source + "'");
    BN_RETURN_IF_ERROR(r_.String(root, "created", &out->created));
    if (!out->created.empty() && !IsRfc3339(out->created))
      return Error(root["created"],
                   "created must be an RFC 3339 time like 2026-11-30T11:30:00Z, got '" + out->created + "'");
    YAML::Node host = root["host"];
    BN_RETURN_IF_ERROR(Keys(host, "host", {"hostname", "kernel", "cpus"}));
    BN_RETURN_IF_ERROR(r_.String(host, "hostname", &out->hostname));
    BN_RETURN_IF_ERROR(r_.String(host, "kernel", &out->kernel));
    d = 0;
    BN_RETURN_IF_ERROR(Number(host, "cpus", 0, 1 << 20, true, &d));
    out->cpus = static_cast<int>(d);
    BN_RETURN_IF_ERROR(Sources(root, out->version));
    if (out->version < 3) {
      bool soaker = false, irqtime = false;
      BN_RETURN_IF_ERROR(r_.Bool(root, "soaker", &soaker));
      if (out->version < 2 && root["irqtime"])
        return ErrorAtKey(
            root, "irqtime",
            "irqtime came with version 2; a version " + Text(root["version"]) + " recording has no irqtime files");
      BN_RETURN_IF_ERROR(r_.Bool(root, "irqtime", &irqtime));
      out->sources.clear();
      if (soaker) out->sources.push_back("soaker");
      if (irqtime) out->sources.push_back("irqtime");
    } else {
      BN_RETURN_IF_ERROR(r_.Names(root, "sources", &out->sources));
      std::set<std::string> seen;
      for (size_t i = 0; i < out->sources.size(); ++i) {
        const std::string& name = out->sources[i];
        if (!FindSourceEntry(name))
          return Error(root["sources"][i],
                       "unknown source '" + name + "' (this bottleneckd records " + SourceNames() + ")");
        if (!seen.insert(name).second) return Error(root["sources"][i], "source '" + name + "' listed twice");
      }
    }
    BN_RETURN_IF_ERROR(Number(root, "samples", 0, 1e9, true, &d));
    out->samples = static_cast<size_t>(d);
    return Runs(root["runs"], &out->runs);
  }

 private:
  Status Error(const YAML::Node& n, const std::string& msg) const { return At(r_.file(), n.Mark(), msg); }
  // At the key itself: an empty value's mark is wherever the next token starts.
  Status ErrorAtKey(const YAML::Node& map, std::string_view key, const std::string& msg) const {
    for (const auto& kv : map)
      if (kv.first.Scalar() == key) return Error(kv.first, msg);
    return Error(map, msg);
  }

  static std::string Text(const YAML::Node& n) {
    if (!n.IsScalar()) return "a non-scalar";
    std::string s = n.Scalar();
    return s.size() > 80 ? s.substr(0, 80) + "..." : s;
  }

  // Known keys only, each once (YAML allows a repeat; a second value would be ignored).
  Status Keys(const YAML::Node& n, std::string_view what, std::initializer_list<std::string_view> allowed) const {
    BN_RETURN_IF_ERROR(r_.Map(n, what, allowed));
    if (!n.IsMap()) return Status::OK();
    std::set<std::string> seen;
    for (const auto& kv : n) {
      if (!seen.insert(kv.first.Scalar()).second)
        return Error(kv.first, "duplicate key '" + kv.first.Scalar() + "' in " + std::string(what));
    }
    return Status::OK();
  }

  // A finite number in [lo, hi] (whole when `integer`); absent leaves *out.
  Status Number(const YAML::Node& n, std::string_view key, double lo, double hi, bool integer, double* out) const {
    if (!n.IsMap() || !n[std::string(key)]) return Status::OK();
    const YAML::Node v = n[std::string(key)];
    double d = 0;
    bool ok = v.IsScalar() && ParseDouble(Trim(v.Scalar()), &d) && std::isfinite(d) && d >= lo && d <= hi &&
              (!integer || std::floor(d) == d);
    if (!ok) {
      return Error(v, std::string(key) + " must be " + (integer ? "a whole number" : "a number") + " from " +
                          Plain(lo) + " to " + Plain(hi) + ", got '" + Text(v) + "'");
    }
    *out = d;
    return Status::OK();
  }

  static std::string Plain(double d) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::fixed);
    return std::string(buf, r.ptr);
  }

  static bool IsRfc3339(const std::string& s) {
    // 2026-11-30T11:30:00Z, optional fraction, Z or +hh:mm / -hh:mm.
    auto digits = [&](size_t at, size_t n) {
      if (at + n > s.size()) return false;
      for (size_t i = at; i < at + n; ++i)
        if (s[i] < '0' || s[i] > '9') return false;
      return true;
    };
    if (!digits(0, 4) || s.size() < 20 || s[4] != '-' || !digits(5, 2) || s[7] != '-' || !digits(8, 2) ||
        (s[10] != 'T' && s[10] != 't') || !digits(11, 2) || s[13] != ':' || !digits(14, 2) || s[16] != ':' ||
        !digits(17, 2))
      return false;
    size_t i = 19;
    if (s[i] == '.') {
      size_t j = i + 1;
      while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
      if (j == i + 1) return false;
      i = j;
    }
    if (i == s.size() - 1) return s[i] == 'Z' || s[i] == 'z';
    return i + 6 == s.size() && (s[i] == '+' || s[i] == '-') && digits(i + 1, 2) && s[i + 3] == ':' && digits(i + 4, 2);
  }

  Status Runs(YAML::Node n, std::vector<RecordingRun>* out) const {
    out->clear();
    if (!n.IsDefined() || n.IsNull()) return Status::OK();
    if (!n.IsSequence()) return Error(n, "runs must be a list of {name, start, end, ...}");
    for (YAML::Node item : n) {
      if (!item.IsMap()) return Error(item, "a run must be a mapping with name, start and end");
      BN_RETURN_IF_ERROR(
          Keys(item, "a run",
               {"name", "start", "end", "offered_bits_per_second", "offered_packets_per_second", "expected"}));
      for (std::string_view key : {"name", "start", "end"}) {
        if (!item[std::string(key)]) return Error(item, "a run needs '" + std::string(key) + "'");
      }
      RecordingRun run;
      BN_RETURN_IF_ERROR(r_.String(item, "name", &run.name));
      if (run.name.empty()) return ErrorAtKey(item, "name", "a run's name must not be empty");
      BN_RETURN_IF_ERROR(Number(item, "start", 0, 1e9, false, &run.start));
      BN_RETURN_IF_ERROR(Number(item, "end", 0, 1e9, false, &run.end));
      if (!(run.end > run.start))
        return Error(item["end"], "run '" + run.name + "' ends at " + Text(item["end"]) +
                                      " s, not after its start at " + Text(item["start"]) + " s");
      for (auto [key, dst] : {std::pair{"offered_bits_per_second", &run.offered_bits_per_second},
                              std::pair{"offered_packets_per_second", &run.offered_packets_per_second}}) {
        if (!item[key]) continue;
        double v = 0;
        BN_RETURN_IF_ERROR(Number(item, key, 0, 1e18, false, &v));
        *dst = v;
      }
      YAML::Node expected = item["expected"];
      BN_RETURN_IF_ERROR(Keys(expected, "expected", {"label", "resource"}));
      if (expected.IsMap()) {
        if (!expected["label"]) return Error(expected, "expected needs a label (" + BoundNames(", ") + ")");
        BN_RETURN_IF_ERROR(r_.String(expected, "label", &run.expected_label));
        Bound known;
        if (!ParseBound(run.expected_label, &known))
          return Error(expected["label"],
                       "expected label must be one of " + BoundNames(", ") + ", got '" + run.expected_label + "'");
        BN_RETURN_IF_ERROR(r_.String(expected, "resource", &run.expected_resource));
      }
      out->push_back(std::move(run));
    }
    return Status::OK();
  }

  // `sources` came with version 3, replacing soaker and irqtime.
  Status Sources(YAML::Node root, int version) {
    if (version < 3 && root["sources"])
      return ErrorAtKey(
          root, "sources",
          "sources came with version 3; a version " + Text(root["version"]) + " recording says soaker and irqtime");
    for (const char* old : {"soaker", "irqtime"})
      if (version >= 3 && root[old])
        return ErrorAtKey(root, old,
                          std::string(old) + " is said in sources from version 3 on (sources: [" + old + ", ...])");
    return Status::OK();
  }

  static std::string SourceNames() {
    std::string s;
    for (const SourceEntry* e : SourceRegistry()) s += (s.empty() ? "" : ", ") + std::string(e->name());
    return s;
  }

  ConfigReader r_;
};

}  // namespace

Status ParseRecordingInfo(std::string_view yaml, std::string_view filename, RecordingInfo* out) {
  RecordingInfo info;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return At(filename, e.mark, e.msg);
  }
  try {
    BN_RETURN_IF_ERROR(InfoParser(filename).Parse(root, &info));
  } catch (const YAML::Exception& e) {
    return At(filename, e.mark, e.msg);
  }
  *out = std::move(info);
  return Status::OK();
}

std::string RecordingInfoYaml(const RecordingInfo& info) {
  // Strings are double-quoted: the emitter escapes quotes, backslashes and
  // control characters, so any UTF-8 hostname or name reads back as it was.
  YAML::Emitter e;
  e << YAML::Comment("bottleneckd recording (docs/recording-format.md)");
  e << YAML::BeginMap;
  e << YAML::Key << "format" << YAML::Value << std::string(kFormatName);
  e << YAML::Key << "version" << YAML::Value << info.version;
  e << YAML::Key << "interval_seconds" << YAML::Value << ExactText(info.interval_seconds);
  e << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted << info.source;
  if (!info.created.empty()) e << YAML::Key << "created" << YAML::Value << YAML::DoubleQuoted << info.created;
  if (!info.hostname.empty() || !info.kernel.empty() || info.cpus != 0) {
    e << YAML::Key << "host" << YAML::Value << YAML::BeginMap;
    if (!info.hostname.empty()) e << YAML::Key << "hostname" << YAML::Value << YAML::DoubleQuoted << info.hostname;
    if (!info.kernel.empty()) e << YAML::Key << "kernel" << YAML::Value << YAML::DoubleQuoted << info.kernel;
    if (info.cpus != 0) e << YAML::Key << "cpus" << YAML::Value << info.cpus;
    e << YAML::EndMap;
  }
  if (info.version >= 3) {
    e << YAML::Key << "sources" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const std::string& s : info.sources) e << s;
    e << YAML::EndSeq;
  } else {
    e << YAML::Key << "soaker" << YAML::Value << info.HasSource("soaker");
    if (info.version >= 2) e << YAML::Key << "irqtime" << YAML::Value << info.HasSource("irqtime");
  }
  e << YAML::Key << "samples" << YAML::Value << static_cast<uint64_t>(info.samples);
  if (!info.runs.empty()) {
    e << YAML::Key << "runs" << YAML::Value << YAML::BeginSeq;
    for (const RecordingRun& r : info.runs) {
      e << YAML::BeginMap;
      e << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << r.name;
      e << YAML::Key << "start" << YAML::Value << ExactText(r.start);
      e << YAML::Key << "end" << YAML::Value << ExactText(r.end);
      if (r.offered_bits_per_second)
        e << YAML::Key << "offered_bits_per_second" << YAML::Value << ExactText(*r.offered_bits_per_second);
      if (r.offered_packets_per_second)
        e << YAML::Key << "offered_packets_per_second" << YAML::Value << ExactText(*r.offered_packets_per_second);
      if (!r.expected_label.empty() || !r.expected_resource.empty()) {
        e << YAML::Key << "expected" << YAML::Value << YAML::BeginMap;
        e << YAML::Key << "label" << YAML::Value << YAML::DoubleQuoted << r.expected_label;
        if (!r.expected_resource.empty())
          e << YAML::Key << "resource" << YAML::Value << YAML::DoubleQuoted << r.expected_resource;
        e << YAML::EndMap;
      }
      e << YAML::EndMap;
    }
    e << YAML::EndSeq;
  }
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace bottleneckd
