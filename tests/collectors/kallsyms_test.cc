// KernelSymbols over kallsyms text (a fixture cut from this VM's
// /proc/kallsyms, kernel 6.18, addresses as printed to root) and WaitSiteOf
// over stacks seen at sched_switch on it (sources/offcpu.h).
#include "collectors/kallsyms.h"

#include <gtest/gtest.h>

#include "tests/support/test_util.h"

namespace bottleneckd::kallsyms_test {
namespace {

// Sorted as the kernel prints vmlinux, then a module; data symbols (D, b, r)
// are left out of the table.
constexpr const char* kKallsyms =
    "ffffffff81000000 T _stext\n"
    "ffffffff810d3a40 T hrtimer_nanosleep\n"
    "ffffffff810d3b80 T __x64_sys_clock_nanosleep\n"
    "ffffffff81400000 T __x64_sys_recvfrom\n"
    "ffffffff81a10000 t __skb_wait_for_more_packets\n"
    "ffffffff81c00000 T do_syscall_64\n"
    "ffffffff82265240 T __sched_text_start\n"
    "ffffffff82265300 t __schedule\n"
    "ffffffff82266000 T schedule\n"
    "ffffffff8226b9f0 t do_nanosleep\n"
    "ffffffff8226df62 T __sched_text_end\n"
    "ffffffff8226df70 T __lock_text_start\n"
    "ffffffff8226e000 T _raw_spin_lock\n"
    "ffffffff8226f9f1 T __lock_text_end\n"
    "ffffffff82a00000 D jiffies\n"
    "ffffffff82b00000 b some_bss\n"
    "ffffffffc0a01000 t e1000_clean\t[e1000]\n";

TEST(KernelSymbols, NamesTheFunctionContainingAnAddress) {
  KernelSymbols t;
  ASSERT_OK(t.Parse(kKallsyms));
  EXPECT_EQ(t.size(), 15u);  // 17 lines, the 2 data symbols out
  EXPECT_EQ(t.Name(0xffffffff810d3a40), "hrtimer_nanosleep");
  EXPECT_EQ(t.Name(0xffffffff810d3a41), "hrtimer_nanosleep");
  EXPECT_EQ(t.Name(0xffffffff810d3b7f), "hrtimer_nanosleep");
  EXPECT_EQ(t.Name(0xffffffffc0a01010), "e1000_clean");      // the module's name is not part of it
  EXPECT_EQ(t.Name(0xffffffff80000000), "");                 // below the first
  EXPECT_EQ(t.Name(0xffffffff82a00010), "__lock_text_end");  // data is not text: the last function before it
}

TEST(KernelSymbols, KnowsTheSchedulersText) {
  KernelSymbols t;
  ASSERT_OK(t.Parse(kKallsyms));
  EXPECT_TRUE(t.InSchedFunctions(0xffffffff82265310));   // __schedule
  EXPECT_TRUE(t.InSchedFunctions(0xffffffff8226ba00));   // do_nanosleep is __sched
  EXPECT_TRUE(t.InSchedFunctions(0xffffffff8226e010));   // _raw_spin_lock
  EXPECT_FALSE(t.InSchedFunctions(0xffffffff810d3a50));  // hrtimer_nanosleep
  EXPECT_FALSE(t.InSchedFunctions(0xffffffff8226df62));  // the end is outside
  KernelSymbols none;
  ASSERT_OK(none.Parse("ffffffff82265300 t __schedule\n"));
  EXPECT_FALSE(none.InSchedFunctions(0xffffffff82265300));  // no markers: nothing is
}

TEST(KernelSymbols, HiddenAddressesAreRefused) {
  // What a reader without CAP_SYSLOG sees under kptr_restrict.
  KernelSymbols t;
  Status s = t.Parse("0000000000000000 T _stext\n0000000000000000 t do_nanosleep\n");
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_NE(s.message().find("CAP_SYSLOG"), std::string::npos);
  EXPECT_EQ(t.size(), 0u);
}

TEST(KernelSymbols, MalformedLinesNameTheLine) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"ffffffff81000000 T _stext\nnot an address\n", "kallsyms line 2: no hexadecimal address"},
      {"ffffffff81000000T _stext\n", "kallsyms line 1: no hexadecimal address"},
      {"1ffffffff81000000 T x\n", "kallsyms line 1: no hexadecimal address"},  // 17 digits
      {"ffffffff81000000 T\n", "kallsyms line 1: no type letter and name"},
      {"ffffffff81000000 Tx name\n", "kallsyms line 1: no type letter and name"},
      {"ffffffff81000000 T two names\n", "kallsyms line 1: no name"},
      {"ffffffff81000000 T \t[mod]\n", "kallsyms line 1: no name"},
  };
  for (const Case& c : cases) {
    KernelSymbols t;
    ASSERT_OK(t.Parse(kKallsyms));
    Status s = t.Parse(c.text);
    EXPECT_TRUE(s.IsCorruption()) << c.text;
    EXPECT_EQ(s.message(), c.error) << c.text;
    EXPECT_EQ(t.size(), 0u) << "an error leaves the table empty";
  }
  KernelSymbols empty;
  EXPECT_OK(empty.Parse(""));
  EXPECT_EQ(empty.Name(0xffffffff81000000), "");
}

TEST(WaitSiteOf, FirstFunctionPastTheSchedulerAndTheSystemCall) {
  KernelSymbols t;
  ASSERT_OK(t.Parse(kKallsyms));
  // The stack at sched_switch of a thread in nanosleep: the tracepoint's own
  // frame, __schedule, schedule, do_nanosleep (all scheduler text), then
  // hrtimer_nanosleep, the system call's entry, do_syscall_64.
  const uint64_t nanosleep[] = {0xffffffff81000100, 0xffffffff82265400, 0xffffffff82266010, 0xffffffff8226ba10,
                                0xffffffff810d3a90, 0xffffffff810d3bc0, 0xffffffff81c00040};
  EXPECT_EQ(WaitSiteOf(t, nanosleep, 7), "hrtimer_nanosleep (clock_nanosleep)");
  // A socket receive: the wait function, then the call.
  const uint64_t recv[] = {0xffffffff82265400, 0xffffffff82266010, 0xffffffff81a10040, 0xffffffff81400020,
                           0xffffffff81c00040};
  EXPECT_EQ(WaitSiteOf(t, recv, 5), "__skb_wait_for_more_packets (recvfrom)");
  // The scheduler called straight from the system call's entry.
  const uint64_t direct[] = {0xffffffff82265400, 0xffffffff81400020, 0xffffffff81c00040};
  EXPECT_EQ(WaitSiteOf(t, direct, 3), "(recvfrom)");
  // No system call: a kernel thread, or a preemption on the way out of an interrupt.
  const uint64_t kthread[] = {0xffffffff82265400, 0xffffffffc0a01010};
  EXPECT_EQ(WaitSiteOf(t, kthread, 2), "e1000_clean");
  // Only scheduler frames, or none.
  const uint64_t only_sched[] = {0xffffffff82265400, 0xffffffff82266010};
  EXPECT_EQ(WaitSiteOf(t, only_sched, 2), "");
  EXPECT_EQ(WaitSiteOf(t, nullptr, 0), "");
}

}  // namespace
}  // namespace bottleneckd::kallsyms_test
