#include "exporters/report/json_writer.h"

#include <cassert>
#include <charconv>
#include <cmath>

#include "base/number_text.h"
#include "base/utf8.h"

namespace bottleneckd {

namespace {

void AppendString(std::string_view s, std::string* o) {
  // Paths, names and commands may hold any bytes: what is not UTF-8 becomes
  // U+FFFD, so every document is valid UTF-8 (RFC 8259 section 8.1).
  std::string valid;
  AppendValidUtf8(s, &valid);
  *o += '"';
  for (char c : valid) {
    switch (c) {
      case '"': *o += "\\\""; break;
      case '\\': *o += "\\\\"; break;
      case '\n': *o += "\\n"; break;
      case '\t': *o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          static constexpr char kHex[] = "0123456789abcdef";
          *o += "\\u00";
          *o += kHex[(c >> 4) & 0xf];
          *o += kHex[c & 0xf];
        } else {
          *o += c;
        }
    }
  }
  *o += '"';
}

void AppendNumber(double v, std::string* o) {
  // null for NaN and infinities; else the text that reads back as v.
  *o += std::isfinite(v) ? ExactText(v) : "null";
}

}  // namespace

JsonWriter::JsonWriter(std::string* out) : out_(out) {}

JsonWriter::JsonWriter(std::FILE* file) : out_(&buf_), file_(file) { buf_.reserve(kChunk + 1024); }

JsonWriter::~JsonWriter() { Drain(true); }

void JsonWriter::BeforeValue() {
  if (stack_.empty()) {
    assert(!done_ && "a second top-level value");
    return;
  }
  Level& l = stack_.back();
  if (l.object) {
    assert(l.after_key && "a value inside an object without its Key");
    l.after_key = false;
  } else {
    if (!l.first) *out_ += ',';
    l.first = false;
  }
}

void JsonWriter::AfterValue() {
  if (stack_.empty()) done_ = true;
  Drain(false);
}

JsonWriter& JsonWriter::Key(std::string_view name) {
  assert(!stack_.empty() && stack_.back().object && !stack_.back().after_key && "a Key outside an object");
  if (!stack_.empty()) {
    Level& l = stack_.back();
    if (!l.first) *out_ += ',';
    l.first = false;
    l.after_key = true;
  }
  AppendString(name, out_);
  *out_ += ':';
  return *this;
}

void JsonWriter::BeginObject() {
  BeforeValue();
  *out_ += '{';
  stack_.push_back(Level{.object = true});
}

void JsonWriter::BeginArray() {
  BeforeValue();
  *out_ += '[';
  stack_.push_back(Level{.object = false});
}

void JsonWriter::End([[maybe_unused]] bool object, char close) {
  assert(!stack_.empty() && stack_.back().object == object && !stack_.back().after_key && "an unmatched End");
  if (!stack_.empty()) stack_.pop_back();
  *out_ += close;
  AfterValue();
}

void JsonWriter::EndObject() { End(true, '}'); }
void JsonWriter::EndArray() { End(false, ']'); }

void JsonWriter::String(std::string_view s) {
  BeforeValue();
  AppendString(s, out_);
  AfterValue();
}

void JsonWriter::Number(double v) {
  BeforeValue();
  AppendNumber(v, out_);
  AfterValue();
}

void JsonWriter::Fixed(double v, int decimals) {
  BeforeValue();
  if (std::isfinite(v)) {
    char b[400];  // up to 309 integer digits for the largest doubles
    auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::fixed, decimals);
    out_->append(b, r.ec == std::errc() ? r.ptr : b);
  } else {
    *out_ += "null";
  }
  AfterValue();
}

void JsonWriter::Scalar(std::string_view text) {
  BeforeValue();
  *out_ += text;
  AfterValue();
}

void JsonWriter::Signed(int64_t v) { Scalar(std::to_string(v)); }
void JsonWriter::Unsigned(uint64_t v) { Scalar(std::to_string(v)); }
void JsonWriter::Bool(bool v) { Scalar(v ? "true" : "false"); }
void JsonWriter::Null() { Scalar("null"); }

bool JsonWriter::Finish() {
  assert(stack_.empty() && done_ && "Finish with the document incomplete");
  *out_ += '\n';
  Drain(true);
  if (file_ && std::fflush(file_) != 0) failed_ = true;
  return !failed_;
}

void JsonWriter::Drain(bool all) {
  if (!file_ || buf_.empty() || (!all && buf_.size() < kChunk)) return;
  if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) failed_ = true;
  buf_.clear();
}

std::string JsonString(std::string_view s) {
  std::string o;
  AppendString(s, &o);
  return o;
}

std::string JsonNumber(double v) {
  std::string o;
  AppendNumber(v, &o);
  return o;
}

}  // namespace bottleneckd
