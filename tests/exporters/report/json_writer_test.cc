// JsonWriter: commas and nesting, escaping and UTF-8 repair, numbers
// (shortest round-trip, null when not finite), and the FILE* sink writing
// the same bytes as the string sink.
#include "exporters/report/json_writer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

namespace bottleneckd::json_writer_test {
namespace {

// One value written alone, as a document (without Finish's newline).
template <typename F>
std::string Doc(F write) {
  std::string o;
  JsonWriter w(&o);
  write(w);
  return o;
}

std::string Str(std::string_view s) {
  return Doc([&](JsonWriter& w) { w.String(s); });
}
std::string Num(double v) {
  return Doc([&](JsonWriter& w) { w.Number(v); });
}

TEST(JsonWriter, NestingAndCommas) {
  std::string o;
  JsonWriter w(&o);
  w.BeginObject();
  w.Key("a").Integer(1);
  w.Key("b").BeginArray();
  w.Integer(-2);
  w.BeginObject();
  w.EndObject();
  w.BeginArray();
  w.EndArray();
  w.Bool(true);
  w.Null();
  w.EndArray();
  w.Key("c").BeginObject();
  w.Key("d").String("e");
  w.Key("f").Bool(false);
  w.EndObject();
  w.Key("g").BeginArray();
  w.EndArray();
  w.EndObject();
  EXPECT_TRUE(w.Finish());
  EXPECT_EQ(o, "{\"a\":1,\"b\":[-2,{},[],true,null],\"c\":{\"d\":\"e\",\"f\":false},\"g\":[]}\n");
}

TEST(JsonWriter, IntegersAtTheirLimits) {
  EXPECT_EQ(Doc([](JsonWriter& w) { w.Integer(std::numeric_limits<uint64_t>::max()); }), "18446744073709551615");
  EXPECT_EQ(Doc([](JsonWriter& w) { w.Integer(std::numeric_limits<int64_t>::min()); }), "-9223372036854775808");
  EXPECT_EQ(Doc([](JsonWriter& w) { w.Integer(uint8_t{17}); }), "17");
}

TEST(JsonWriter, OptionalIsTheValueOrNull) {
  std::string o = Doc([](JsonWriter& w) {
    w.BeginArray();
    w.Optional(std::optional<double>(0.5));
    w.Optional(std::optional<double>());
    w.Optional(std::optional<int>(-3));
    w.Optional(std::optional<uint64_t>(4));
    w.Optional(std::optional<bool>(false));
    w.Optional(std::optional<std::string>("x"));
    w.Optional(std::optional<std::string>());
    w.EndArray();
  });
  EXPECT_EQ(o, "[0.5,null,-3,4,false,\"x\",null]");
}

TEST(JsonWriter, EscapesQuotesBackslashAndControlCharacters) {
  EXPECT_EQ(Str("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Str("l1\nl2\tx"), "\"l1\\nl2\\tx\"");
  EXPECT_EQ(Str(std::string("\x00\x01\x1f\r\x7f", 5)), "\"\\u0000\\u0001\\u001f\\u000d\\u007f\"");
  EXPECT_EQ(Str("/ and ' stay"), "\"/ and ' stay\"");
  // Keys are strings too.
  EXPECT_EQ(Doc([](JsonWriter& w) {
              w.BeginObject();
              w.Key("k\"\xff").Null();
              w.EndObject();
            }),
            "{\"k\\\"\xef\xbf\xbd\":null}");
}

TEST(JsonWriter, StringsAreValidUtf8WhateverTheBytes) {
  const std::string kFffd = "\xef\xbf\xbd";
  EXPECT_EQ(Str("caf\xc3\xa9 \xe2\x82\xac"), "\"caf\xc3\xa9 \xe2\x82\xac\"");  // well-formed: as it is
  EXPECT_EQ(Str("\xff"), "\"" + kFffd + "\"");
  // A 15-byte thread name cut inside the euro sign (E2 82 AC): one U+FFFD per byte.
  EXPECT_EQ(Str("udpecho-worker\xe2\x82"), "\"udpecho-worker" + kFffd + kFffd + "\"");
  EXPECT_EQ(Str("\x80x"), "\"" + kFffd + "x\"");                        // stray continuation byte
  EXPECT_EQ(Str("\xc0\xaf"), "\"" + kFffd + kFffd + "\"");              // overlong '/'
  EXPECT_EQ(Str("\xed\xa0\x80"), "\"" + kFffd + kFffd + kFffd + "\"");  // a surrogate
}

TEST(JsonWriter, NonFiniteNumbersAreNull) {
  EXPECT_EQ(Num(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(Num(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(Num(-std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(Doc([](JsonWriter& w) { w.Fixed(std::numeric_limits<double>::quiet_NaN(), 9); }), "null");
}

TEST(JsonWriter, NumbersAreShortestAndReadBackExactly) {
  struct Case {
    double v;
    const char* want;
  };
  const Case kCases[] = {
      {1796110000.123456, "1796110000.123456"},  // a Unix timestamp keeps its microseconds
      {0.1, "0.1"},
      {1e-7, "1e-07"},
      {5e-324, "5e-324"},                                   // the smallest denormal
      {1.7976931348623157e308, "1.7976931348623157e+308"},  // the largest double
      {-2.5, "-2.5"},
      {3, "3"},
      {0.0002, "0.0002"},
      {0, "0"},
      {-0.0, "0"},
  };
  for (const Case& c : kCases) {
    std::string s = Num(c.v);
    EXPECT_EQ(s, c.want);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), c.v) << s;
  }
}

TEST(JsonWriter, FixedHasTheDigitsAsked) {
  EXPECT_EQ(Doc([](JsonWriter& w) { w.Fixed(1700000000.5, 9); }), "1700000000.500000000");
  EXPECT_EQ(Doc([](JsonWriter& w) { w.Fixed(0.25, 1); }), "0.2");  // ties to even, as printf
}

TEST(JsonWriter, JsonStringAndJsonNumberAreTheWritersText) {
  EXPECT_EQ(JsonString("a\"\xff"), "\"a\\\"\xef\xbf\xbd\"");
  EXPECT_EQ(JsonNumber(0.1), "0.1");
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::infinity()), "null");
}

// A document of ~200 KiB (several chunks) through both sinks.
void BigDocument(JsonWriter* w) {
  w->BeginObject();
  w->Key("rows").BeginArray();
  for (int i = 0; i < 5000; ++i) {
    w->BeginObject();
    w->Key("second").Integer(1700000000 + i);
    w->Key("rate").Number(i / 7.0);
    w->Key("name").String("row \"" + std::to_string(i) + "\" \xff");
    w->EndObject();
  }
  w->EndArray();
  w->EndObject();
}

TEST(JsonWriter, FileSinkWritesWhatTheStringSinkDoes) {
  std::string want;
  {
    JsonWriter w(&want);
    BigDocument(&w);
    EXPECT_TRUE(w.Finish());
  }
  ASSERT_GT(want.size(), 3 * JsonWriter::kChunk);
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    JsonWriter w(f);
    BigDocument(&w);
    // Chunks went out before the end: the document is not held whole.
    EXPECT_GE(std::ftell(f), static_cast<long>(JsonWriter::kChunk));
    EXPECT_TRUE(w.Finish());
  }
  EXPECT_EQ(std::ftell(f), static_cast<long>(want.size()));
  std::rewind(f);
  std::string got(want.size() + 1, '\0');
  got.resize(std::fread(got.data(), 1, got.size(), f));
  std::fclose(f);
  EXPECT_EQ(got, want);
}

TEST(JsonWriter, MisuseFailsAnAssertInDebug) {
  // With NDEBUG the text is written as asked (not JSON) and nothing breaks.
  EXPECT_DEBUG_DEATH(Doc([](JsonWriter& w) {
                       w.BeginObject();
                       w.Integer(1);  // no Key
                     }),
                     "without its Key");
  EXPECT_DEBUG_DEATH(Doc([](JsonWriter& w) {
                       w.BeginArray();
                       w.EndObject();
                     }),
                     "unmatched End");
  EXPECT_DEBUG_DEATH(Doc([](JsonWriter& w) { w.EndArray(); }), "unmatched End");
}

}  // namespace
}  // namespace bottleneckd::json_writer_test
