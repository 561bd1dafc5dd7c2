// ComputeWindow over hand-built samples: ratios, rates, wrap, reset, and
// CPUs / interfaces / IRQs that appear or vanish between samples.
#include "window/window.h"

#include <gtest/gtest.h>

namespace bottleneckd::window_test {
namespace {

constexpr int64_t kSec = 1000000000;

CpuTimes Cpu(int id, uint64_t user, uint64_t system, uint64_t idle, uint64_t irq, uint64_t softirq, uint64_t steal = 0,
             uint64_t iowait = 0) {
  CpuTimes c;
  c.cpu = id;
  c.user = user;
  c.system = system;
  c.idle = idle;
  c.iowait = iowait;
  c.irq = irq;
  c.softirq = softirq;
  c.steal = steal;
  return c;
}

NetDev Dev(const std::string& name, int64_t ifindex, uint64_t rx_packets, uint64_t tx_packets, uint64_t rx_bytes,
           uint64_t missed) {
  NetDev d;
  d.name = name;
  d.ifindex = ifindex;
  d.stats = {{"rx_bytes", rx_bytes},
             {"rx_missed_errors", missed},
             {"rx_packets", rx_packets},
             {"tx_bytes", 0},
             {"tx_packets", tx_packets}};
  return d;
}

IrqLine Irq(uint32_t n, std::vector<uint64_t> per_cpu) {
  IrqLine l;
  l.name = std::to_string(n);
  l.irq = n;
  l.per_cpu = std::move(per_cpu);
  return l;
}

Sample At(int64_t t) {
  Sample s;
  s.mono_ns = t;
  return s;
}

TEST(ComputeWindow, CpuRatiosFromAccounting) {
  Sample a = At(0), b = At(2 * kSec);
  a.stat = ProcStat();
  b.stat = ProcStat();
  a.stat->cpus = {Cpu(0, 100, 100, 100, 10, 10), Cpu(1, 0, 0, 0, 0, 0)};
  // cpu0 over 200 ticks: user 60, system 40, idle 20, irq 20, softirq 40, steal 20.
  b.stat->cpus = {Cpu(0, 160, 140, 120, 30, 50, 20), Cpu(1, 50, 0, 150, 0, 0)};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  EXPECT_DOUBLE_EQ(w.seconds, 2.0);
  ASSERT_EQ(w.cpus.size(), 2u);
  const CpuWindow& c0 = w.cpus[0];
  EXPECT_EQ(c0.cpu, 0);
  EXPECT_DOUBLE_EQ(c0.busy_ratio, 1.0 - 20.0 / 200);
  EXPECT_DOUBLE_EQ(c0.interrupt_ratio, 60.0 / 200);
  EXPECT_DOUBLE_EQ(c0.irq_ratio, 20.0 / 200);
  EXPECT_DOUBLE_EQ(c0.softirq_ratio, 40.0 / 200);
  EXPECT_DOUBLE_EQ(c0.steal_ratio, 20.0 / 200);
  EXPECT_DOUBLE_EQ(c0.user_ratio, 60.0 / 200);
  EXPECT_DOUBLE_EQ(w.cpus[1].busy_ratio, 0.25);
  EXPECT_TRUE(w.issues.empty());
}

// The soaker's own time comes out of accounting busy on a CPU it ran on but
// could not measure (not calibrated: no soaker window): that CPU idled under
// the soaker, and its SCHED_IDLE spin is no load (lab.irqtime's light run
// once named such a CPU "100.0 % accounting busy").
TEST(ComputeWindow, SoakerTimeLeavesAccountingBusyWhereItWasNotMeasured) {
  Sample a = At(kSec), b = At(3 * kSec);
  a.stat = ProcStat();
  b.stat = ProcStat();
  a.stat->cpus = {Cpu(0, 0, 0, 0, 0, 0), Cpu(1, 0, 0, 0, 0, 0)};
  // Both CPUs 200 ticks, all user: cpu0 the soaker's 1.9 s of 2, cpu1 the
  // soaker's 1.0 s.
  b.stat->cpus = {Cpu(0, 200, 0, 0, 0, 0), Cpu(1, 200, 0, 0, 0, 0)};
  auto soaker = [](int64_t t, uint64_t cpu0_ns, uint64_t cpu1_ns, uint64_t cpu1_iterations) {
    SoakerReading r;
    r.mono_ns = t;
    SoakerCpu c0, c1;
    c0.cpu = 0, c0.thread_cpu_ns = cpu0_ns, c0.generation = 1;  // no calibration
    c1.cpu = 1, c1.thread_cpu_ns = cpu1_ns, c1.generation = 2, c1.iterations = cpu1_iterations;
    c1.iterations_per_second = 1e6;
    r.cpus = {c0, c1};
    return r;
  };
  a.soaker = soaker(kSec, 0, 0, 0);
  b.soaker = soaker(3 * kSec, 1'900'000'000, 1'000'000'000, 1'000'000);
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.soaker.size(), 1u);  // delivered idle only where calibrated
  EXPECT_EQ(w.soaker[0].cpu, 1);
  ASSERT_EQ(w.cpus.size(), 2u);
  EXPECT_NEAR(w.cpus[0].busy_ratio, 0.05, 1e-12);
  EXPECT_NEAR(w.cpus[1].busy_ratio, 0.5, 1e-12);
}

TEST(ComputeWindow, ZeroLengthOrBackwardsWindowIsRejected) {
  Sample a = At(5 * kSec), b = At(5 * kSec);
  Window w;
  EXPECT_FALSE(ComputeWindow(a, b, &w));
  b.mono_ns = 4 * kSec;
  EXPECT_FALSE(ComputeWindow(a, b, &w));
}

TEST(ComputeWindow, CpuGoingOfflineOrOnlineIsLeftOut) {
  Sample a = At(0), b = At(kSec);
  a.stat = ProcStat();
  b.stat = ProcStat();
  a.stat->cpus = {Cpu(0, 0, 0, 0, 0, 0), Cpu(1, 0, 0, 0, 0, 0)};
  b.stat->cpus = {Cpu(0, 50, 0, 50, 0, 0), Cpu(2, 100, 0, 0, 0, 0)};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.cpus.size(), 1u);
  EXPECT_EQ(w.cpus[0].cpu, 0);
  EXPECT_DOUBLE_EQ(w.cpus[0].busy_ratio, 0.5);
}

TEST(ComputeWindow, CpuCounterGoingBackwardsSkipsThatCpu) {
  Sample a = At(0), b = At(kSec);
  a.stat = ProcStat();
  b.stat = ProcStat();
  a.stat->cpus = {Cpu(0, 500, 0, 500, 0, 0)};
  b.stat->cpus = {Cpu(0, 400, 0, 600, 0, 0)};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  EXPECT_TRUE(w.cpus.empty());
  ASSERT_EQ(w.issues.size(), 1u);
  EXPECT_EQ(w.issues[0].kind, CounterAnomaly::kReset);
  EXPECT_EQ(w.issues[0].key, "cpu0/user");
}

TEST(ComputeWindow, NicRatesInterruptsAndDrops) {
  Sample a = At(0), b = At(kSec);
  a.stat = ProcStat();
  b.stat = ProcStat();
  a.stat->cpus = {Cpu(0, 0, 0, 0, 0, 0), Cpu(1, 0, 0, 0, 0, 0)};
  b.stat->cpus = {Cpu(0, 0, 0, 100, 0, 0), Cpu(1, 0, 0, 100, 0, 0)};
  a.netdev = std::vector<NetDev>{Dev("em0", 2, 1000, 500, 1000000, 7)};
  b.netdev = std::vector<NetDev>{Dev("em0", 2, 61000, 30500, 1001000000, 17)};
  a.interrupts = Interrupts{{0, 1}, {Irq(24, {100, 0}), Irq(30, {5, 5})}};
  b.interrupts = Interrupts{{0, 1}, {Irq(24, {6100, 0}), Irq(30, {5, 9})}};
  b.nic_irqs = {NicIrq{24, "em0", "", "0000:02:01.0"}};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.nics.size(), 1u);
  const NicWindow& n = w.nics[0];
  EXPECT_DOUBLE_EQ(*n.rx_packets_per_second, 60000);
  EXPECT_DOUBLE_EQ(*n.tx_packets_per_second, 30000);
  EXPECT_DOUBLE_EQ(*n.rx_bits_per_second, 8e9);
  EXPECT_DOUBLE_EQ(*n.interrupts_per_second, 6000);
  EXPECT_DOUBLE_EQ(*n.packets_per_interrupt, 15);
  EXPECT_DOUBLE_EQ(*n.nic_drops_per_second, 10);
  EXPECT_DOUBLE_EQ(*w.drops.nic, 10);
  EXPECT_DOUBLE_EQ(w.cpus[0].interrupts_per_second, 6000);
  EXPECT_DOUBLE_EQ(w.cpus[1].interrupts_per_second, 4);
}

// The CPUs serving a NIC's queues: where the per-CPU count of one of its
// IRQs moved over the window (moved here from analysis/, which differenced
// the raw samples itself: issue 48). A CPU that came online has no
// difference; a line that is not a NIC's counts for none.
TEST(ComputeWindow, NicIrqCpusFromPerCpuDeltas) {
  Sample a = At(0), b = At(kSec);
  a.interrupts =
      Interrupts{{0, 1, 2}, {Irq(30, {100, 0, 5}), Irq(31, {0, 50, 5}), Irq(40, {10, 10, 10}), Irq(50, {1, 1, 1})}};
  // cpu3 came online: no difference there
  b.interrupts = Interrupts{
      {0, 1, 2, 3}, {Irq(30, {200, 0, 5, 7}), Irq(31, {0, 80, 5, 9}), Irq(40, {10, 20, 10, 0}), Irq(50, {9, 9, 9, 9})}};
  b.nic_irqs = {NicIrq{30, "em0", "", ""}, NicIrq{31, "em0", "", ""}, NicIrq{40, "em1", "", ""}};
  b.netdev = a.netdev = std::vector<NetDev>{Dev("em0", 2, 0, 0, 0, 0), Dev("em1", 3, 0, 0, 0, 0)};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.nics.size(), 2u);
  EXPECT_EQ(w.nics[0].interface, "em0");
  EXPECT_EQ(w.nics[0].irq_cpus, (std::vector<int>{0, 1}));  // 30 moved on cpu0, 31 on cpu1
  EXPECT_EQ(w.nics[1].interface, "em1");
  EXPECT_EQ(w.nics[1].irq_cpus, (std::vector<int>{1}));
}

TEST(ComputeWindow, NicIrqCpusMatchColumnsByCpuId) {
  // cpu1 went offline: the current file's second column is cpu2.
  Sample a = At(0), b = At(kSec);
  a.interrupts = Interrupts{{0, 1, 2}, {Irq(30, {5, 5, 5})}};
  b.interrupts = Interrupts{{0, 2}, {Irq(30, {5, 6})}};  // cpu2: 5 -> 6
  b.nic_irqs = {NicIrq{30, "em0", "", ""}};
  b.netdev = a.netdev = std::vector<NetDev>{Dev("em0", 2, 0, 0, 0, 0)};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.nics.size(), 1u);
  EXPECT_EQ(w.nics[0].irq_cpus, (std::vector<int>{2}));
}

// The named lines count each CPU's timer and IPIs apart from its device
// IRQs (the delivery cost is learned against both); ERR, MIS and RTR are not
// per-CPU interrupts.
TEST(ComputeWindow, SystemInterruptsPerCpu) {
  Sample a = At(0), b = At(2 * kSec);
  a.stat = ProcStat();
  b.stat = ProcStat();
  a.stat->cpus = {Cpu(0, 0, 0, 0, 0, 0), Cpu(1, 0, 0, 0, 0, 0)};
  b.stat->cpus = {Cpu(0, 0, 0, 200, 0, 0), Cpu(1, 0, 0, 200, 0, 0)};
  auto named = [](const char* name, std::vector<uint64_t> per_cpu) {
    IrqLine l;
    l.name = name;
    l.per_cpu = std::move(per_cpu);
    return l;
  };
  a.interrupts = Interrupts{
      {0, 1},
      {Irq(24, {100, 0}), named("LOC", {1000, 2000}), named("CAL", {0, 50}), named("RTR", {0, 0}), named("ERR", {3})}};
  b.interrupts = Interrupts{{0, 1},
                            {Irq(24, {300, 0}), named("LOC", {1500, 2600}), named("CAL", {0, 30050}),
                             named("RTR", {9000, 9000}), named("ERR", {9003})}};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.cpus.size(), 2u);
  EXPECT_DOUBLE_EQ(w.cpus[0].interrupts_per_second, 100);
  EXPECT_DOUBLE_EQ(w.cpus[0].system_interrupts_per_second, 250);
  EXPECT_DOUBLE_EQ(w.cpus[1].interrupts_per_second, 0);
  EXPECT_DOUBLE_EQ(w.cpus[1].system_interrupts_per_second, 300 + 15000);
}

TEST(ComputeWindow, InterfaceRecreatedIsAResetNotASpike) {
  Sample a = At(0), b = At(kSec);
  a.netdev = std::vector<NetDev>{Dev("veth0", 7, 5000000, 0, 0, 0), Dev("gone", 3, 1, 1, 1, 0)};
  b.netdev = std::vector<NetDev>{Dev("veth0", 9, 12, 0, 0, 0), Dev("new", 4, 1, 1, 1, 0)};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  EXPECT_TRUE(w.nics.empty()) << "no rate for a re-created, a vanished or a new interface";
  ASSERT_EQ(w.issues.size(), 1u);
  EXPECT_EQ(w.issues[0].key, "veth0/ifindex");
  EXPECT_EQ(w.issues[0].kind, CounterAnomaly::kReset);
}

TEST(ComputeWindow, CounterResetWithSameIfindexLeavesRateUnset) {
  Sample a = At(0), b = At(kSec);
  a.netdev = std::vector<NetDev>{Dev("eth0", 2, 900, 900, 900, 0)};
  b.netdev = std::vector<NetDev>{Dev("eth0", 2, 100, 1000, 1000, 0)};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.nics.size(), 1u);
  EXPECT_FALSE(w.nics[0].rx_packets_per_second.has_value());
  EXPECT_DOUBLE_EQ(*w.nics[0].tx_packets_per_second, 100);
}

TEST(ComputeWindow, SoftnetThirtyTwoBitWrapAndBacklogRung) {
  Sample a = At(0), b = At(kSec);
  a.stat = ProcStat();
  b.stat = ProcStat();
  a.stat->cpus = {Cpu(0, 0, 0, 0, 0, 0)};
  b.stat->cpus = {Cpu(0, 0, 0, 100, 0, 0)};
  SoftnetCpu s0;
  s0.cpu = 0;
  s0.dropped = 0xfffffffe;
  s0.time_squeeze = 10;
  SoftnetCpu s1 = s0;
  s1.dropped = 3;  // wrapped: 5 drops
  s1.time_squeeze = 25;
  a.softnet = std::vector<SoftnetCpu>{s0};
  b.softnet = std::vector<SoftnetCpu>{s1};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  EXPECT_DOUBLE_EQ(*w.drops.backlog, 5);
  EXPECT_DOUBLE_EQ(w.cpus[0].backlog_drops_per_second, 5);
  EXPECT_DOUBLE_EQ(w.cpus[0].time_squeeze_per_second, 15);
  ASSERT_EQ(w.issues.size(), 1u);
  EXPECT_EQ(w.issues[0].kind, CounterAnomaly::kWrap);
}

TEST(ComputeWindow, InterruptCountsWrapAndCpuColumnsMove) {
  Sample a = At(0), b = At(kSec);
  // CPU1 went offline: the header lost its column; CPU2's column moved left.
  a.interrupts = Interrupts{{0, 1, 2}, {Irq(40, {0xfffffff0u, 10, 100})}};
  b.interrupts = Interrupts{{0, 2}, {Irq(40, {0x10, 160})}};
  b.nic_irqs = {NicIrq{40, "eth0", "TxRx-0", ""}};
  b.netdev = a.netdev = std::vector<NetDev>{Dev("eth0", 2, 0, 0, 0, 0)};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.nics.size(), 1u);
  EXPECT_DOUBLE_EQ(*w.nics[0].interrupts_per_second, 0x20 + 60);
}

TEST(ComputeWindow, SocketRungAndThreads) {
  Sample a = At(0), b = At(4 * kSec);
  a.sockets = SocketStats{
      {SnmpTable{"Udp", {{"InDatagrams", 10}, {"RcvbufErrors", 100}}}, SnmpTable{"UdpLite", {{"RcvbufErrors", 0}}}}};
  b.sockets = SocketStats{
      {SnmpTable{"Udp", {{"InDatagrams", 90}, {"RcvbufErrors", 300}}}, SnmpTable{"UdpLite", {{"RcvbufErrors", 20}}}}};
  ThreadSample t;
  t.pid = 812;
  t.process = "udpecho";
  t.task.tid = 812;
  t.task.comm = "udpecho";
  t.task.utime = 100;
  t.task.stime = 100;
  a.threads = std::vector<ThreadSample>{t};
  t.task.utime = 300;  // +200 + 196 ticks over 4 s = 3.96 s
  t.task.stime = 296;
  t.task.processor = 1;
  b.threads = std::vector<ThreadSample>{t};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  EXPECT_DOUBLE_EQ(*w.drops.socket, 55);
  EXPECT_FALSE(w.drops.nic.has_value()) << "no netdev: the rung is unknown, not zero";
  ASSERT_EQ(w.threads.size(), 1u);
  EXPECT_DOUBLE_EQ(w.threads[0].cpu_ratio, 0.99);
  EXPECT_EQ(w.threads[0].processor, 1);
}

// The waiting echo of the echo lab, 2 s: 0.8 s on a CPU, 0.04 s on a run
// queue, the rest asleep; 28 000 voluntary switches (one per datagram).
TEST(ComputeWindow, ThreadStateSharesFromSchedstat) {
  Sample a = At(0), b = At(2 * kSec);
  ThreadSample t;
  t.pid = t.task.tid = 812;
  t.process = t.task.comm = "udpecho";
  t.schedstat = TaskSchedstat{5'000'000'000, 100'000'000, 10};
  t.switches = TaskSwitches{1000, 7};
  a.threads = std::vector<ThreadSample>{t};
  t.schedstat = TaskSchedstat{5'800'000'000, 140'000'000, 28'010};
  t.switches = TaskSwitches{29'000, 9};
  t.wait = TaskWait{"hrtimer_nanosleep", 230};
  b.threads = std::vector<ThreadSample>{t};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.threads.size(), 1u);
  const ThreadWindow& tw = w.threads[0];
  EXPECT_DOUBLE_EQ(*tw.running_ratio, 0.4);
  EXPECT_DOUBLE_EQ(*tw.runnable_ratio, 0.02);
  EXPECT_DOUBLE_EQ(*tw.waiting_ratio, 0.58);
  EXPECT_DOUBLE_EQ(*tw.voluntary_per_second, 14000);
  EXPECT_DOUBLE_EQ(*tw.involuntary_per_second, 1);
  EXPECT_EQ(tw.wait.wchan, "hrtimer_nanosleep");
  EXPECT_EQ(tw.wait.syscall, 230);

  // The scheduler's clock ran 1 % past the window: running and runnable are
  // scaled to fill it, nothing is left waiting, nothing goes negative.
  b.threads->front().schedstat = TaskSchedstat{6'980'000'000, 120'000'000, 11};
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  EXPECT_NEAR(*w.threads[0].running_ratio + *w.threads[0].runnable_ratio, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(*w.threads[0].waiting_ratio, 0);

  // Only one sample has schedstat (a recording older than the files): unknown.
  a.threads->front().schedstat.reset();
  a.threads->front().switches.reset();
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  EXPECT_FALSE(w.threads[0].running_ratio.has_value());
  EXPECT_FALSE(w.threads[0].waiting_ratio.has_value());
  EXPECT_FALSE(w.threads[0].voluntary_per_second.has_value());
}

TEST(ComputeWindow, IrqTimeFlowsThroughOnItsOwnClock) {
  Sample a = At(10 * kSec), b = At(12 * kSec);
  a.irqtime = IrqTimeReading{};
  a.irqtime->mono_ns = 10 * kSec + kSec / 2;
  a.irqtime->generation = 3;
  IrqTimeCpu c;
  c.cpu = 1;
  c.hardirq_ns = 1000;
  a.irqtime->cpus = {c};
  IrqTimeIrq e;
  e.irq = 24;
  e.cpu = 1;
  a.irqtime->irqs = {e};
  b.irqtime = a.irqtime;
  b.irqtime->mono_ns = 11 * kSec + kSec / 2;  // 1 s of the readings' clock, not the samples' 2 s
  b.irqtime->cpus[0].hardirq_ns += 250000000;
  b.irqtime->cpus[0].softirq_ns[kSoftirqNetRx] = 100000000;
  b.irqtime->irqs[0].hardirq_ns = 200000000;
  b.irqtime->irqs[0].net_softirq_ns = 100000000;
  b.nic_irqs = {NicIrq{24, "em0", "", "0000:02:01.0"}};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.irqtime.size(), 1u);
  EXPECT_EQ(w.irqtime[0].cpu, 1);
  EXPECT_DOUBLE_EQ(w.irqtime[0].hardirq_ratio, 0.25);
  EXPECT_DOUBLE_EQ(w.irqtime[0].softirq_ratio, 0.1);
  ASSERT_EQ(w.irqtime_queues.size(), 1u);
  EXPECT_EQ(w.irqtime_queues[0].interface, "em0");
  EXPECT_DOUBLE_EQ(w.irqtime_queues[0].hardirq_ratio, 0.2);
  EXPECT_DOUBLE_EQ(w.irqtime_queues[0].net_softirq_ratio, 0.1);
  EXPECT_TRUE(w.issues.empty());

  // Only one sample with a reading: nothing measured.
  Sample off = At(9 * kSec);
  ASSERT_TRUE(ComputeWindow(off, b, &w));
  EXPECT_TRUE(w.irqtime.empty());
  EXPECT_TRUE(w.irqtime_queues.empty());
}

TEST(ComputeWindow, IrqTimeReloadAndBackwardsCpuAreResets) {
  Sample a = At(kSec), b = At(2 * kSec);
  a.irqtime = IrqTimeReading{};
  a.irqtime->mono_ns = kSec;
  a.irqtime->generation = 3;
  IrqTimeCpu c0, c1;
  c0.cpu = 0;
  c0.hardirq_ns = 5000;
  c1.cpu = 1;
  a.irqtime->cpus = {c0, c1};
  b.irqtime = a.irqtime;
  b.irqtime->mono_ns = 2 * kSec;
  b.irqtime->cpus[0].hardirq_ns = 4000;  // went back
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.irqtime.size(), 1u);
  EXPECT_EQ(w.irqtime[0].cpu, 1);
  ASSERT_EQ(w.issues.size(), 1u);
  EXPECT_EQ(w.issues[0].source, "irqtime");
  EXPECT_EQ(w.issues[0].key, "cpu0");
  EXPECT_EQ(w.issues[0].kind, CounterAnomaly::kReset);

  b.irqtime->generation = 4;  // reloaded: counters restarted
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  EXPECT_TRUE(w.irqtime.empty());
  ASSERT_EQ(w.issues.size(), 1u);
  EXPECT_EQ(w.issues[0].key, "generation");
  EXPECT_EQ(w.issues[0].kind, CounterAnomaly::kReset);
}

NetDev DropDev(std::string driver) {
  NetDev d;
  d.driver = std::move(driver);
  d.stats = {{"rx_dropped", 100}, {"rx_fifo_errors", 2}, {"rx_missed_errors", 3}, {"rx_over_errors", 4}};
  d.ethtool = {{"rx_discards_phy", 20}, {"rx_no_buffer_count", 5}, {"rx_out_of_buffer", 3}};
  return d;
}

TEST(NicRungDrops, IntelSumsGenericCountersNotNoBuffer) {
  // missed 3 + fifo 2 + over 4; rx_no_buffer_count and rx_dropped are no losses.
  for (const char* driver : {"e1000", "e1000e", "igb", "ixgbe"}) EXPECT_EQ(NicRungDrops(DropDev(driver)), 9u) << driver;
}

TEST(NicRungDrops, Mlx5AddsDiscardsPhyNotOutOfBuffer) {
  // missed 3 (rx_out_of_buffer's copy) + fifo 2 + over 4 + rx_discards_phy 20.
  EXPECT_EQ(NicRungDrops(DropDev("mlx5_core")), 29u);
}

TEST(NicRungDrops, UnknownDriverSumsGenericCountersOnly) {
  for (const char* driver : {"virtio_net", "bnxt_en", ""}) EXPECT_EQ(NicRungDrops(DropDev(driver)), 9u) << driver;
}

TEST(NicRungDrops, EthtoolAloneCountsAndNoneIsMissing) {
  NetDev mlx;
  mlx.driver = "mlx5_core";
  mlx.ethtool = {{"rx_discards_phy", 7}};
  EXPECT_EQ(NicRungDrops(mlx), 7u);
  NetDev igb;
  igb.driver = "igb";
  igb.ethtool = {{"rx_no_buffer_count", 5}};
  EXPECT_FALSE(NicRungDrops(igb).has_value());
  NetDev none;
  EXPECT_FALSE(NicRungDrops(none).has_value());
}

TEST(NicDropCountersFor, RowsByDriver) {
  EXPECT_EQ(&NicDropCountersFor("igb"), &NicDropCountersFor("ixgbe"));
  EXPECT_EQ(&NicDropCountersFor("no_such_driver"), &NicDropCountersFor(""));
  EXPECT_NE(&NicDropCountersFor("mlx5_core"), &NicDropCountersFor(""));
  EXPECT_TRUE(NicDropCountersFor("").ethtool.empty());
}

// A thread reading carried over skipped ticks (the self-limit back-off): the
// tick that carries it has no thread window (not a zero rate), and the next
// real reading is differenced over the time since the real one it follows.
TEST(ComputeWindow, CarriedReadingIsSkippedThenSpansItsRealTime) {
  auto sample = [](int64_t t, uint64_t ticks, bool carried, int64_t read_ns) {
    Sample s = At(t);
    ThreadSample th;
    th.pid = th.task.tid = 812;
    th.task.utime = ticks;
    s.threads = std::vector<ThreadSample>{th};
    s.stat = ProcStat();
    s.stat->cpus = {Cpu(0, t / kSec * 50, 0, t / kSec * 50, 0, 0)};
    CollectorResult r;
    r.name = "threads";
    r.success = true;
    r.carried = carried;
    r.read_mono_ns = read_ns;
    s.results = {r};
    return s;
  };
  Sample a = sample(10 * kSec, 100, false, 0);
  Sample b = sample(11 * kSec, 100, true, 10 * kSec);  // skipped: a's reading carried, read at 10 s
  Sample c = sample(12 * kSec, 100, true, 10 * kSec);  // skipped again
  Sample d = sample(13 * kSec, 250, false, 0);         // read: 150 ticks more since 10 s
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  EXPECT_TRUE(w.threads.empty()) << "a carried reading is no window of its own";
  ASSERT_EQ(w.cpus.size(), 1u) << "the collectors read every tick still have theirs";
  ASSERT_TRUE(ComputeWindow(c, d, &w));
  ASSERT_EQ(w.threads.size(), 1u);
  EXPECT_DOUBLE_EQ(w.threads[0].cpu_ratio, 0.5) << "1.5 s of CPU over the 3 s since the real reading, not over 1 s";
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  EXPECT_TRUE(w.threads.empty());
  EXPECT_DOUBLE_EQ(w.seconds, 1);
}

// An input socket's drops over the window, by (pid, inode): one made since
// the first sample has no rate, and a counter that went down (a socket
// closed and its inode reused) is a reset, not a rate.
TEST(ComputeWindow, InputSocketDropsPerSecond) {
  Sample a = At(10 * kSec), b = At(12 * kSec);
  a.input_sockets = std::vector<InputSocket>{{812, 31337, "udp", "0.0.0.0:7000", 0, 1000},
                                             {812, 31338, "udp", "0.0.0.0:7001", 0, 50}};
  b.input_sockets = std::vector<InputSocket>{{812, 31337, "udp", "0.0.0.0:7000", 212992, 5200},
                                             {812, 31338, "udp", "0.0.0.0:7001", 0, 10},
                                             {812, 31339, "udp6", "[::]:7002", 0, 4}};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.input_sockets.size(), 1u);
  EXPECT_EQ(w.input_sockets[0].local, "0.0.0.0:7000");
  EXPECT_DOUBLE_EQ(w.input_sockets[0].drops_per_second, 2100);
  EXPECT_EQ(w.input_sockets[0].receive_queue, 212992u);
}

// A device's busy share from io_ticks (ms with I/O in flight) and its
// completions, over the window; a device seen in one sample only has none.
TEST(ComputeWindow, DiskBusyShareAndCompletions) {
  Sample a = At(10 * kSec), b = At(12 * kSec);
  a.disks = std::vector<DiskStat>{{254, 0, "vda", 100, 1000, 50000}, {8, 0, "sda", 0, 0, 0}};
  b.disks = std::vector<DiskStat>{{254, 0, "vda", 140, 3400, 51860}, {7, 0, "loop0", 0, 0, 0}};
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  ASSERT_EQ(w.disks.size(), 1u);
  EXPECT_EQ(w.disks[0].device, "254:0");
  EXPECT_EQ(w.disks[0].name, "vda");
  EXPECT_DOUBLE_EQ(w.disks[0].busy_ratio, 0.93);
  EXPECT_DOUBLE_EQ(w.disks[0].writes_per_second, 1200);
  EXPECT_DOUBLE_EQ(w.disks[0].reads_per_second, 20);
}

}  // namespace
}  // namespace bottleneckd::window_test
