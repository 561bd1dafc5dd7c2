// Tests of the capture's privilege handling and filter check
// (sources/capture.h): CheckCaptureFilter on good and bad BPF expressions,
// and DropCaptureCapabilities in forked children (the suite runs as root, so
// the capabilities are there to drop), checked against the kernel's own view
// in /proc/thread-self/status.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "sources/capture.h"
#include "tests/support/test_util.h"

namespace bottleneckd::capture_caps_test {
namespace {

constexpr int kNetAdmin = 12, kNetRaw = 13;  // linux/capability.h

// Bit `cap` of the capability set `field` ("CapEff", "CapPrm", "CapInh",
// "CapBnd") of the calling thread, as the kernel reports it.
bool KernelSays(const std::string& field, int cap) {
  std::ifstream status("/proc/thread-self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) return (std::stoull(line.substr(field.size() + 1), nullptr, 16) >> cap) & 1;
  }
  return false;
}

TEST(CheckCaptureFilter, AcceptsValidExpressions) {
  EXPECT_OK(CheckCaptureFilter("udp"));
  EXPECT_OK(CheckCaptureFilter("udp and port 7"));
  EXPECT_OK(CheckCaptureFilter(""));  // every frame
  EXPECT_OK(CheckCaptureFilter("vlan and udp", 1));
  EXPECT_OK(CheckCaptureFilter("udp and dst port 9", 113));  // cooked v1
}

TEST(CheckCaptureFilter, RejectsInvalidOnesWithTheMessage) {
  Status s = CheckCaptureFilter("udp and and");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("filter \"udp and and\": ", 0), 0u) << s.message();
  EXPECT_GT(s.message().size(), std::string("filter \"udp and and\": ").size());  // libpcap's reason follows
  EXPECT_FALSE(CheckCaptureFilter("port 70000").ok());                            // beyond 16 bits
  EXPECT_FALSE(CheckCaptureFilter("nosuchkeyword").ok());
}

// In a forked child: drops the capture capabilities from this thread, checks
// the kernel agrees, and that a second call finds nothing to drop. Returns 0
// when all holds.
int DropTwice() {
  if (!HaveNetRaw() || !KernelSays("CapEff", kNetRaw)) return 2;  // root holds it to begin with
  std::string what;
  Status s = DropCaptureCapabilities(&what);
  std::fprintf(stderr, "first: %s %s\n", s.ToString().c_str(), what.c_str());
  if (!s.ok()) return 3;
  if (what != "dropped CAP_NET_RAW, CAP_NET_ADMIN") return 4;
  if (HaveNetRaw()) return 5;
  for (const char* set : {"CapEff", "CapPrm", "CapInh", "CapBnd"}) {
    if (KernelSays(set, kNetRaw) || KernelSays(set, kNetAdmin)) return 6;
  }
  if (!KernelSays("CapEff", 21)) return 7;  // CAP_SYS_ADMIN: the others stay
  s = DropCaptureCapabilities(&what);
  std::fprintf(stderr, "second: %s %s\n", s.ToString().c_str(), what.c_str());
  if (!s.ok() || what != "held none") return 8;
  return 0;
}

TEST(DropCaptureCapabilities, DropsThenHoldsNone) {
  ASSERT_TRUE(HaveNetRaw()) << "the suite runs as root";
  EXPECT_EXIT(_exit(DropTwice()), ::testing::ExitedWithCode(0), "");
}

// In a forked child: capabilities are per thread. A thread that drops them
// leaves the others theirs; a thread started after a drop inherits the
// reduced sets. Returns 0 when all holds.
int PerThread() {
  bool dropped_in_thread = true;
  std::thread t([&] {
    std::string what;
    dropped_in_thread = DropCaptureCapabilities(&what).ok() && !HaveNetRaw();
  });
  t.join();
  if (!dropped_in_thread) return 2;
  if (!HaveNetRaw()) return 3;  // this thread still has it
  std::string what;
  if (!DropCaptureCapabilities(&what).ok() || HaveNetRaw()) return 4;
  bool later_has = true;
  std::thread later([&] { later_has = HaveNetRaw(); });
  later.join();
  if (later_has) return 5;
  return 0;
}

TEST(DropCaptureCapabilities, ActsOnTheCallingThread) {
  ASSERT_TRUE(HaveNetRaw()) << "the suite runs as root";
  EXPECT_EXIT(_exit(PerThread()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace bottleneckd::capture_caps_test
