// base/number_text.h: ExactText reads back as the same double, in the
// shortest form, fixed in the range people read (timestamps keep their
// microseconds) and scientific outside it; RoundedText rounds for a person.
// These replaced three private helpers that printed numbers three ways
// (%.6g in the plots, %.15g in the run store's messages, to_chars in
// recording.yaml) beside the JSON writer's own.
#include "base/number_text.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace bottleneckd::number_text_test {
namespace {

double ReadBack(const std::string& s) {
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  EXPECT_EQ(r.ptr, s.data() + s.size()) << s;
  return v;
}

TEST(ExactText, ShortestFormThatReadsBack) {
  EXPECT_EQ(ExactText(0.1), "0.1");
  EXPECT_EQ(ExactText(0.0002), "0.0002");
  EXPECT_EQ(ExactText(1764000000.123456), "1764000000.123456");
  EXPECT_EQ(ExactText(42), "42");
  EXPECT_EQ(ExactText(-2.5), "-2.5");
  EXPECT_EQ(ExactText(0), "0");
  EXPECT_EQ(ExactText(-0.0), "0");
  EXPECT_EQ(ExactText(1e-7), "1e-07");
  EXPECT_EQ(ExactText(2e20), "2e+20");
  for (double v : {0.1, 1.0 / 3, 1764000000.123456, 6.02214076e23, 1e-300, 123456789012345.6,
                   std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min()})
    EXPECT_EQ(ReadBack(ExactText(v)), v) << ExactText(v);
  EXPECT_EQ(ExactText(std::nan("")), "nan");
  EXPECT_EQ(ExactText(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(RoundedText, SignificantDigitsForAPerson) {
  EXPECT_EQ(RoundedText(12345.678), "12345.7");
  EXPECT_EQ(RoundedText(1500000), "1.5e+06");
  EXPECT_EQ(RoundedText(0.25), "0.25");
  EXPECT_EQ(RoundedText(2.0 / 3, 3), "0.667");
}

}  // namespace
}  // namespace bottleneckd::number_text_test
