// The on-CPU profile as evidence (analysis/profile_evidence.h): the named
// CPU's or thread's top functions with their shares of its walked samples,
// worked out by hand below, and nothing for verdicts it does not serve.
#include "analysis/profile_evidence.h"

#include <gtest/gtest.h>

namespace bottleneckd::profile_evidence_test {
namespace {

ProfileStack Stack(int tid, int cpu, ProfileFrames frames, uint64_t n) {
  ProfileStack s;
  s.pid = 50;
  s.tid = tid;
  s.cpu = cpu;
  s.comm = tid == 51 ? "udpecho" : "other";
  s.frames = std::move(frames);
  s.samples = n;
  return s;
}

// cpu1: udpecho (tid 51) 35 in copy_loop, 5 in __udp4_lib_rcv, 1 in memcpy;
// another thread 8 in its loop; 49 samples in all, none idle. The thread
// also ran 10 samples on cpu0 in copy_loop.
ProfileReading Reading() {
  ProfileReading r;
  r.frequency_hz = 49;
  r.stacks = {
      Stack(51, 1, {"main (udpecho)", "copy_loop (udpecho)"}, 35),
      Stack(51, 1, {"main (udpecho)", "recvfrom (libc.so.6)", "__udp4_lib_rcv [kernel]"}, 5),
      Stack(51, 1, {"main (udpecho)", "memcpy (libc.so.6)"}, 1),
      Stack(60, 1, {"spin (other)"}, 8),
      Stack(51, 0, {"main (udpecho)", "copy_loop (udpecho)"}, 10),
  };
  r.cpus = {{0, 49, 39}, {1, 49, 0}};
  return r;
}

Signals WithThread() {
  Signals s;
  ThreadSignal t;
  t.thread = "udpecho";
  t.tid = 51;
  s.threads.push_back(t);
  return s;
}

Verdict Named(Bound label, const std::string& resource) {
  Verdict v;
  v.label = label;
  v.resource = resource;
  return v;
}

TEST(ProfileEvidence, NamesTheCpusTopFunctions) {
  // Of cpu1's 49 walked samples: copy_loop 35 (71 %), spin 8 (16 %),
  // __udp4_lib_rcv 5 (10 %); memcpy's 1 (2 %) is under the 5 % floor.
  EXPECT_EQ(ProfileEvidence(Named(Bound::kCpu, "cpu1"), Reading(), Signals()),
            "cpu1 on-CPU: 71 % in copy_loop (udpecho), 16 % in spin (other), 10 % in __udp4_lib_rcv [kernel] "
            "(49 samples at 49 Hz)");
}

TEST(ProfileEvidence, NamesTheThreadsTopFunctionsOnEveryCpu) {
  // udpecho: 35 + 10 = 45 of its 51 samples in copy_loop (88 %), 5 (10 %).
  EXPECT_EQ(ProfileEvidence(Named(Bound::kCpu, "thread udpecho"), Reading(), WithThread()),
            "thread udpecho on-CPU: 88 % in copy_loop (udpecho), 10 % in __udp4_lib_rcv [kernel] "
            "(51 samples at 49 Hz)");
}

TEST(ProfileEvidence, SaysWhenOnlyPartOfTheCpuWasWalked) {
  ProfileReading r = Reading();
  r.cpus[1] = {1, 98, 0};  // 98 busy samples, 49 of them walked
  EXPECT_NE(
      ProfileEvidence(Named(Bound::kInterrupt, "cpu1"), r, Signals()).find("(49 samples at 49 Hz of its 98 busy)"),
      std::string::npos);
}

TEST(ProfileEvidence, NothingForOtherVerdictsOrUnsampledResources) {
  EXPECT_EQ(ProfileEvidence(Named(Bound::kBus, "cpu1"), Reading(), Signals()), "");
  EXPECT_EQ(ProfileEvidence(Named(Bound::kWait, "thread udpecho"), Reading(), WithThread()), "");
  EXPECT_EQ(ProfileEvidence(Named(Bound::kCpu, "cpu7"), Reading(), Signals()), "");
  EXPECT_EQ(ProfileEvidence(Named(Bound::kCpu, "thread nobody"), Reading(), WithThread()), "");
  EXPECT_EQ(ProfileEvidence(Named(Bound::kCpu, "em0 (0000:02:01.0)"), Reading(), Signals()), "");
}

TEST(ResourceNames, CpuAndThread) {
  int cpu = -1;
  EXPECT_TRUE(ResourceCpu("cpu12", &cpu));
  EXPECT_EQ(cpu, 12);
  EXPECT_FALSE(ResourceCpu("cpu", &cpu));
  EXPECT_FALSE(ResourceCpu("cpu1x", &cpu));
  EXPECT_FALSE(ResourceCpu("thread cpu1", &cpu));
  EXPECT_EQ(ResourceThread("thread udpecho"), "udpecho");
  EXPECT_EQ(ResourceThread("cpu1"), "");
}

}  // namespace
}  // namespace bottleneckd::profile_evidence_test
