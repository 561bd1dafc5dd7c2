// JsonWriter: the one writer of every JSON document bottleneckd prints (the
// run report, the pcap report). It streams: values go out as they are
// written, into a std::string or, through a 64 KiB buffer, into a FILE*, so
// a pcap report's per-second rows never sit in memory as a whole document.
//
// What it guarantees of the text it writes:
// - strings are valid UTF-8 whatever bytes they are given (each ill-formed
//   byte becomes U+FFFD, as base/utf8.h's AppendValidUtf8) and escaped per
//   RFC 8259: quote and backslash, \n and \t, other control characters and
//   DEL as \u00XX;
// - numbers are the shortest text that reads back as the same double
//   ("1796110000.123456", "0.1", "1e-07"), fixed from 1e-5 to 1e16 and
//   scientific outside; "0" for both zeros; null for NaN and infinities;
// - commas, colons and brackets come from the writer, which keeps a stack
//   of the open objects and arrays.
//
// Misuse (a value inside an object without its Key, a Key inside an array,
// an End that does not match the open Begin, a second top-level value, Finish
// with something still open) fails an assert in debug builds; with NDEBUG
// the text is written as asked and is not valid JSON, nothing else breaks.
//
// Not thread-safe; one writer per document.
#pragma once

#include <concepts>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace bottleneckd {

class JsonWriter {
 public:
  // Appends to *out (not owned; must outlive the writer).
  explicit JsonWriter(std::string* out);
  // Writes to `file` (not owned, not closed) in chunks of about kChunk
  // bytes; the rest goes out at Finish or on destruction.
  explicit JsonWriter(std::FILE* file);
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  static constexpr size_t kChunk = 64 * 1024;

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // The next member's name, inside an object; returns *this so that its
  // value follows: w.Key("start").Number(t).
  JsonWriter& Key(std::string_view name);

  void String(std::string_view s);
  void Number(double v);
  // v with `decimals` digits after the point ("%.*f": a capture timestamp
  // to the nanosecond); null when not finite.
  void Fixed(double v, int decimals);
  template <std::integral T>
  void Integer(T v) {
    static_assert(!std::same_as<T, bool>, "Bool for a bool");
    if constexpr (std::is_signed_v<T>)
      Signed(v);
    else
      Unsigned(v);
  }
  void Bool(bool v);
  void Null();
  // The value, or null when there is none.
  template <typename T>
  void Optional(const std::optional<T>& v) {
    if (!v) {
      Null();
    } else if constexpr (std::same_as<T, bool>) {
      Bool(*v);
    } else if constexpr (std::integral<T>) {
      Integer(*v);
    } else if constexpr (std::floating_point<T>) {
      Number(*v);
    } else {
      String(*v);
    }
  }

  // Ends the document with a newline and, for a FILE*, writes out what is
  // buffered. False when a write to the file failed (now or earlier).
  bool Finish();

 private:
  struct Level {
    bool object;
    bool first = true;       // no member or item yet
    bool after_key = false;  // object: a Key waits for its value
  };

  void Scalar(std::string_view text);  // a value written as it is
  void Signed(int64_t v);
  void Unsigned(uint64_t v);
  void BeforeValue();
  void AfterValue();
  void End(bool object, char close);
  void Drain(bool all);  // FILE*: writes the buffer out (all, or once it holds a chunk)

  std::string* out_;  // where text goes: the caller's string or buf_
  std::string buf_;
  std::FILE* file_ = nullptr;
  bool failed_ = false;
  bool done_ = false;  // the top-level value is complete
  std::vector<Level> stack_;
};

// One JSON string or number as JsonWriter writes it ("\"a\\\"b\"",
// "1e-07", "null"), for text outside a document.
std::string JsonString(std::string_view s);
std::string JsonNumber(double v);

}  // namespace bottleneckd
