#include "sources/reading_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "base/parse_util.h"

namespace bottleneckd {
namespace {

constexpr int64_t kNanosPerSecond = 1000000000;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string FormatSecondsNs(int64_t ns) {
  char buf[48];
  if (ns < 0) return "0";
  std::snprintf(buf, sizeof(buf), "%lld.%09lld", static_cast<long long>(ns / kNanosPerSecond),
                static_cast<long long>(ns % kNanosPerSecond));
  return buf;
}

bool ParseSecondsNs(std::string_view s, int64_t* ns) {
  size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  auto all_digits = [](std::string_view t) {
    return std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!whole.empty() && all_digits(whole) && all_digits(frac)) {  // exact: "12", "12.", "12.000000500"
    uint64_t w = 0;
    if (!ParseU64(whole, &w) || w > static_cast<uint64_t>(INT64_MAX / kNanosPerSecond) - 1) return false;
    int64_t f = 0;
    for (size_t i = 0; i < 9; ++i) f = f * 10 + (i < frac.size() ? frac[i] - '0' : 0);
    *ns = static_cast<int64_t>(w) * kNanosPerSecond + f;
    return true;
  }
  double d = 0;
  if (s.empty() || s.front() == '-' || s.front() == '+' || !ParseDouble(s, &d) || !std::isfinite(d) || d < 0 ||
      d >= 9.2e9)
    return false;
  *ns = std::llround(d * 1e9);
  return true;
}

std::string Quoted(std::string_view s) {
  std::string o = "'";
  for (char c : s.substr(0, 80)) o += (static_cast<unsigned char>(c) < 0x20 ? '?' : c);
  if (s.size() > 80) o += "...";
  return o + "'";
}

std::string ShortestDouble(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

ReadingFileWriter::ReadingFileWriter(int format) { text_ = "format\t" + std::to_string(format); }

ReadingFileWriter& ReadingFileWriter::Line(std::string_view key) {
  text_ += '\n';
  text_ += key;
  return *this;
}

ReadingFileWriter& ReadingFileWriter::U(uint64_t v) {
  text_ += '\t';
  text_ += std::to_string(v);
  return *this;
}

ReadingFileWriter& ReadingFileWriter::I(int64_t v) {
  text_ += '\t';
  text_ += std::to_string(v);
  return *this;
}

ReadingFileWriter& ReadingFileWriter::D(double v) {
  text_ += '\t';
  text_ += ShortestDouble(v);
  return *this;
}

ReadingFileWriter& ReadingFileWriter::S(std::string_view v) {
  text_ += '\t';
  for (char c : v) {
    switch (c) {
      case '%': text_ += "%25"; break;
      case '\t': text_ += "%09"; break;
      case '\n': text_ += "%0A"; break;
      case '\r': text_ += "%0D"; break;
      default: text_ += c;
    }
  }
  return *this;
}

std::string ReadingFileWriter::Take() {
  text_ += '\n';
  return std::move(text_);
}

ReadingFileReader::ReadingFileReader(std::string_view text, std::string_view what) : text_(text), what_(what) {}

Status ReadingFileReader::Format(int newest, int* format) {
  uint64_t f = 0;
  if (!Next() || key_ != "format" || !U(&f) || !AtEnd())
    return Bad("expected 'format<TAB>N' first: not a " + what_ + " file");
  if (f < 1 || f > static_cast<uint64_t>(newest))
    return Bad("unknown " + what_ + " format (this bottleneckd reads 1 to " + std::to_string(newest) + ")");
  *format = static_cast<int>(f);
  return Status::OK();
}

bool ReadingFileReader::Next() {
  while (NextLine(&text_, &line_)) {
    ++n_;
    if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
    if (line_.empty() || line_.front() == '#') continue;
    const size_t tab = line_.find('\t');
    key_ = line_.substr(0, tab);
    more_ = tab != std::string_view::npos;
    rest_ = more_ ? line_.substr(tab + 1) : std::string_view();
    return true;
  }
  key_ = rest_ = std::string_view();
  more_ = false;
  return false;
}

bool ReadingFileReader::Field(std::string_view* f) {
  if (!more_) return false;
  const size_t tab = rest_.find('\t');
  *f = rest_.substr(0, tab);
  more_ = tab != std::string_view::npos;
  rest_ = more_ ? rest_.substr(tab + 1) : std::string_view();
  return true;
}

bool ReadingFileReader::U(uint64_t* v) {
  std::string_view f;
  return Field(&f) && ParseU64(f, v);
}

bool ReadingFileReader::I(int64_t* v) {
  std::string_view f;
  return Field(&f) && ParseI64(f, v);
}

bool ReadingFileReader::Int(int* v, int lo, int hi) {
  int64_t i = 0;
  if (!I(&i) || i < lo || i > hi) return false;
  *v = static_cast<int>(i);
  return true;
}

bool ReadingFileReader::D(double* v) {
  std::string_view f;
  return Field(&f) && ParseDouble(f, v) && std::isfinite(*v);
}

bool ReadingFileReader::B(bool* v) {
  std::string_view f;
  if (!Field(&f) || (f != "0" && f != "1")) return false;
  *v = f == "1";
  return true;
}

bool ReadingFileReader::S(std::string* v) {
  std::string_view f;
  if (!Field(&f)) return false;
  v->clear();
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      *v += f[i];
      continue;
    }
    if (i + 2 >= f.size()) return false;
    const int hi = HexDigit(f[i + 1]), lo = HexDigit(f[i + 2]);
    if (hi < 0 || lo < 0) return false;
    *v += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return true;
}

Status ReadingFileReader::Bad(std::string_view why) const {
  return Status::Corruption(what_ + " line " + std::to_string(n_) + ": " + std::string(why) + ", got " + Quoted(line_));
}

}  // namespace bottleneckd
