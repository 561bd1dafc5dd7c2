#include "base/parse_util.h"

#include <charconv>

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

}  // namespace bottleneckd
