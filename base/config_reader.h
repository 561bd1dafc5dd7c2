// ConfigReader: checked access to the YAML config's nodes, shared by the
// parsers of its sections (daemon/config.cc, daemon/config_bus_model.cc).
// Every error names the file, line and column of the offending node.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

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

class ConfigReader {
 public:
  explicit ConfigReader(std::string_view file) : file_(file) {}

  // Checks that `n` is a map whose keys are all in `allowed`.
  Status Map(const YAML::Node& n, std::string_view what, std::initializer_list<std::string_view> allowed) const {
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

  Status String(const YAML::Node& n, std::string_view key, std::string* out) const {
    if (!n.IsMap() || !n[std::string(key)]) return Status::OK();
    const YAML::Node v = n[std::string(key)];
    if (v.IsNull()) {
      out->clear();
      return Status::OK();
    }
    if (!v.IsScalar()) return At(file_, v.Mark(), std::string(key) + " must be a string");
    *out = v.Scalar();
    return Status::OK();
  }

  // A list of plain strings (names).
  Status Names(const YAML::Node& n, std::string_view key, std::vector<std::string>* out) const {
    if (!n.IsMap() || !n[std::string(key)]) return Status::OK();
    const YAML::Node v = n[std::string(key)];
    out->clear();
    if (v.IsNull()) return Status::OK();
    if (!v.IsSequence()) return At(file_, v.Mark(), std::string(key) + " must be a list of names");
    for (const auto& item : v) {
      if (!item.IsScalar() || item.Scalar().empty())
        return At(file_, item.Mark(), std::string(key) + " entries must be non-empty strings");
      out->push_back(item.Scalar());
    }
    return Status::OK();
  }

  // A list of regexes, each compiled to check it.
  Status Patterns(const YAML::Node& n, std::string_view key, std::vector<std::string>* out) const {
    if (!n.IsMap() || !n[std::string(key)]) return Status::OK();
    const YAML::Node v = n[std::string(key)];
    if (v.IsNull()) return Status::OK();
    if (!v.IsSequence()) return At(file_, v.Mark(), std::string(key) + " must be a list of patterns");
    out->clear();
    for (const auto& item : v) {
      if (!item.IsScalar()) return At(file_, item.Mark(), std::string(key) + " entries must be strings");
      try {
        std::regex re(item.Scalar());
      } catch (const std::regex_error& e) {
        return At(file_, item.Mark(), "invalid pattern '" + item.Scalar() + "': " + e.what());
      }
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
  std::string empty_;
};

}  // namespace bottleneckd
