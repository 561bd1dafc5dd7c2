// The parsers of a task's schedstat, status, wchan and syscall files
// (collectors/task_state.h), on lines recorded from this VM (kernel
// 6.18.44: a `sleep 30` in clock_nanosleep, a shell in wait4) and on
// corrupt ones, and libseccomp's names for the numbers.
#include "collectors/task_state.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_util.h"

namespace bottleneckd::task_state_test {
namespace {

TEST(ParseTaskSchedstat, RecordedLine) {
  TaskSchedstat s;
  ASSERT_OK(ParseTaskSchedstat("1742769 2960251 2\n", &s));
  EXPECT_EQ(s.run_ns, 1742769u);
  EXPECT_EQ(s.wait_ns, 2960251u);
  EXPECT_EQ(s.timeslices, 2u);
}

TEST(ParseTaskSchedstat, CorruptionLeavesTheOutputAlone) {
  for (const char* bad : {"", "\n", "1 2", "1 2 x", "1 2 3 4", "-1 2 3", "18446744073709551616 1 1", "1,2,3"}) {
    TaskSchedstat s{7, 8, 9};
    Status st = ParseTaskSchedstat(bad, &s);
    EXPECT_TRUE(st.IsCorruption()) << "'" << bad << "': " << st.ToString();
    EXPECT_EQ(s.run_ns, 7u) << bad;
  }
}

// The status file of the recorded sleep, shortened: the two lines read and
// their neighbours as the kernel orders them.
constexpr char kStatus[] =
    "Name:\tsleep\nState:\tS (sleeping)\nTgid:\t4321\nPid:\t4321\n"
    "Cpus_allowed_list:\t0-1\nMems_allowed_list:\t0\n"
    "voluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t1\n";

TEST(ParseTaskStatusSwitches, RecordedFile) {
  TaskSwitches s;
  ASSERT_OK(ParseTaskStatusSwitches(kStatus, &s));
  EXPECT_EQ(s.voluntary, 1u);
  EXPECT_EQ(s.involuntary, 1u);
  ASSERT_OK(ParseTaskStatusSwitches("voluntary_ctxt_switches:\t14201\nnonvoluntary_ctxt_switches:\t3", &s));
  EXPECT_EQ(s.voluntary, 14201u);
  EXPECT_EQ(s.involuntary, 3u);
}

TEST(ParseTaskStatusSwitches, MissingOrBadLinesAreCorruption) {
  for (const char* bad : {"", "Name:\tsleep\n", "voluntary_ctxt_switches:\t1\n",
                          "voluntary_ctxt_switches:\tx\nnonvoluntary_ctxt_switches:\t1\n",
                          "voluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t-1\n"}) {
    TaskSwitches s{5, 6};
    EXPECT_TRUE(ParseTaskStatusSwitches(bad, &s).IsCorruption()) << bad;
    EXPECT_EQ(s.voluntary, 5u) << bad;
  }
}

TEST(ParseTaskWchan, ZeroAndEmptyMeanNotSeen) {
  EXPECT_EQ(ParseTaskWchan("hrtimer_nanosleep"), "hrtimer_nanosleep");
  EXPECT_EQ(ParseTaskWchan("futex_wait_queue\n"), "futex_wait_queue");
  EXPECT_EQ(ParseTaskWchan("0"), "");
  EXPECT_EQ(ParseTaskWchan(""), "");
}

TEST(ParseTaskSyscall, RecordedLines) {
  std::optional<int64_t> nr;
  ASSERT_OK(ParseTaskSyscall("230 0x0 0x0 0x7ffe9bd979e0 0x7ffe9bd97a20 0x0 0x0 0x7ffe9bd979c8 0x7f3ef8228503\n", &nr));
  EXPECT_EQ(nr, 230);
  ASSERT_OK(ParseTaskSyscall("-1 0x7ffe9bd979c8 0x7f3ef8228503\n", &nr));
  EXPECT_EQ(nr, -1);
  nr = 5;
  ASSERT_OK(ParseTaskSyscall("running\n", &nr));
  EXPECT_EQ(nr, std::nullopt);
  for (const char* bad : {"", "x 0x0", "-2 0x0", "99999999999999999999 0x0"})
    EXPECT_TRUE(ParseTaskSyscall(bad, &nr).IsCorruption()) << bad;
}

TEST(SyscallName, NamesFromLibseccomp) {
#if defined(__x86_64__)
  EXPECT_EQ(SyscallName(230), "clock_nanosleep");
  EXPECT_EQ(SyscallName(202), "futex");
  EXPECT_EQ(SyscallName(45), "recvfrom");
#endif
  EXPECT_EQ(SyscallName(-1), "none");
  EXPECT_EQ(SyscallName(999999), "syscall 999999");
}

}  // namespace
}  // namespace bottleneckd::task_state_test
