// IrqTimeSource on this machine's kernel (the suite runs as root, as CI
// does): the program loads, attaches and counts; without the kernel's BTF it
// attaches as raw tracepoints and still counts; without CAP_BPF and
// CAP_PERFMON it refuses with one message naming them; the vector names.
#include "sources/irqtime.h"

#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "sources/capabilities.h"
#include "sources/sample.h"
#include "tests/support/test_util.h"

namespace bottleneckd::irqtime_test {
namespace {

uint64_t TimerSoftirqs(const IrqTimeReading& r) {
  uint64_t n = 0;
  for (const IrqTimeCpu& c : r.cpus) n += c.softirq_count[1];  // TIMER
  return n;
}

// Reads until the timer softirq (every online CPU runs it at least at HZ
// while busy, and on idle CPUs for their timers) has run `more` times more
// than in `before`, for at most 5 s.
IrqTimeReading ReadUntilTimers(IrqTimeSource* src, const IrqTimeReading& before, uint64_t more) {
  IrqTimeReading r;
  for (int i = 0; i < 50; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_OK(src->Read(&r));
    if (TimerSoftirqs(r) >= TimerSoftirqs(before) + more) break;
  }
  return r;
}

// The checks every loaded source passes: sorted CPUs, counters that only
// grow, time that fits in the elapsed time.
void ExpectCounting(IrqTimeSource* src, const std::string& attach) {
  IrqTimeReading a;
  ASSERT_OK(src->Read(&a));
  EXPECT_EQ(a.attach, attach);
  EXPECT_NE(a.generation, 0u);
  IrqTimeReading b = ReadUntilTimers(src, a, 5);
  EXPECT_GE(TimerSoftirqs(b), TimerSoftirqs(a) + 5);
  EXPECT_EQ(b.generation, a.generation);
  EXPECT_GT(b.mono_ns, a.mono_ns);
  ASSERT_FALSE(b.cpus.empty());
  for (size_t i = 1; i < b.cpus.size(); ++i) EXPECT_LT(b.cpus[i - 1].cpu, b.cpus[i].cpu);
  const double window_ns = static_cast<double>(b.mono_ns - a.mono_ns);
  for (const IrqTimeCpu& cb : b.cpus) {
    for (const IrqTimeCpu& ca : a.cpus) {
      if (ca.cpu != cb.cpu) continue;
      EXPECT_GE(cb.hardirq_ns, ca.hardirq_ns);
      EXPECT_GE(cb.softirq_total_ns(), ca.softirq_total_ns());
      // An idle test machine spends far less than the window in interrupts;
      // more than all of it would be a double count.
      const double spent = static_cast<double>(cb.hardirq_ns - ca.hardirq_ns) +
                           static_cast<double>(cb.softirq_total_ns() - ca.softirq_total_ns());
      EXPECT_LT(spent, window_ns) << "cpu" << cb.cpu;
    }
  }
  for (size_t i = 1; i < b.irqs.size(); ++i) {
    const IrqTimeIrq &p = b.irqs[i - 1], &q = b.irqs[i];
    EXPECT_TRUE(p.irq < q.irq || (p.irq == q.irq && p.cpu < q.cpu));
  }
}

TEST(IrqTimeSource, LoadsAndCounts) {
  ASSERT_TRUE(CheckIrqTimePrivileges().ok()) << "the suite runs as root";
  IrqTimeSource src(IrqTimeOptions{});
  Status s = src.Start();
  ASSERT_OK(s);
  ASSERT_TRUE(src.running());
  // This kernel has BTF (CONFIG_DEBUG_INFO_BTF): the typed attach.
  const bool btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
  EXPECT_EQ(src.attach_note().substr(0, 6), btf ? "tp_btf" : "raw_tp");
  ExpectCounting(&src, btf ? "tp_btf" : "raw_tp");
  EXPECT_OK(src.Start());  // idempotent

  Sample sample;
  ASSERT_OK(src.Read(&sample));
  ASSERT_TRUE(sample.irqtime.has_value());
  EXPECT_FALSE(sample.irqtime->cpus.empty());

  src.Stop();
  EXPECT_FALSE(src.running());
  IrqTimeReading r;
  Status after = src.Read(&r);
  EXPECT_TRUE(after.IsNotSupported()) << after.ToString();
  EXPECT_FALSE(src.Read(&sample).ok());
  EXPECT_FALSE(sample.irqtime.has_value());
}

TEST(IrqTimeSource, WithoutKernelBtfAttachesRawTracepoints) {
  IrqTimeOptions o;
  o.btf_path = "/nonexistent/btf/vmlinux";
  IrqTimeSource src(o);
  Status s = src.Start();
  ASSERT_OK(s);
  EXPECT_EQ(src.attach_note(), "raw_tp (no kernel BTF at /nonexistent/btf/vmlinux)");
  ExpectCounting(&src, "raw_tp");
}

TEST(IrqTimeSource, TwoLoadsAreTwoGenerations) {
  IrqTimeSource a(IrqTimeOptions{}), b(IrqTimeOptions{});
  ASSERT_OK(a.Start());
  ASSERT_OK(b.Start());
  IrqTimeReading ra, rb;
  ASSERT_OK(a.Read(&ra));
  ASSERT_OK(b.Read(&rb));
  EXPECT_NE(ra.generation, rb.generation);
}

// In a forked child (one thread): drops every capability from its effective
// and permitted sets, then Start() must refuse with PermissionDenied naming
// CAP_BPF and CAP_PERFMON. Returns 0 when all holds.
int StartWithoutCapabilities() {
  __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3]{};
  if (syscall(SYS_capset, &h, d) != 0) return 2;
  if (HaveEffectiveCapability(CAP_BPF) || HaveEffectiveCapability(CAP_SYS_ADMIN)) return 3;
  IrqTimeSource src(IrqTimeOptions{});
  Status s = src.Start();
  std::fprintf(stderr, "status: %s\n", s.ToString().c_str());
  if (s.ok()) return 4;
  if (!s.IsPermissionDenied()) return 5;
  if (s.message() !=
      "needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN, root) to load its eBPF program; CAP_BPF and CAP_PERFMON not "
      "held")
    return 6;
  if (src.running()) return 7;
  return 0;
}

TEST(IrqTimeSource, WithoutCapabilitiesSaysWhich) {
  ASSERT_TRUE(HaveEffectiveCapability(CAP_SYS_ADMIN)) << "the suite runs as root";
  EXPECT_EXIT(_exit(StartWithoutCapabilities()), ::testing::ExitedWithCode(0), "");
}

TEST(IrqTimeNames, VectorsAsProcSoftirqsNamesThem) {
  const char* names[] = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};
  for (int i = 0; i < kSoftirqVectors; ++i) {
    EXPECT_EQ(SoftirqVectorName(i), names[i]);
    EXPECT_EQ(SoftirqVectorIndex(names[i]), i);
  }
  EXPECT_EQ(SoftirqVectorName(-1), "");
  EXPECT_EQ(SoftirqVectorName(kSoftirqVectors), "");
  EXPECT_EQ(SoftirqVectorIndex("net_rx"), -1);  // names are the kernel's, upper case
  EXPECT_EQ(SoftirqVectorName(kSoftirqNetRx), "NET_RX");
  EXPECT_EQ(SoftirqVectorName(kSoftirqNetTx), "NET_TX");
}

TEST(IrqTimeNames, Modes) {
  IrqTimeMode m = IrqTimeMode::kOff;
  ASSERT_TRUE(ParseLoadMode("auto", &m));
  EXPECT_EQ(m, IrqTimeMode::kAuto);
  ASSERT_TRUE(ParseLoadMode("on", &m));
  EXPECT_EQ(m, IrqTimeMode::kOn);
  ASSERT_TRUE(ParseLoadMode("off", &m));
  EXPECT_EQ(m, IrqTimeMode::kOff);
  EXPECT_FALSE(ParseLoadMode("yes", &m));
  EXPECT_EQ(m, IrqTimeMode::kOff);
  EXPECT_STREQ(LoadModeName(IrqTimeMode::kAuto), "auto");
}

}  // namespace
}  // namespace bottleneckd::irqtime_test
