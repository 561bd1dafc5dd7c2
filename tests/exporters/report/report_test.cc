// The report's sweep table and JSON with and without the live capture's
// figures: runs without them print exactly the table they always did (no
// new columns), a run with them adds applied/s, echoed/s, loss and p99,
// `--report --run NAME` (Report::flows) prints the run's flows under its
// evidence, and the JSON carries the figures (null when unset) and a
// "flows" array. Through a real run store too. Expected text is built by
// hand from the documented column widths (docs/report.md). What `bottleneckd
// run` prints when its run ends is the store's report of that run less its
// first line, for a sweep, one segment and none.
#include "exporters/report/report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runs/run_tracker.h"
#include "tests/support/test_util.h"

namespace bottleneckd::report_test {
namespace {

// A finished run of a recording (no store line) with every column known.
RunReport PlainRun(const std::string& name) {
  RunReport r;
  r.name = name;
  r.source = "recording";
  r.state = "finished";
  r.offered_packets_per_second = 40000;      // 40.0kpps
  r.received_bits_per_second = 327.68e6;     // 327.7Mbps
  r.application_packets_per_second = 38716;  // 38.7kpps: 40k received, 1284 lost at backlog and socket
  r.cpu_busy = 0.9;                          // 90.0
  r.accounting_busy = 0.81;                  // 81.0
  r.soaker_idle = 0.05;                      // 5 %
  r.interrupts_per_second = 8000;
  r.bus_utilisation = 0.14;  // 14.0
  r.drops_per_second = 1284;
  r.verdict.label = Bound::kCpu;
  r.verdict.resource = "cpu1";
  r.verdict.confidence = 0.93;
  r.verdict.evidence = {"cpu1: 0.0 % delivered idle"};
  return r;
}

RunReport CaptureRun(const std::string& name) {
  RunReport r = PlainRun(name);
  r.applied_per_second = 44000.4;  // 44000
  r.echoed_per_second = 43000;
  r.echo_loss_ratio = 0.0227;  // 2.27%
  r.turnaround_p50_seconds = 0.0002;
  r.turnaround_p99_seconds = 0.0041;  // 4.100ms
  r.capture_drops_per_second = 0;
  r.flows = {RunFlow{"eth0 udp 10.0.0.1:40000 > 10.0.0.2:7", 44000, 43000, 43000, 1000, 87000, 89088000},
             RunFlow{"eth1 udp [2001:db8::1]:40000 > [2001:db8::2]:7", 10, 10, 10, 0, 20, 20480}};
  return r;
}

// The header without capture columns: "run" padded to the name column (22)
// plus one, then the fixed columns, the application's packets/s among them.
const char kHeader[] =
    "run                       offered     received  application   CPU %  (acct)  soaker idle  intr/s    bus %"
    "   drops/s  verdict\n";
const char kRow40k[] =
    "echo 40k                 40.0kpps    327.7Mbps     38.7kpps   90.0    81.0          5 %    8000     14.0"
    "      1284  cpu 0.93 cpu1\n"
    "    - cpu1: 0.0 % delivered idle\n";

const char kFlows[] =
    "    flows (most packets first):\n"
    "      flow                                             requests    replies       lost      packets\n"
    "      eth0 udp 10.0.0.1:40000 > 10.0.0.2:7                44000      43000       1000        87000\n"
    "      eth1 udp [2001:db8::1]:40000 > [2001:db8::2]:7         10         10          0           20\n";

TEST(RunTable, RunsWithoutCaptureFiguresKeepTheOldTable) {
  EXPECT_EQ(RunTable({PlainRun("echo 40k")}), std::string(kHeader) + kRow40k);
  // Flows asked for but none known: nothing more.
  EXPECT_EQ(RunTable({PlainRun("echo 40k")}, /*flows=*/true), std::string(kHeader) + kRow40k);
}

TEST(RunTable, ARunWithCaptureFiguresAddsTheirColumns) {
  std::string want =
      "run                       offered     received  application   CPU %  (acct)  soaker idle  intr/s    bus %"
      "   drops/s  applied/s   echoed/s    loss       p99  verdict\n"
      "echo 40k                 40.0kpps    327.7Mbps     38.7kpps   90.0    81.0          5 %    8000     14.0"
      "      1284          -          -       -         -  cpu 0.93 cpu1\n"
      "    - cpu1: 0.0 % delivered idle\n"
      "echo 44k                 40.0kpps    327.7Mbps     38.7kpps   90.0    81.0          5 %    8000     14.0"
      "      1284      44000      43000   2.27%   4.100ms  cpu 0.93 cpu1\n"
      "    - cpu1: 0.0 % delivered idle\n";
  EXPECT_EQ(RunTable({PlainRun("echo 40k"), CaptureRun("echo 44k")}), want);

  // A capture that ran but was never trusted: the columns, each "-".
  RunReport dropping = PlainRun("echo 40k");
  dropping.capture_drops_per_second = 120;
  EXPECT_NE(RunTable({dropping}).find("1284          -          -       -         -  cpu"), std::string::npos)
      << RunTable({dropping});
}

TEST(RunTable, FlowsFollowTheEvidenceWhenAskedFor) {
  std::string table = RunTable({CaptureRun("echo 44k")}, /*flows=*/true);
  EXPECT_NE(table.find(std::string("    - cpu1: 0.0 % delivered idle\n") + kFlows), std::string::npos) << table;
  // Without: no flows (the newest runs' report, `bottleneckd run`'s summary).
  EXPECT_EQ(RunTable({CaptureRun("echo 44k")}).find("flows"), std::string::npos);
}

TEST(ReportText, AReportWithoutCaptureIsAsBefore) {
  Report r;
  r.recording = "/tmp/seed";
  r.info.source = "simulated";
  r.info.samples = 60;
  r.info.interval_seconds = 1;
  r.runs = {PlainRun("echo 40k")};
  r.mlfrr.knee = 0;  // it lost 1284 of 40000 packets/s
  std::string want = std::string("recording /tmp/seed: simulated, 60 samples every 1s\n\n") + kHeader + kRow40k +
                     "\n"
                     "plateau: none across the runs\n"
                     "MLFRR: every run lost packets\n";
  EXPECT_EQ(ReportText(r), want);
}

// A benchmark over loopback with lo off the packet path: every run offered
// 0 packets/s. It said "MLFRR: 0 packets/s offered with no loss" (and JSON
// 0), a box that receives nothing; no load measures no limit.
TEST(ReportText, NoLoadOfferedIsNoMlfrr) {
  Report r;
  r.store = "/var/lib/bottleneckd/runs.db";
  RunReport idle = PlainRun("udp_echo.py --rates 1000");
  idle.offered_packets_per_second = idle.application_packets_per_second = idle.drops_per_second = 0;
  r.runs = {idle, idle};
  r.runs[1].name = "udp_echo.py --rates 2000";
  r.mlfrr = AnalyseSweep(r.runs, LossTolerance{}).mlfrr;
  EXPECT_FALSE(r.mlfrr.rate);
  std::string text = ReportText(r);
  EXPECT_NE(text.find("\nMLFRR: none: no run was offered load on the packet path"), std::string::npos) << text;
  EXPECT_NE(ReportJson(r).find("\"mlfrr_packets_per_second\":null"), std::string::npos);
  // Load with no loss: the highest rate offered, and that the limit is above it.
  r.runs[1].offered_packets_per_second = 2000;
  r.mlfrr = AnalyseSweep(r.runs, LossTolerance{}).mlfrr;
  EXPECT_NE(ReportText(r).find("\nMLFRR: 2000 packets/s offered with no loss, the highest rate offered: no run lost "
                               "packets, so the limit lies above it\n"),
            std::string::npos)
      << ReportText(r);
}

TEST(ReportText, AnEmptyStoreSaysNoRunsNotThatEveryRunLost) {
  Report r;
  r.store = "/var/lib/bottleneckd/runs.db";
  std::string text = ReportText(r);
  EXPECT_NE(text.find("(no runs)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("MLFRR: no runs\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("every run lost packets"), std::string::npos) << text;
}

TEST(ReportJson, CarriesCaptureFiguresAndFlows) {
  Report r;
  r.store = "/var/lib/bottleneckd/runs.db";
  r.runs = {PlainRun("plain"), CaptureRun("captured")};
  std::string j = ReportJson(r);
  // The plain run: every capture figure null, no flows.
  std::string plain = j.substr(0, j.find("\"name\":\"captured\""));
  for (const char* key : {"applied_per_second", "echoed_per_second", "echo_loss_ratio", "turnaround_p50_seconds",
                          "turnaround_p99_seconds", "capture_drops_per_second"}) {
    EXPECT_NE(plain.find(std::string("\"") + key + "\":null"), std::string::npos) << key << "\n" << plain;
  }
  EXPECT_NE(plain.find("\"flows\":[]"), std::string::npos) << plain;
  // The captured run: %.6g numbers and the flows, most packets first.
  std::string captured = j.substr(j.find("\"name\":\"captured\""));
  EXPECT_NE(captured.find("\"applied_per_second\":44000.4,\"echoed_per_second\":43000,\"echo_loss_ratio\":0.0227,"
                          "\"turnaround_p50_seconds\":0.0002,\"turnaround_p99_seconds\":0.0041,"
                          "\"capture_drops_per_second\":0"),
            std::string::npos)
      << captured;
  EXPECT_NE(captured.find("\"flows\":[{\"flow\":\"eth0 udp 10.0.0.1:40000 > 10.0.0.2:7\",\"requests\":44000,"
                          "\"replies\":43000,\"paired\":43000,\"lost\":1000,\"packets\":87000,\"bytes\":89088000},"
                          "{\"flow\":\"eth1 udp [2001:db8::1]:40000 > [2001:db8::2]:7\",\"requests\":10,"
                          "\"replies\":10,\"paired\":10,\"lost\":0,\"packets\":20,\"bytes\":20480}]"),
            std::string::npos)
      << captured;
}

// Through the store: `--report --run NAME` prints the run's flows, the
// newest runs' report only the columns.
TEST(StoreReport, TheNamedRunShowsItsFlows) {
  testing::TempDir dir;
  std::unique_ptr<RunStore> store;
  Status st = RunStore::Open(dir.path() + "/runs.db", false, &store);
  ASSERT_OK(st);
  RunReport plain = PlainRun("echo 40k"), captured = CaptureRun("echo 44k");
  plain.source = captured.source = "command";
  plain.start = 100, plain.end = 110, captured.start = 200, captured.end = 210;
  ASSERT_OK(store->FinishRun(&plain, {}));
  ASSERT_OK(store->FinishRun(&captured, {}));

  Report one;
  ASSERT_OK(BuildStoreReport(store.get(), "echo 44k", 10, LossTolerance{1, 0}, &one));
  EXPECT_TRUE(one.flows);
  ASSERT_EQ(one.runs.size(), 1u);
  std::string text = ReportText(one);
  EXPECT_NE(text.find("  applied/s   echoed/s    loss       p99  verdict\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      44000      43000   2.27%   4.100ms  cpu 0.93 cpu1\n"), std::string::npos) << text;
  EXPECT_NE(text.find(std::string("    - cpu1: 0.0 % delivered idle\n") + kFlows), std::string::npos) << text;

  Report newest;
  ASSERT_OK(BuildStoreReport(store.get(), "", 10, LossTolerance{1, 0}, &newest));
  EXPECT_FALSE(newest.flows);
  ASSERT_EQ(newest.runs.size(), 2u);
  text = ReportText(newest);
  EXPECT_NE(text.find("  applied/s   echoed/s    loss       p99  verdict\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("flows (most packets first)"), std::string::npos) << text;

  // The run without capture alone: the table it always had.
  Report old;
  ASSERT_OK(BuildStoreReport(store.get(), "echo 40k", 10, LossTolerance{1, 0}, &old));
  text = ReportText(old);
  EXPECT_EQ(text.find("applied/s"), std::string::npos) << text;
  EXPECT_NE(text.find(kHeader), std::string::npos) << text;
}

// One window of a run: `offered` received, `lost` of it at the socket,
// /proc/stat busy at the seeds' 81 %.
TimelinePoint Window(double t, double offered, double lost) {
  TimelinePoint p;
  p.t = t;
  p.offered_packets_per_second = p.received_packets_per_second = offered;
  p.application_packets_per_second = offered - lost;
  p.received_bits_per_second = offered * 8192;
  p.drops_per_second = lost;
  p.first_losing_rung = lost > 0 ? "socket" : "none";
  p.cpu_busy = 0.99;
  p.accounting_busy = 0.81;
  p.cpu_seconds_per_second = 0.81;
  p.label = Bound::kCpu;
  p.resource = "thread udpecho";
  p.confidence = 0.9;
  return p;
}

// A RunTracker over a new store in a scratch directory (no window runs).
// Run feeds it one run: `windows_per_step` windows a second apart per
// (offered, lost) step, each with the verdict Window gives, then stops it;
// runs lie 100 s apart.
class TrackedStore {
 public:
  TrackedStore() : path_(dir_.path() + "/runs.db") {
    std::unique_ptr<RunStore> store;
    EXPECT_OK(RunStore::Open(path_, false, &store));
    RunTrackerOptions o;
    o.window_seconds = 0;
    tracker_ = std::make_unique<RunTracker>(std::move(store), o);
  }
  const std::string& path() const { return path_; }

  void Run(const std::string& name, const std::vector<std::pair<double, double>>& steps, size_t windows_per_step,
           int exit_code, RunReport* run, std::vector<RunReport>* segments) {
    ASSERT_OK(tracker_->Start(name, "command", "udpecho " + name, t_ + 0.5));
    for (const auto& [offered, lost] : steps)
      for (size_t i = 0; i < windows_per_step; ++i) {
        TimelinePoint p = Window(++t_, offered, lost);
        Verdict v;
        v.label = p.label, v.resource = p.resource, v.confidence = p.confidence;
        v.evidence = {"thread udpecho at 99 % of cpu1", "losses at the socket rung"};
        FoldedProfile offcpu;  // each window's off-CPU stacks (window/offcpu_stacks.h)
        AddFolded("udpecho;main (udpecho);recv (libc.so.6);schedule [kernel];[udp 10.0.0.2:7 -> 10.0.0.9:9]", 900'000,
                  &offcpu);
        tracker_->OnWindow(p, v, {}, nullptr, &offcpu);
      }
    ASSERT_OK(tracker_->Stop(name, exit_code, t_ + 0.5, run, segments));
    t_ += 100;
  }

  // The store's report of run `name` ("" the newest runs), read-only.
  void Report(const std::string& name, bottleneckd::Report* out) {
    std::unique_ptr<RunStore> ro;
    ASSERT_OK(RunStore::Open(path_, true, &ro));
    ASSERT_OK(BuildStoreReport(ro.get(), name, 10, LossTolerance{1, 0}, out));
  }

 private:
  testing::TempDir dir_;
  std::string path_;
  std::unique_ptr<RunTracker> tracker_;
  double t_ = 1'700'000'000;
};

// `bottleneckd run`'s summary (FinishedRunText, from the run RunTracker::Stop
// returns) against `--report --run NAME` (from the store the tracker wrote):
// the same text under the report's first line. Before they shared ReportBody,
// the summary had no MLFRR rung tail, no sensitivity line, "across the
// segments" for "across the runs", and no sweep lines for a run of one or no
// segment.
TEST(FinishedRunText, ReadsAsTheStoresReportOfTheRun) {
  TrackedStore store;
  struct Case {
    std::string name;
    std::vector<std::pair<double, double>> steps;  // offered, lost per window
    size_t windows_per_step, segments;
  };
  // A sweep of three steps losing at the socket from the second on (a
  // plateau, an MLFRR with its knee, the sensitivity check), one steady step,
  // and a run too short for a segment.
  std::vector<Case> cases = {{"sweep", {{40000, 0}, {44000, 2000}, {48000, 6000}}, 12, 3},
                             {"steady", {{40000, 0}}, 12, 1},
                             {"short", {{40000, 0}}, 3, 0}};
  for (const Case& c : cases) {
    RunReport run;
    std::vector<RunReport> segments;
    store.Run(c.name, c.steps, c.windows_per_step, 0, &run, &segments);
    ASSERT_EQ(segments.size(), c.segments) << c.name;
    std::string summary = FinishedRunText(run, segments, LossTolerance{1, 0});

    Report stored;
    store.Report(c.name, &stored);
    EXPECT_EQ(ReportText(stored), "run store " + store.path() + "\n\n" + summary) << c.name;
    EXPECT_NE(summary.find("\nplateau: "), std::string::npos) << summary;
    EXPECT_NE(summary.find("\nMLFRR: "), std::string::npos) << summary;
    // Its off-CPU stacks, merged over every window: the summary's as the store's.
    char offcpu[128];
    std::snprintf(offcpu, sizeof offcpu, "\noff-CPU stacks of run '%s': %.2f s off the CPU", c.name.c_str(),
                  0.9 * static_cast<double>(c.steps.size() * c.windows_per_step));
    EXPECT_NE(summary.find(offcpu), std::string::npos) << summary;
    if (c.name == "sweep") {
      EXPECT_NE(summary.find("its steady load phases (segments):"), std::string::npos) << summary;
      EXPECT_NE(summary.find("MLFRR: 40000 packets/s offered with no loss; above it packets are lost, first at the "
                             "socket rung\n"),
                std::string::npos)
          << summary;
      EXPECT_NE(summary.find("throughput x CPU cost per packet constant across runs: "), std::string::npos) << summary;
    }
  }
}

// Which runs of the newest belong in one sweep: the name but for its
// numbers, and a command that ended cleanly. Before, the newest runs were
// one sweep whatever they were: a `sleep 2` and a command that did not exist
// sat beside the echo runs on the sweep plot and moved the MLFRR.
TEST(SweepKey, WritesEveryNumberAsOneHash) {
  EXPECT_EQ(SweepKey("echo 20k"), "echo #k");
  EXPECT_EQ(SweepKey("echo 44k"), "echo #k");
  EXPECT_EQ(SweepKey("python3 lab/udp_echo.py --rates 1000,2500 --step 2.5"),
            "python# lab/udp_echo.py --rates #,# --step #");
  EXPECT_EQ(SweepKey("rate 10_000 1e6"), "rate # #");
  EXPECT_EQ(SweepKey("sleep 2"), "sleep #");
  EXPECT_EQ(SweepKey("no numbers"), "no numbers");
  EXPECT_EQ(SweepKey("trailing. e"), "trailing. e");
}

RunReport Named(const std::string& name, std::optional<int> exit_code) {
  RunReport r = PlainRun(name);
  r.exit_code = exit_code;
  return r;
}

TEST(SweepOfNewest, OnlyCleanRunsNamedLikeTheNewest) {
  std::vector<RunReport> runs = {Named("echo 20k", 0), Named("sleep 2", 0), Named("nosuchcommand", 127),
                                 Named("echo 44k", 0), Named("echo 60k", std::nullopt)};
  NewestSweep s = SweepOfNewest(runs, false);
  EXPECT_EQ(s.runs, (std::vector<size_t>{0, 3, 4}));
  EXPECT_FALSE(s.by_segments);
  EXPECT_EQ(s.of,
            "3 runs named like 'echo #k' (echo 20k, echo 44k, echo 60k); 2 other runs are listed, not swept (another "
            "name, or a command that failed)");

  // The newest run failed: the newest clean one names the sweep.
  runs.push_back(Named("echo 80k", 1));
  EXPECT_EQ(SweepOfNewest(runs, false).runs, (std::vector<size_t>{0, 3, 4}));

  // Alone, with segments: swept by them.
  NewestSweep alone = SweepOfNewest({Named("sleep 2", 0), Named("udp_echo", 0)}, true);
  EXPECT_EQ(alone.runs, (std::vector<size_t>{1}));
  EXPECT_TRUE(alone.by_segments);
  EXPECT_EQ(alone.of,
            "the steady load phases (segments) of run 'udp_echo', as bottleneckd report --run gives; 1 other run is "
            "listed, not swept (another name, or a command that failed)");

  NewestSweep none = SweepOfNewest({Named("nosuchcommand", 127)}, false);
  EXPECT_TRUE(none.runs.empty());
  EXPECT_EQ(none.of, "no run: every listed run's command failed (exit code not 0)");
}

// The store's report of its newest runs gives a run the MLFRR `--report --run`
// gives it: a sweep run with three load steps, then a `sleep 2` run. Before,
// the newest report swept the two runs' means (the sweep's mean offered and
// the sleep's idle) and found another MLFRR than the run's own.
TEST(StoreReport, TheNewestRunsGiveTheRunItsOwnMlfrr) {
  TrackedStore store;
  auto run = [&](const std::string& name, const std::vector<std::pair<double, double>>& steps, int exit_code) {
    RunReport r;
    std::vector<RunReport> segments;
    store.Run(name, steps, 12, exit_code, &r, &segments);
  };
  run("udp_echo", {{40000, 0}, {44000, 2000}, {48000, 6000}}, 0);
  run("nosuchcommand", {{0, 0}}, 127);

  auto report = [&](const std::string& name, Report* out) { store.Report(name, out); };
  Report one, newest;
  report("udp_echo", &one);
  report("", &newest);
  ASSERT_TRUE(one.mlfrr.rate);
  EXPECT_NEAR(*one.mlfrr.rate, 40000, 1e-6);
  ASSERT_EQ(newest.runs.size(), 2u);
  ASSERT_TRUE(newest.mlfrr.rate);
  EXPECT_EQ(*newest.mlfrr.rate, *one.mlfrr.rate);
  EXPECT_EQ(newest.sweep.size(), 3u);  // udp_echo's three steps
  std::string text = ReportText(newest);
  EXPECT_NE(text.find("\nswept: the steady load phases (segments) of run 'udp_echo', as bottleneckd report --run "
                      "gives; 1 other run is listed, not swept"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nMLFRR: 40000 packets/s offered with no loss"), std::string::npos) << text;
  auto mlfrr_json = [](const Report& r) {
    std::string j = ReportJson(r);
    size_t at = j.find("\"mlfrr_packets_per_second\":");
    return at == std::string::npos ? std::string() : j.substr(at, j.find(',', at) - at);
  };
  EXPECT_NE(mlfrr_json(one), "");
  EXPECT_EQ(mlfrr_json(newest), mlfrr_json(one));

  // A later `sleep 2` is the newest clean run, and nothing like the echo:
  // swept alone, the echo listed.
  run("sleep 2", {{0, 0}}, 0);
  Report later;
  report("", &later);
  EXPECT_EQ(later.runs.size(), 3u);
  EXPECT_EQ(later.sweep_of,
            "run 'sleep 2' alone; 2 other runs are listed, not swept (another name, or a command "
            "that failed)");
  ASSERT_EQ(later.sweep.size(), 1u);
  EXPECT_EQ(later.sweep[0].name, "sleep 2");
}

}  // namespace
}  // namespace bottleneckd::report_test
