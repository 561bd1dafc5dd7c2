// AddOffCpuStacks: a window's off-CPU stacks in microseconds, folded with the
// thread's name as root and the wait's object as leaf (window/offcpu_stacks.h),
// from OffCpuReadings built here. The live path (a real thread's stack from
// the kernel) is OffCpuSource.KeepsTheWholeStackAThreadWaitsIn.
#include "window/offcpu_stacks.h"

#include <gtest/gtest.h>

#include "tests/window/offcpu_readings.h"

namespace bottleneckd::offcpu_stacks_test {
namespace {

OffCpuReading Reading(int64_t mono_ns, std::vector<OffCpuSite> sites, std::vector<int> tids = {7}) {
  return testing::OffCpuReadingOf(mono_ns, std::move(sites), std::move(tids));
}

OffCpuSite Site(int tid, std::string where, bool involuntary, uint64_t ns, std::string stack, bool sampled = true,
                int waker = kNoWaker) {
  OffCpuSite s;
  s.tid = tid;
  s.where = std::move(where);
  s.involuntary = involuntary;
  s.ns = ns;
  s.count = 1;
  s.sampled = sampled;
  s.waker = waker;
  s.stack = std::move(stack);
  return s;
}

constexpr const char* kRecv = "main (echo);recv_backend (echo);recv (libc.so.6);__skb_wait_for_more_packets [kernel]";
constexpr const char* kSleep = "main (echo);nanosleep (libc.so.6);hrtimer_nanosleep [kernel]";

TEST(AddOffCpuStacks, EachStackItsTimeWithTheObjectWhereTheThreadWasSeen) {
  // One second: 0.6 s more in the recv stack (woken by two wakers: their sum
  // counts), 0.25 s in the sleep stack, 0.05 s preempted; thread 8 is not named.
  const std::string where_recv = "__skb_wait_for_more_packets (recvfrom)";
  OffCpuReading a = Reading(1'000'000'000, {Site(7, where_recv, false, 100'000'000, kRecv, true, 9),
                                            Site(7, "hrtimer_nanosleep (clock_nanosleep)", false, 0, kSleep)});
  OffCpuReading b = Reading(2'000'000'000,
                            {Site(7, where_recv, false, 500'000'000, kRecv, true, 9),
                             Site(7, where_recv, false, 200'000'000, kRecv, true, 12),
                             Site(7, "hrtimer_nanosleep (clock_nanosleep)", false, 250'000'000, kSleep),
                             Site(7, "irqentry_exit", true, 50'000'000, "main (echo);irqentry_exit [kernel]"),
                             Site(8, where_recv, false, 900'000'000, kRecv)},
                            {7, 8});
  FoldedProfile p;
  AddOffCpuStacks(a, b, {{7, "udpecho", "__skb_wait_for_more_packets", "udp 10.0.0.2:7 -> 10.0.0.9:9"}}, &p);
  FoldedProfile want;
  AddFolded(std::string("udpecho;") + kRecv + ";[udp 10.0.0.2:7 -> 10.0.0.9:9]", 600'000, &want);
  AddFolded(std::string("udpecho;") + kSleep, 250'000, &want);  // not the wait it was seen in: no object
  AddFolded("udpecho;main (echo);irqentry_exit [kernel];[preempted]", 50'000, &want);
  EXPECT_EQ(p, want) << WriteFolded(p);
}

TEST(AddOffCpuStacks, WalkedStacksStandForTheUnwalkedPeriods) {
  // 0.2 s walked (0.15 in recv, 0.05 in sleep), 0.6 s not walked: the walked
  // stacks scaled by 0.8 / 0.2.
  OffCpuReading a = Reading(0, {});
  OffCpuReading b = Reading(1'000'000'000, {Site(7, "x (recvfrom)", false, 150'000'000, kRecv),
                                            Site(7, "y (clock_nanosleep)", false, 50'000'000, kSleep),
                                            Site(7, "", false, 600'000'000, "", false)});
  FoldedProfile p;
  AddOffCpuStacks(a, b, {{7, "udpecho", "", ""}}, &p);
  EXPECT_EQ(p.samples, 800'000u);
  EXPECT_EQ(p.stacks[std::string("udpecho;") + kRecv], 600'000u);
  EXPECT_EQ(p.stacks[std::string("udpecho;") + kSleep], 200'000u);
  // None walked in the window: the time, and that no stack says where.
  FoldedProfile q;
  OffCpuReading c = Reading(2'000'000'000, {Site(7, "x (recvfrom)", false, 150'000'000, kRecv),
                                            Site(7, "y (clock_nanosleep)", false, 50'000'000, kSleep),
                                            Site(7, "", false, 1'000'000'000, "", false)});
  AddOffCpuStacks(b, c, {{7, "udpecho", "", ""}}, &q);
  ASSERT_EQ(q.stacks.size(), 1u);
  EXPECT_EQ(q.stacks["udpecho;[not walked]"], 400'000u);
  // A walked period whose stack the kernel's map did not keep.
  FoldedProfile r;
  AddOffCpuStacks(a, Reading(1'000'000'000, {Site(7, "", false, 5'000'000, "")}), {{7, "", "", ""}}, &r);
  EXPECT_EQ(r.stacks["[unnamed];[stack not kept]"], 5'000u);
}

TEST(AddOffCpuStacks, UnmeasuredWindowsAddNothing) {
  OffCpuReading a = Reading(1'000'000'000, {Site(7, "x", false, 500, kRecv)});
  OffCpuReading b = Reading(2'000'000'000, {Site(7, "x", false, 900, kRecv)});
  FoldedProfile p;
  AddOffCpuStacks(a, b, {{7, "t", "", ""}}, &p);
  EXPECT_EQ(p.samples, 0u);  // 400 ns: under a microsecond
  OffCpuReading c = Reading(2'000'000'000, {Site(7, "x", false, 9'000'000, kRecv)});
  const std::vector<OffCpuStackThread> t = {{7, "t", "", ""}};
  AddOffCpuStacks(Reading(1'000'000'000, {}, {}), c, t, &p);  // a not following it
  OffCpuReading reloaded = c;
  reloaded.generation = 4;
  AddOffCpuStacks(a, reloaded, t, &p);                                              // another program load
  AddOffCpuStacks(c, a, t, &p);                                                     // b not after a
  AddOffCpuStacks(Reading(0, {Site(7, "x", false, 20'000'000, kRecv)}), c, t, &p);  // a total that went down
  EXPECT_EQ(p.samples, 0u) << WriteFolded(p);
  // Names with ';' or control characters cannot split the root frame.
  AddOffCpuStacks(a, c, {{7, "a;b\n", "", ""}}, &p);
  EXPECT_EQ(p.stacks.begin()->first.substr(0, 5), "a?b?;");
}

// A thread asleep since before offcpu followed it (offcpu_window.h
// MeasuredMissed): no period of it in the readings, its unmeasured waiting
// drawn at the place its sample saw, marked as sampled; a thread whose
// sample saw no place has none drawn.
TEST(AddOffCpuStacks, AWaitSinceBeforeItWasFollowedIsDrawnWhereItsSampleSawIt) {
  OffCpuReading a = Reading(1'000'000'000, {});
  OffCpuReading b = Reading(2'000'000'000, {});
  FoldedProfile p;
  AddOffCpuStacks(
      a, b, {{7, "udpecho", "__skb_wait_for_more_packets", "udp 10.0.0.2:40000 -> 10.0.0.2:8", "recvfrom", 0.98}}, &p);
  FoldedProfile want;
  AddFolded(
      "udpecho;recvfrom [sampled: waiting since before offcpu followed it];__skb_wait_for_more_packets [kernel];"
      "[udp 10.0.0.2:40000 -> 10.0.0.2:8]",
      980'000, &want);
  EXPECT_EQ(p, want) << WriteFolded(p);
  FoldedProfile q;
  AddOffCpuStacks(a, b, {{7, "udpecho", "", "", "", 0.98}}, &q);
  EXPECT_EQ(q.samples, 0u) << WriteFolded(q);
  // Not followed by both readings: nothing, as for the measured stacks.
  AddOffCpuStacks(Reading(1'000'000'000, {}, {}), b, {{7, "udpecho", "x", "", "read", 0.98}}, &q);
  EXPECT_EQ(q.samples, 0u) << WriteFolded(q);
}

}  // namespace
}  // namespace bottleneckd::offcpu_stacks_test
