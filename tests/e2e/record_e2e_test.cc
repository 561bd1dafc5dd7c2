// End to end: `bottleneckd record` against a fixture tree, then
// `bottleneckd --replay` of what it wrote; a recorder stopped by SIGINT or
// killed keeps a readable recording; bad recordings and bad record
// arguments are one clear line and exit code 2.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::testing::record_e2e_test {
namespace {

std::string FixtureFlags(const TempDir& dir) {
  dir.Write("bottleneckd.yaml", "");
  HostRoots r = FixtureRoots("seed-box");
  return " --config.file=" + dir.path() + "/bottleneckd.yaml --path.procfs=" + r.procfs + " --path.sysfs=" + r.sysfs +
         " --path.ethtool=" + r.ethtool;
}

// A replay reads the recording, not the host: the config file only.
std::string ReplayFlags(const TempDir& dir) {
  dir.Write("bottleneckd.yaml", "");
  return " --config.file=" + dir.path() + "/bottleneckd.yaml";
}

// Runs the binary through the shell; returns its exit code.
int RunBinary(const std::string& args, const std::string& out, const std::string& err) {
  std::string cmd = std::string(BOTTLENECKD_BINARY) + " " + args + " > " + out + " 2> " + err;
  int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

size_t WindowLines(const std::string& stdout_text) {
  size_t n = 0;
  for (const std::string& l : Lines(stdout_text)) n += !l.empty() && l[0] == '+';
  return n;
}

// "samples: N" of a recording.yaml; -1 when unreadable.
int SamplesIn(const std::string& rec) {
  std::ifstream in(rec + "/recording.yaml");
  for (std::string l; std::getline(in, l);)
    if (l.rfind("samples: ", 0) == 0) return std::atoi(l.c_str() + 9);
  return -1;
}

TEST(RecordE2e, RecordsTheFixtureAndReplaysEveryWindow) {
  TempDir dir;
  const std::string rec = dir.path() + "/rec", out = dir.path() + "/out", err = dir.path() + "/err";
  ASSERT_EQ(RunBinary("record --out " + rec + " --duration 2s" + FixtureFlags(dir), out, err), 0) << ReadFileOrDie(err);
  EXPECT_NE(ReadFileOrDie(err).find("3 samples"), std::string::npos) << ReadFileOrDie(err);
  EXPECT_EQ(SamplesIn(rec), 3);  // ticks at 0, 1 and 2 s
  ASSERT_EQ(RunBinary("--replay " + rec + ReplayFlags(dir), out, err), 0) << ReadFileOrDie(err);
  std::string text = ReadFileOrDie(out);
  EXPECT_EQ(WindowLines(text), 2u) << text;
  // The seed box: one CPU; em0 to em2 have bus paths (em0 and em1 on PCI-X, em2 on PCI).
  // Each window line starts with its end's offset from the first sample
  // ("+1.000s"): two windows of the 1 s ticks, in order. The scheduler's
  // jitter moves an offset by a few milliseconds either way ("+0.999s").
  std::vector<double> ends;
  for (const std::string& l : Lines(text))
    if (!l.empty() && l[0] == '+') ends.push_back(std::atof(l.c_str() + 1));
  ASSERT_EQ(ends.size(), 2u) << text;
  EXPECT_GT(ends[0], 0.5) << text;
  EXPECT_GT(ends[1], ends[0] + 0.5) << text;
  EXPECT_NE(text.find("  em0 rx 0/s bus 0.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("  lo rx 0/s"), std::string::npos) << text;
  // Each window as `record` computed it while recording.
  EXPECT_NE(ReadFileOrDie(err).find("2 of 2 windows as recorded"), std::string::npos) << ReadFileOrDie(err);

  // The same directory again: refused, nothing overwritten.
  EXPECT_EQ(RunBinary("record --out " + rec + " --duration 1s" + FixtureFlags(dir), out, err), 2);
  EXPECT_NE(ReadFileOrDie(err).find(rec + " exists and is not empty"), std::string::npos) << ReadFileOrDie(err);
  EXPECT_EQ(SamplesIn(rec), 3);
}

// The path users walk: record this live host while a thread spins, then
// replay it. Every sample holds the /proc tables the live tick read (kept
// descriptors once read around the recorder: samples without proc/, every
// replayed window at 0 % and undetermined), and every window replays to the
// one the recorder computed from its live readings.
TEST(RecordE2e, LiveHostRecordingReplaysToTheWindowsItComputed) {
  TempDir dir;
  dir.Write("bottleneckd.yaml", "");
  const std::string rec = dir.path() + "/rec", out = dir.path() + "/out", err = dir.path() + "/err";
  std::atomic<bool> stop{false};
  std::thread spinner([&] {  // bounded: stopped below, at most 20 s
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    volatile uint64_t x = 0;
    while (!stop.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < end) x = x + 1;
  });
  int rc =
      RunBinary("record --out " + rec + " --duration 3s --config.file=" + dir.path() + "/bottleneckd.yaml", out, err);
  stop = true;
  spinner.join();
  ASSERT_EQ(rc, 0) << ReadFileOrDie(err);
  // 3 s at 1 s: 4 ticks, each a sample unless the recorder said it skipped
  // it (a tick that overran its interval: the profiler's first naming of
  // every process's frames took over a second under ASan at -O0).
  const std::string log = ReadFileOrDie(err);
  int skipped = 0;
  for (size_t at = log.find("skipped="); at != std::string::npos; at = log.find("skipped=", at + 1))
    skipped += std::atoi(log.c_str() + at + 8);
  const int samples = SamplesIn(rec);
  ASSERT_EQ(samples + skipped, 4) << log;
  ASSERT_GE(samples, 3) << log;
  for (const char* table : {"stat", "interrupts", "softirqs", "net/snmp"})
    for (int sample : {0, samples - 1}) {
      char name[16];
      std::snprintf(name, sizeof(name), "%06d", sample);
      EXPECT_TRUE(std::filesystem::is_regular_file(rec + "/samples/" + name + "/proc/" + table))
          << "sample " << name << " lacks proc/" << table;
    }
  // The bytes said are the recording's: what its files hold (it once said
  // "0.0 MB" beside du's 2.1 MB), and what du says it takes.
  uint64_t content = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(rec))
    if (e.is_regular_file() && !e.is_symlink()) content += e.file_size();
  const std::string said = ReadFileOrDie(err);
  const std::string samples_said = std::to_string(samples) + " samples (";
  size_t at = said.find(samples_said);
  ASSERT_NE(at, std::string::npos) << said;
  EXPECT_NEAR(std::atof(said.c_str() + at + samples_said.size()), static_cast<double>(content) / 1e6, 0.0011) << said;
  at = said.find("kernel files, ", at);
  ASSERT_NE(at, std::string::npos) << said;
  std::string du_out = dir.path() + "/du";
  ASSERT_EQ(std::system(("du -s -B1 " + rec + " > " + du_out).c_str()), 0);
  const double du_mb = std::atof(ReadFileOrDie(du_out).c_str()) / 1e6;
  EXPECT_NEAR(std::atof(said.c_str() + at + 14), du_mb, 0.051 + du_mb * 0.01) << said << " du: " << du_mb;

  ASSERT_EQ(RunBinary("--replay " + rec + " --config.file=" + dir.path() + "/bottleneckd.yaml", out, err), 0)
      << ReadFileOrDie(err);
  const std::string text = ReadFileOrDie(out);
  const int windows = samples - 1;
  EXPECT_EQ(WindowLines(text), static_cast<size_t>(windows)) << text;
  EXPECT_NE(
      ReadFileOrDie(err).find(std::to_string(windows) + " of " + std::to_string(windows) + " windows as recorded"),
      std::string::npos)
      << ReadFileOrDie(err);
  // The spinning thread holds a CPU: the busiest CPU of every window is at
  // least half busy (a replay without /proc read 0.0 %).
  for (const std::string& l : Lines(text)) {
    if (l.empty() || l[0] != '+') continue;
    size_t cpu = l.find("busiest cpu");
    ASSERT_NE(cpu, std::string::npos) << l;
    size_t space = l.find(' ', cpu + 11);
    ASSERT_NE(space, std::string::npos) << l;
    EXPECT_GT(std::atof(l.c_str() + space + 1), 50.0) << l;
  }
}

TEST(RecordE2e, BadArgumentsAreOneLineAndExitTwo) {
  TempDir dir;
  const std::string out = dir.path() + "/out", err = dir.path() + "/err";
  struct Case {
    std::string args, error;
  } cases[] = {
      {"record --duration 2s", "record needs --out DIR"},
      {"record --out " + dir.path() + "/r --duration 25h", "--duration must be a duration like 30s"},
      {"record --out " + dir.path() + "/r --duration soon", "--duration must be a duration like 30s"},
      {"--out " + dir.path() + "/r", "--out does not go with the daemon: it is for record"},
      {"--replay " + dir.path() + "/nothing", "--path.procfs does not go with --replay"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RunBinary(c.args + FixtureFlags(dir), out, err), 2) << c.args;
    std::string e = ReadFileOrDie(err);
    EXPECT_NE(e.find(c.error), std::string::npos) << c.args << ": " << e;
    EXPECT_EQ(Lines(e).size(), 1u) << e;
  }
  // A recording that is not there: also one line and 2.
  EXPECT_EQ(RunBinary("--replay " + dir.path() + "/nothing" + ReplayFlags(dir), out, err), 2);
  std::string e = ReadFileOrDie(err);
  EXPECT_NE(e.find(dir.path() + "/nothing/recording.yaml: missing"), std::string::npos) << e;
  EXPECT_EQ(Lines(e).size(), 1u) << e;
}

TEST(RecordE2e, MalformedRecordingNamesTheFile) {
  TempDir dir;
  dir.Write("rec/recording.yaml", "format: bottleneckd-recording\nversion: 1\ninterval_seconds: 1\nsamples: 2\n");
  dir.Write("rec/samples/000000/time", "10 1764500000\n");
  dir.Write("rec/samples/000001/time", "11\n");
  const std::string out = dir.path() + "/out", err = dir.path() + "/err";
  EXPECT_EQ(RunBinary("--replay " + dir.path() + "/rec" + ReplayFlags(dir), out, err), 2);
  std::string e = ReadFileOrDie(err);
  EXPECT_NE(e.find(dir.path() + "/rec/samples/000001/time: expected '<monotonic seconds> <unix seconds>'"),
            std::string::npos)
      << e;
  EXPECT_EQ(Lines(e).size(), 1u) << e;
  EXPECT_EQ(WindowLines(ReadFileOrDie(out)), 0u);
}

// Starts `record --duration 1h` in the background, waits for two samples and
// delivers `sig`; the recording keeps every finished sample.
void StopRecorder(int sig, int want_exit) {
  TempDir dir;
  const std::string rec = dir.path() + "/rec", err = dir.path() + "/err";
  const std::string flags = FixtureFlags(dir);
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDERR_FILENO);
    std::string cmd = "exec " + std::string(BOTTLENECKD_BINARY) + " record --out " + rec + " --duration 1h" + flags;
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(pid, 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (SamplesIn(rec) < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ::kill(pid, sig);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  if (want_exit >= 0) {
    ASSERT_TRUE(WIFEXITED(st)) << ReadFileOrDie(err);
    EXPECT_EQ(WEXITSTATUS(st), want_exit) << ReadFileOrDie(err);
    EXPECT_NE(ReadFileOrDie(err).find("(stopped early)"), std::string::npos) << ReadFileOrDie(err);
  } else {
    EXPECT_TRUE(WIFSIGNALED(st));
  }
  const int samples = SamplesIn(rec);
  ASSERT_GE(samples, 2);
  const std::string out = dir.path() + "/out";
  ASSERT_EQ(RunBinary("--replay " + rec + ReplayFlags(dir), out, err), 0) << ReadFileOrDie(err);
  EXPECT_EQ(WindowLines(ReadFileOrDie(out)), static_cast<size_t>(samples - 1));
}

TEST(RecordE2e, SigintStopsAndKeepsTheSamples) { StopRecorder(SIGINT, 0); }

TEST(RecordE2e, SigkillLosesNothingFinished) { StopRecorder(SIGKILL, -1); }

}  // namespace
}  // namespace bottleneckd::testing::record_e2e_test
