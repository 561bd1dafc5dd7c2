// The state files written off the tick's thread (base/state_file_writer.h).
#include "base/state_file_writer.h"

#include <gtest/gtest.h>

#include <string>

#include "base/state_file.h"
#include "tests/support/test_util.h"

namespace bottleneckd {
namespace {

using testing::TempDir;

std::string Read(const std::string& path) {
  std::string text;
  EXPECT_OK(ReadStateFile(path, 1 << 20, &text));
  return text;
}

TEST(StateFileWriter, WritesWhatWasSubmittedAndTheLatestWins) {
  TempDir dir;
  StateFileWriter w;
  for (int i = 0; i < 50; ++i) w.Submit(dir.path(), "cost", "format 1\nfit " + std::to_string(i) + "\n");
  w.Submit(dir.path(), "other", "format 1\n");
  w.Flush();
  EXPECT_EQ(Read(dir.path() + "/cost"), "format 1\nfit 49\n");
  EXPECT_EQ(Read(dir.path() + "/other"), "format 1\n");
  EXPECT_GE(w.written(), 2);
  EXPECT_LE(w.written(), 51);  // texts replaced while waiting are never written
  EXPECT_EQ(w.failed(), 0);
}

TEST(StateFileWriter, AFailedWriteIsCountedAndTheNextStillWritten) {
  TempDir dir;
  dir.Write("file", "x");  // a file where a directory is wanted
  StateFileWriter w;
  w.Submit(dir.path() + "/file", "cost", "format 1\n");
  w.Flush();
  EXPECT_EQ(w.failed(), 1);
  w.Submit(dir.path(), "cost", "format 1\n");
  w.Flush();
  EXPECT_EQ(w.written(), 1);
}

TEST(StateFileWriter, WhatIsPendingIsWrittenBeforeItStops) {
  TempDir dir;
  {
    StateFileWriter w;
    w.Submit(dir.path(), "cost", "format 1\nlast\n");
  }
  EXPECT_EQ(Read(dir.path() + "/cost"), "format 1\nlast\n");
}

}  // namespace
}  // namespace bottleneckd
