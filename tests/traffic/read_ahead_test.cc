// Tests of ReadAhead (traffic/read_ahead.h): the chunks put together are
// the file from the offset on, whatever the chunk size; the end and a read
// error are an empty chunk (and stay so); stopping mid-file does not hang.
#include "traffic/read_ahead.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "tests/support/test_util.h"

namespace bottleneckd::read_ahead_test {
namespace {

using testing::TempDir;

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 251) & 0xff);
  return s;
}

TEST(ReadAhead, ChunksPutTogetherAreTheFile) {
  TempDir d;
  const std::string content = Pattern(10007);
  d.Write("f", content);
  const int fd = ::open((d.path() + "/f").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  for (size_t chunk : {1, 3, 4096, 10007, 20000}) {
    for (uint64_t offset : {0, 24, 10006}) {
      ReadAhead r(fd, offset, chunk);
      std::string got;
      for (std::span<const uint8_t> c = r.Next(); !c.empty(); c = r.Next()) {
        EXPECT_LE(c.size(), chunk);
        got.append(reinterpret_cast<const char*>(c.data()), c.size());
      }
      EXPECT_EQ(got, content.substr(offset)) << "chunk " << chunk << " offset " << offset;
      EXPECT_TRUE(r.Next().empty()) << "the end stays the end";
      EXPECT_EQ(r.error(), 0);
    }
  }
  ::close(fd);
}

TEST(ReadAhead, AFailedReadIsAnEmptyChunkWithItsErrno) {
  TempDir d;
  const int fd = ::open(d.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // pread: EISDIR
  ASSERT_GE(fd, 0);
  ReadAhead r(fd, 0, 4096);
  EXPECT_TRUE(r.Next().empty());
  EXPECT_EQ(r.error(), EISDIR);
  EXPECT_TRUE(r.Next().empty());
  ::close(fd);
}

TEST(ReadAhead, StoppedMidFileWithoutReadingOn) {
  TempDir d;
  d.Write("f", Pattern(1 << 16));
  const int fd = ::open((d.path() + "/f").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  for (int i = 0; i < 50; ++i) {
    ReadAhead r(fd, 0, 16);
    ASSERT_EQ(r.Next().size(), 16u);
    // Destroyed here, its thread waiting for a free buffer or reading.
  }
  { ReadAhead never_asked(fd, 0, 16); }
  ::close(fd);
}

}  // namespace
}  // namespace bottleneckd::read_ahead_test
