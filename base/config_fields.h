// FieldTable: a config section's keys, each with the member of the section's
// struct its value goes to, listed once beside the struct's stage (the
// bus_model section in bus/, verdict in analysis/, ...). The unknown-key check
// and the parser read the same table, so a key cannot be accepted and then
// ignored, or parsed and refused, and adding an option is one line:
//
//   const FieldTable<SelfLimitOptions> kLimits = {
//       NumberField("cpu_percent", &SelfLimitOptions::cpu_percent, 0.0001, 409600),
//       DurationField("cpu_window", &SelfLimitOptions::cpu_window_seconds, {"limits.cpu_window", 1, 3600, "60s"}),
//   };
//   BN_RETURN_IF_ERROR(kLimits.Parse(r, n, "limits", &options));
//
// Values are read by ConfigReader (base/config_reader.h), so every error names
// the file, line and column of the value, as before.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/config_reader.h"
#include "base/status.h"

namespace bottleneckd {

// One key of a section of struct T: `read` takes the section's node (where
// the key is present) and stores the value in *out.
template <typename T>
struct ConfigField {
  std::string_view key;
  std::function<Status(const ConfigReader& r, const YAML::Node& section, std::string_view key, T* out)> read;
};

template <typename T>
class FieldTable {
 public:
  FieldTable(std::initializer_list<ConfigField<T>> fields) : fields_(fields) {}
  explicit FieldTable(std::vector<ConfigField<T>> fields) : fields_(std::move(fields)) {}

  // The same fields, read into the member `sub` of a larger struct U (a
  // section whose keys come from two stages: `runs` holds the daemon's
  // control-socket keys and the run tracker's).
  template <typename U>
  std::vector<ConfigField<U>> Within(T U::*sub) const {
    std::vector<ConfigField<U>> out;
    for (const ConfigField<T>& f : fields_) {
      out.push_back({f.key, [sub, read = f.read](const ConfigReader& r, const YAML::Node& n, std::string_view key,
                                                 U* u) { return read(r, n, key, &(u->*sub)); }});
    }
    return out;
  }
  void Add(std::vector<ConfigField<T>> more) { fields_.insert(fields_.end(), more.begin(), more.end()); }

  // The keys in the table's order, then `extra` (keys of the section another
  // parser reads, like a collector's `enabled`).
  std::vector<std::string_view> Keys(std::initializer_list<std::string_view> extra = {}) const {
    std::vector<std::string_view> keys;
    for (const ConfigField<T>& f : fields_) keys.push_back(f.key);
    keys.insert(keys.end(), extra.begin(), extra.end());
    return keys;
  }

  // Refuses a section `n` that is not a mapping of the table's keys (and
  // `extra`), "what" naming it in the error ("bus_model.pci"), then reads
  // each key present over *out, in the table's order. An absent or empty
  // section leaves *out. On an error *out may hold the keys read before it:
  // ParseConfig reads into a copy.
  Status Parse(const ConfigReader& r, const YAML::Node& n, std::string_view what, T* out,
               std::initializer_list<std::string_view> extra = {}) const {
    BN_RETURN_IF_ERROR(r.Map(n, what, Keys(extra)));
    if (!n.IsDefined() || !n.IsMap()) return Status::OK();
    for (const ConfigField<T>& f : fields_) {
      if (n[std::string(f.key)]) BN_RETURN_IF_ERROR(f.read(r, n, f.key, out));
    }
    return Status::OK();
  }

 private:
  std::vector<ConfigField<T>> fields_;
};

// The kinds of field, each read by the ConfigReader method of its name.

template <typename T>
ConfigField<T> BoolField(std::string_view key, bool T::*m) {
  return {key,
          [m](const ConfigReader& r, const YAML::Node& n, std::string_view k, T* o) { return r.Bool(n, k, &(o->*m)); }};
}

// A one-line string (a path, a name).
template <typename T>
ConfigField<T> LineField(std::string_view key, std::string T::*m) {
  return {key,
          [m](const ConfigReader& r, const YAML::Node& n, std::string_view k, T* o) { return r.Line(n, k, &(o->*m)); }};
}

template <typename T>
ConfigField<T> NamesField(std::string_view key, std::vector<std::string> T::*m) {
  return {key, [m](const ConfigReader& r, const YAML::Node& n, std::string_view k, T* o) {
            return r.Names(n, k, &(o->*m));
          }};
}

template <typename T>
ConfigField<T> PatternsField(std::string_view key, std::vector<std::string> T::*m) {
  return {key, [m](const ConfigReader& r, const YAML::Node& n, std::string_view k, T* o) {
            return r.Patterns(n, k, &(o->*m));
          }};
}

// A number in [lo, hi].
template <typename T>
ConfigField<T> NumberField(std::string_view key, double T::*m, double lo, double hi) {
  return {key, [m, lo, hi](const ConfigReader& r, const YAML::Node& n, std::string_view k, T* o) {
            return r.Number(n, k, lo, hi, false, &(o->*m));
          }};
}

// A whole number in [lo, hi], stored in an integer member of any width (the
// range keeps it inside the member's).
template <typename T, typename M>
ConfigField<T> WholeField(std::string_view key, M T::*m, double lo, double hi) {
  static_assert(std::is_integral_v<M>);
  return {key, [m, lo, hi](const ConfigReader& r, const YAML::Node& n, std::string_view k, T* o) {
            double v = 0;
            BN_RETURN_IF_ERROR(r.Number(n, k, lo, hi, true, &v));
            o->*m = static_cast<M>(v);
            return Status::OK();
          }};
}

// A duration in seconds (ConfigReader::Duration: "500ms", "5m", "1h").
template <typename T>
ConfigField<T> DurationField(std::string_view key, double T::*m, ConfigReader::DurationSpec spec) {
  return {key, [m, spec](const ConfigReader& r, const YAML::Node& n, std::string_view k, T* o) {
            return r.Duration(n, k, spec, &(o->*m));
          }};
}

// Anything else: `read(r, value node, out)`, its errors at the value.
template <typename T>
ConfigField<T> CustomField(std::string_view key,
                           std::function<Status(const ConfigReader& r, const YAML::Node& value, T* out)> read) {
  return {key, [read](const ConfigReader& r, const YAML::Node& n, std::string_view k, T* o) {
            return read(r, n[std::string(k)], o);
          }};
}

}  // namespace bottleneckd
