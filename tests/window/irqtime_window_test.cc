// ComputeIrqTimeWindows over hand-built IrqTimeReadings: per-CPU ratios and
// rates, the readings' own clock, a program reload, counters going backwards,
// NIC queue mapping (new IRQ slots count from 0) and clamping.
#include "window/irqtime_window.h"

#include <gtest/gtest.h>

namespace bottleneckd::irqtime_window_test {
namespace {

constexpr int64_t kSec = 1000000000;
constexpr int kTimer = 1;
constexpr int kRcu = 9;

IrqTimeReading Reading(int64_t mono_ns, uint64_t generation = 7) {
  IrqTimeReading r;
  r.mono_ns = mono_ns;
  r.generation = generation;
  r.attach = "tp_btf";
  return r;
}

IrqTimeCpu Cpu(int cpu, uint64_t hardirq_ns = 0, uint64_t hardirq_count = 0) {
  IrqTimeCpu c;
  c.cpu = cpu;
  c.hardirq_ns = hardirq_ns;
  c.hardirq_count = hardirq_count;
  return c;
}

IrqTimeIrq Irq(uint32_t irq, int cpu, uint64_t hardirq_ns, uint64_t net_softirq_ns) {
  IrqTimeIrq e;
  e.irq = irq;
  e.cpu = cpu;
  e.hardirq_ns = hardirq_ns;
  e.hardirq_count = hardirq_ns / 1000;
  e.net_softirq_ns = net_softirq_ns;
  e.net_softirq_count = net_softirq_ns / 1000;
  return e;
}

struct Result {
  bool ok = false;
  std::vector<IrqTimeCpuWindow> cpus;
  std::vector<IrqTimeQueueWindow> queues;
};

Result Compute(const IrqTimeReading& a, const IrqTimeReading& b, const std::vector<NicIrq>& nic_irqs = {}) {
  Result r;
  r.ok = ComputeIrqTimeWindows(a, b, nic_irqs, &r.cpus, &r.queues);
  return r;
}

TEST(IrqTimeWindow, CpuRatiosAndRates) {
  IrqTimeReading a = Reading(1 * kSec), b = Reading(3 * kSec);  // a 2 s window: 2e9 ns
  IrqTimeCpu c0 = Cpu(0, 1000000, 100);
  c0.softirq_ns[kTimer] = 2000000;
  c0.softirq_ns[kSoftirqNetRx] = 5000000;
  c0.softirq_count[kTimer] = 10;
  c0.softirq_count[kSoftirqNetRx] = 50;
  c0.net_unattributed_ns = 1000000;
  a.cpus = {c0, Cpu(1)};
  IrqTimeCpu d0 = c0;
  d0.hardirq_ns += 100000000;                 // 0.1 s of 2 s: 0.05
  d0.hardirq_count += 2000;                   // 1000 /s
  d0.softirq_ns[kTimer] += 40000000;          // 0.02
  d0.softirq_ns[kSoftirqNetRx] += 300000000;  // 0.15
  d0.softirq_count[kTimer] += 200;
  d0.softirq_count[kSoftirqNetRx] += 600;  // 800 softirqs in 2 s: 400 /s
  d0.net_unattributed_ns += 20000000;      // 0.01
  b.cpus = {d0, Cpu(1)};

  Result r = Compute(a, b);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.cpus.size(), 2u);
  const IrqTimeCpuWindow& w = r.cpus[0];
  EXPECT_EQ(w.cpu, 0);
  EXPECT_DOUBLE_EQ(w.hardirq_ratio, 0.05);
  EXPECT_DOUBLE_EQ(w.softirq_ratio, 0.17);
  EXPECT_DOUBLE_EQ(w.vector_ratio[kTimer], 0.02);
  EXPECT_DOUBLE_EQ(w.vector_ratio[kSoftirqNetRx], 0.15);
  EXPECT_DOUBLE_EQ(w.vector_ratio[kSoftirqNetTx], 0);
  EXPECT_DOUBLE_EQ(w.net_unattributed_ratio, 0.01);
  EXPECT_NEAR(w.interrupt_ratio(), 0.22, 1e-12);
  EXPECT_DOUBLE_EQ(w.hardirqs_per_second, 1000);
  EXPECT_DOUBLE_EQ(w.softirqs_per_second, 400);
  EXPECT_EQ(r.cpus[1].cpu, 1);
  EXPECT_DOUBLE_EQ(r.cpus[1].interrupt_ratio(), 0);
  EXPECT_TRUE(r.queues.empty());
}

TEST(IrqTimeWindow, WindowIsTheReadingsOwnClock) {
  EXPECT_DOUBLE_EQ(IrqTimeWindowSeconds(Reading(kSec + kSec / 2), Reading(2 * kSec + kSec / 4)), 0.75);
  EXPECT_EQ(IrqTimeWindowSeconds(Reading(0), Reading(kSec)), 0) << "a unset";
  EXPECT_EQ(IrqTimeWindowSeconds(Reading(2 * kSec), Reading(2 * kSec)), 0);
  EXPECT_EQ(IrqTimeWindowSeconds(Reading(3 * kSec), Reading(2 * kSec)), 0);

  IrqTimeReading a = Reading(kSec + kSec / 2), b = Reading(2 * kSec + kSec / 4);
  a.cpus = {Cpu(0, 0, 0)};
  b.cpus = {Cpu(0, 75000000, 30)};  // 75 ms of 750 ms; 30 in 0.75 s
  Result r = Compute(a, b);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.cpus.size(), 1u);
  EXPECT_DOUBLE_EQ(r.cpus[0].hardirq_ratio, 0.1);
  EXPECT_DOUBLE_EQ(r.cpus[0].hardirqs_per_second, 40);
}

TEST(IrqTimeWindow, NoWindowIsFalseAndClears) {
  IrqTimeReading a = Reading(2 * kSec), b = Reading(2 * kSec);
  a.cpus = b.cpus = {Cpu(0)};
  std::vector<IrqTimeCpuWindow> cpus(3);
  std::vector<IrqTimeQueueWindow> queues(2);
  EXPECT_FALSE(ComputeIrqTimeWindows(a, b, {}, &cpus, &queues));
  EXPECT_TRUE(cpus.empty());
  EXPECT_TRUE(queues.empty());
  a.mono_ns = 0;  // unset
  b.mono_ns = kSec;
  EXPECT_FALSE(Compute(a, b).ok);
}

TEST(IrqTimeWindow, GenerationChangeIsFalseAndClears) {
  IrqTimeReading a = Reading(kSec, 7), b = Reading(2 * kSec, 8);
  a.cpus = {Cpu(0, 900000000, 900)};
  b.cpus = {Cpu(0, 1000, 1)};  // restarted at 0 after the reload
  a.irqs = {Irq(30, 0, 5000, 5000)};
  b.irqs = {Irq(30, 0, 1000, 0)};
  std::vector<IrqTimeCpuWindow> cpus(1);
  std::vector<IrqTimeQueueWindow> queues(1);
  EXPECT_FALSE(ComputeIrqTimeWindows(a, b, {NicIrq{30, "eth0", "TxRx-0", ""}}, &cpus, &queues));
  EXPECT_TRUE(cpus.empty());
  EXPECT_TRUE(queues.empty());
}

TEST(IrqTimeWindow, CounterBackwardsLeavesThatCpuOut) {
  IrqTimeReading a = Reading(kSec), b = Reading(2 * kSec);
  IrqTimeCpu c0 = Cpu(0, 1000, 10), c1 = Cpu(1, 1000, 10), c2 = Cpu(2, 1000, 10);
  c1.softirq_count[kRcu] = 50;
  a.cpus = {c0, c1, c2};
  IrqTimeCpu d0 = Cpu(0, 1000, 9);  // hardirq count went back
  IrqTimeCpu d1 = Cpu(1, 2000, 20);
  d1.softirq_count[kRcu] = 49;  // only one vector's count went back
  IrqTimeCpu d2 = Cpu(2, 10001000, 20);
  b.cpus = {d0, d1, d2};
  Result r = Compute(a, b);
  ASSERT_TRUE(r.ok) << "the other CPUs are kept";
  ASSERT_EQ(r.cpus.size(), 1u);
  EXPECT_EQ(r.cpus[0].cpu, 2);
  EXPECT_DOUBLE_EQ(r.cpus[0].hardirq_ratio, 0.01);
  EXPECT_DOUBLE_EQ(r.cpus[0].hardirqs_per_second, 10);
}

TEST(IrqTimeWindow, CpuInOnlyOneReadingIsLeftOut) {
  IrqTimeReading a = Reading(kSec), b = Reading(2 * kSec);
  a.cpus = {Cpu(0), Cpu(2)};
  b.cpus = {Cpu(1, 5000, 1), Cpu(2, 500000000, 5)};
  Result r = Compute(a, b);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.cpus.size(), 1u);
  EXPECT_EQ(r.cpus[0].cpu, 2);
  EXPECT_DOUBLE_EQ(r.cpus[0].hardirq_ratio, 0.5);
}

TEST(IrqTimeWindow, RatiosAreClamped) {
  IrqTimeReading a = Reading(kSec), b = Reading(2 * kSec);  // 1e9 ns
  a.cpus = {Cpu(0)};
  IrqTimeCpu d0 = Cpu(0, 1500000000, 3);  // 1.5 s of hardirq in 1 s
  d0.softirq_ns[kSoftirqNetRx] = 700000000;
  b.cpus = {d0};
  a.irqs = {Irq(30, 0, 0, 0)};
  b.irqs = {Irq(30, 0, 1200000000, 400000000)};
  Result r = Compute(a, b, {NicIrq{30, "eth0", "TxRx-0", ""}});
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.cpus.size(), 1u);
  EXPECT_EQ(r.cpus[0].hardirq_ratio, 1);
  EXPECT_DOUBLE_EQ(r.cpus[0].softirq_ratio, 0.7);
  EXPECT_EQ(r.cpus[0].interrupt_ratio(), 1) << "the sum is clamped too";
  ASSERT_EQ(r.queues.size(), 1u);
  EXPECT_EQ(r.queues[0].hardirq_ratio, 1);
  EXPECT_DOUBLE_EQ(r.queues[0].net_softirq_ratio, 0.4);
  EXPECT_EQ(r.queues[0].ratio(), 1);
}

// Queues: eth0's TxRx-0 is IRQ 30 and TxRx-1 IRQ 29; eth1's only vector is
// IRQ 25, whose slot on CPU 2 appears in the window; IRQ 31 is no NIC's.
TEST(IrqTimeWindow, QueuesMappedSortedAndNewSlotsCountFromZero) {
  IrqTimeReading a = Reading(kSec), b = Reading(2 * kSec);  // 1e9 ns
  a.cpus = b.cpus = {Cpu(0), Cpu(1), Cpu(2)};
  a.irqs = {Irq(29, 0, 1000000, 2000000), Irq(30, 0, 10000000, 0), Irq(30, 1, 20000000, 0), Irq(31, 0, 0, 0)};
  b.irqs = {Irq(25, 2, 4000000, 6000000),     // new slot: 0.004 + 0.006
            Irq(29, 0, 51000000, 102000000),  // +50 ms, +100 ms: 0.05 + 0.1
            Irq(30, 0, 10000000, 0),          // no time in the window: left out
            Irq(30, 1, 50000000, 200000000),  // +30 ms, +200 ms: 0.03 + 0.2
            Irq(31, 0, 900000000, 0)};        // not a NIC queue
  std::vector<NicIrq> nic = {NicIrq{29, "eth0", "TxRx-1", "0000:01:00.0"}, NicIrq{30, "eth0", "TxRx-0", "0000:01:00.0"},
                             NicIrq{25, "eth1", "", "0000:02:00.0"}};
  Result r = Compute(a, b, nic);
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.queues.size(), 3u);
  const IrqTimeQueueWindow& q0 = r.queues[0];
  EXPECT_EQ(q0.interface, "eth0");
  EXPECT_EQ(q0.queue, "TxRx-0");
  EXPECT_EQ(q0.irq, 30u);
  EXPECT_EQ(q0.cpu, 1);
  EXPECT_DOUBLE_EQ(q0.hardirq_ratio, 0.03);
  EXPECT_DOUBLE_EQ(q0.net_softirq_ratio, 0.2);
  EXPECT_NEAR(q0.ratio(), 0.23, 1e-12);
  const IrqTimeQueueWindow& q1 = r.queues[1];
  EXPECT_EQ(q1.interface, "eth0");
  EXPECT_EQ(q1.queue, "TxRx-1");
  EXPECT_EQ(q1.irq, 29u);
  EXPECT_EQ(q1.cpu, 0);
  EXPECT_DOUBLE_EQ(q1.hardirq_ratio, 0.05);
  EXPECT_DOUBLE_EQ(q1.net_softirq_ratio, 0.1);
  const IrqTimeQueueWindow& q2 = r.queues[2];
  EXPECT_EQ(q2.interface, "eth1");
  EXPECT_EQ(q2.queue, "");
  EXPECT_EQ(q2.irq, 25u);
  EXPECT_EQ(q2.cpu, 2);
  EXPECT_DOUBLE_EQ(q2.hardirq_ratio, 0.004);
  EXPECT_DOUBLE_EQ(q2.net_softirq_ratio, 0.006);
}

TEST(IrqTimeWindow, QueueCountersBackwardsLeaveThatEntryOut) {
  IrqTimeReading a = Reading(kSec), b = Reading(2 * kSec);
  a.cpus = b.cpus = {Cpu(0), Cpu(1)};
  a.irqs = {Irq(40, 0, 5000000, 5000000), Irq(40, 1, 0, 0), Irq(41, 0, 7000000, 0)};
  IrqTimeIrq back = Irq(40, 0, 6000000, 6000000);
  back.net_softirq_count = 1;                // went back from 5000
  b.irqs = {back, Irq(40, 1, 0, 80000000)};  // IRQ 41's slot is gone: nothing
  std::vector<NicIrq> nic = {NicIrq{40, "eth0", "input.0", ""}, NicIrq{41, "eth0", "output.0", ""}};
  Result r = Compute(a, b, nic);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.cpus.size(), 2u);
  ASSERT_EQ(r.queues.size(), 1u);
  EXPECT_EQ(r.queues[0].queue, "input.0");
  EXPECT_EQ(r.queues[0].cpu, 1);
  EXPECT_DOUBLE_EQ(r.queues[0].hardirq_ratio, 0);
  EXPECT_DOUBLE_EQ(r.queues[0].net_softirq_ratio, 0.08);
}

TEST(IrqTimeWindow, NoNicMapGivesNoQueues) {
  IrqTimeReading a = Reading(kSec), b = Reading(2 * kSec);
  a.cpus = b.cpus = {Cpu(0)};
  b.irqs = {Irq(30, 0, 1000000, 1000000)};
  Result r = Compute(a, b);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.cpus.size(), 1u);
  EXPECT_TRUE(r.queues.empty());
}

}  // namespace
}  // namespace bottleneckd::irqtime_window_test
