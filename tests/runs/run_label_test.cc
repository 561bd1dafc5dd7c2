// RunLabel: the run label's value, at most 64 bytes of whole UTF-8 characters.
#include "runs/run_label.h"

#include <gtest/gtest.h>

namespace bottleneckd::run_label_test {
namespace {

TEST(RunLabel, ShortNamesStayWhole) {
  EXPECT_EQ(RunLabel("echo 550M"), "echo 550M");
  EXPECT_EQ(RunLabel(std::string(64, 'x')), std::string(64, 'x'));
}

TEST(RunLabel, LongNamesAreCutOnACharacterBoundary) {
  EXPECT_EQ(RunLabel(std::string(200, 'x')), std::string(64, 'x'));
  // 62 bytes, then a 3-byte character (U+20AC) across the 64-byte line.
  const std::string stem(62, 'y');
  EXPECT_EQ(RunLabel(stem + "\xe2\x82\xac" + "zz"), stem);
  // A 4-byte character ending exactly at 64 bytes is kept.
  const std::string sixty(60, 'z');
  EXPECT_EQ(RunLabel(sixty + "\xf0\x9f\x98\x80" + "tail"), sixty + "\xf0\x9f\x98\x80");
}

}  // namespace
}  // namespace bottleneckd::run_label_test
