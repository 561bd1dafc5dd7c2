#include "base/number_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace bottleneckd {

std::string ExactText(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";  // also -0: JSON readers differ on "-0"
  const double a = std::fabs(v);
  const auto format = a >= 1e-5 && a < 1e16 ? std::chars_format::fixed : std::chars_format::scientific;
  char b[400];  // fixed needs at most 16 integer digits here, scientific ~24 characters
  auto r = std::to_chars(b, b + sizeof b, v, format);
  return std::string(b, r.ptr);
}

std::string RoundedText(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

}  // namespace bottleneckd
