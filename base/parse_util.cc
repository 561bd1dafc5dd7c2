#include "base/parse_util.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

namespace bottleneckd {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

template <typename T>
bool ParseWhole(std::string_view s, T* out, int base) {
  if (s.empty()) return false;
  if (s.front() == '+' || (s.front() == '-' && std::is_unsigned_v<T>)) return false;
  T v{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  *out = v;
  return true;
}

}  // namespace

bool NextLine(std::string_view* text, std::string_view* line) {
  if (text->empty()) return false;
  size_t nl = text->find('\n');
  if (nl == std::string_view::npos) {
    *line = *text;
    text->remove_prefix(text->size());
  } else {
    *line = text->substr(0, nl);
    text->remove_prefix(nl + 1);
  }
  return true;
}

std::string_view NextToken(std::string_view* s) {
  size_t i = 0;
  while (i < s->size() && IsBlank((*s)[i])) ++i;
  size_t j = i;
  while (j < s->size() && !IsBlank((*s)[j])) ++j;
  std::string_view tok = s->substr(i, j - i);
  s->remove_prefix(j);
  return tok;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (IsBlank(s.front()) || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (IsBlank(s.back()) || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool ParseU64(std::string_view s, uint64_t* out) { return ParseWhole(s, out, 10); }
bool ParseI64(std::string_view s, int64_t* out) { return ParseWhole(s, out, 10); }
bool ParseHexU64(std::string_view s, uint64_t* out) { return ParseWhole(s, out, 16); }

bool ParseDouble(std::string_view s, double* out) {
  if (s.empty()) return false;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  *out = v;
  return true;
}

std::optional<uint64_t> ToU64(std::string_view s) {
  uint64_t v;
  if (!ParseU64(s, &v)) return std::nullopt;
  return v;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool ParseDuration(std::string_view s, double* seconds) {
  s = Trim(s);
  double scale = 0;
  if (s.size() > 2 && s.substr(s.size() - 2) == "ms")
    scale = 1e-3, s.remove_suffix(2);
  else if (!s.empty() && s.back() == 's')
    scale = 1, s.remove_suffix(1);
  else if (!s.empty() && s.back() == 'm')
    scale = 60, s.remove_suffix(1);
  else if (!s.empty() && s.back() == 'h')
    scale = 3600, s.remove_suffix(1);
  else if (!s.empty() && s.back() == 'd')
    scale = 86400, s.remove_suffix(1);
  double v;
  if (scale == 0 || !ParseDouble(s, &v) || !(v > 0)) return false;
  *seconds = v * scale;
  return true;
}

std::string DurationText(double seconds) {
  struct Unit {
    const char* suffix;
    double seconds;
  };
  constexpr Unit kUnits[] = {{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}, {"ms", 1e-3}};
  for (const Unit& u : kUnits) {
    const double n = seconds / u.seconds;
    if (n >= 1 && std::abs(n - std::round(n)) < 1e-9 * n) return std::to_string(std::llround(n)) + u.suffix;
  }
  char b[32];
  std::snprintf(b, sizeof b, "%g s", seconds);
  return b;
}

}  // namespace bottleneckd
