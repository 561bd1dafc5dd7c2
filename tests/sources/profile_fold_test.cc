// Folded stacks (sources/profile_fold.h): the lines flamegraph.pl and
// speedscope read ("frame;frame count"), merging, the bound on distinct
// stacks, the parser's errors and the self-sample ranking.
#include "sources/profile_fold.h"

#include <gtest/gtest.h>

#include "tests/support/test_util.h"

namespace bottleneckd::profile_fold_test {
namespace {

ProfileStack Stack(const char* comm, ProfileFrames frames, uint64_t n, int cpu = 1) {
  ProfileStack s;
  s.pid = s.tid = 100;
  s.cpu = cpu;
  s.comm = comm;
  s.frames = std::move(frames);
  s.samples = n;
  return s;
}

TEST(FoldedStack, ThreadNameThenFramesOutermostFirst) {
  EXPECT_EQ(FoldedStack(Stack("udpecho", {"main (udpecho)", "copy_loop (udpecho)"}, 1)),
            "udpecho;main (udpecho);copy_loop (udpecho)");
  // A ';' would split a frame, a newline a line.
  EXPECT_EQ(FoldedStack(Stack("a;b", {"x\ny", "operator;()"}, 1)), "a?b;x?y;operator?()");
  EXPECT_EQ(FoldedStack(Stack("", {}, 1)), "[unnamed]");
}

TEST(FoldedProfile, MergesAcrossCpusAndReadings) {
  ProfileReading r;
  r.stacks = {Stack("t", {"f (b)"}, 3, 0), Stack("t", {"f (b)"}, 4, 1), Stack("t", {"g (b)"}, 1, 1)};
  FoldedProfile p;
  AddReading(r, &p);
  AddReading(r, &p);
  EXPECT_EQ(p.samples, 16u);
  ASSERT_EQ(p.stacks.size(), 2u);
  EXPECT_EQ(p.stacks.at("t;f (b)"), 14u);
  EXPECT_EQ(WriteFolded(p), "t;f (b) 14\nt;g (b) 2\n");
}

TEST(FoldedProfile, StacksPastTheBoundGoToOneLine) {
  FoldedProfile p;
  for (size_t i = 0; i < kFoldedMaxStacks + 5; ++i) AddFolded("t;f" + std::to_string(i), 2, &p);
  EXPECT_EQ(p.stacks.size(), kFoldedMaxStacks + 1);
  EXPECT_EQ(p.stacks.at(std::string(kOtherStacks)), 10u);
  EXPECT_EQ(p.samples, 2 * (kFoldedMaxStacks + 5));
  AddFolded("t;f3", 1, &p);  // a stack already kept still counts as itself
  EXPECT_EQ(p.stacks.at("t;f3"), 3u);
}

TEST(ParseFolded, ReadsWhatWriteFoldedWrites) {
  FoldedProfile p;
  AddFolded("udpecho;main (udpecho);copy_loop (udpecho)", 71, &p);
  AddFolded("swapper/1;secondary_startup_64 [kernel];pvm_irq_enable [kernel]", 5, &p);
  FoldedProfile back;
  ASSERT_OK(ParseFolded(WriteFolded(p), &back));
  EXPECT_EQ(back, p);
}

TEST(ParseFolded, AcceptsStackcollapseOutputAndNamesABadLine) {
  FoldedProfile p;
  ASSERT_OK(ParseFolded("a;b 2\r\n\na;b 3\nc 1\n", &p));
  EXPECT_EQ(p.stacks.at("a;b"), 5u);
  EXPECT_EQ(p.samples, 6u);
  Status s = ParseFolded("a;b 2\na;b two\n", &p);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "line 2: not \"stack count\"");
  EXPECT_EQ(p, FoldedProfile());
  EXPECT_TRUE(ParseFolded("nocount\n", &p).IsCorruption());
  EXPECT_TRUE(ParseFolded(" 5\n", &p).IsCorruption());
  EXPECT_TRUE(ParseFolded("a -5\n", &p).IsCorruption());
}

TEST(TopFunctions, RanksTheInnermostFrames) {
  FoldedProfile p;
  AddFolded("t;main;copy_loop", 70, &p);
  AddFolded("t;main;other;copy_loop", 1, &p);
  AddFolded("t;main;recv;__udp4_lib_rcv [kernel]", 9, &p);
  AddFolded("t;main", 9, &p);
  AddFolded("t", 4, &p);  // nothing walked: no function
  const std::vector<FunctionSamples> top = TopFunctions(p, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0], (FunctionSamples{"copy_loop", 71}));
  // 9 and 9: the tie goes by name.
  EXPECT_EQ(top[1], (FunctionSamples{"__udp4_lib_rcv [kernel]", 9}));
  EXPECT_EQ(TopFunctions(p, 10).size(), 3u);
}

}  // namespace
}  // namespace bottleneckd::profile_fold_test
