// ProcMaps over /proc/self/maps lines recorded on this VM (kernel 6.18.44,
// Debian 12): a Python process that had mapped a file with a space in its
// name and an executable file unlinked since ("(deleted)"), beside its
// interpreter, libc, anonymous memory and the kernel's pseudo-ranges; and
// over corrupt lines.
#include "collectors/proc_maps.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_util.h"

namespace bottleneckd::proc_maps_test {
namespace {

// Lines kept in the kernel's order, some left out; the anonymous range's
// trailing space is the kernel's.
constexpr const char* kMaps =
    "55e954820000-55e954821000 r--p 00000000 fe:00 18624                      "
    "/root/.pyenv/versions/3.11.7/bin/python3.11\n"
    "55e954821000-55e954822000 r-xp 00001000 fe:00 18624                      "
    "/root/.pyenv/versions/3.11.7/bin/python3.11\n"
    "55e96db33000-55e96dcc2000 rw-p 00000000 00:00 0                          [heap]\n"
    "7f6ce2d01000-7f6ce2e34000 rw-p 00000000 00:00 0 \n"
    "7f6ce2ea9000-7f6ce2eaa000 r-xs 00000000 fe:00 10953384                   /tmp/gone.so (deleted)\n"
    "7f6ce2eaa000-7f6ce2eac000 r--s 00000000 fe:00 10953383                   /tmp/with space.bin\n"
    "7f6ce321e000-7f6ce3244000 r--p 00000000 fe:00 332835                     /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f6ce3244000-7f6ce339a000 r-xp 00026000 fe:00 332835                     /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f6ce339a000-7f6ce33ed000 r--p 0017c000 fe:00 332835                     /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f6ce3b46000-7f6ce3b47000 r--s 00001000 fe:00 10953383                   /tmp/with space.bin\n"
    "7f6ce3b5a000-7f6ce3b5c000 r-xp 00000000 00:00 0                          [vdso]\n"
    "7ffca4156000-7ffca4177000 rw-p 00000000 00:00 0                          [stack]\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

TEST(ProcMaps, ParsesRecordedLines) {
  ProcMaps maps;
  ASSERT_OK(maps.Parse(kMaps));
  const auto& r = maps.ranges();
  ASSERT_EQ(r.size(), 13u);
  MappedRange exe;
  exe.start = 0x55e954821000;
  exe.end = 0x55e954822000;
  exe.offset = 0x1000;
  exe.inode = 18624;
  exe.dev_major = 0xfe;
  exe.dev_minor = 0;
  exe.executable = true;
  exe.path = "/root/.pyenv/versions/3.11.7/bin/python3.11";
  EXPECT_EQ(r[1], exe);
  EXPECT_FALSE(r[0].executable);  // r--p

  EXPECT_EQ(r[2].path, "[heap]");
  EXPECT_EQ(r[3].path, "");  // anonymous, the trailing space is padding
  EXPECT_EQ(r[3].inode, 0u);

  EXPECT_EQ(r[4].path, "/tmp/gone.so");
  EXPECT_TRUE(r[4].deleted);
  EXPECT_TRUE(r[4].executable);  // r-xs: shared, still executable
  EXPECT_EQ(r[4].inode, 10953384u);

  EXPECT_EQ(r[5].path, "/tmp/with space.bin");
  EXPECT_FALSE(r[5].deleted);
  EXPECT_EQ(r[9].path, "/tmp/with space.bin");
  EXPECT_EQ(r[9].offset, 0x1000u);

  EXPECT_EQ(r[7].offset, 0x26000u);
  EXPECT_EQ(r[10].path, "[vdso]");
  EXPECT_TRUE(r[10].executable);
  EXPECT_EQ(r[12].start, 0xffffffffff600000u);  // 16 digits
  EXPECT_EQ(r[12].end, 0xffffffffff601000u);
  EXPECT_EQ(r[12].path, "[vsyscall]");
}

TEST(ProcMaps, FindAtTheBoundaries) {
  ProcMaps maps;
  ASSERT_OK(maps.Parse(kMaps));
  const MappedRange* text = maps.Find(0x7f6ce3244000);  // libc's text, first byte
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->offset, 0x26000u);
  EXPECT_EQ(maps.Find(0x7f6ce3399fff), text);             // its last byte
  const MappedRange* rodata = maps.Find(0x7f6ce339a000);  // the end belongs to the next range
  ASSERT_NE(rodata, nullptr);
  EXPECT_EQ(rodata->offset, 0x17c000u);
  EXPECT_EQ(maps.Find(0x7f6ce33ed000), nullptr);  // past rodata: a gap
  EXPECT_EQ(maps.Find(0), nullptr);               // below the first
  EXPECT_EQ(maps.Find(0x55e95481ffff), nullptr);
  EXPECT_NE(maps.Find(0x55e954820000), nullptr);
  EXPECT_NE(maps.Find(0xffffffffff600fff), nullptr);
  EXPECT_EQ(maps.Find(0xffffffffffffffff), nullptr);  // past the last
}

TEST(ProcMaps, FileOffsetOfAnAddress) {
  ProcMaps maps;
  ASSERT_OK(maps.Parse(kMaps));
  // libc's text is mapped from file offset 0x26000: 0x1234 bytes into the
  // range is 0x27234 into the file.
  const MappedRange* text = maps.Find(0x7f6ce3245234);
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(FileOffsetOf(*text, 0x7f6ce3245234), 0x27234u);
  EXPECT_EQ(FileOffsetOf(*text, text->start), 0x26000u);
}

TEST(ProcMaps, SortsRangesByStart) {
  ProcMaps maps;
  ASSERT_OK(maps.Parse("3000-4000 r-xp 00000000 00:00 0\n\n1000-2000 r--p 00000000 00:00 0\n"));
  ASSERT_EQ(maps.ranges().size(), 2u);
  EXPECT_EQ(maps.ranges()[0].start, 0x1000u);
  EXPECT_EQ(maps.Find(0x3000)->start, 0x3000u);
  EXPECT_EQ(maps.Find(0x2000), nullptr);
}

TEST(ProcMaps, EmptyTextIsAnEmptyMap) {
  ProcMaps maps;
  ASSERT_OK(maps.Parse(kMaps));
  ASSERT_OK(maps.Parse(""));
  EXPECT_TRUE(maps.ranges().empty());
  EXPECT_EQ(maps.Find(0x7f6ce3244000), nullptr);
}

TEST(ProcMaps, MalformedLinesNameTheLine) {
  const std::string good = "1000-2000 r-xp 00000000 fe:00 12 /bin/x\n";
  struct Case {
    std::string text;
    const char* error;
  } cases[] = {
      {good + "10g0-2000 r-xp 00000000 fe:00 12 /bin/x\n", "maps line 2: no hexadecimal start address"},
      {good + good + "3000-20z0 r-xp 00000000 fe:00 12\n", "maps line 3: no hexadecimal end address"},
      {"1000 r-xp 00000000 fe:00 12\n", "maps line 1: no hexadecimal start address"},
      {"-2000 r-xp 00000000 fe:00 12\n", "maps line 1: no hexadecimal start address"},
      {"11111111111111111-2000 r-xp 00000000 fe:00 12\n", "maps line 1: no hexadecimal start address"},  // 17 digits
      {"1000-2000\n", "maps line 1: permissions are not 4 letters"},
      {"1000-2000 r-x 00000000 fe:00 12\n", "maps line 1: permissions are not 4 letters"},
      {"1000-2000 r-xp\n", "maps line 1: no hexadecimal offset"},
      {"1000-2000 r-xp 0000x000 fe:00 12\n", "maps line 1: no hexadecimal offset"},
      {"1000-2000 r-xp 00000000 fe00 12\n", "maps line 1: no MAJOR:MINOR device"},
      {"1000-2000 r-xp 00000000 fe: 12\n", "maps line 1: no MAJOR:MINOR device"},
      {"1000-2000 r-xp 00000000 fe:00\n", "maps line 1: no decimal inode"},
      {"1000-2000 r-xp 00000000 fe:00 1a /bin/x\n", "maps line 1: no decimal inode"},
      {"1000-2000 r-xp 00000000 fe:00 -1 /bin/x\n", "maps line 1: no decimal inode"},
      {good + "\n" + "3000-2000 r-xp 00000000 fe:00 12\n", "maps line 3: start is not below end"},
      {"2000-2000 r-xp 00000000 fe:00 12\n", "maps line 1: start is not below end"},
      {good + "1800-3000 r--p 00000000 fe:00 12\n", "maps line 2: overlaps the range on line 1"},
      {"1800-3000 r--p 00000000 fe:00 12\n" + good, "maps line 2: overlaps the range on line 1"},
  };
  for (const Case& c : cases) {
    ProcMaps maps;
    ASSERT_OK(maps.Parse(kMaps));
    Status s = maps.Parse(c.text);
    EXPECT_TRUE(s.IsCorruption()) << c.text << s.ToString();
    EXPECT_EQ(s.message(), c.error) << c.text;
    EXPECT_TRUE(maps.ranges().empty()) << c.text;  // the earlier table is gone too
  }
}

}  // namespace
}  // namespace bottleneckd::proc_maps_test
