// base/utf8: the sequence check (RFC 3629's table of well-formed byte
// sequences) with its code point, and the replacement of ill-formed bytes.
#include "base/utf8.h"

#include <gtest/gtest.h>

namespace bottleneckd::utf8_test {
namespace {

TEST(Utf8SequenceLength, WellFormedSequencesAndTheirCodePoints) {
  struct Case {
    std::string bytes;
    size_t length;
    uint32_t code_point;
  } cases[] = {
      {"A", 1, 0x41},
      {"\t", 1, 0x09},
      {"\xC2\x85", 2, 0x85},              // NEL, a C1 control
      {"\xC3\xA9", 2, 0xE9},              // é
      {"\xE0\xA0\x80", 3, 0x800},         // the first 3-byte code point
      {"\xE2\x82\xAC", 3, 0x20AC},        // €
      {"\xED\x9F\xBF", 3, 0xD7FF},        // just below the surrogates
      {"\xF0\x90\x80\x80", 4, 0x10000},   // the first 4-byte code point
      {"\xF4\x8F\xBF\xBF", 4, 0x10FFFF},  // the last code point
  };
  for (const Case& c : cases) {
    uint32_t cp = 0;
    EXPECT_EQ(Utf8SequenceLength(c.bytes + "tail", &cp), c.length) << c.code_point;
    EXPECT_EQ(cp, c.code_point);
    EXPECT_EQ(Utf8SequenceLength(c.bytes), c.length);  // without the code point
  }
}

TEST(Utf8SequenceLength, IllFormedSequencesAreZero) {
  for (const std::string& bad : {
           std::string("\x80"),              // a stray continuation byte
           std::string("\xC0\x80"),          // overlong NUL
           std::string("\xC1\xBF"),          // overlong
           std::string("\xE0\x9F\xBF"),      // overlong 3-byte
           std::string("\xED\xA0\x80"),      // a surrogate
           std::string("\xF0\x8F\xBF\xBF"),  // overlong 4-byte
           std::string("\xF4\x90\x80\x80"),  // past U+10FFFF
           std::string("\xF5\x80\x80\x80"),  // never a lead byte
           std::string("\xE2\x82"),          // cut short
           std::string("\xE2\x28\xA1"),      // a bad continuation
       }) {
    uint32_t cp = 7;
    EXPECT_EQ(Utf8SequenceLength(bad, &cp), 0u) << ::testing::PrintToString(bad);
    EXPECT_EQ(cp, 7u);  // untouched
  }
}

TEST(AppendValidUtf8, ReplacesEachIllFormedByte) {
  std::string out;
  AppendValidUtf8(
      "a\xE2\x82\xAC"
      "b\xE2\x82"
      "c\xFF",
      &out);
  EXPECT_EQ(out,
            "a\xE2\x82\xAC"
            "b\xEF\xBF\xBD\xEF\xBF\xBD"
            "c\xEF\xBF\xBD");
}

}  // namespace
}  // namespace bottleneckd::utf8_test
