// ConfigReader: checked access to the YAML config's nodes, shared by the
// parsers of its sections (each beside its stage's options, through a
// FieldTable: base/config_fields.h; the top level in daemon/config.cc).
// Every error names the file, line and column of the offending node.
// Hostile input is refused before it costs much: lists longer than
// kMaxConfigListEntries, keys given twice in one mapping, one-line values
// (Line: paths, names, addresses) that continue on the next line, patterns RE2
// cannot compile within its bounds (base/pattern.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "base/pattern.h"
#include "base/status.h"

namespace bottleneckd {

// Error at a node's position, 1-based as editors show it.
inline Status At(std::string_view file, const YAML::Mark& m, const std::string& msg) {
  std::string s(file);
  if (!m.is_null()) {
    s += ':';
    s += std::to_string(m.line + 1);
    s += ':';
    s += std::to_string(m.column + 1);
  }
  return Status::InvalidArgument(s + ": " + msg);
}

// Loads YAML text into *root; a syntax error is an error at its line and
// column ("x.yaml:3:5: illegal map value"), and a tab in an indentation is
// said as such (yaml-cpp reads it as "illegal map value" or worse).
Status LoadYaml(std::string_view yaml, std::string_view filename, YAML::Node* root);

// Reads a config file of at most max_bytes into *out (a pipe or a growing
// file read one chunk past the limit, no more). `what` names it in errors
// ("config"): "config file /etc/x.yaml: No such file or directory",
// "/etc/x.yaml: the config is 2000000 bytes, over the limit of 1048576 bytes".
Status ReadConfigText(const std::string& path, std::string_view what, size_t max_bytes, std::string* out);
// The error for text over the limit, as ReadConfigText says it.
Status ConfigTooLarge(std::string_view file, std::string_view what, uint64_t bytes, size_t max_bytes);

// Most entries one config list (threads.targets, netdev include/exclude,
// interfaces, ...) may hold.
inline constexpr size_t kMaxConfigListEntries = 1024;

class ConfigReader {
 public:
  // `source` is the YAML text the nodes were loaded from (it must outlive the
  // reader): String and the list readers look at it to tell a value that
  // ends on its own line from one folded over several. Without it ("") that
  // check is skipped.
  explicit ConfigReader(std::string_view file, std::string_view source = {}) : file_(file), source_(source) {}

  // Walks every mapping under `root` (an alias's target once) and refuses a
  // key given twice in one of them, at the second:
  //   "x.yaml:7:1: duplicate key 'interval' (first at line 2)".
  Status UniqueKeys(const YAML::Node& root) const;

  // InvalidArgument at `v` when the sequence `v` has more than
  // kMaxConfigListEntries entries.
  Status ListSize(const YAML::Node& v, std::string_view key) const;

  // A duration key (base/parse_util.h ParseDuration), the config's one way to
  // read one: absent leaves *out; with `off`, "0", "off" or "false" is none
  // (0). Anything else, or a duration outside [lo, hi], is an error at the
  // value: "<name> must be a duration from <lo> to <hi>, like <like>[, or
  // off], got '<text>'".
  struct DurationSpec {
    std::string name;  // as the error names the key: "runs.window"
    double lo, hi;     // seconds
    std::string_view like;
    bool off = false;
  };
  Status Duration(const YAML::Node& n, std::string_view key, const DurationSpec& spec, double* out) const;

  // Checks that `n` is a map whose keys are all in `allowed` (a section's
  // FieldTable gives them: base/config_fields.h).
  Status Map(const YAML::Node& n, std::string_view what, const std::vector<std::string_view>& allowed) const {
    if (!n.IsDefined() || n.IsNull()) return Status::OK();
    if (!n.IsMap()) return At(file_, n.Mark(), std::string(what) + " must be a mapping");
    for (const auto& kv : n) {
      std::string key = kv.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        return At(file_, kv.first.Mark(),
                  "unknown key '" + key + "' in " + std::string(what) + " (known: " + list + ")");
      }
    }
    return Status::OK();
  }

  Status Bool(const YAML::Node& n, std::string_view key, bool* out) const {
    if (!n.IsMap() || !n[std::string(key)]) return Status::OK();
    const YAML::Node v = n[std::string(key)];
    const std::string& s = v.IsScalar() ? v.Scalar() : empty_;
    if (s == "true" || s == "yes" || s == "on")
      *out = true;
    else if (s == "false" || s == "no" || s == "off")
      *out = false;
    else
      return At(file_, v.Mark(), std::string(key) + " must be true or false, got '" + s + "'");
    return Status::OK();
  }

  // Any string, as given.
  Status String(const YAML::Node& n, std::string_view key, std::string* out) const { return Text(n, key, false, out); }
  // A one-line string: a path, name or address. Control bytes and a value
  // that runs on past its line in the file (an unclosed quote swallowing the
  // next line, a plain scalar folded over two) are errors.
  Status Line(const YAML::Node& n, std::string_view key, std::string* out) const { return Text(n, key, true, out); }

  // A list of plain strings (names).
  Status Names(const YAML::Node& n, std::string_view key, std::vector<std::string>* out) const {
    if (!n.IsMap() || !n[std::string(key)]) return Status::OK();
    const YAML::Node v = n[std::string(key)];
    out->clear();
    if (v.IsNull()) return Status::OK();
    if (!v.IsSequence()) return At(file_, v.Mark(), std::string(key) + " must be a list of names");
    BN_RETURN_IF_ERROR(ListSize(v, key));
    for (const auto& item : v) {
      if (!item.IsScalar() || item.Scalar().empty())
        return At(file_, item.Mark(), std::string(key) + " entries must be non-empty strings");
      BN_RETURN_IF_ERROR(OneLine(item, key));
      out->push_back(item.Scalar());
    }
    return Status::OK();
  }

  // A list of patterns, each compiled (Pattern::Compile) to check it.
  Status Patterns(const YAML::Node& n, std::string_view key, std::vector<std::string>* out) const {
    if (!n.IsMap() || !n[std::string(key)]) return Status::OK();
    const YAML::Node v = n[std::string(key)];
    if (v.IsNull()) return Status::OK();
    if (!v.IsSequence()) return At(file_, v.Mark(), std::string(key) + " must be a list of patterns");
    BN_RETURN_IF_ERROR(ListSize(v, key));
    out->clear();
    for (const auto& item : v) {
      if (!item.IsScalar()) return At(file_, item.Mark(), std::string(key) + " entries must be strings");
      BN_RETURN_IF_ERROR(OneLine(item, key));
      std::unique_ptr<Pattern> re;
      Status s = Pattern::Compile(item.Scalar(), &re);
      if (!s.ok()) return At(file_, item.Mark(), std::string(key) + ": " + s.message());
      out->push_back(item.Scalar());
    }
    return Status::OK();
  }

  // A number in [lo, hi]; when `integer`, a whole one.
  Status Number(const YAML::Node& n, std::string_view key, double lo, double hi, bool integer, double* out) const {
    if (!n.IsMap() || !n[std::string(key)]) return Status::OK();
    const YAML::Node v = n[std::string(key)];
    double d = 0;
    std::string what = integer ? "a whole number" : "a number";
    // Range first: casting a double outside long long's range is undefined.
    if (!v.IsScalar() || !ParseNumber(v.Scalar(), &d) || d < lo || d > hi || (integer && d != std::trunc(d))) {
      return At(file_, v.Mark(),
                std::string(key) + " must be " + what + " from " + Format(lo) + " to " + Format(hi) + ", got '" +
                    (v.IsScalar() ? v.Scalar() : std::string("a non-scalar")) + "'");
    }
    *out = d;
    return Status::OK();
  }

  const std::string& file() const { return file_; }

 private:
  Status Text(const YAML::Node& n, std::string_view key, bool one_line, std::string* out) const {
    if (!n.IsMap() || !n[std::string(key)]) return Status::OK();
    const YAML::Node v = n[std::string(key)];
    if (v.IsNull()) {
      out->clear();
      return Status::OK();
    }
    if (!v.IsScalar()) return At(file_, v.Mark(), std::string(key) + " must be a string");
    if (one_line) BN_RETURN_IF_ERROR(OneLine(v, key));
    *out = v.Scalar();
    return Status::OK();
  }
  // InvalidArgument at scalar `v` when it holds a control byte or, with the
  // source known, does not end on the line it starts on.
  Status OneLine(const YAML::Node& v, std::string_view key) const;

  static bool ParseNumber(const std::string& s, double* out) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    *out = std::strtod(s.c_str(), &end);
    return errno == 0 && end == s.c_str() + s.size() && std::isfinite(*out);
  }
  static std::string Format(double d) {
    std::string s = std::to_string(d);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }

  std::string file_;
  std::string_view source_;
  std::string empty_;
};

}  // namespace bottleneckd
