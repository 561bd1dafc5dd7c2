// The process_* parsers over literal /proc/self text (modelled on a real
// /proc/self/stat of bottleneckd, with a comm holding spaces and ')'), their
// refusals, and a read of this test's own /proc/self through HostFs.
#include "collectors/self_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <ctime>
#include <vector>

#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::self_process_test {
namespace {

// Linux 6.x, 52 fields; comm "bottle) d (x" (the kernel does not escape it).
constexpr char kStat[] =
    "4242 (bottle) d (x) S 1 4242 4242 0 -1 4194624 2155 0 0 0 1234 567 0 0 20 0 4 0 8817 23470080 1450 "
    "18446744073709551615 94237 94240 140733 0 0 0 0 4096 0 0 0 17 1 0 0 0 0 0 94241 94242 94243 140734 140735 "
    "140736 140737 0\n";

TEST(ParseSelfStat, FieldsAfterTheLastParenthesis) {
  SelfStat s;
  ASSERT_OK(ParseSelfStat(kStat, &s));
  SelfStat full;
  ASSERT_OK(ParseSelfStat("42 (b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21", &full));
  EXPECT_EQ(full.rss, 21u) << "the line may end at rss (old kernels)";
  EXPECT_EQ(s.utime, 1234u);
  EXPECT_EQ(s.stime, 567u);
  EXPECT_EQ(s.starttime, 8817u);
  EXPECT_EQ(s.vsize, 23470080u);
  EXPECT_EQ(s.rss, 1450u);
}

TEST(ParseSelfStat, RefusesGarbage) {
  struct Case {
    const char* text;
    const char* why;
  } cases[] = {
      {"", "without (comm)"},
      {"4242 bottleneckd S 1", "without (comm)"},
      // "S 1 2 ... 21": token k is field k + 3, so rss (field 24) is "21".
      {"x (b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21", "bad pid"},
      {"0 (b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21", "bad pid"},
      {"42 (b) S 1 2 3 4 5 6 7 8 9 10 -11 12 13 14 15 16 17 18 19 20 21", "bad field 14"},
      {"42 (b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 2x", "bad field 24"},
      {"42 (b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 18446744073709551616", "bad field 24"},
      {"42 (b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20", "truncated"},
  };
  for (const Case& c : cases) {
    SelfStat s;
    s.utime = 99;
    Status st = ParseSelfStat(c.text, &s);
    EXPECT_TRUE(st.IsCorruption()) << c.text;
    EXPECT_NE(st.message().find(c.why), std::string::npos) << c.text << ": " << st.ToString();
    EXPECT_EQ(s.utime, 99u) << "written only on success: " << c.text;
  }
}

TEST(ParseStatBtime, FindsTheLineAndRefusesABadOne) {
  uint64_t b = 0;
  ASSERT_OK(ParseStatBtime("cpu  1 2 3 4\nintr 5 6\nctxt 7\nbtime 1764600000\nprocesses 9\n", &b));
  EXPECT_EQ(b, 1764600000u);
  EXPECT_TRUE(ParseStatBtime("cpu  1 2 3 4\nctxt 7\n", &b).IsCorruption());
  EXPECT_TRUE(ParseStatBtime("btime -5\n", &b).IsCorruption());
  EXPECT_TRUE(ParseStatBtime("btime\n", &b).IsCorruption());
}

constexpr char kLimits[] =
    "Limit                     Soft Limit           Hard Limit           Units     \n"
    "Max cpu time              unlimited            unlimited            seconds   \n"
    "Max open files            1024                 524288               files     \n"
    "Max locked memory         8388608              8388608              bytes     \n";

TEST(ParseLimitsMaxOpenFiles, SoftLimitUnlimitedAndGarbage) {
  std::optional<uint64_t> v;
  ASSERT_OK(ParseLimitsMaxOpenFiles(kLimits, &v));
  EXPECT_EQ(v, 1024u);
  ASSERT_OK(ParseLimitsMaxOpenFiles("Max open files            unlimited            unlimited            files\n", &v));
  EXPECT_FALSE(v.has_value());
  EXPECT_TRUE(ParseLimitsMaxOpenFiles("Max cpu time   unlimited   unlimited   seconds\n", &v).IsCorruption());
  EXPECT_TRUE(ParseLimitsMaxOpenFiles("Max open files            lots   524288   files\n", &v).IsCorruption());
  EXPECT_TRUE(ParseLimitsMaxOpenFiles("", &v).IsCorruption());
}

// Through the real read path on this process: the values are this test's
// own, so only their relations to what the process knows of itself are checked.
TEST(ReadSelfProcess, ReadsTheLiveProcess) {
  HostFs fs{HostRoots{}};
  SelfProcess p;
  SelfProcessState state;
  ASSERT_OK(ReadSelfProcess(fs, &p, &state));
  ASSERT_TRUE(state.btime.has_value()) << "read once, then kept";
  EXPECT_GE(state.stat.get(), 0) << "self/stat kept open on the live host";
  SelfProcess again;
  ASSERT_OK(ReadSelfProcess(fs, &again, &state));
  EXPECT_EQ(again.start_time_seconds, p.start_time_seconds);
  EXPECT_GT(p.resident_bytes, 0u);
  EXPECT_GE(p.virtual_bytes, p.resident_bytes);
  EXPECT_GE(p.open_fds, 3u) << "stdin, stdout, stderr at least";
  ASSERT_TRUE(p.max_fds.has_value());
  struct rlimit rl;
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &rl), 0);
  EXPECT_EQ(*p.max_fds, static_cast<uint64_t>(rl.rlim_cur));
  EXPECT_GE(p.cpu_seconds, 0);
  EXPECT_GT(p.start_time_seconds, 1e9) << "after 2001, since the epoch";
  EXPECT_LE(p.start_time_seconds, static_cast<double>(::time(nullptr)) + 1);
}

// The descriptor count is listed again only every 10 s: 40 more open
// descriptors show once the last listing is that old, not before.
TEST(ReadSelfProcess, CountsDescriptorsEveryTenSeconds) {
  HostFs fs{HostRoots{}};
  SelfProcessState state;
  SelfProcess before, soon, later;
  ASSERT_OK(ReadSelfProcess(fs, &before, &state));
  std::vector<UniqueFd> more;
  for (int i = 0; i < 40; ++i) more.emplace_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  ASSERT_OK(ReadSelfProcess(fs, &soon, &state));
  EXPECT_EQ(soon.open_fds, before.open_fds) << "within 10 s: the last count";
  state.fds_read_ns -= SelfProcessState::kFdsEveryNanos;
  ASSERT_OK(ReadSelfProcess(fs, &later, &state));
  EXPECT_GE(later.open_fds, before.open_fds + 40);
  EXPECT_EQ(later.max_fds, before.max_fds);
}

// The same read path over a made-up procfs root: each garbled file is a
// Corruption naming what is wrong, and nothing is half-filled.
TEST(ReadSelfProcess, GarbledFilesAreRefused) {
  const std::string stat = "42 (b d) S 1 2 3 4 5 6 7 8 9 10 100 50 13 14 15 16 17 18 800 4096000 10\n";
  const std::string limits = "Max open files            1024                 4096                 files\n";
  struct Case {
    std::string self_stat, proc_stat, self_limits, why;
  } cases[] = {
      {"garbage\n", "btime 1700000000\n", limits, "without (comm)"},
      {stat, "cpu 1 2 3\n", limits, "no btime"},
      {stat, "btime 1700000000\n", "Max open files   many   4096   files\n", "bad Max open files"},
  };
  for (const Case& c : cases) {
    testing::TempDir dir;
    dir.Write("self/stat", c.self_stat);
    dir.Write("stat", c.proc_stat);
    dir.Write("self/limits", c.self_limits);
    dir.Write("self/fd/0", "");
    HostRoots roots;
    roots.procfs = dir.path();
    HostFs fs(roots);
    SelfProcess p;
    p.open_fds = 77;
    SelfProcessState state;
    Status s = ReadSelfProcess(fs, &p, &state);
    EXPECT_TRUE(s.IsCorruption()) << c.why << ": " << s.ToString();
    EXPECT_NE(s.message().find(c.why), std::string::npos) << s.ToString();
    EXPECT_EQ(p.open_fds, 77u) << "left unchanged: " << c.why;
  }
  testing::TempDir dir;
  dir.Write("self/stat", stat);
  dir.Write("stat", "btime 1700000000\n");
  dir.Write("self/limits", limits);
  dir.Write("self/fd/0", "");
  dir.Write("self/fd/1", "");
  HostRoots roots;
  roots.procfs = dir.path();
  HostFs fs(roots);
  SelfProcess p;
  SelfProcessState state;
  ASSERT_OK(ReadSelfProcess(fs, &p, &state));
  EXPECT_DOUBLE_EQ(p.cpu_seconds, 1.5) << "(100 + 50) ticks / USER_HZ";
  EXPECT_DOUBLE_EQ(p.start_time_seconds, 1700000008) << "btime + 800 ticks / USER_HZ";
  EXPECT_EQ(p.virtual_bytes, 4096000u);
  EXPECT_EQ(p.resident_bytes, 10u * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(p.open_fds, 2u);
  EXPECT_EQ(p.max_fds, 1024u);
}

}  // namespace
}  // namespace bottleneckd::self_process_test
