// Run summaries: a window's timeline point (with the live capture's
// figures), a run's figures and verdict from its points, and a sweep across
// runs. Expected values are worked by hand from the inputs.
#include "runs/run_summary.h"

#include <gtest/gtest.h>

namespace bottleneckd::run_summary_test {
namespace {

Signals TwoCpusOneNic() {
  Signals s;
  s.seconds = 1;
  CpuSignal c0;
  c0.cpu = 0;
  c0.busy = 0.30;
  c0.accounting_busy = 0.25;
  c0.soaker_idle = 0.70;
  CpuSignal c1;
  c1.cpu = 1;
  c1.busy = 0.90;
  c1.accounting_busy = 0.82;
  c1.soaker_idle = 0.10;
  s.cpus = {c0, c1};
  NicSignal em0;
  em0.interface = "em0";
  em0.rx_bits_per_second = 400e6;
  em0.interrupts_per_second = 8000;
  em0.bus_utilisation = 0.4;
  NicSignal virt;
  virt.interface = "eth0";
  virt.rx_bits_per_second = 1e6;
  virt.interrupts_per_second = 100;
  virt.bus_utilisation = 0.9;
  virt.bus_emulated = true;  // a hypervisor's link: not a bus figure
  s.nics = {em0, virt};
  s.received_packets_per_second = 50000;
  s.delivered_packets_per_second = 50000 - 100 - 2000;  // less backlog and socket drops
  s.offered_packets_per_second = 50500;
  s.ladder.nic = 500;
  s.ladder.backlog = 100;
  s.ladder.socket = 2000;
  s.ladder.first_losing = Rung::kNic;
  return s;
}

TEST(RunSummary, PointOfWindowTakesTheBusiestCpuAndSumsNics) {
  Verdict v;
  v.label = Bound::kCpu;
  v.resource = "cpu1";
  v.confidence = 0.8;
  TimelinePoint p = PointOfWindow(12.5, TwoCpusOneNic(), v);
  EXPECT_DOUBLE_EQ(p.t, 12.5);
  EXPECT_DOUBLE_EQ(p.cpu_busy, 0.90);         // cpu1
  EXPECT_DOUBLE_EQ(p.accounting_busy, 0.82);  // cpu1's
  EXPECT_DOUBLE_EQ(p.cpu_seconds_per_second, 1.20);
  ASSERT_TRUE(p.soaker_idle);
  EXPECT_DOUBLE_EQ(*p.soaker_idle, 0.10);  // least idle
  EXPECT_DOUBLE_EQ(p.received_bits_per_second, 401e6);
  EXPECT_DOUBLE_EQ(p.interrupts_per_second, 8100);
  ASSERT_TRUE(p.bus_utilisation);
  EXPECT_DOUBLE_EQ(*p.bus_utilisation, 0.4);  // the emulated link's 0.9 left out
  EXPECT_DOUBLE_EQ(p.drops_per_second, 2600);
  EXPECT_DOUBLE_EQ(p.received_packets_per_second, 50000);  // received by the NICs
  EXPECT_DOUBLE_EQ(p.application_packets_per_second, 50000 - 100 - 2000);
  EXPECT_EQ(p.first_losing_rung, "nic");
  EXPECT_EQ(p.rungs.nic, std::optional<double>(500));
  EXPECT_EQ(p.rungs.backlog, std::optional<double>(100));
  EXPECT_EQ(p.rungs.socket, std::optional<double>(2000));
  EXPECT_FALSE(p.rungs.application);  // no capture
  EXPECT_EQ(p.label, Bound::kCpu);
  EXPECT_EQ(p.resource, "cpu1");
}

TEST(RunSummary, NoSoakerNoBusGiveUnsetFigures) {
  Signals s;
  CpuSignal c;
  c.busy = 0.5;
  s.cpus = {c};
  TimelinePoint p = PointOfWindow(1, s, Verdict());
  EXPECT_FALSE(p.soaker_idle);
  EXPECT_FALSE(p.bus_utilisation);
  EXPECT_EQ(p.first_losing_rung, "none");
}

// A capture window of `seconds` with the given drops (nullopt: stats
// unavailable) and rates; trusted exactly when both drop counts are 0.
CaptureWindow Capture(const std::string& interface, std::optional<uint64_t> buffer_drops,
                      std::optional<uint64_t> interface_drops) {
  CaptureWindow c;
  c.interface = interface;
  c.seconds = 2;
  c.buffer_drops = buffer_drops;
  c.interface_drops = interface_drops;
  c.trusted = buffer_drops == uint64_t{0} && interface_drops == uint64_t{0};
  return c;
}

TEST(RunSummary, PointOfWindowTakesCaptureFiguresFromTrustedCapturesOnly) {
  Signals s = TwoCpusOneNic();
  CaptureWindow good = Capture("eth0", 0, 0);
  good.requests_per_second = 1000;
  good.replies_per_second = 990;
  good.paired_per_second = 990;
  good.lost_per_second = 10;
  good.turnarounds = 1980;
  good.turnaround_p50_seconds = 0.0002;
  good.turnaround_p99_seconds = 0.0009;
  // Dropped 30 + 10 frames in its 2 s window: not trusted, though it paired
  // more (its figures would win the turnaround if it were).
  CaptureWindow dropping = Capture("eth1", 30, 10);
  dropping.requests_per_second = 500;
  dropping.replies_per_second = 100;
  dropping.paired_per_second = 100;
  dropping.lost_per_second = 400;
  dropping.turnarounds = 5000;
  dropping.turnaround_p50_seconds = 0.5;
  dropping.turnaround_p99_seconds = 0.9;
  s.captures = {dropping, good};
  TimelinePoint p = PointOfWindow(1, s, Verdict());
  ASSERT_TRUE(p.applied_per_second);
  EXPECT_DOUBLE_EQ(*p.applied_per_second, 1000);  // eth0's requests only
  ASSERT_TRUE(p.echoed_per_second);
  EXPECT_DOUBLE_EQ(*p.echoed_per_second, 990);
  ASSERT_TRUE(p.echo_loss_ratio);
  EXPECT_DOUBLE_EQ(*p.echo_loss_ratio, 0.01);  // 10 / (990 + 10)
  ASSERT_TRUE(p.turnaround_p50_seconds);
  EXPECT_DOUBLE_EQ(*p.turnaround_p50_seconds, 0.0002);
  ASSERT_TRUE(p.turnaround_p99_seconds);
  EXPECT_DOUBLE_EQ(*p.turnaround_p99_seconds, 0.0009);
  ASSERT_TRUE(p.capture_drops_per_second);
  EXPECT_DOUBLE_EQ(*p.capture_drops_per_second, 20);          // (30 + 10) / 2 s from eth1, 0 from eth0
  EXPECT_EQ(p.rungs.application, std::optional<double>(10));  // eth0's lost; eth1's 400 untrusted

  // Only the dropping capture: its drops, nothing else.
  s.captures = {dropping};
  p = PointOfWindow(1, s, Verdict());
  EXPECT_FALSE(p.applied_per_second);
  EXPECT_FALSE(p.rungs.application);
  EXPECT_FALSE(p.echoed_per_second);
  EXPECT_FALSE(p.echo_loss_ratio);
  EXPECT_FALSE(p.turnaround_p99_seconds);
  ASSERT_TRUE(p.capture_drops_per_second);
  EXPECT_DOUBLE_EQ(*p.capture_drops_per_second, 20);

  // Stats unavailable: untrusted, and no drops known to add.
  s.captures = {Capture("eth2", std::nullopt, std::nullopt)};
  p = PointOfWindow(1, s, Verdict());
  EXPECT_FALSE(p.applied_per_second);
  ASSERT_TRUE(p.capture_drops_per_second);
  EXPECT_DOUBLE_EQ(*p.capture_drops_per_second, 0);

  // No capture at all: every capture figure unset.
  p = PointOfWindow(1, TwoCpusOneNic(), Verdict());
  EXPECT_FALSE(p.applied_per_second);
  EXPECT_FALSE(p.echoed_per_second);
  EXPECT_FALSE(p.echo_loss_ratio);
  EXPECT_FALSE(p.turnaround_p50_seconds);
  EXPECT_FALSE(p.turnaround_p99_seconds);
  EXPECT_FALSE(p.capture_drops_per_second);
}

TEST(RunSummary, PointOfWindowSumsTrustedCapturesAndTakesTheBusiestTurnaround) {
  Signals s;
  CaptureWindow a = Capture("eth0", 0, 0), b = Capture("eth1", 0, 0);
  a.requests_per_second = 100, a.replies_per_second = 80, a.paired_per_second = 80, a.lost_per_second = 20;
  a.turnarounds = 160, a.turnaround_p99_seconds = 0.004;
  b.requests_per_second = 300, b.replies_per_second = 300, b.paired_per_second = 300, b.lost_per_second = 0;
  b.turnarounds = 600, b.turnaround_p99_seconds = 0.001;
  s.captures = {a, b};
  TimelinePoint p = PointOfWindow(1, s, Verdict());
  EXPECT_DOUBLE_EQ(*p.applied_per_second, 400);
  EXPECT_DOUBLE_EQ(*p.echoed_per_second, 380);
  EXPECT_DOUBLE_EQ(*p.echo_loss_ratio, 20.0 / 400.0);  // 20 lost of 380 paired + 20 lost
  EXPECT_DOUBLE_EQ(*p.turnaround_p99_seconds, 0.001);  // eth1 paired more
  EXPECT_DOUBLE_EQ(*p.capture_drops_per_second, 0);
}

TimelinePoint Point(double t, double offered, double busy, Bound label, std::string resource, double confidence) {
  TimelinePoint p;
  p.t = t;
  p.offered_packets_per_second = offered;
  p.received_packets_per_second = offered;
  p.application_packets_per_second = offered;
  p.cpu_busy = busy;
  p.accounting_busy = busy - 0.1;
  p.cpu_seconds_per_second = busy;
  p.label = label;
  p.resource = std::move(resource);
  p.confidence = confidence;
  return p;
}

// Issue 49's lock-bound server: light steps below the knee (none, nothing
// lost) were most of the run's windows and the run said `none`, though every
// loaded window lost at the socket and said `wait`. The run is judged where
// it is limited; the light part is said beside it.
TEST(RunSummary, ARunIsJudgedWhereItIsLimited) {
  std::vector<TimelinePoint> pts;
  for (int i = 0; i < 62; ++i) pts.push_back(Point(i, 3000 + 10 * i, 0.2, Bound::kNone, "", 0.9));
  for (int i = 62; i < 138; ++i) {
    // The loaded part: mostly wait, some windows still settling to it.
    bool settled = i % 4 != 0;
    pts.push_back(Point(i, 9000, 0.35, settled ? Bound::kWait : Bound::kUndetermined, settled ? "thread udpecho" : "",
                        settled ? 0.6 : 0));
    pts.back().first_losing_rung = "socket";
  }
  RunReport r;
  Summarise(pts, nullptr, &r);
  EXPECT_EQ(r.verdict.label, Bound::kWait);  // 57 of the 76 limited windows; none held 62 of all 138
  EXPECT_EQ(r.verdict.resource, "thread udpecho");
  EXPECT_EQ(r.verdict_windows, 57u);
  EXPECT_EQ(r.limited_windows, 76u);
  EXPECT_EQ(r.light_windows, 62u);
  EXPECT_EQ(r.light_label, Bound::kNone);
  EXPECT_EQ(r.windows, 138u);  // the figures stay the whole run's
  EXPECT_EQ(LimitedPartSentence(r),
            "judged where it is limited: 76 of its 138 windows lose or meet a limit; the light part (62 windows) "
            "was none");

  // A limit that loses nothing is limited too (a CPU saturated outright).
  for (TimelinePoint& p : pts)
    if (p.label == Bound::kWait) p.label = Bound::kCpu, p.resource = "cpu1", p.first_losing_rung = "none";
  Summarise(pts, nullptr, &r);
  EXPECT_EQ(r.verdict.label, Bound::kCpu);
  EXPECT_EQ(r.limited_windows, 57u + 19u);  // the undetermined windows still lose

  // No limited part: every window judges, none.
  std::vector<TimelinePoint> light(pts.begin(), pts.begin() + 62);
  Summarise(light, nullptr, &r);
  EXPECT_EQ(r.verdict.label, Bound::kNone);
  EXPECT_EQ(r.limited_windows, 0u);
  EXPECT_EQ(r.light_windows, 0u);
  EXPECT_EQ(LimitedPartSentence(r), "");

  // A blip is not a part: two losing windows of 62 (under a tenth).
  light[10].first_losing_rung = light[11].first_losing_rung = "socket";
  light[10].label = light[11].label = Bound::kCpu;
  Summarise(light, nullptr, &r);
  EXPECT_EQ(r.verdict.label, Bound::kNone);
  EXPECT_EQ(r.limited_windows, 0u);
}

// The lab's light echo (2 k/s, the echo waiting for input 89 % of the
// time) lost 1.4 % of its run in one window of four, a stall of the VM: the
// kernel counted the socket's drops, every window said none (the losing
// one's undetermined held behind the hysteresis), and the run said `none`
// (the fresh-clone CI of 2a7cf48). A run that lost is never none.
TEST(RunSummary, ARunThatLostIsNeverNone) {
  std::vector<TimelinePoint> pts;
  for (int i = 0; i < 4; ++i) pts.push_back(Point(i, 2000, 0.3, Bound::kNone, "", 0.9));
  pts[2].drops_per_second = 112;
  pts[2].first_losing_rung = "socket";
  RunReport r;
  Summarise(pts, nullptr, &r, LossTolerance{1, 0.002});
  EXPECT_EQ(r.verdict.label, Bound::kUndetermined);
  EXPECT_EQ(r.verdict.resource, "");
  EXPECT_EQ(r.limited_windows, 0u);  // one window of four is still a blip, not a part
  ASSERT_EQ(r.verdict.evidence.size(), 1u);
  EXPECT_EQ(r.verdict.evidence[0],
            "the run lost 28 packets/s (1.4 % of the 2000/s offered) at the socket rung, in 1 "
            "of its 4 windows");
  EXPECT_EQ(r.verdict.reasons,
            std::vector<std::string>{"unexplained loss: no window's rules named a limit (the others said none)"});
  // With the quiet windows' evidence: theirs stands, but for the ladder's
  // "no rung loses packets", which is not the run's.
  VerdictEvidence ev;
  ev[{static_cast<int>(Bound::kNone), ""}].evidence = {"no rung loses packets (nic 0.0/s, backlog 0.0/s, socket 0.0/s)",
                                                       "busiest cpu0: 48.2 % delivered idle (soaker)"};
  Summarise(pts, &ev, &r, LossTolerance{1, 0.002});
  EXPECT_EQ(r.verdict.evidence,
            (std::vector<std::string>{"the run lost 28 packets/s (1.4 % of the 2000/s offered) at the socket rung, "
                                      "in 1 of its 4 windows",
                                      "busiest cpu0: 48.2 % delivered idle (soaker)"}));

  // Within the tolerance (28/s of 20 k/s is 0.14 %): none.
  for (TimelinePoint& p : pts) p.offered_packets_per_second = 20000;
  Summarise(pts, nullptr, &r, LossTolerance{1, 0.002});
  EXPECT_EQ(r.verdict.label, Bound::kNone);
  EXPECT_TRUE(r.verdict.reasons.empty());
  // A tolerance of the user's own (verdict.loss_ratio_min 0.02): none again.
  for (TimelinePoint& p : pts) p.offered_packets_per_second = 2000;
  Summarise(pts, nullptr, &r, LossTolerance{1, 0.02});
  EXPECT_EQ(r.verdict.label, Bound::kNone);
}

TEST(RunSummary, DropsPerRungAreMeansOverTheWindowsThatHaveThem) {
  std::vector<TimelinePoint> pts = {Point(1, 1, 0.5, Bound::kNone, "", 1), Point(2, 1, 0.5, Bound::kNone, "", 1),
                                    Point(3, 1, 0.5, Bound::kNone, "", 1)};
  pts[0].rungs = {10.0, 0.0, 300.0, std::nullopt};
  pts[1].rungs = {20.0, 0.0, 600.0, 6.0};  // a capture ran in this window only
  RunReport r;
  r.rungs.application = 99;  // overwritten, not kept
  Summarise(pts, nullptr, &r);
  EXPECT_EQ(r.rungs.nic, std::optional<double>(15));  // the third window has none (a pre-version-3 row)
  EXPECT_EQ(r.rungs.backlog, std::optional<double>(0));
  EXPECT_EQ(r.rungs.socket, std::optional<double>(450));
  EXPECT_EQ(r.rungs.application, std::optional<double>(6));
}

TEST(RunSummary, SettleWindowsIsFiveButAtMostHalf) {
  EXPECT_EQ(SettleWindows(0), 0u);
  EXPECT_EQ(SettleWindows(3), 1u);
  EXPECT_EQ(SettleWindows(9), 4u);
  EXPECT_EQ(SettleWindows(10), 5u);
  EXPECT_EQ(SettleWindows(100), 5u);
}

TEST(RunSummary, MeansMajorityLabelAndItsEvidence) {
  std::vector<TimelinePoint> pts = {
      Point(1, 1000, 0.50, Bound::kNone, "", 0.9),
      Point(2, 2000, 0.70, Bound::kCpu, "cpu1", 0.6),
      Point(3, 3000, 0.90, Bound::kCpu, "cpu1", 0.8),
  };
  pts[1].soaker_idle = 0.2;  // only one window had the soaker
  pts[2].bus_utilisation = 0.3;
  pts[0].bus_utilisation = 0.5;
  pts[2].first_losing_rung = "socket";
  pts[1].first_losing_rung = "socket";
  Verdict cpu;
  cpu.label = Bound::kCpu;
  cpu.resource = "cpu1";
  cpu.evidence = {"cpu1 delivered 2 % idle"};
  VerdictEvidence ev = {{{static_cast<int>(Bound::kCpu), "cpu1"}, cpu}};
  RunReport r;
  r.name = "x";
  Summarise(pts, &ev, &r);
  EXPECT_EQ(r.windows, 3u);
  EXPECT_DOUBLE_EQ(r.offered_packets_per_second, 2000);  // (1000+2000+3000)/3
  EXPECT_DOUBLE_EQ(r.cpu_busy, 0.70);
  EXPECT_NEAR(r.accounting_busy, 0.60, 1e-12);
  ASSERT_TRUE(r.soaker_idle);
  EXPECT_DOUBLE_EQ(*r.soaker_idle, 0.2);  // mean over windows that had it
  ASSERT_TRUE(r.bus_utilisation);
  EXPECT_DOUBLE_EQ(*r.bus_utilisation, 0.5);  // the highest window
  EXPECT_EQ(r.first_losing_rung, "socket");   // 2 of 3 windows
  EXPECT_EQ(r.verdict.label, Bound::kCpu);    // 2 of 3 windows
  EXPECT_EQ(r.verdict.resource, "cpu1");
  EXPECT_EQ(r.verdict_windows, 2u);
  EXPECT_DOUBLE_EQ(r.verdict.confidence, 0.7);  // mean of 0.6 and 0.8
  ASSERT_EQ(r.verdict.evidence.size(), 1u);
  EXPECT_EQ(r.verdict.evidence[0], "cpu1 delivered 2 % idle");
  EXPECT_EQ(r.name, "x");  // left alone
}

TEST(RunSummary, CaptureFiguresAreMeansOverTheWindowsThatHaveThem) {
  std::vector<TimelinePoint> pts = {Point(1, 1, 0.5, Bound::kNone, "", 1), Point(2, 1, 0.5, Bound::kNone, "", 1),
                                    Point(3, 1, 0.5, Bound::kNone, "", 1)};
  pts[0].applied_per_second = 1000, pts[0].echoed_per_second = 900, pts[0].echo_loss_ratio = 0.1;
  pts[0].turnaround_p50_seconds = 0.001, pts[0].turnaround_p99_seconds = 0.002;
  pts[0].capture_drops_per_second = 0;
  // The middle window's capture dropped frames: drops only.
  pts[1].capture_drops_per_second = 6;
  pts[2].applied_per_second = 2000, pts[2].echoed_per_second = 2000, pts[2].echo_loss_ratio = 0;
  pts[2].turnaround_p50_seconds = 0.003, pts[2].turnaround_p99_seconds = 0.010;
  pts[2].capture_drops_per_second = 0;
  RunReport r;
  r.flows = {RunFlow{"eth0 udp 10.0.0.1:1 > 10.0.0.2:7", 1, 1, 1, 0, 2, 128}};
  Summarise(pts, nullptr, &r);
  ASSERT_TRUE(r.applied_per_second);
  EXPECT_DOUBLE_EQ(*r.applied_per_second, 1500);  // (1000 + 2000) / 2, the middle window has none
  ASSERT_TRUE(r.echoed_per_second);
  EXPECT_DOUBLE_EQ(*r.echoed_per_second, 1450);  // (900 + 2000) / 2
  ASSERT_TRUE(r.echo_loss_ratio);
  EXPECT_DOUBLE_EQ(*r.echo_loss_ratio, 0.05);  // (0.1 + 0) / 2
  ASSERT_TRUE(r.turnaround_p50_seconds);
  EXPECT_DOUBLE_EQ(*r.turnaround_p50_seconds, 0.002);  // mean of the windows' p50s
  ASSERT_TRUE(r.turnaround_p99_seconds);
  EXPECT_DOUBLE_EQ(*r.turnaround_p99_seconds, 0.006);
  ASSERT_TRUE(r.capture_drops_per_second);
  EXPECT_DOUBLE_EQ(*r.capture_drops_per_second, 2);  // (0 + 6 + 0) / 3
  ASSERT_EQ(r.flows.size(), 1u);                     // flows are the tracker's, left alone

  // Windows without capture leave the run's figures unset, even when the
  // report held figures from an earlier summary.
  for (TimelinePoint& p : pts) {
    p.applied_per_second.reset(), p.echoed_per_second.reset(), p.echo_loss_ratio.reset();
    p.turnaround_p50_seconds.reset(), p.turnaround_p99_seconds.reset(), p.capture_drops_per_second.reset();
  }
  Summarise(pts, nullptr, &r);
  EXPECT_FALSE(r.applied_per_second);
  EXPECT_FALSE(r.echoed_per_second);
  EXPECT_FALSE(r.echo_loss_ratio);
  EXPECT_FALSE(r.turnaround_p50_seconds);
  EXPECT_FALSE(r.turnaround_p99_seconds);
  EXPECT_FALSE(r.capture_drops_per_second);
}

TEST(RunSummary, TheLosingRungIsNamedEvenWhenMostWindowsLoseNothing) {
  std::vector<TimelinePoint> pts = {Point(1, 1, 0.5, Bound::kNone, "", 1), Point(2, 1, 0.5, Bound::kNone, "", 1),
                                    Point(3, 1, 0.5, Bound::kNone, "", 1)};
  pts[2].first_losing_rung = "backlog";
  RunReport r;
  Summarise(pts, nullptr, &r);
  EXPECT_EQ(r.first_losing_rung, "backlog");  // 1 losing window of 3
  pts[2].first_losing_rung = "none";
  Summarise(pts, nullptr, &r);
  EXPECT_EQ(r.first_losing_rung, "none");
}

TEST(RunSummary, EmptyRunHasNoWindowsAndIsUndetermined) {
  RunReport r;
  Summarise({}, nullptr, &r);
  EXPECT_EQ(r.windows, 0u);
  EXPECT_EQ(r.verdict.label, Bound::kUndetermined);
}

TEST(RunSummary, TiedLabelsGoToTheFirstInBoundOrder) {
  std::vector<TimelinePoint> a = {Point(1, 1, 0.5, Bound::kNone, "", 1), Point(2, 1, 0.5, Bound::kCpu, "cpu0", 1)};
  std::vector<TimelinePoint> b = {a[1], a[0]};
  RunReport ra, rb;
  Summarise(a, nullptr, &ra);
  Summarise(b, nullptr, &rb);
  EXPECT_EQ(ra.verdict.label, Bound::kCpu);  // kCpu precedes kNone
  EXPECT_EQ(rb.verdict.label, Bound::kCpu);
}

// The lab's CPU-bound echo (issue 14): every loaded window says cpu, the
// resource alternating between the echo thread and the CPUs, and a few
// windows say none. The most common (label, resource) pair was (none, ""):
// the run read none. By label: cpu, with the resource most cpu windows name.
TEST(RunSummary, RunVerdictIsTheLabelMostWindowsHeldWithItsCommonestResource) {
  std::vector<TimelinePoint> pts;
  const char* resources[] = {"thread udpecho", "cpu1",           "cpu0", "thread udpecho", "none",
                             "cpu1",           "thread udpecho", "none", "cpu0",           "none",
                             "thread udpecho", "cpu1",           "none", "cpu0",           "none"};
  double t = 0, cpu_confidence = 0;
  for (const char* res : resources) {
    bool none = std::string(res) == "none";
    double confidence = none ? 0.9 : 0.5 + t / 100;
    if (!none) cpu_confidence += confidence;
    pts.push_back(Point(++t, 1000, 0.99, none ? Bound::kNone : Bound::kCpu, none ? "" : res, confidence));
  }
  Verdict thread, cpu1;
  thread.label = cpu1.label = Bound::kCpu;
  thread.resource = "thread udpecho";
  thread.evidence = {"thread udpecho at 99 % of cpu1"};
  cpu1.resource = "cpu1";
  cpu1.evidence = {"cpu1: 0.2 % delivered idle"};
  VerdictEvidence ev = {{{static_cast<int>(Bound::kCpu), "thread udpecho"}, thread},
                        {{static_cast<int>(Bound::kCpu), "cpu1"}, cpu1}};
  std::vector<TimelinePoint> reversed(pts.rbegin(), pts.rend());
  for (const std::vector<TimelinePoint>* order : {&pts, &reversed}) {
    RunReport r;
    Summarise(*order, &ev, &r);
    EXPECT_EQ(r.verdict.label, Bound::kCpu);          // 10 of 15 windows, though none (5) is the commonest pair
    EXPECT_EQ(r.verdict.resource, "thread udpecho");  // 4 of the 10, cpu1 and cpu0 3 each
    EXPECT_EQ(r.verdict_windows, 10u);                // the label's windows, every resource
    EXPECT_NEAR(r.verdict.confidence, cpu_confidence / 10, 1e-12);
    EXPECT_EQ(r.verdict.evidence, thread.evidence);  // the evidence of (cpu, thread udpecho)
  }
}

TEST(RunSummary, ResourceTiesGoToTheLargerConfidenceThenTheFirstName) {
  std::vector<TimelinePoint> pts = {
      Point(1, 1, 0.99, Bound::kCpu, "cpu0", 0.6), Point(2, 1, 0.99, Bound::kCpu, "cpu1", 0.9),
      Point(3, 1, 0.99, Bound::kCpu, "cpu0", 0.6), Point(4, 1, 0.99, Bound::kCpu, "cpu1", 0.9)};
  std::vector<TimelinePoint> reversed(pts.rbegin(), pts.rend());
  for (const std::vector<TimelinePoint>* order : {&pts, &reversed}) {
    RunReport r;
    Summarise(*order, nullptr, &r);
    EXPECT_EQ(r.verdict.resource, "cpu1");  // 2 windows each; cpu1's sum 1.8 beats 1.2
    EXPECT_EQ(r.verdict_windows, 4u);
    EXPECT_DOUBLE_EQ(r.verdict.confidence, 0.75);
  }
  // Same windows, same confidence: the first name.
  for (TimelinePoint& p : pts) p.confidence = 0.8;
  reversed.assign(pts.rbegin(), pts.rend());
  for (const std::vector<TimelinePoint>* order : {&pts, &reversed}) {
    RunReport r;
    Summarise(*order, nullptr, &r);
    EXPECT_EQ(r.verdict.resource, "cpu0");
  }
}

TEST(RunSummary, SweepOfTheSeedsShapeFindsThePlateauAndMlfrr) {
  // Offered rises 10 % a step; /proc/stat busy flat at 81-83 %; the CPU's
  // cost per packet rises (more copies) and delivered falls with it, so
  // delivered x cost stays one CPU-second per second.
  std::vector<RunReport> runs(3);
  double offered[] = {40000, 44000, 48000};
  double busy[] = {0.81, 0.82, 0.83};
  double drops[] = {0, 3000, 7000};
  for (int i = 0; i < 3; ++i) {
    runs[i].name = "r" + std::to_string(i);
    runs[i].offered_packets_per_second = offered[i];
    runs[i].application_packets_per_second = 40000 - 4000 * i;  // 40k, 36k, 32k
    runs[i].accounting_busy = busy[i];
    runs[i].cpu_seconds_per_second = 1.0;
    runs[i].received_bits_per_second = 40000 * 8 * 1024;
    runs[i].drops_per_second = drops[i];
    runs[i].first_losing_rung = i ? "socket" : "none";
  }
  SweepAnalysis a = AnalyseSweep(runs, LossTolerance{1, 0});
  EXPECT_TRUE(a.plateau.detected);
  EXPECT_NEAR(a.plateau.level, 0.82, 1e-9);
  ASSERT_TRUE(a.mlfrr.rate);
  EXPECT_DOUBLE_EQ(*a.mlfrr.rate, 40000);  // the last step without loss
  EXPECT_EQ(a.mlfrr.first_losing_rung, "socket");
  ASSERT_TRUE(a.throughput_tracks_cpu_cost);
  EXPECT_TRUE(*a.throughput_tracks_cpu_cost);  // costs 25, 27.8, 31.25 us; each x its rate = 1 s/s
}

TEST(RunSummary, StepOfRunUsesAccountingBusyAndApplicationRate) {
  RunReport r;
  r.name = "s";
  r.offered_packets_per_second = 100;
  r.application_packets_per_second = 90;
  r.received_packets_per_second = 95;
  r.cpu_busy = 0.99;
  r.accounting_busy = 0.8;
  r.received_bits_per_second = 800;
  LoadStep s = StepOfRun(r);
  EXPECT_EQ(s.name, "s");
  EXPECT_DOUBLE_EQ(s.delivered_packets_per_second, 90);
  EXPECT_DOUBLE_EQ(s.utilisation, 0.8);
  EXPECT_DOUBLE_EQ(s.received_bytes_per_second, 100);
}

}  // namespace
}  // namespace bottleneckd::run_summary_test
