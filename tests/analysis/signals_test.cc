// ExtractSignals over hand-built Windows and Samples: soaker versus accounting
// busy, interrupt share, the CPUs serving each NIC's queues, NIC order and
// idle virtual NICs, the drop ladder's first losing rung, bus fields, and
// empty or corrupt windows (no NaN).
#include "analysis/signals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/rules.h"
#include "analysis/verdict.h"
#include "window/window_numbers.h"

namespace bottleneckd::signals_test {
namespace {

CpuWindow Cpu(int id, double busy, double interrupt, double steal = 0) {
  CpuWindow c;
  c.cpu = id;
  c.busy_ratio = busy;
  c.interrupt_ratio = interrupt;
  c.steal_ratio = steal;
  return c;
}

SoakerCpuWindow Soak(int id, double idle, double hidden) {
  SoakerCpuWindow s;
  s.cpu = id;
  s.delivered_idle_ratio = idle;
  s.busy_ratio = 1 - idle;
  s.hidden_ratio = hidden;
  return s;
}

NicWindow Nic(const std::string& name, std::optional<double> rx, std::optional<double> tx) {
  NicWindow n;
  n.interface = name;
  n.rx_packets_per_second = rx;
  n.tx_packets_per_second = tx;
  return n;
}

NetDev Dev(const std::string& name, const std::string& pci) {
  NetDev d;
  d.name = name;
  d.is_virtual = pci.empty();
  d.pci_device = pci;
  return d;
}

TEST(ExtractSignals, BusyFromSoakerWhenItRanElseAccounting) {
  Window w;
  w.seconds = 1;
  w.cpus = {Cpu(0, 0.81, 0.20), Cpu(1, 0.30, 0.06, 0.05)};
  w.soaker = {Soak(0, 0.021, 0.19)};
  Signals s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(s.cpus.size(), 2u);
  const CpuSignal& c0 = s.cpus[0];
  EXPECT_EQ(c0.cpu, 0);
  EXPECT_TRUE(c0.busy_from_soaker);
  EXPECT_NEAR(c0.busy, 0.979, 1e-12);  // 1 - 0.021 delivered idle
  EXPECT_NEAR(c0.accounting_busy, 0.81, 1e-12);
  ASSERT_TRUE(c0.soaker_idle.has_value());
  EXPECT_NEAR(*c0.soaker_idle, 0.021, 1e-12);
  EXPECT_NEAR(c0.hidden, 0.19, 1e-12);
  EXPECT_NEAR(c0.interrupt_ratio, 0.20, 1e-12);
  EXPECT_NEAR(c0.interrupt_share, 0.20 / 0.979, 1e-12);  // 0.2043: of soaker busy time
  const CpuSignal& c1 = s.cpus[1];
  EXPECT_FALSE(c1.busy_from_soaker);
  EXPECT_FALSE(c1.soaker_idle.has_value());
  EXPECT_NEAR(c1.busy, 0.30, 1e-12);
  EXPECT_NEAR(c1.interrupt_share, 0.2, 1e-12);  // 0.06 / 0.30
  EXPECT_NEAR(c1.steal, 0.05, 1e-12);
  EXPECT_EQ(c1.hidden, 0);
}

TEST(ExtractSignals, OnlyTheHostsCpusAreSignals) {
  // verdict.cpus 1: a host that owns cpu1 of a shared machine (a container's
  // cpuset). cpu0 saturated by a neighbour is no signal of this host's: the
  // cpu rule cannot name it, and this host, idle, is none.
  Window w;
  w.seconds = 1;
  w.cpus = {Cpu(0, 1.0, 0.05), Cpu(1, 0.20, 0.01)};
  w.soaker = {Soak(0, 0.0, 0), Soak(1, 0.80, 0)};
  SignalOptions o{{1, 0}, {}, {1}};
  Signals s = ExtractSignals(w, Sample(), nullptr, nullptr, o);
  ASSERT_EQ(s.cpus.size(), 1u);
  EXPECT_EQ(s.cpus[0].cpu, 1);
  EXPECT_NEAR(s.cpus[0].busy, 0.20, 1e-12);
  VerdictThresholds t;
  t.cpus = {1};
  EXPECT_EQ(Classify(s, t).label, Bound::kNone);
  // Every CPU (the default): the neighbour's saturation is this host's.
  Signals all = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(all.cpus.size(), 2u);
  Verdict v = Classify(all, VerdictThresholds{});
  EXPECT_EQ(v.label, Bound::kCpu);
  EXPECT_EQ(v.resource, "cpu0");
}

TEST(ExtractSignals, InterruptShareGuardsZeroBusy) {
  Window w;
  w.seconds = 1;
  w.cpus = {Cpu(0, 0, 0)};
  Signals s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(s.cpus.size(), 1u);
  EXPECT_EQ(s.cpus[0].interrupt_share, 0);
}

TEST(ExtractSignals, InterruptShareCappedAtBusyTime) {
  // Soaker busy 0.30 but accounting charges 0.40 to interrupts: the share is
  // all of the busy time, not 133 %.
  Window w;
  w.seconds = 1;
  w.cpus = {Cpu(0, 0.5, 0.4)};
  w.soaker = {Soak(0, 0.7, 0)};
  Signals s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_EQ(s.cpus[0].interrupt_share, 1.0);
}

IrqTimeCpuWindow Measured(int cpu, double hardirq, double softirq, double net_rx) {
  IrqTimeCpuWindow m;
  m.cpu = cpu;
  m.hardirq_ratio = hardirq;
  m.softirq_ratio = softirq;
  m.vector_ratio[kSoftirqNetRx] = net_rx;
  return m;
}

TEST(ExtractSignals, MeasuredInterruptTimeReplacesTickSamples) {
  // cpu0: /proc/stat saw 5 % in interrupts (ticks), irqtime measured 10 %
  // hardirq + 50 % softirq; the soaker says 80 % busy. cpu1: no measurement.
  Window w;
  w.seconds = 1;
  w.cpus = {Cpu(0, 0.40, 0.05), Cpu(1, 0.30, 0.06)};
  w.soaker = {Soak(0, 0.20, 0.55)};
  w.irqtime = {Measured(0, 0.10, 0.50, 0.45)};
  w.irqtime.back().net_unattributed_ratio = 0.30;
  IrqTimeQueueWindow q0{"eth0", "TxRx-0", 40, 0, 0.10, 0.15};
  IrqTimeQueueWindow q1{"eth0", "TxRx-1", 41, 0, 0.01, 0.02};
  IrqTimeQueueWindow other_cpu{"eth0", "TxRx-1", 41, 1, 0.5, 0.5};
  w.irqtime_queues = {q1, q0, other_cpu};
  Signals s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(s.cpus.size(), 2u);
  const CpuSignal& c0 = s.cpus[0];
  EXPECT_TRUE(c0.interrupt_measured);
  EXPECT_NEAR(c0.interrupt_ratio, 0.60, 1e-12);
  EXPECT_NEAR(c0.softirq_ratio, 0.50, 1e-12);
  EXPECT_NEAR(c0.hardirq_ratio, 0.10, 1e-12);
  EXPECT_NEAR(c0.net_rx_ratio, 0.45, 1e-12);
  EXPECT_NEAR(c0.net_unattributed_ratio, 0.30, 1e-12);
  EXPECT_NEAR(c0.busy, 0.80, 1e-12);                    // the soaker's, unchanged
  EXPECT_NEAR(c0.interrupt_share, 0.60 / 0.80, 1e-12);  // of the soaker's busy time
  ASSERT_EQ(c0.queues.size(), 2u);                      // cpu0's only, largest first
  EXPECT_EQ(c0.queues[0].queue, "TxRx-0");
  EXPECT_NEAR(c0.queues[0].ratio, 0.25, 1e-12);
  EXPECT_NEAR(c0.queues[1].ratio, 0.03, 1e-12);
  const CpuSignal& c1 = s.cpus[1];
  EXPECT_FALSE(c1.interrupt_measured);
  EXPECT_NEAR(c1.interrupt_ratio, 0.06, 1e-12);
  EXPECT_TRUE(c1.queues.empty());
}

TEST(ExtractSignals, MeasuredInterruptTimeRaisesSampledBusy) {
  // No soaker: accounting's ticks saw the CPU 20 % busy, irqtime measured 45 %
  // in interrupts. The CPU was busy at least that long.
  Window w;
  w.seconds = 1;
  w.cpus = {Cpu(0, 0.20, 0.02)};
  w.irqtime = {Measured(0, 0.05, 0.40, 0.40)};
  Signals s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_NEAR(s.cpus[0].busy, 0.45, 1e-12);
  EXPECT_NEAR(s.cpus[0].accounting_busy, 0.20, 1e-12);
  EXPECT_NEAR(s.cpus[0].interrupt_share, 1.0, 1e-12);
}

// The queue CPUs come from the window (NicWindow::irq_cpus, differenced by
// ComputeWindow: tests/window/window_test.cc); every one counts as a
// receive CPU.
TEST(ExtractSignals, QueueCpusAreTheWindowsIrqCpus) {
  Sample cur;
  cur.netdev = std::vector<NetDev>{Dev("em0", "0000:02:01.0"), Dev("em1", "0000:02:02.0")};
  Window w;
  w.seconds = 1;
  w.nics = {Nic("em0", 1000, 1000), Nic("em1", 10, 10)};
  w.nics[0].irq_cpus = {0, 1};
  w.nics[1].irq_cpus = {1};
  Signals s = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(s.nics.size(), 2u);
  EXPECT_EQ(s.nics[0].interface, "em0");
  EXPECT_EQ(s.nics[0].queue_cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(s.nics[1].interface, "em1");
  EXPECT_EQ(s.nics[1].queue_cpus, (std::vector<int>{1}));
}

TEST(ExtractSignals, PhysicalNicsFirstIdleVirtualLeftOut) {
  Sample cur;
  cur.netdev = std::vector<NetDev>{Dev("br0", ""), Dev("em0", "0000:02:01.0"), Dev("em1", "0000:02:02.0"),
                                   Dev("lo", ""), Dev("veth1", "")};
  Window w;
  w.seconds = 1;
  w.nics = {Nic("br0", 100, 50), Nic("em0", 1000, 900), Nic("em1", 0, 0), Nic("lo", 0, 0),
            Nic("veth1", std::nullopt, std::nullopt)};
  w.drops.nic = 20;
  Signals s = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(s.nics.size(), 3u);
  EXPECT_EQ(s.nics[0].interface, "em0");
  EXPECT_EQ(s.nics[0].device, "0000:02:01.0");
  EXPECT_EQ(s.nics[1].interface, "em1");  // idle, but physical: kept
  EXPECT_EQ(s.nics[2].interface, "br0");
  EXPECT_EQ(s.nics[2].device, "");
  EXPECT_DOUBLE_EQ(s.delivered_packets_per_second, 1100);  // 1000 + 0 + 100
  EXPECT_DOUBLE_EQ(s.offered_packets_per_second, 1120);    // + 20 NIC-rung drops
}

TEST(ExtractSignals, LadderFirstRungOverTheFloor) {
  Window w;
  w.drops.nic = 0.5;  // under the floor of 1/s: noise
  w.drops.backlog = 3;
  w.drops.socket = 122;
  Signals s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_EQ(s.ladder.first_losing, Rung::kBacklog);
  EXPECT_DOUBLE_EQ(s.ladder.nic, 0.5);
  EXPECT_DOUBLE_EQ(s.ladder.backlog, 3);
  EXPECT_DOUBLE_EQ(s.ladder.socket, 122);

  w.drops.backlog = 1;  // exactly the floor: not losing
  s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_EQ(s.ladder.first_losing, Rung::kSocket);

  w.drops.nic = 40;
  s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_EQ(s.ladder.first_losing, Rung::kNic);

  Window none;
  none.drops.socket = 1;
  s = ExtractSignals(none, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_EQ(s.ladder.first_losing, Rung::kNone);
  EXPECT_EQ(s.ladder.nic, 0);  // unset rung: 0
}

TEST(ExtractSignals, RungNames) {
  EXPECT_STREQ(RungName(Rung::kNone), "none");
  EXPECT_STREQ(RungName(Rung::kNic), "nic");
  EXPECT_STREQ(RungName(Rung::kBacklog), "backlog");
  EXPECT_STREQ(RungName(Rung::kSocket), "socket");
}

TEST(ExtractSignals, BusFieldsFromEstimateAndPath) {
  Sample cur;
  cur.netdev = std::vector<NetDev>{Dev("em2", "0000:03:01.0"), Dev("eth0", "0000:00:03.0")};
  BusEstimate bus;
  BusLinkEstimate seg;
  seg.device = "0000:00:1e.0";
  seg.interfaces = {"em2"};
  BusLinkEstimate virt;
  virt.device = "pci0000:00";
  virt.interfaces = {"eth0"};
  bus.links = {seg, virt};
  BusNicEstimate em2;
  em2.interface = "em2";
  em2.path_utilisation = 0.78;
  em2.bottleneck_device = "0000:00:1e.0";
  BusNicEstimate eth0;
  eth0.interface = "eth0";
  eth0.path_utilisation = 0.95;
  eth0.bottleneck_device = "pci0000:00";
  bus.nics = {em2, eth0};
  Window w;
  w.nics = {Nic("em2", 50000, 50000), Nic("eth0", 10, 10)};

  BusPath p2;
  p2.interface = "em2";
  BusLink l2;
  l2.kind = BusKind::kPci;
  l2.device = "0000:00:1e.0";
  l2.segment = "0000:03";
  l2.clock_mhz = 33;
  l2.width_bits = 32;
  p2.links = {l2};
  BusPath p0;
  p0.interface = "eth0";
  BusLink l0;
  l0.device = "pci0000:00";
  l0.segment = "0000:00";
  l0.clock_mhz = 33;
  l0.width_bits = 32;
  l0.emulated = true;
  p0.links = {l0};
  std::vector<BusPath> paths = {p0, p2};

  Signals s = ExtractSignals(w, cur, &paths, &bus, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(s.nics.size(), 2u);
  const NicSignal& n = s.nics[0];
  EXPECT_EQ(n.interface, "em2");
  ASSERT_TRUE(n.bus_utilisation.has_value());
  EXPECT_DOUBLE_EQ(*n.bus_utilisation, 0.78);
  EXPECT_EQ(n.bus_bottleneck, "0000:00:1e.0");
  EXPECT_EQ(n.bus_link, "PCI 33 MHz/32-bit");
  EXPECT_EQ(n.bus_segment, "0000:03");
  EXPECT_EQ(n.bus_link_nics, 1);
  EXPECT_FALSE(n.bus_emulated);
  EXPECT_EQ(s.nics[1].interface, "eth0");
  EXPECT_TRUE(s.nics[1].bus_emulated);

  // Without paths the utilisation is still known; the link is not.
  s = ExtractSignals(w, cur, nullptr, &bus, SignalOptions{{1, 0}, {}, {}});
  ASSERT_TRUE(s.nics[0].bus_utilisation.has_value());
  EXPECT_EQ(s.nics[0].bus_link, "");
  EXPECT_FALSE(s.nics[0].bus_emulated);
}

TEST(ExtractSignals, EmptyWindowGivesEmptySignals) {
  Signals s = ExtractSignals(Window(), Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_EQ(s.seconds, 0);
  EXPECT_TRUE(s.cpus.empty());
  EXPECT_TRUE(s.nics.empty());
  EXPECT_TRUE(s.threads.empty());
  EXPECT_EQ(s.ladder.first_losing, Rung::kNone);
  EXPECT_EQ(s.delivered_packets_per_second, 0);
  EXPECT_EQ(s.offered_packets_per_second, 0);
}

// A window of no numbers (NaN, infinities), as window/ hands it on
// (MakeWindowFinite, ComputeWindow's last step): the rules read zeros and
// unset values, never NaN.
TEST(ExtractSignals, NonFiniteInputsBecomeZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Sample cur;
  cur.netdev = std::vector<NetDev>{Dev("em0", "0000:02:01.0")};
  Window w;
  w.seconds = 0;  // a zero-length window: every rate in it is meaningless
  w.cpus = {Cpu(0, nan, inf, nan)};
  w.soaker = {Soak(0, nan, inf)};
  NicWindow n = Nic("em0", inf, nan);
  n.packets_per_interrupt = nan;
  n.nic_drops_per_second = nan;
  w.nics = {n};
  w.drops.nic = nan;
  w.drops.socket = inf;
  ThreadWindow t;
  t.thread = "udpecho";
  t.cpu_ratio = nan;
  w.threads = {t};
  w.cpu_pressure_some_ratio = nan;
  EXPECT_GT(MakeWindowFinite(&w), 10);
  EXPECT_TRUE(WindowIsFinite(w));
  Signals s = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(s.cpus.size(), 1u);
  for (double x : {s.cpus[0].busy, s.cpus[0].accounting_busy, s.cpus[0].interrupt_share, s.cpus[0].interrupt_ratio,
                   s.cpus[0].hidden, s.cpus[0].steal, *s.cpus[0].soaker_idle})
    EXPECT_TRUE(std::isfinite(x));
  EXPECT_EQ(s.cpus[0].interrupt_share, 0);
  ASSERT_EQ(s.nics.size(), 1u);
  EXPECT_EQ(s.nics[0].rx_packets_per_second, 0);
  EXPECT_EQ(s.nics[0].tx_packets_per_second, 0);
  EXPECT_FALSE(s.nics[0].packets_per_interrupt.has_value());
  EXPECT_EQ(s.nics[0].nic_drops_per_second, 0);
  EXPECT_EQ(s.threads[0].cpu_share, 0);
  EXPECT_FALSE(s.cpu_pressure_some.has_value());
  EXPECT_EQ(s.ladder.first_losing, Rung::kNone);
  EXPECT_TRUE(std::isfinite(s.offered_packets_per_second));
}

// A thread of a process only a run follows (the command `bottleneckd run`
// wrapped: often the load generator) is no target: the rules never see it,
// so it is never named (collectors/threads.h run_only).
TEST(ExtractSignals, ARunsCommandIsNoTarget) {
  Window w;
  w.seconds = 1;
  w.cpus = {Cpu(0, 1.0, 0.0)};
  ThreadWindow gen;
  gen.pid = 20;
  gen.tid = 20;
  gen.thread = "lab_load_gen";
  gen.cpu_ratio = 0.99;
  gen.processor = 0;
  gen.run_only = true;
  ThreadWindow echo = gen;
  echo.pid = echo.tid = 10;
  echo.thread = "udpecho";
  echo.cpu_ratio = 0.3;
  echo.run_only = false;
  w.threads = {gen, echo};
  Signals s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(s.threads.size(), 1u);
  EXPECT_EQ(s.threads[0].thread, "udpecho");
  Verdict v = Classify(s, VerdictThresholds());
  EXPECT_EQ(v.resource.find("lab_load_gen"), std::string::npos) << v.resource;
}

TEST(ExtractSignals, ThreadsAndPressureCarried) {
  Window w;
  w.seconds = 1;
  ThreadWindow t;
  t.pid = 10;
  t.tid = 11;
  t.process = "udpecho";
  t.thread = "worker";
  t.cpu_ratio = 0.996;
  t.processor = 1;
  w.threads = {t};
  w.cpu_pressure_some_ratio = 0.25;
  Signals s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(s.threads.size(), 1u);
  EXPECT_EQ(s.threads[0].process, "udpecho");
  EXPECT_EQ(s.threads[0].thread, "worker");
  EXPECT_EQ(s.threads[0].tid, 11);
  EXPECT_DOUBLE_EQ(s.threads[0].cpu_share, 0.996);
  EXPECT_EQ(s.threads[0].cpu, 1);
  ASSERT_TRUE(s.cpu_pressure_some.has_value());
  EXPECT_DOUBLE_EQ(*s.cpu_pressure_some, 0.25);
}

// The echo lab's box (tests/echo_lab): the daemon's own scrape runs over lo,
// the load over a veth. Loopback is no packet path: not in the NICs, not in
// offered or delivered load (with a type file, or by name without one).
TEST(ExtractSignals, LoopbackIsNotOfferedLoad) {
  Window w;
  w.seconds = 1;
  w.nics = {Nic("lo", 5000, 5000), Nic("veth0", 20000, 19000), Nic("lo2", 300, 300)};
  Sample cur;
  NetDev lo2 = Dev("lo2", "");
  lo2.is_loopback = true;  // another loopback device, found by its type
  cur.netdev = std::vector<NetDev>{Dev("veth0", ""), lo2};
  Signals s = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  ASSERT_EQ(s.nics.size(), 1u);
  EXPECT_EQ(s.nics[0].interface, "veth0");
  EXPECT_DOUBLE_EQ(s.received_packets_per_second, 20000);
  EXPECT_DOUBLE_EQ(s.offered_packets_per_second, 20000);
}

// A benchmark over loopback with the default packet path: the load is not
// counted, and the verdict's evidence says where it went (it said nothing: an
// offered 0.0 kpps and an MLFRR of 0 were all a user saw).
TEST(ExtractSignals, LoadOffThePacketPathIsSaid) {
  Window w;
  w.seconds = 1;
  w.nics = {Nic("lo", 48000, 48000), Nic("veth0", 20, 20)};
  Sample cur;
  cur.netdev = std::vector<NetDev>{Dev("veth0", "")};
  Signals s = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_DOUBLE_EQ(s.offered_packets_per_second, 20);
  EXPECT_DOUBLE_EQ(s.off_path_packets_per_second, 48000);
  EXPECT_EQ(s.off_path_busiest, "lo");
  Verdict v = Classify(s, VerdictThresholds{});
  bool said = false;
  for (const std::string& e : v.evidence)
    said =
        said || e.rfind("load: lo received 48.0 k packets/s, off the packet path: not counted as offered load", 0) == 0;
  EXPECT_TRUE(said) << ::testing::PrintToString(v.evidence);
  // A daemon's own scrapes over lo beside real load are not worth a sentence.
  w.nics = {Nic("lo", 60, 60), Nic("veth0", 20000, 19000)};
  Signals quiet = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_EQ(OffPathSentence(quiet), "");
}

// An echo test over loopback: naming lo puts it on the packet path (and
// leaves every interface it does not name off it).
TEST(ExtractSignals, PacketPathInterfacesConfigured) {
  Window w;
  w.seconds = 1;
  w.nics = {Nic("lo", 5000, 5000), Nic("veth0", 20000, 19000)};
  Sample cur;
  cur.netdev = std::vector<NetDev>{Dev("veth0", "")};
  Signals s = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {"lo"}, {}});
  ASSERT_EQ(s.nics.size(), 1u);
  EXPECT_EQ(s.nics[0].interface, "lo");
  EXPECT_DOUBLE_EQ(s.offered_packets_per_second, 5000);
}

// `lab/udp_echo.py --rates 1000,2000,2500` over lo with lo on the packet
// path reported an MLFRR of 4976/s: lo's counters take in each request and
// each reply. With a trusted live capture of lo, lo is counted by its
// requests and replies, once per echo; without one, the evidence says the
// echo counts twice; an untrusted capture (it dropped frames) is not used.
TEST(ExtractSignals, AnEchoOverLoopbackCountsOnceWithItsCapture) {
  Window w;
  w.seconds = 1;
  w.nics = {Nic("lo", 5000, 5000)};
  w.nics[0].rx_bits_per_second = 5000 * 8 * 1052;
  CaptureWindow c;
  c.interface = "lo";
  c.trusted = true;
  c.requests_per_second = 2500;
  c.replies_per_second = 2490;
  c.request_bits_per_second = 2500 * 8 * 1066;  // the capture's own bytes (frames of 1066 bytes)
  c.reply_bits_per_second = 2490 * 8 * 1066;
  w.captures = {c};
  Sample cur;
  NetDev lo = Dev("lo", "");
  lo.is_loopback = true;
  cur.netdev = std::vector<NetDev>{lo};
  Signals s = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {"lo"}, {}});
  ASSERT_EQ(s.nics.size(), 1u);
  EXPECT_TRUE(s.nics[0].loopback_by_capture);
  EXPECT_DOUBLE_EQ(s.received_packets_per_second, 2500);
  EXPECT_DOUBLE_EQ(s.offered_packets_per_second, 2500);
  EXPECT_DOUBLE_EQ(s.nics[0].tx_packets_per_second, 2490);
  // Every figure of the row from the capture: its bits too, never the
  // counters' scaled by its packets (a filtered capture beside other traffic
  // on lo read 2880 bytes per 1 KiB datagram that way).
  EXPECT_DOUBLE_EQ(s.nics[0].rx_bits_per_second, 2500 * 8 * 1066);
  EXPECT_DOUBLE_EQ(s.nics[0].tx_bits_per_second, 2490 * 8 * 1066);
  EXPECT_EQ(LoopbackSentences(s), std::vector<std::string>{"load: lo counted once per echo by its live capture: "
                                                           "2500 requests/s received, 2490 replies/s sent"});

  w.captures[0].trusted = false;
  Signals untrusted = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {"lo"}, {}});
  EXPECT_DOUBLE_EQ(untrusted.offered_packets_per_second, 5000);
  w.captures.clear();
  Signals counters = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {"lo"}, {}});
  EXPECT_DOUBLE_EQ(counters.offered_packets_per_second, 5000);
  EXPECT_FALSE(counters.nics[0].loopback_by_capture);
  Verdict v = Classify(counters, VerdictThresholds{});
  bool said = false;
  for (const std::string& e : v.evidence)
    said = said || e == "load: lo received 5000 packets/s, counted as offered load; over loopback an echo's request "
                        "and reply are both received, so an echo counts twice: a live capture of lo "
                        "(collectors.pcap.interfaces) counts it once";
  EXPECT_TRUE(said) << ::testing::PrintToString(v.evidence);
  // A physical NIC's capture changes nothing: its counters see each packet once.
  w.nics = {Nic("eth0", 5000, 5000)};
  c.interface = "eth0";
  w.captures = {c};
  cur.netdev = std::vector<NetDev>{Dev("eth0", "0000:01:00.0")};
  Signals eth = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_DOUBLE_EQ(eth.offered_packets_per_second, 5000);
  EXPECT_TRUE(LoopbackSentences(eth).empty());
}

// Delivered is what the applications got: every offered datagram reaches the
// box and the socket drops most of them (the lab's CPU-bound echo).
TEST(ExtractSignals, DeliveredIsWhatTheApplicationGot) {
  Window w;
  w.seconds = 1;
  w.nics = {Nic("veth0", 300000, 12000)};
  w.drops.nic = 0;
  w.drops.backlog = 1000;
  w.drops.socket = 287000;
  Sample cur;
  cur.netdev = std::vector<NetDev>{Dev("veth0", "")};
  Signals s = ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_DOUBLE_EQ(s.received_packets_per_second, 300000);
  EXPECT_DOUBLE_EQ(s.offered_packets_per_second, 300000);
  EXPECT_DOUBLE_EQ(s.delivered_packets_per_second, 12000);
  EXPECT_EQ(s.ladder.first_losing, Rung::kBacklog);
}

// A rung loses only above the floor and above the loss ratio of the offered
// load: 2 datagrams/s of 2800/s (0.07 %) is a burst, not a limit.
TEST(ExtractSignals, LossRatioToleratesBursts) {
  Window w;
  w.seconds = 1;
  w.nics = {Nic("veth0", 2800, 2798)};
  w.drops.socket = 2;
  Sample cur;
  cur.netdev = std::vector<NetDev>{Dev("veth0", "")};
  EXPECT_EQ(ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0.001}, {}, {}}).ladder.first_losing,
            Rung::kNone);
  EXPECT_EQ(ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0}, {}, {}}).ladder.first_losing, Rung::kSocket);
  w.drops.socket = 3;  // 0.11 %
  EXPECT_EQ(ExtractSignals(w, cur, nullptr, nullptr, SignalOptions{{1, 0.001}, {}, {}}).ladder.first_losing,
            Rung::kSocket);
  EXPECT_FALSE(LossTolerance({1, 0.001}).Losing(1, 0));  // at the floor
  EXPECT_TRUE(LossTolerance({1, 0.001}).Losing(2, 0));   // nothing offered: any loss over the floor
}

// The packet path's CPUs: the readers' (the target threads'), and the ones
// whose softnet handled at least kRxCpuShare of the packets (RPS to cpu1),
// plus NIC queue CPUs; each thread carries its CPU's interrupt share.
TEST(ExtractSignals, PacketPathCpus) {
  Window w;
  w.seconds = 1;
  CpuWindow c0 = Cpu(0, 0.99, 0.35), c1 = Cpu(1, 0.98, 0.77), c2 = Cpu(2, 0.2, 0.01);
  c0.rx_packets_per_second = 2000;  // 3 %: not a receive CPU
  c1.rx_packets_per_second = 60000;
  c2.rx_packets_per_second = 0;
  w.cpus = {c0, c1, c2};
  ThreadWindow t;
  t.thread = t.process = "udpecho";
  t.cpu_ratio = 0.92;
  t.processor = 1;
  w.threads = {t};
  Signals s = ExtractSignals(w, Sample(), nullptr, nullptr, SignalOptions{{1, 0}, {}, {}});
  EXPECT_EQ(s.reader_cpus, std::vector<int>{1});
  EXPECT_EQ(s.rx_cpus, std::vector<int>{1});
  ASSERT_EQ(s.threads.size(), 1u);
  EXPECT_NEAR(s.threads[0].cpu_interrupt_share, 0.77 / 0.98, 1e-12);
  EXPECT_DOUBLE_EQ(s.cpus[1].rx_packets_per_second, 60000);
}

}  // namespace
}  // namespace bottleneckd::signals_test
