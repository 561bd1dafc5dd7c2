// Hand-written: the one check, 30 lines; the Debian libraries that validate
// UTF-8 (ICU, glib) would be a large dependency for it.
#include "base/utf8.h"

namespace bottleneckd {

size_t Utf8SequenceLength(std::string_view s, uint32_t* code_point) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  if (c < 0x80) {
    if (code_point) *code_point = c;
    return 1;
  }
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;  // a continuation byte, C0/C1 (overlong) or F5..FF
  }
  if (s.size() < n || b(1) < lo || b(1) > hi) return 0;
  uint32_t v = c & (0xFFu >> (n + 1));
  for (size_t i = 1; i < n; ++i) {
    if (b(i) < 0x80 || b(i) > 0xBF) return 0;
    v = (v << 6) | (b(i) & 0x3F);
  }
  if (code_point) *code_point = v;
  return n;
}

void AppendValidUtf8(std::string_view s, std::string* out) {
  size_t start = 0, i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = Utf8SequenceLength(s.substr(i));
    if (n > 0) {
      i += n;
      continue;
    }
    out->append(s.data() + start, i - start);
    out->append("\xEF\xBF\xBD");
    start = ++i;
  }
  out->append(s.data() + start, s.size() - start);
}

}  // namespace bottleneckd
