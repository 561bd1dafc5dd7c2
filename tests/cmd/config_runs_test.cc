// The runs section of the config and the run-related flags: defaults, every
// key, errors with file:line:col, and the flags' checks.
#include <gtest/gtest.h>

#include "base/parse_util.h"
#include "cmd/flags.h"
#include "cmd/run_command.h"
#include "daemon/config.h"
#include "tests/support/test_util.h"

namespace bottleneckd::config_runs_test {
namespace {

TEST(ConfigRuns, DefaultsAndShippedConfigAgree) {
  Config d, shipped;
  ASSERT_OK(ParseConfig("", "", &d));
  EXPECT_EQ(d.runs.control_socket, "/run/bottleneckd/control.sock");
  EXPECT_EQ(d.runs.control_group, "");
  EXPECT_TRUE(d.runs.store);
  EXPECT_DOUBLE_EQ(d.runs.tracker.window_seconds, 60);
  EXPECT_DOUBLE_EQ(d.runs.tracker.keep_windows_seconds, 7 * 86400);
  EXPECT_TRUE(d.runs.tracker.segments);
  EXPECT_DOUBLE_EQ(d.runs.tracker.segment.tolerance, 0.07);  // below the seeds' 10 % steps
  std::string text = testing::ReadFileOrDie(std::string(BOTTLENECKD_SOURCE_DIR) + "/etc/bottleneckd.yaml");
  Status s = ParseConfig(text, "etc/bottleneckd.yaml", &shipped);
  ASSERT_OK(s);
  EXPECT_EQ(shipped.runs.control_socket, d.runs.control_socket);
  EXPECT_EQ(shipped.runs.control_group, d.runs.control_group);
  EXPECT_EQ(shipped.runs.store, d.runs.store);
  EXPECT_DOUBLE_EQ(shipped.runs.tracker.window_seconds, d.runs.tracker.window_seconds);
  EXPECT_DOUBLE_EQ(shipped.runs.tracker.keep_windows_seconds, d.runs.tracker.keep_windows_seconds);
  EXPECT_DOUBLE_EQ(shipped.runs.tracker.segment.tolerance, d.runs.tracker.segment.tolerance);
  EXPECT_EQ(shipped.runs.tracker.segment.min_windows, d.runs.tracker.segment.min_windows);
}

TEST(ConfigRuns, EveryKey) {
  Config c;
  Status s = ParseConfig(
      "runs:\n"
      "  control_socket: /tmp/b.sock\n"
      "  control_group: root\n"
      "  store: false\n"
      "  window: 5m\n"
      "  keep_windows: 2d\n"
      "  segments: false\n"
      "  segment_tolerance: 0.2\n"
      "  segment_min_windows: 8\n",
      "x.yaml", &c);
  ASSERT_OK(s);
  EXPECT_EQ(c.runs.control_socket, "/tmp/b.sock");
  EXPECT_EQ(c.runs.control_group, "root");
  EXPECT_FALSE(c.runs.store);
  EXPECT_DOUBLE_EQ(c.runs.tracker.window_seconds, 300);
  EXPECT_DOUBLE_EQ(c.runs.tracker.keep_windows_seconds, 2 * 86400);
  EXPECT_FALSE(c.runs.tracker.segments);
  EXPECT_DOUBLE_EQ(c.runs.tracker.segment.tolerance, 0.2);
  EXPECT_EQ(c.runs.tracker.segment.min_windows, 8u);
}

TEST(ConfigRuns, WindowOff) {
  Config c;
  ASSERT_OK(ParseConfig("runs:\n  window: off\n", "x.yaml", &c));
  EXPECT_DOUBLE_EQ(c.runs.tracker.window_seconds, 0);
}

TEST(ConfigRuns, ErrorsNameLineAndColumn) {
  struct {
    const char* yaml;
    const char* want;
  } cases[] = {
      {"runs:\n  windw: 1m\n", "x.yaml:2:3: unknown key 'windw' in runs"},
      {"runs:\n  window: soon\n", "x.yaml:2:11: runs.window must be a duration"},
      {"runs:\n  keep_windows: off\n", "x.yaml:2:17: runs.keep_windows must be a duration"},
      {"runs:\n  store: maybe\n", "x.yaml:2:10: store must be true or false"},
      {"runs:\n  segment_tolerance: 2\n", "x.yaml:2:22: segment_tolerance must be a number from 0.01 to 1"},
      {"runs:\n  segment_min_windows: 2.5\n", "x.yaml:2:24: segment_min_windows must be a whole number"},
      {"runs: 3\n", "x.yaml:1:7: runs must be a mapping"},
  };
  for (auto& c : cases) {
    Config cfg;
    Status s = ParseConfig(c.yaml, "x.yaml", &cfg);
    EXPECT_FALSE(s.ok()) << c.yaml;
    EXPECT_NE(s.message().find(c.want), std::string::npos) << s.message();
  }
}

TEST(ConfigRuns, DurationsInDays) {
  double s = 0;
  EXPECT_TRUE(ParseDuration("7d", &s));
  EXPECT_DOUBLE_EQ(s, 7 * 86400);
  EXPECT_TRUE(ParseDuration("0.5d", &s));
  EXPECT_DOUBLE_EQ(s, 43200);
  EXPECT_FALSE(ParseDuration("d", &s));
}

Status Parse(std::vector<const char*> argv, Flags* f) {
  return ParseFlags(static_cast<int>(argv.size()), argv.data(), f);
}

TEST(RunFlags, TheWrappedCommandIsEverythingAfterTheDashes) {
  Flags f;
  ASSERT_OK(
      Parse({"b", "run", "--name", "echo 550M", "--control.socket=/tmp/s", "--", "udpecho", "--name", "x", "--"}, &f));
  EXPECT_EQ(f.command, "run");
  EXPECT_EQ(f.run_name, "echo 550M");
  ASSERT_EQ(f.run_argv.size(), 4u);
  EXPECT_EQ(f.run_argv[0], "udpecho");
  EXPECT_EQ(f.run_argv[1], "--name");  // the command's own flags stay its own
  EXPECT_EQ(f.run_argv[3], "--");
  Config c;
  ASSERT_OK(ApplyFlags(f, &c));
  EXPECT_EQ(c.runs.control_socket, "/tmp/s");
}

TEST(RunFlags, ReportSelectors) {
  Flags f;
  ASSERT_OK(Parse({"b", "--report", "--run", "sweep", "--last", "3", "--format=json"}, &f));
  EXPECT_TRUE(f.report);
  EXPECT_EQ(f.report_run, "sweep");
  EXPECT_EQ(f.report_last, 3u);
  Flags g;
  ASSERT_OK(Parse({"b", "--report"}, &g));  // the run store, no --replay needed
  EXPECT_FALSE(g.replay);
}

// `report --control.socket PATH` reads the store the daemon there names in
// its status answer (control/control_handler.cc writes the "store" line). Before,
// report looked only in the default state directory, whichever daemon ran
// the run. tests/integration/run_command_test.sh asks a live daemon.
TEST(RunFlags, ReportTakesTheControlSocket) {
  Flags f;
  ASSERT_OK(Parse({"b", "report", "--control.socket", "/tmp/d/control.sock", "--run", "x"}, &f));
  ASSERT_TRUE(f.control_socket);
  EXPECT_EQ(*f.control_socket, "/tmp/d/control.sock");
}

TEST(RunStoreOfStatus, TheStoreLineOfTheDaemonsAnswer) {
  std::string path;
  ASSERT_OK(RunStoreOfStatus(
      "run\tsweep\tcommand\t1700000000\t4\nverdict\tcpu\tcpu1\t0.90\nstore\t/srv/state/runs.db\n", &path));
  EXPECT_EQ(path, "/srv/state/runs.db");
  Status memory = RunStoreOfStatus("store\t(memory only)\n", &path);
  EXPECT_TRUE(memory.IsNotFound());
  EXPECT_EQ(memory.message(), "it keeps its runs in memory only (no run store)");
  Status none = RunStoreOfStatus("run\tsweep\tcommand\t1\t2\n", &path);
  EXPECT_EQ(none.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(none.message(), "its status answer names no run store (a 'store' line)");
  EXPECT_EQ(RunStoreOfStatus("store\t\n", &path).code(), Status::Code::kInvalidArgument);
}

TEST(DaemonRunStore, NoDaemonIsNamed) {
  testing::TempDir dir;
  std::string path = "unchanged";
  Status s = DaemonRunStore(dir.path() + "/control.sock", &path);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_EQ(s.message(), "no bottleneckd is listening on " + dir.path() + "/control.sock (is the daemon running?)");
  EXPECT_EQ(path, "unchanged");
}

TEST(RunFlags, ReportAndReplayAreAlsoCommands) {
  Flags f;
  ASSERT_OK(Parse({"b", "report", "--run", "trial", "--format", "json"}, &f));
  EXPECT_TRUE(f.report);
  EXPECT_EQ(f.report_run, "trial");
  EXPECT_EQ(f.format, "json");
  EXPECT_EQ(f.command, "");  // the same mode as --report, not a subcommand of its own
  Flags g;
  ASSERT_OK(Parse({"b", "replay", "/tmp/rec"}, &g));
  ASSERT_TRUE(g.replay.has_value());
  EXPECT_EQ(*g.replay, "/tmp/rec");
  EXPECT_FALSE(g.report);
  Flags h;  // with --report: the recording's verdicts
  ASSERT_OK(Parse({"b", "report", "--replay", "/tmp/rec"}, &h));
  EXPECT_TRUE(h.report);
  EXPECT_EQ(*h.replay, "/tmp/rec");
  Flags i;  // only the first word is a command: an operand named report stays one
  EXPECT_FALSE(Parse({"b", "pcap", "report"}, &i).ok() && i.report);
}

TEST(RunFlags, UnknownWordsSuggestTheNearestKnownOne) {
  struct {
    std::vector<const char*> argv;
    const char* msg;
  } cases[] = {
      {{"b", "reprot"}, "unknown command 'reprot': did you mean 'report'?"},
      {{"b", "rn", "--", "true"}, "did you mean 'run'?"},
      {{"b", "--reprot"}, "unknown flag --reprot: did you mean --report?"},
      {{"b", "--path.procf=/x"}, "did you mean --path.procfs?"},
      {{"b", "run", "--nmae", "x", "--", "true"}, "did you mean --name?"},
  };
  for (auto& c : cases) {
    Flags f;
    Status s = Parse(c.argv, &f);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find(c.msg), std::string::npos) << s.message();
  }
  // Nothing near: no suggestion (--nope is two edits from --name, too far for four letters).
  for (std::vector<const char*> argv :
       {std::vector<const char*>{"b", "frobnicate"}, std::vector<const char*>{"b", "run", "--nope", "--", "true"}}) {
    Flags f;
    Status s = Parse(argv, &f);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.message().find("did you mean"), std::string::npos) << s.message();
  }
}

TEST(RunFlags, Errors) {
  struct {
    std::vector<const char*> argv;
    const char* msg;
  } cases[] = {
      {{"b", "run"}, "run needs a command"},
      {{"b", "run", "--name", "x"}, "run needs a command"},
      {{"b", "run", "--name", "", "--", "true"}, "--name needs a run name"},
      {{"b", "--name", "x"}, "--name does not go with the daemon: it is for run"},
      {{"b", "--report", "--last", "0"}, "--last must be a number of runs from 1"},
      {{"b", "--report", "--last", "3x"}, "--last must be a number"},
      {{"b", "--run", "x"}, "--run does not go with the daemon: it is for --report"},
      {{"b", "--report", "--replay", "d", "--run", "x"}, "use them with --report (without --replay"},
      {{"b", "run", "--replay", "d", "--", "true"}, "--replay does not go with run"},
  };
  for (auto& c : cases) {
    Flags f;
    Status s = Parse(c.argv, &f);
    EXPECT_FALSE(s.ok()) << c.msg;
    EXPECT_NE(s.message().find(c.msg), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace bottleneckd::config_runs_test
