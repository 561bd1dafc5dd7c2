// logfmt formatting (base/log.h): which values are quoted and how every byte
// that could end or forge a line is escaped.
#include "base/log.h"

#include <gtest/gtest.h>

#include <string>

namespace bottleneckd::log_test {
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

TEST(RepeatLimiter, SaysAFailureOnceThenAtMostEveryPeriod) {
  RepeatLimiter l(600);
  uint64_t held = 99;
  EXPECT_TRUE(l.Admit("no cpuinfo", 0, &held));
  EXPECT_EQ(held, 0u);
  for (int tick = 1; tick < 600; ++tick) EXPECT_FALSE(l.Admit("no cpuinfo", tick, &held)) << tick;
  EXPECT_TRUE(l.Admit("no cpuinfo", 600, &held));
  EXPECT_EQ(held, 599u);  // ticks 1..599
  // A different failure is said at once, with nothing held back for it.
  EXPECT_TRUE(l.Admit("cpuinfo garbled", 601, &held));
  EXPECT_EQ(held, 0u);
  EXPECT_FALSE(l.Admit("cpuinfo garbled", 602, &held));
  // Over, then back: said at once.
  l.Reset();
  EXPECT_TRUE(l.Admit("cpuinfo garbled", 603, &held));
  EXPECT_EQ(held, 0u);
}

}  // namespace
}  // namespace bottleneckd::log_test
