#include "exporters/report/json_util.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "base/utf8.h"

namespace bottleneckd {

std::string JsonString(std::string_view s) {
  std::string o = "\"";
  std::string valid;
  // Paths, names and commands may hold any bytes: what is not UTF-8 becomes
  // U+FFFD, so every document is valid UTF-8 (RFC 8259 section 8.1).
  AppendValidUtf8(s, &valid);
  for (char c : valid) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned char>(c));
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o + "\"";
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  if (v == 0) return "0";  // also -0: JSON readers differ on "-0"
  // The shortest text that reads back as the same double (std::to_chars
  // without a precision), fixed from 1e-5 to 1e16, else scientific: a Unix timestamp keeps its
  // microseconds, 0.1 stays 0.1, 0.0002 is not 2e-04.
  const double a = std::fabs(v);
  const auto format = a >= 1e-5 && a < 1e16 ? std::chars_format::fixed : std::chars_format::scientific;
  char b[400];  // fixed needs at most 16 integer digits here, scientific ~24 characters
  auto r = std::to_chars(b, b + sizeof b, v, format);
  return std::string(b, r.ptr);
}

}  // namespace bottleneckd
