// Symbolizer (sources/profile_symbols.h) over this test process: its own
// functions and libc's are named through /proc/self/maps and the binaries'
// symbol tables, a stack that reaches a thread's entry loses the frames past
// it, one that does not is marked truncated, and kernel frames are named
// from a kallsyms text. The expected names are the functions' own, the
// module names from readlink(/proc/self/exe).
#include "sources/profile_symbols.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "base/state_file.h"
#include "tests/support/test_util.h"

extern "C" __attribute__((noinline)) int bn_profile_symbols_inner(int x) {
  asm volatile("" : "+r"(x));
  return x * 3 + 1;
}
extern "C" __attribute__((noinline)) int bn_profile_symbols_outer(int x) {
  asm volatile("" : "+r"(x));
  return bn_profile_symbols_inner(x) + 2;
}

namespace bottleneckd::profile_symbols_test {
namespace {

// A return address inside f: a few bytes past its entry.
uint64_t Inside(void* f) { return reinterpret_cast<uint64_t>(f) + 4; }

std::string SelfName() {
  char buf[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string path(buf, n > 0 ? static_cast<size_t>(n) : 0);
  return path.substr(path.rfind('/') + 1);
}

TEST(Symbolizer, NamesThisProcesssFunctionsAndMarksATruncatedStack) {
  Symbolizer s;
  const uint64_t ips[] = {Inside(reinterpret_cast<void*>(&bn_profile_symbols_inner)),
                          Inside(reinterpret_cast<void*>(&bn_profile_symbols_outer))};
  std::vector<std::string> frames;
  s.AppendUser(getpid(), ips, 2, &frames);
  const std::string self = " (" + SelfName() + ")";
  EXPECT_EQ(frames, (std::vector<std::string>{"[truncated]", "bn_profile_symbols_outer" + self,
                                              "bn_profile_symbols_inner" + self}));
  EXPECT_EQ(s.processes(), 1u);
  EXPECT_GE(s.files(), 1u);
  EXPECT_GT(s.bytes(), 0u);
}

TEST(Symbolizer, DropsTheFramesPastAThreadsEntry) {
  // glibc's clone is where every thread's stack begins (clone3 on newer
  // glibc; both are entries): what a frame-pointer walk reads past it is
  // the caller's garbage.
  void* clone_fn = dlsym(RTLD_DEFAULT, "clone");
  ASSERT_NE(clone_fn, nullptr);
  Symbolizer s;
  const uint64_t ips[] = {Inside(reinterpret_cast<void*>(&bn_profile_symbols_inner)), Inside(clone_fn), 0x10};
  std::vector<std::string> frames;
  s.AppendUser(getpid(), ips, 3, &frames);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_NE(frames[0].find("clone"), std::string::npos) << frames[0];
  EXPECT_NE(frames[0].find("(libc.so.6)"), std::string::npos) << frames[0];
  EXPECT_EQ(frames[1], "bn_profile_symbols_inner (" + SelfName() + ")");
}

// vDSO frames are named (they stayed addresses: "0x7ffc... ([vdso])" where
// `__vdso_clock_gettime` ran): from this process's own vDSO, the same image
// the kernel maps into every process. Every offset of this process's [vdso]
// range is looked up; clock_gettime's must be among the names.
TEST(Symbolizer, NamesVdsoFrames) {
  std::string maps;
  ASSERT_OK(ReadStateFile("/proc/self/maps", 1 << 20, &maps));
  uint64_t start = 0, end = 0;
  for (size_t at = 0; at < maps.size();) {
    size_t eol = maps.find('\n', at);
    std::string line = maps.substr(at, eol - at);
    at = eol == std::string::npos ? maps.size() : eol + 1;
    if (line.find("[vdso]") != std::string::npos) {
      start = std::stoull(line.substr(0, line.find('-')), nullptr, 16);
      end = std::stoull(line.substr(line.find('-') + 1), nullptr, 16);
    }
  }
  ASSERT_GT(end, start) << "no [vdso] in this process's maps";
  Symbolizer s;
  bool named = false;
  for (uint64_t ip = start + 1; ip < end && !named; ip += 4) {
    std::vector<std::string> frames;
    s.AppendUser(getpid(), &ip, 1, &frames);
    ASSERT_EQ(frames.size(), 2u);
    named = frames[1].find("clock_gettime ([vdso])") != std::string::npos;
  }
  EXPECT_TRUE(named) << "no frame of [vdso] named clock_gettime";
}

TEST(Symbolizer, AnAddressInNoMappingIsUnknown) {
  Symbolizer s;
  const uint64_t ips[] = {0x10};
  std::vector<std::string> frames;
  s.AppendUser(getpid(), ips, 1, &frames);
  EXPECT_EQ(frames, (std::vector<std::string>{"[truncated]", "[unknown]"}));
}

// A frame-pointer walk through a binary without frame pointers reads a
// garbage return address (here 0x10, in no mapping) and then whatever the
// garbage frame pointer points at: a new stack nearly every walk. The walk
// ends at the break, so those walks name one stack.
TEST(Symbolizer, AnOuterFrameInNoMappingEndsTheWalk) {
  Symbolizer s;
  const std::string self = SelfName();
  for (uint64_t garbage : {0x4242ull, 0x9999ull}) {
    const uint64_t ips[] = {Inside(reinterpret_cast<void*>(&bn_profile_symbols_inner)), 0x10,
                            Inside(reinterpret_cast<void*>(&bn_profile_symbols_outer)), garbage};
    std::vector<std::string> frames;
    s.AppendUser(getpid(), ips, 4, &frames);
    EXPECT_EQ(frames, (std::vector<std::string>{"[truncated]", "bn_profile_symbols_inner (" + self + ")"}));
  }
}

TEST(Symbolizer, AnUnmappedFrameRereadsTheMapsAtMostOnceInTenTicks) {
  // A garbage frame of a stack without frame pointers falls in no mapping
  // every tick; the maps are static meanwhile.
  Symbolizer s;
  const uint64_t ips[] = {0x10};
  std::vector<std::string> frames;
  for (int tick = 0; tick < 30; ++tick) {
    s.AppendUser(getpid(), ips, 1, &frames);
    s.ForgetExited();
  }
  EXPECT_EQ(frames.back(), "[unknown]");
  // The first read, then one at ticks 10 and 20.
  EXPECT_EQ(s.maps_reads(), 3u);
}

TEST(Symbolizer, AGoneProcessIsForgotten) {
  Symbolizer s("/nonexistent-procfs");
  const uint64_t ips[] = {0x401000};
  std::vector<std::string> frames;
  s.AppendUser(4242, ips, 1, &frames);
  EXPECT_EQ(frames.back(), "[unknown]");
  EXPECT_EQ(s.processes(), 1u);
  s.ForgetExited();
  EXPECT_EQ(s.processes(), 0u);
}

TEST(Symbolizer, NamesKernelFramesOutermostFirst) {
  Symbolizer s;
  ASSERT_OK(
      s.kernel().Parse("ffffffff81000000 T _stext\n"
                       "ffffffff81a00000 T __udp4_lib_rcv\n"
                       "ffffffff81b00000 T udp_rcv\n"));
  const uint64_t ips[] = {0xffffffff81a00010, 0xffffffff81b00020, 0xffffffff80000000};
  std::vector<std::string> frames;
  s.AppendKernel(ips, 3, &frames);
  EXPECT_EQ(frames,
            (std::vector<std::string>{"0xffffffff80000000 [kernel]", "udp_rcv [kernel]", "__udp4_lib_rcv [kernel]"}));
}

TEST(Demangle, UndoesCxxManglingOnly) {
  EXPECT_EQ(Demangle("_ZN3foo3barEv"), "foo::bar()");
  EXPECT_EQ(Demangle("copy_loop"), "copy_loop");
  EXPECT_EQ(Demangle("_Znot-mangled"), "_Znot-mangled");
  EXPECT_EQ(Demangle(""), "");
}

}  // namespace
}  // namespace bottleneckd::profile_symbols_test
