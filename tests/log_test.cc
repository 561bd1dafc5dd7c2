// logfmt formatting (base/log.h): which values are quoted and how every byte
// that could end or forge a line is escaped.
#include "base/log.h"

#include <gtest/gtest.h>

#include <string>

namespace bottleneckd {
namespace {

TEST(LogFormat, PlainValuesAreWrittenAsTheyAre) {
  EXPECT_EQ(FormatLogFields({{"collector", "netdev"}, {"n", "42"}}), "collector=netdev n=42");
  EXPECT_EQ(FormatLogFields({{"if", "\xc3\xa9th0"}}), "if=\xc3\xa9th0");  // UTF-8 passes through
}

TEST(LogFormat, QuotesAndEscapes) {
  const struct {
    std::string value;
    const char* want;
  } cases[] = {
      {"", "k=\"\""},
      {"a b", "k=\"a b\""},
      {"a=b", "k=\"a=b\""},
      {"say \"hi\"", "k=\"say \\\"hi\\\"\""},
      {"C:\\x", "k=\"C:\\\\x\""},
      {"a\nb", "k=\"a\\nb\""},
      {"a\rb", "k=\"a\\rb\""},
      {"a\tb", "k=\"a\\tb\""},
      {std::string("a\0b", 3), "k=\"a\\u0000b\""},
      {"\x1b[31mred", "k=\"\\u001b[31mred\""},
      {"a\x7f", "k=\"a\\u007f\""},
      {"\x01\x1f", "k=\"\\u0001\\u001f\""},
  };
  for (const auto& c : cases) EXPECT_EQ(FormatLogFields({{"k", c.value}}), c.want) << c.want;
}

TEST(LogFormat, NoRawControlByteSurvives) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  std::string line = FormatLogFields({{"k", all}});
  for (char c : line) {
    const auto b = static_cast<unsigned char>(c);
    EXPECT_FALSE(b < 0x20 || b == 0x7f) << "raw byte " << static_cast<int>(b) << " in " << line;
  }
}

}  // namespace
}  // namespace bottleneckd
