// Tests of the soaker: the CPU list, cpuinfo and calibration-file parsers on
// literal text, the calibration key and its staleness, and the live threads
// (start, read, stop, scheduling policy, hotplug) over a temporary HostFs tree
// whose online list the tests rewrite. Live tests wait for the threads by
// polling with a deadline, never by a fixed sleep.
#include "sources/soaker.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "base/state_file.h"
#include "collectors/host_fs.h"
#include "sources/soaker_internal.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::soaker_test {
namespace {

using testing::TempDir;

struct CpuListCase {
  const char* text;
  bool ok;
  std::vector<int> want;
};

TEST(ParseCpuList, Table) {
  const CpuListCase cases[] = {
      {"0\n", true, {0}},
      {"0-3\n", true, {0, 1, 2, 3}},
      {"0-3,5,7-8\n", true, {0, 1, 2, 3, 5, 7, 8}},
      {"  2,0 \n", true, {0, 2}},       // sorted
      {"0-2,1-3", true, {0, 1, 2, 3}},  // overlap merged
      {"4-4", true, {4}},
      {"65535", true, {65535}},  // kMaxCpuId
      {"65534-65535", true, {65534, 65535}},
      {"", true, {}},  // an empty "offline" file
      {"\n", true, {}},
      {"a", false, {}},
      {"1-", false, {}},
      {"-1", false, {}},
      {"3-1", false, {}},  // reversed
      {"1,,2", false, {}},
      {"1,", false, {}},
      {",1", false, {}},
      {"+1", false, {}},
      {"0x1", false, {}},
      {"1 2", false, {}},
      {"1-2-3", false, {}},
      {"0-15:2/4", false, {}},  // kernel command-line stride syntax
      {"65536", false, {}},     // past kMaxCpuId
      {"0-65536", false, {}},
      {"18446744073709551615", false, {}},  // u64 max
      {"18446744073709551616", false, {}},  // u64 overflow
  };
  for (const CpuListCase& c : cases) {
    SCOPED_TRACE(std::string("'") + c.text + "'");
    std::vector<int> got = {99};
    Status s = ParseCpuList(c.text, &got);
    ASSERT_EQ(s.ok(), c.ok) << s.ToString();
    if (c.ok) {
      EXPECT_EQ(got, c.want);
    } else {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    }
  }
}

TEST(ParseCpuList, RepeatedWholeRangeStaysCheap) {
  std::string text = "0-65535";
  for (int i = 0; i < 2000; ++i) text += ",0-65535";
  std::vector<int> got;
  ASSERT_OK(ParseCpuList(text, &got));
  ASSERT_EQ(got.size(), 65536u);
  EXPECT_EQ(got.front(), 0);
  EXPECT_EQ(got.back(), 65535);
}

TEST(FormatCpuList, Ranges) {
  EXPECT_EQ(FormatCpuList({}), "");
  EXPECT_EQ(FormatCpuList({7}), "7");
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 5}), "0-3,5");
  EXPECT_EQ(FormatCpuList({0, 2, 4, 5}), "0,2,4-5");
  std::vector<int> back;
  ASSERT_OK(ParseCpuList(FormatCpuList({1, 2, 3, 9, 10, 64}), &back));
  EXPECT_EQ(back, (std::vector<int>{1, 2, 3, 9, 10, 64}));
}

TEST(SoakerMode, NamesRoundTrip) {
  SoakerMode m = SoakerMode::kOff;
  ASSERT_TRUE(ParseSoakerMode("always", &m));
  EXPECT_EQ(m, SoakerMode::kAlways);
  ASSERT_TRUE(ParseSoakerMode("runs", &m));
  EXPECT_EQ(m, SoakerMode::kRuns);
  ASSERT_TRUE(ParseSoakerMode("off", &m));
  EXPECT_EQ(m, SoakerMode::kOff);
  EXPECT_FALSE(ParseSoakerMode("Always", &m));
  EXPECT_FALSE(ParseSoakerMode("", &m));
  EXPECT_EQ(m, SoakerMode::kOff);  // untouched on failure
  EXPECT_STREQ(SoakerModeName(SoakerMode::kRuns), "runs");
}

TEST(ParseCpuinfoModel, Architectures) {
  // x86: "cpu MHz", "cpu family" and "cpu cores" are not the POWER "cpu" key.
  EXPECT_EQ(ParseCpuinfoModel("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
                              "model\t\t: 1\nmodel name\t: AMD EPYC 7B13 \ncpu MHz\t\t: 2450.000\n"
                              "\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n"),
            "AMD EPYC 7B13");
  EXPECT_EQ(ParseCpuinfoModel("processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\n"),
            "POWER9 (raw), altivec supported");
  EXPECT_EQ(ParseCpuinfoModel("processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"), "0xd0c");
  EXPECT_EQ(ParseCpuinfoModel("system type\t\t: MT7621\ncpu model\t\t: MIPS 1004Kc V2.15\n"), "MIPS 1004Kc V2.15");
  // "model name" wins over a "cpu" line seen first.
  EXPECT_EQ(ParseCpuinfoModel("cpu\t: other\nmodel name\t: first\nmodel name\t: second\n"), "first");
  EXPECT_EQ(ParseCpuinfoModel("processor : 0\nflags : fpu\n"), "");
  EXPECT_EQ(ParseCpuinfoModel(""), "");
}

constexpr const char* kCalibrationText =
    "# a comment\n"
    "format 1\n"
    "cpu_model AMD EPYC 7B13\n"
    "\n"
    "freq_driver acpi-cpufreq\n"
    "freq_governor performance\n"
    "future_key something new\n"
    "loop_version 1\n"
    "cpu 1 2087512.25 1732960000\n"
    "cpu 0 1999999.5 1732960001 extra-column\n";

TEST(ParseSoakerCalibration, Valid) {
  SoakerCalibrationFile f;
  Status s = ParseSoakerCalibration(kCalibrationText, &f);
  ASSERT_OK(s);
  EXPECT_EQ(f.key.cpu_model, "AMD EPYC 7B13");
  EXPECT_EQ(f.key.freq_driver, "acpi-cpufreq");
  EXPECT_EQ(f.key.freq_governor, "performance");
  EXPECT_EQ(f.key.loop_version, 1);
  EXPECT_EQ(f.key.percentile, 95);  // no percentile line: written before it existed, at the 95th
  ASSERT_EQ(f.cpus.size(), 2u);     // sorted by cpu
  EXPECT_EQ(f.cpus[0].cpu, 0);
  EXPECT_EQ(f.cpus[0].iterations_per_second, 1999999.5);
  EXPECT_EQ(f.cpus[0].measured_unix_seconds, 1732960001);
  EXPECT_EQ(f.cpus[1].cpu, 1);
  EXPECT_EQ(f.cpus[1].iterations_per_second, 2087512.25);
  EXPECT_EQ(f.cpus[1].measured_unix_seconds, 1732960000);
}

TEST(ParseSoakerCalibration, EmptyDriverAndCrLf) {
  SoakerCalibrationFile f;
  Status s = ParseSoakerCalibration(
      "format 1\r\ncpu_model Test CPU\r\nfreq_driver\r\nfreq_governor \r\nloop_version 7\r\n"
      "cpu 3 10 0\r\n",
      &f);
  ASSERT_OK(s);
  EXPECT_EQ(f.key.cpu_model, "Test CPU");
  EXPECT_EQ(f.key.freq_driver, "");
  EXPECT_EQ(f.key.freq_governor, "");
  EXPECT_EQ(f.key.loop_version, 7);
  EXPECT_EQ(f.key.percentile, 95);
  ASSERT_EQ(f.cpus.size(), 1u);
  EXPECT_EQ(f.cpus[0].cpu, 3);
  EXPECT_EQ(f.cpus[0].iterations_per_second, 10.0);
}

TEST(ParseSoakerCalibration, Malformed) {
  const std::string head = "format 1\ncpu_model M\nloop_version 1\n";  // lines 1-3
  struct Case {
    std::string text;
    std::string message;  // expected substring
  } cases[] = {
      {"", "no format line"},
      {"# only a comment\n\n", "no format line"},
      {"cpu_model M\nformat 1\n", "line 1: expected 'format 1'"},
      {"\nformat 2\n", "line 2: unsupported format '2'"},
      {"format\n", "line 1: unsupported format ''"},
      {head + "cpu x 1 0\n", "line 4: bad cpu id 'x'"},
      {head + "cpu -1 1 0\n", "line 4: bad cpu id '-1'"},
      {head + "cpu 65536 1 0\n", "line 4: bad cpu id '65536'"},
      {head + "cpu 0 abc 0\n", "line 4: bad rate 'abc'"},
      {head + "cpu 0 0 0\n", "line 4: bad rate '0'"},
      {head + "cpu 0 -5 0\n", "line 4: bad rate '-5'"},
      {head + "cpu 0 inf 0\n", "line 4: bad rate 'inf'"},
      {head + "cpu 0 nan 0\n", "line 4: bad rate 'nan'"},
      {head + "cpu 0 1\n", "line 4: bad time ''"},
      {head + "cpu 0 1 9223372036854775808\n", "line 4: bad time"},  // i64 overflow
      {head + "cpu 0\n", "line 4: bad rate ''"},
      {head + "cpu 0 1 0\ncpu 0 2 0\n", "line 5: duplicate cpu 0"},
      {head + "cpu_model N\n", "line 4: duplicate cpu_model"},
      {"format 1\ncpu_model M\nloop_version 2147483648\n", "line 3: bad loop_version"},
      {"format 1\ncpu_model M\nloop_version one\n", "line 3: bad loop_version 'one'"},
      {"format 1\nloop_version 1\ncpu 0 1 0\n", "missing cpu_model"},
      {"format 1\ncpu_model M\ncpu 0 1 0\n", "missing loop_version"},
      {head, "no cpu line"},
      {head + "percentile 0\ncpu 0 1 0\n", "line 4: bad percentile '0' (1-99)"},
      {head + "percentile 100\ncpu 0 1 0\n", "line 4: bad percentile '100'"},
      {head + "percentile fifty\ncpu 0 1 0\n", "line 4: bad percentile 'fifty'"},
      {head + "percentile 50\npercentile 50\ncpu 0 1 0\n", "line 5: duplicate percentile"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    SoakerCalibrationFile f;
    Status s = ParseSoakerCalibration(c.text, &f);
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.message().find(c.message), std::string::npos) << s.message();
  }
}

TEST(FormatSoakerCalibration, WrittenForm) {
  SoakerCalibrationFile f;
  f.key.cpu_model = "AMD EPYC\n7B13 ";  // a newline would break the line format
  f.key.freq_driver = "";
  f.key.freq_governor = "schedutil";
  f.key.loop_version = 1;
  f.key.percentile = 50;
  f.cpus = {{0, 2087512.25, 1732960000}, {2, 0.1, -5}};
  f.cpus[1].disturbed = true;
  EXPECT_EQ(FormatSoakerCalibration(f),
            "# bottleneckd soaker calibration: work units per second of thread CPU time, per CPU.\n"
            "# Redone when the cpu model, frequency driver/governor, loop version or percentile\n"
            "# changes, or when older than soaker.calibration_max_age.\n"
            "format 1\n"
            "cpu_model AMD EPYC 7B13\n"
            "freq_driver \n"
            "freq_governor schedutil\n"
            "loop_version 1\n"
            "percentile 50\n"
            "# cpu <id> <units per cpu-second> <measured, unix seconds> [disturbed]\n"
            "cpu 0 2087512.25 1732960000\n"
            "cpu 2 0.1 -5 disturbed\n");
}

TEST(FormatSoakerCalibration, RoundTrip) {
  SoakerCalibrationFile f;
  ASSERT_OK(ParseSoakerCalibration(kCalibrationText, &f));
  f.cpus[0].iterations_per_second = 1.0 / 3.0;  // needs all 17 digits
  f.key.percentile = 62;
  SoakerCalibrationFile g;
  Status s = ParseSoakerCalibration(FormatSoakerCalibration(f), &g);
  ASSERT_OK(s);
  EXPECT_EQ(g.key, f.key);
  ASSERT_EQ(g.cpus.size(), f.cpus.size());
  for (size_t i = 0; i < f.cpus.size(); ++i) {
    EXPECT_EQ(g.cpus[i].cpu, f.cpus[i].cpu);
    EXPECT_EQ(g.cpus[i].iterations_per_second, f.cpus[i].iterations_per_second);
    EXPECT_EQ(g.cpus[i].measured_unix_seconds, f.cpus[i].measured_unix_seconds);
  }
}

TEST(SoakerCalibrationFiles, StoreLoadAndErrors) {
  TempDir dir;
  SoakerCalibrationFile f, g;
  ASSERT_OK(ParseSoakerCalibration(kCalibrationText, &f));
  std::string state = dir.path() + "/a/b";  // created
  ASSERT_OK(StoreSoakerCalibration(state, f));
  EXPECT_EQ(SoakerCalibrationPath(state), state + "/soaker-calibration");
  ASSERT_OK(LoadSoakerCalibration(SoakerCalibrationPath(state), &g));
  EXPECT_EQ(g.key, f.key);
  EXPECT_EQ(g.cpus.size(), 2u);
  EXPECT_TRUE(LoadSoakerCalibration(dir.path() + "/none", &g).IsNotFound());
  dir.Write("bad", "format 1\ncpu_model M\nloop_version 1\ncpu 0 x 0\n");
  Status s = LoadSoakerCalibration(dir.path() + "/bad", &g);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find(dir.path() + "/bad: line 4"), std::string::npos) << s.message();
  // A state directory that cannot be created (a path through a regular file).
  dir.Write("file", "x");
  EXPECT_FALSE(StoreSoakerCalibration(dir.path() + "/file/state", f).ok());
}

TEST(SoakerCalibrationKey, FromHostTree) {
  TempDir root;
  HostFs fs(HostRoots{root.path() + "/proc", root.path() + "/sys", ""});
  SoakerCalibrationKey key;
  EXPECT_TRUE(ReadSoakerCalibrationKey(fs, 0, &key).IsNotFound());  // no cpuinfo
  root.Write("proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: fpu vme sse2\n");
  ASSERT_OK(ReadSoakerCalibrationKey(fs, 0, &key));
  EXPECT_EQ(key.cpu_model, "Test CPU 9000");
  EXPECT_EQ(key.freq_driver, "");  // no cpufreq, as in a VM
  EXPECT_EQ(key.freq_governor, "");
  EXPECT_EQ(key.loop_version, kSoakerLoopVersion);
  EXPECT_EQ(key.percentile, 95);  // auto, no hypervisor flag
  ASSERT_OK(ReadSoakerCalibrationKey(fs, 75, &key));
  EXPECT_EQ(key.percentile, 75);  // configured
  root.Write("proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: fpu hypervisor lahf_lm\n");
  ASSERT_OK(ReadSoakerCalibrationKey(fs, 0, &key));
  EXPECT_EQ(key.percentile, 50);  // auto under a hypervisor
  ASSERT_OK(ReadSoakerCalibrationKey(fs, 90, &key));
  EXPECT_EQ(key.percentile, 90);
  root.Write("sys/devices/system/cpu/cpufreq/policy0/scaling_driver", "intel_pstate\n");
  root.Write("sys/devices/system/cpu/cpufreq/policy0/scaling_governor", "powersave\n");
  ASSERT_OK(ReadSoakerCalibrationKey(fs, 0, &key));
  EXPECT_EQ(key.freq_driver, "intel_pstate");
  EXPECT_EQ(key.freq_governor, "powersave");
}

TEST(ParseCpuinfoHypervisor, Flags) {
  // Excerpts of x86 guests and hosts (this development VM's flags line has
  // "... avx2 ... hypervisor lahf_lm ..."), and other architectures.
  EXPECT_TRUE(ParseCpuinfoHypervisor("processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n"));
  EXPECT_TRUE(ParseCpuinfoHypervisor("flags : hypervisor\n"));
  EXPECT_FALSE(ParseCpuinfoHypervisor("processor\t: 0\nflags\t\t: fpu vme de pse tsc msr\n"));
  EXPECT_FALSE(ParseCpuinfoHypervisor("flags\t\t: fpu not_hypervisor hypervisorx\n"));  // whole words only
  EXPECT_FALSE(ParseCpuinfoHypervisor("vmx flags\t: vnmi hypervisor\n"));               // not the "flags" line
  // The first CPU's line decides.
  EXPECT_FALSE(ParseCpuinfoHypervisor("flags\t: fpu\n\nflags\t: fpu hypervisor\n"));
  EXPECT_FALSE(ParseCpuinfoHypervisor("processor\t: 0\nCPU part\t: 0xd0c\nFeatures\t: fp asimd\n"));  // Arm
  EXPECT_FALSE(ParseCpuinfoHypervisor(""));
  EXPECT_FALSE(ParseCpuinfoHypervisor("flags"));
}

TEST(SoakerCalibrationPercentile, AutoAndConfigured) {
  EXPECT_EQ(SoakerCalibrationPercentile(0, false), kSoakerBareMetalPercentile);
  EXPECT_EQ(SoakerCalibrationPercentile(0, true), kSoakerVmPercentile);
  EXPECT_EQ(SoakerCalibrationPercentile(1, true), 1);
  EXPECT_EQ(SoakerCalibrationPercentile(99, false), 99);
  EXPECT_EQ(SoakerCalibrationPercentile(100, false), kSoakerBareMetalPercentile);  // out of range: auto
  EXPECT_EQ(SoakerCalibrationPercentile(-3, true), kSoakerVmPercentile);
}

TEST(SoakerCalibrationUsable, KeyAndCoverage) {
  SoakerCalibrationFile f;
  f.key = {"M", "d", "g", kSoakerLoopVersion};
  f.cpus = {{0, 5, 0}, {1, 6, 0}, {3, 7, 0}};
  SoakerCalibrationKey key = f.key;
  EXPECT_TRUE(SoakerCalibrationUsable(f, key, {0, 1, 3}, 0, 0));
  EXPECT_TRUE(SoakerCalibrationUsable(f, key, {1}, 0, 0));
  EXPECT_FALSE(SoakerCalibrationUsable(f, key, {0, 2}, 0, 0));  // cpu 2 never measured
  key.cpu_model = "N";
  EXPECT_FALSE(SoakerCalibrationUsable(f, key, {0}, 0, 0));
  key = f.key;
  key.freq_governor = "performance";
  EXPECT_FALSE(SoakerCalibrationUsable(f, key, {0}, 0, 0));
  key = f.key;
  key.freq_driver = "";
  EXPECT_FALSE(SoakerCalibrationUsable(f, key, {0}, 0, 0));
  key = f.key;
  key.loop_version = kSoakerLoopVersion + 1;
  EXPECT_FALSE(SoakerCalibrationUsable(f, key, {0}, 0, 0));
  key = f.key;
  key.percentile = 50;  // measured at the 95th, wanted at the median
  EXPECT_FALSE(SoakerCalibrationUsable(f, key, {0}, 0, 0));
}

// A calibration judged disturbed: by its thread's share of the time (it
// queued behind other work) or by its rate against the median of the CPUs
// calibrated with it (a busy box stored cpu1 at 1.59 M beside cpu0's 2.64 M
// iterations/s; 2.62 M both when quiet).
TEST(JudgeCalibrations, QueuedOrFarBelowTheOthersIsDisturbed) {
  std::vector<SoakerCalibration> busy = {{0, 2.64e6, 0}, {1, 1.59e6, 0}};
  JudgeCalibrations({0.99, 0.98}, &busy);
  EXPECT_FALSE(busy[0].disturbed);
  EXPECT_TRUE(busy[1].disturbed);
  EXPECT_EQ(busy[1].disturbed_why, "60 % of the median rate of the CPUs calibrated with it");
  std::vector<SoakerCalibration> queued = {{0, 2.62e6, 0}, {1, 2.62e6, 0}};
  JudgeCalibrations({0.97, 0.61}, &queued);
  EXPECT_FALSE(queued[0].disturbed);
  EXPECT_TRUE(queued[1].disturbed);
  EXPECT_EQ(queued[1].disturbed_why, "its thread ran 61 % of the time (queued behind other work)");
  std::vector<SoakerCalibration> quiet = {{0, 2.62e6, 0}, {1, 2.60e6, 0}};
  JudgeCalibrations({0.99, 0.99}, &quiet);
  EXPECT_FALSE(quiet[0].disturbed || quiet[1].disturbed);
}

// A disturbed calibration is stored with its mark and read back; a soaker
// starting during a run uses it (StoredCalibrationUsable, what the daemon's
// start asks, says measure again: SoakerLive.ADisturbedCalibrationIsRedoneAtStart).
TEST(SoakerCalibrationUsable, ADisturbedCalibrationIsKeptWithItsMark) {
  SoakerCalibrationFile f;
  f.key = {"M", "d", "g", kSoakerLoopVersion};
  f.cpus = {{0, 5, 0}, {1, 6, 0}};
  f.cpus[1].disturbed = true;
  SoakerCalibrationFile back;
  ASSERT_OK(ParseSoakerCalibration(FormatSoakerCalibration(f), &back));
  ASSERT_EQ(back.cpus.size(), 2u);
  EXPECT_FALSE(back.cpus[0].disturbed);
  EXPECT_TRUE(back.cpus[1].disturbed);
  EXPECT_TRUE(SoakerCalibrationUsable(back, f.key, {0, 1}, 0, 0));
}

TEST(SoakerCalibrationUsable, MaxAge) {
  SoakerCalibrationFile f;
  f.key = {"M", "", "", kSoakerLoopVersion};
  f.cpus = {{0, 5, 1'000'000}, {1, 6, 1'000'000 - 7200}};
  const int64_t now = 1'000'000 + 60;
  EXPECT_TRUE(SoakerCalibrationUsable(f, f.key, {0}, now, 3600));   // 60 s old
  EXPECT_FALSE(SoakerCalibrationUsable(f, f.key, {1}, now, 3600));  // cpu 1: 7260 s old
  EXPECT_FALSE(SoakerCalibrationUsable(f, f.key, {0, 1}, now, 3600));
  EXPECT_TRUE(SoakerCalibrationUsable(f, f.key, {0, 1}, now, 7260));  // at the limit
  EXPECT_FALSE(SoakerCalibrationUsable(f, f.key, {0}, now, 59));
  EXPECT_TRUE(SoakerCalibrationUsable(f, f.key, {0, 1}, now, 0));  // no age limit
  EXPECT_TRUE(SoakerCalibrationUsable(f, f.key, {0, 1}, now, -1));
  // Measured "in the future": the clock was set back; beyond the limit it is stale.
  EXPECT_TRUE(SoakerCalibrationUsable(f, f.key, {0}, 1'000'000 - 100, 3600));
  EXPECT_FALSE(SoakerCalibrationUsable(f, f.key, {0}, 1'000'000 - 4000, 3600));
  // Timestamps at the ends of int64 do not overflow the age.
  f.cpus = {{0, 5, INT64_MIN}};
  EXPECT_FALSE(SoakerCalibrationUsable(f, f.key, {0}, INT64_MAX, 3600));
  EXPECT_TRUE(SoakerCalibrationUsable(f, f.key, {0}, INT64_MAX, 0));
}

// --- Live threads over a temporary HostFs tree (real CPUs, fake online list) ---

// The first CPUs this thread may run on.
std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) out.push_back(c);
  }
  return out;
}

// This process's threads, read through a live HostFs (the project's one door).
std::vector<pid_t> Tasks() {
  HostFs live{HostRoots{}};
  std::vector<std::string> names;
  std::vector<pid_t> out;
  if (!live.ListProc("self/task", &names).ok()) return out;
  for (const std::string& n : names) out.push_back(static_cast<pid_t>(std::stol(n)));
  return out;
}

// The threads that run at `policy`, with the one CPU each is pinned to.
std::vector<std::pair<pid_t, int>> PinnedTasks(int policy) {
  std::vector<std::pair<pid_t, int>> out;
  for (pid_t tid : Tasks()) {
    if (sched_getscheduler(tid) != policy) continue;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(tid, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1) continue;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) out.emplace_back(tid, c);
    }
  }
  return out;
}

// Polls `done` every 10 ms for up to 20 s (a SCHED_IDLE thread on a loaded
// CPU may wait a while for its turn).
template <typename F>
bool Eventually(F done) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

std::vector<int> CpusOf(const SoakerReading& r) {
  std::vector<int> out;
  for (const SoakerCpu& c : r.cpus) out.push_back(c.cpu);
  return out;
}

const SoakerCpu* Find(const SoakerReading& r, int cpu) {
  for (const SoakerCpu& c : r.cpus) {
    if (c.cpu == cpu) return &c;
  }
  return nullptr;
}

class SoakerLive : public ::testing::Test {
 protected:
  SoakerLive() : fs_(HostRoots{root_.path() + "/proc", root_.path() + "/sys", ""}) {}

  void SetUp() override {
    std::vector<int> cpus = AllowedCpus();
    ASSERT_GE(cpus.size(), 2u) << "the live soaker tests need two CPUs";
    a_ = cpus[0];
    b_ = cpus[1];
    SetModel("Test CPU 9000");
    SetOnline({a_, b_});
    // A sanitizer runtime starts its helper thread at the first thread creation:
    // have that happen before the baseline is counted.
    std::thread([] {}).join();
    base_tasks_ = Tasks().size();
  }

  void SetModel(const std::string& model) {
    root_.Write("proc/cpuinfo", "processor\t: 0\nmodel name\t: " + model + "\n\n");
  }
  void SetOnline(const std::vector<int>& cpus) {
    root_.Write("sys/devices/system/cpu/online", FormatCpuList(cpus) + "\n");
  }
  SoakerOptions Options() const {
    SoakerOptions o;
    o.mode = SoakerMode::kAlways;
    o.state_dir = state_.path();
    o.calibration_seconds = 0.1;
    o.calibration_max_age_seconds = 0;  // the files written below are from 2023
    o.hotplug_check_seconds = 0;
    return o;
  }
  SoakerCalibrationFile Stored() const {
    SoakerCalibrationFile f;
    Status s = LoadSoakerCalibration(SoakerCalibrationPath(state_.path()), &f);
    EXPECT_OK(s);
    return f;
  }
  // A calibration file for a_ and b_ at 12345 units/s with the given key lines,
  // measured at `measured` (Unix seconds).
  void WriteCalibration(const std::string& model, int loop_version, bool both = true, int64_t measured = 1700000000) {
    const std::string when = " 12345 " + std::to_string(measured) + "\n";
    std::string text = "format 1\ncpu_model " + model + "\nfreq_driver\nfreq_governor\nloop_version " +
                       std::to_string(loop_version) + "\ncpu " + std::to_string(a_) + when;
    if (both) text += "cpu " + std::to_string(b_) + when;
    state_.Write("soaker-calibration", text);
  }

  TempDir root_, state_;
  HostFs fs_;
  int a_ = -1, b_ = -1;
  size_t base_tasks_ = 0;
};

TEST_F(SoakerLive, StartReadStop) {
  Soaker soaker(&fs_, Options());
  EXPECT_FALSE(soaker.running());
  Status s = soaker.Start();
  ASSERT_OK(s);
  EXPECT_TRUE(soaker.running());
  // Calibration threads are gone. A joined thread can linger in
  // /proc/self/task for a moment (the kernel reaps it just after the join
  // returns), so every count after a join is awaited (bounded).
  EXPECT_TRUE(Eventually([&] { return Tasks().size() == base_tasks_ + 2; })) << Tasks().size();

  // Calibrated and stored with this host's key.
  SoakerCalibrationFile f = Stored();
  EXPECT_EQ(f.key.cpu_model, "Test CPU 9000");
  EXPECT_EQ(f.key.freq_driver, "");
  EXPECT_EQ(f.key.loop_version, kSoakerLoopVersion);
  ASSERT_EQ(f.cpus.size(), 2u);
  for (const SoakerCalibration& c : f.cpus) {
    // 256 dependent xorshift steps a unit: far from 1e4 and 1e9 per second on any CPU.
    EXPECT_GT(c.iterations_per_second, 1e4);
    EXPECT_LT(c.iterations_per_second, 1e9);
  }

  SoakerReading r1, r2;
  soaker.Read(&r1);
  ASSERT_EQ(CpusOf(r1), (std::vector<int>{a_, b_}));
  EXPECT_NE(r1.cpus[0].generation, r1.cpus[1].generation);
  EXPECT_EQ(r1.cpus[0].iterations_per_second, f.cpus[0].iterations_per_second);
  EXPECT_FALSE(r1.cpus[0].calibration_borrowed);
  EXPECT_EQ(r1.calibration_unix_seconds, f.cpus[0].measured_unix_seconds);
  EXPECT_GT(r1.mono_ns, 0);

  // Each thread runs pinned at SCHED_IDLE (or, where refused, at nice 19 and says so).
  if (r1.sched_idle) {
    auto pinned = PinnedTasks(SCHED_IDLE);
    ASSERT_EQ(pinned.size(), 2u);
    EXPECT_EQ(pinned[0].second + pinned[1].second, a_ + b_);
    EXPECT_NE(pinned[0].second, pinned[1].second);
    // No nice-19 caveat; one of a disturbed calibration may stand (this
    // suite runs beside others: JudgeCalibrations).
    EXPECT_EQ(r1.caveat.find("nice 19"), std::string::npos) << r1.caveat;
    EXPECT_TRUE(r1.caveat.empty() || r1.caveat.find("calibration disturbed") != std::string::npos) << r1.caveat;
  } else {
    EXPECT_NE(r1.caveat.find("nice 19"), std::string::npos) << r1.caveat;
  }

  ASSERT_TRUE(Eventually([&] {
    soaker.Read(&r2);
    return r2.cpus.size() == 2 && r2.cpus[0].iterations > r1.cpus[0].iterations &&
           r2.cpus[1].iterations > r1.cpus[1].iterations && r2.cpus[0].thread_cpu_ns > r1.cpus[0].thread_cpu_ns &&
           r2.cpus[1].thread_cpu_ns > r1.cpus[1].thread_cpu_ns;
  }));
  EXPECT_GT(r2.mono_ns, r1.mono_ns);
  EXPECT_EQ(r2.cpus[0].generation, r1.cpus[0].generation);

  ASSERT_OK(soaker.Start());  // idempotent
  EXPECT_EQ(Tasks().size(), base_tasks_ + 2);
  soaker.Stop();
  EXPECT_FALSE(soaker.running());
  EXPECT_TRUE(Eventually([&] { return Tasks().size() == base_tasks_; })) << Tasks().size();
  soaker.Read(&r2);
  EXPECT_FALSE(r2.running);
  for (const SoakerCpu& c : r2.cpus) {  // only what its start's calibration spent
    EXPECT_EQ(c.generation, 0u);
    EXPECT_EQ(c.iterations, 0u);
    EXPECT_GT(c.calibration_cpu_ns, 0u);
  }
  soaker.Stop();  // idempotent
}

TEST_F(SoakerLive, ModeOffStartsNothing) {
  SoakerOptions o = Options();
  o.mode = SoakerMode::kOff;
  Soaker soaker(&fs_, o);
  ASSERT_OK(soaker.Start());
  EXPECT_FALSE(soaker.running());
  EXPECT_EQ(Tasks().size(), base_tasks_);
  SoakerCalibrationFile f;
  EXPECT_TRUE(LoadSoakerCalibration(SoakerCalibrationPath(state_.path()), &f).IsNotFound());
}

TEST_F(SoakerLive, Nice19WhenSchedIdleIsOff) {
  SoakerOptions o = Options();
  o.sched_idle = false;
  Soaker soaker(&fs_, o);
  ASSERT_OK(soaker.Start());
  SoakerReading r;
  soaker.Read(&r);
  EXPECT_FALSE(r.sched_idle);
  EXPECT_NE(r.caveat.find("SCHED_IDLE disabled in the configuration"), std::string::npos) << r.caveat;
  EXPECT_NE(r.caveat.find("nice 19"), std::string::npos);
  auto pinned = PinnedTasks(SCHED_OTHER);
  ASSERT_EQ(pinned.size(), 2u);
  for (auto [tid, cpu] : pinned) {
    errno = 0;
    EXPECT_EQ(getpriority(PRIO_PROCESS, static_cast<id_t>(tid)), 19) << "cpu " << cpu;
  }
  EXPECT_TRUE(PinnedTasks(SCHED_IDLE).empty());
}

TEST_F(SoakerLive, StoredCalibrationIsUsedWhenItsKeyMatches) {
  WriteCalibration("Test CPU 9000", kSoakerLoopVersion);
  Soaker soaker(&fs_, Options());
  ASSERT_OK(soaker.Start());
  SoakerReading r;
  soaker.Read(&r);
  ASSERT_EQ(r.cpus.size(), 2u);
  for (const SoakerCpu& c : r.cpus) {
    EXPECT_EQ(c.iterations_per_second, 12345.0);
    EXPECT_EQ(c.calibrated_unix_seconds, 1700000000);
  }
  EXPECT_EQ(r.calibration_unix_seconds, 1700000000);
}

TEST_F(SoakerLive, StaleCalibrationIsRedone) {
  struct Case {
    const char* name;
    std::string file_model;
    int file_loop_version;
    bool file_has_both_cpus;
    const char* governor;  // nullptr: no cpufreq
    int percentile = 0;    // soaker.calibration_percentile (0: auto, 95 here: no hypervisor flag)
  } cases[] = {
      {"cpu model changed", "Old CPU 8000", kSoakerLoopVersion, true, nullptr},
      {"loop version changed", "Test CPU 9000", kSoakerLoopVersion - 1, true, nullptr},
      {"a cpu never calibrated", "Test CPU 9000", kSoakerLoopVersion, false, nullptr},
      // Before "governor appeared": the governor file stays for later cases.
      {"percentile changed", "Test CPU 9000", kSoakerLoopVersion, true, nullptr, 60},
      {"governor appeared", "Test CPU 9000", kSoakerLoopVersion, true, "performance"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    WriteCalibration(c.file_model, c.file_loop_version, c.file_has_both_cpus);
    if (c.governor)
      root_.Write("sys/devices/system/cpu/cpufreq/policy0/scaling_governor", std::string(c.governor) + "\n");
    SoakerOptions o = Options();
    o.calibration_percentile = c.percentile;
    Soaker soaker(&fs_, o);
    ASSERT_OK(soaker.Start());
    SoakerReading r;
    soaker.Read(&r);
    ASSERT_EQ(r.cpus.size(), 2u);
    for (const SoakerCpu& cpu : r.cpus) EXPECT_NE(cpu.iterations_per_second, 12345.0);
    soaker.Stop();
    SoakerCalibrationFile f = Stored();
    EXPECT_EQ(f.key.cpu_model, "Test CPU 9000");
    EXPECT_EQ(f.key.loop_version, kSoakerLoopVersion);
    EXPECT_EQ(f.key.freq_governor, c.governor ? c.governor : "");
    EXPECT_EQ(f.key.percentile, c.percentile ? c.percentile : 95);
    ASSERT_EQ(f.cpus.size(), 2u);
    EXPECT_NE(f.cpus[0].iterations_per_second, 12345.0);
  }
}

// soaker.calibration_max_age: an old calibration is measured again at Start(),
// a recent one is used as stored.
TEST_F(SoakerLive, CalibrationOlderThanMaxAgeIsRedone) {
  SoakerOptions o = Options();
  o.calibration_max_age_seconds = 3600;
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  // Starts a soaker over a stored calibration measured at `measured` and
  // returns its first reading (both CPUs).
  auto start_over = [&](int64_t measured) {
    WriteCalibration("Test CPU 9000", kSoakerLoopVersion, true, measured);
    Soaker soaker(&fs_, o);
    SoakerReading r;
    EXPECT_OK(soaker.Start());
    soaker.Read(&r);
    EXPECT_EQ(r.cpus.size(), 2u);
    return r;
  };
  for (const SoakerCpu& c : start_over(now - 7200).cpus) {  // two hours old: measured again
    EXPECT_NE(c.iterations_per_second, 12345.0);
    EXPECT_GE(c.calibrated_unix_seconds, now);
  }
  SoakerCalibrationFile f = Stored();
  ASSERT_EQ(f.cpus.size(), 2u);
  EXPECT_GE(f.cpus[0].measured_unix_seconds, now);
  for (const SoakerCpu& c : start_over(now - 60).cpus) {  // a minute old: used as stored
    EXPECT_EQ(c.iterations_per_second, 12345.0);
    EXPECT_EQ(c.calibrated_unix_seconds, now - 60);
  }
}

// StoredCalibrationUsable (what Daemon::PrepareSoaker asks before a run)
// answers by the rule Start() loads by: these are the cases above.
TEST_F(SoakerLive, StoredCalibrationUsableFollowsStartsRule) {
  SoakerOptions o = Options();
  o.calibration_max_age_seconds = 3600;
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  EXPECT_FALSE(Soaker(&fs_, o).StoredCalibrationUsable()) << "nothing stored";
  WriteCalibration("Test CPU 9000", kSoakerLoopVersion, true, now - 60);
  EXPECT_TRUE(Soaker(&fs_, o).StoredCalibrationUsable()) << "same key, both CPUs, a minute old";
  WriteCalibration("Test CPU 9000", kSoakerLoopVersion, true, now - 7200);
  EXPECT_FALSE(Soaker(&fs_, o).StoredCalibrationUsable()) << "older than calibration_max_age";
  WriteCalibration("Old CPU 8000", kSoakerLoopVersion, true, now - 60);
  EXPECT_FALSE(Soaker(&fs_, o).StoredCalibrationUsable()) << "another CPU model";
  WriteCalibration("Test CPU 9000", kSoakerLoopVersion, false, now - 60);
  EXPECT_FALSE(Soaker(&fs_, o).StoredCalibrationUsable()) << "a CPU never calibrated";
  // And Start() agrees: the usable file is loaded, not measured again.
  WriteCalibration("Test CPU 9000", kSoakerLoopVersion, true, now - 60);
  Soaker soaker(&fs_, o);
  ASSERT_TRUE(soaker.StoredCalibrationUsable());
  ASSERT_OK(soaker.Start());
  SoakerReading r;
  soaker.Read(&r);
  ASSERT_EQ(r.cpus.size(), 2u);
  for (const SoakerCpu& c : r.cpus) EXPECT_EQ(c.iterations_per_second, 12345.0);
}

// A stored calibration with a disturbed CPU: the daemon's start measures it
// again (StoredCalibrationUsable false), but a soaker that starts during a
// run uses it as stored and says so (measuring there blocked the run's ticks
// for seconds and measured the run's own load: profile_test lost its run's
// windows that way).
TEST_F(SoakerLive, ADisturbedCalibrationIsRedoneAtStartAndUsedInARun) {
  SoakerOptions o = Options();
  o.calibration_max_age_seconds = 3600;
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  WriteCalibration("Test CPU 9000", kSoakerLoopVersion, true, now - 60);
  std::string text;
  ASSERT_OK(ReadStateFile(SoakerCalibrationPath(state_.path()), 1 << 16, &text));
  text.insert(text.size() - 1, " disturbed");  // the last CPU's line
  state_.Write("soaker-calibration", text);
  Soaker soaker(&fs_, o);
  EXPECT_FALSE(soaker.StoredCalibrationUsable());
  ASSERT_OK(soaker.Start());
  SoakerReading r;
  soaker.Read(&r);
  ASSERT_EQ(r.cpus.size(), 2u);
  for (const SoakerCpu& c : r.cpus) EXPECT_EQ(c.iterations_per_second, 12345.0) << "used as stored";
  EXPECT_NE(r.caveat.find("was disturbed"), std::string::npos) << r.caveat;
}

TEST_F(SoakerLive, UnwritableStateDirKeepsTheCalibrationInMemory) {
  root_.Write("file", "not a directory");
  SoakerOptions o = Options();
  o.state_dir = root_.path() + "/file/state";
  Soaker soaker(&fs_, o);
  Status s = soaker.Start();
  ASSERT_OK(s);
  EXPECT_TRUE(soaker.running());
  SoakerReading r;
  soaker.Read(&r);
  ASSERT_EQ(r.cpus.size(), 2u);
  EXPECT_GT(r.cpus[0].iterations_per_second, 0);
  EXPECT_NE(r.caveat.find("calibration kept in memory only"), std::string::npos) << r.caveat;
  EXPECT_EQ(soaker.caveat(), r.caveat);
}

TEST_F(SoakerLive, CalibrateOnDemand) {
  WriteCalibration("Test CPU 9000", kSoakerLoopVersion);
  Soaker soaker(&fs_, Options());  // not started: `bottleneckd calibrate`
  SoakerCalibrationFile out;
  Status s = soaker.Calibrate(&out);
  ASSERT_OK(s);
  ASSERT_EQ(out.cpus.size(), 2u);
  EXPECT_EQ(out.cpus[0].cpu, a_);
  EXPECT_EQ(out.cpus[1].cpu, b_);
  EXPECT_NE(out.cpus[0].iterations_per_second, 12345.0);
  SoakerCalibrationFile f = Stored();
  EXPECT_EQ(f.key, out.key);
  ASSERT_EQ(f.cpus.size(), 2u);
  EXPECT_EQ(f.cpus[1].iterations_per_second, out.cpus[1].iterations_per_second);
  EXPECT_TRUE(Eventually([&] { return Tasks().size() == base_tasks_; })) << Tasks().size();
}

// The calibration's CPU time is the daemon's own: Read gives it per CPU
// while a calibration runs in another thread before Start (the daemon's
// background calibration), with no thread counters and running false, so
// the window can take it out of each CPU's busy time.
TEST_F(SoakerLive, ReadGivesTheCalibrationsCpuTimeBeforeStart) {
  Soaker soaker(&fs_, Options());
  SoakerReading before;
  soaker.Read(&before);
  EXPECT_TRUE(before.cpus.empty());
  EXPECT_FALSE(before.running);
  SoakerCalibrationFile out;
  ASSERT_OK(soaker.Calibrate(&out));
  SoakerReading after;
  soaker.Read(&after);
  EXPECT_FALSE(after.running);
  EXPECT_EQ(after.calibration_generation, before.calibration_generation);
  ASSERT_EQ(after.cpus.size(), 2u);
  for (const SoakerCpu& c : after.cpus) {
    EXPECT_EQ(c.generation, 0u);
    EXPECT_EQ(c.thread_cpu_ns, 0u);
    // calibration_seconds 0.1 of thread CPU time per CPU, at least.
    EXPECT_GE(c.calibration_cpu_ns, 100'000'000u) << c.cpu;
    EXPECT_LT(c.calibration_cpu_ns, 10'000'000'000u) << c.cpu;
  }
  EXPECT_EQ(after.cpus[0].cpu, a_);
  EXPECT_EQ(after.cpus[1].cpu, b_);
  // Started, its threads' readings carry the calibration's time alongside.
  ASSERT_OK(soaker.Start());
  SoakerReading running;
  soaker.Read(&running);
  EXPECT_TRUE(running.running);
  ASSERT_EQ(running.cpus.size(), 2u);
  EXPECT_NE(running.cpus[0].generation, 0u);
  EXPECT_EQ(running.cpus[0].calibration_cpu_ns, after.cpus[0].calibration_cpu_ns);
  soaker.Stop();
}

TEST_F(SoakerLive, HotplugStartsAndEndsThreads) {
  SetOnline({a_});
  Soaker soaker(&fs_, Options());
  ASSERT_OK(soaker.Start());
  SoakerReading r;
  soaker.Read(&r);
  ASSERT_EQ(CpusOf(r), std::vector<int>{a_});
  const uint64_t gen_a = r.cpus[0].generation;
  const double rate_a = r.cpus[0].iterations_per_second;
  EXPECT_TRUE(Eventually([&] { return Tasks().size() == base_tasks_ + 1; })) << Tasks().size();  // calibration joined

  // b comes online: a new thread with a new generation, on the median rate of
  // the calibrated CPUs (just a), said in the caveat.
  SetOnline({a_, b_});
  soaker.Read(&r);
  ASSERT_EQ(CpusOf(r), (std::vector<int>{a_, b_}));
  EXPECT_EQ(r.cpus[0].generation, gen_a);
  const uint64_t gen_b = r.cpus[1].generation;
  EXPECT_GT(gen_b, gen_a);
  EXPECT_TRUE(r.cpus[1].calibration_borrowed);
  EXPECT_EQ(r.cpus[1].iterations_per_second, rate_a);
  EXPECT_NE(r.caveat.find("came online after the calibration"), std::string::npos) << r.caveat;
  EXPECT_EQ(Tasks().size(), base_tasks_ + 2);

  // b goes offline: it leaves the reading at once; its thread is joined by a
  // later Read once it has seen its stop flag (Read never waits for it).
  SetOnline({a_});
  soaker.Read(&r);
  ASSERT_EQ(CpusOf(r), std::vector<int>{a_});
  EXPECT_EQ(r.cpus[0].generation, gen_a);
  EXPECT_EQ(r.caveat.find("came online"), std::string::npos) << r.caveat;
  EXPECT_TRUE(Eventually([&] {
    soaker.Read(&r);
    return Tasks().size() == base_tasks_ + 1;
  }));

  // Back again: yet another generation.
  SetOnline({a_, b_});
  soaker.Read(&r);
  ASSERT_EQ(CpusOf(r), (std::vector<int>{a_, b_}));
  EXPECT_GT(r.cpus[1].generation, gen_b);

  // A CPU outside this process's affinity (a container's cpuset) is not measured.
  SetOnline({a_, 4000});
  soaker.Read(&r);
  EXPECT_EQ(CpusOf(r), std::vector<int>{a_});
  EXPECT_NE(r.caveat.find("cpus 4000 outside the daemon's CPU affinity"), std::string::npos) << r.caveat;
}

TEST_F(SoakerLive, ThreadMovedOffItsCpuExitsAndIsRestarted) {
  // What a CPU going offline does to its thread: the kernel moves it and its
  // affinity no longer holds. Here the test moves it by hand.
  Soaker soaker(&fs_, Options());
  ASSERT_OK(soaker.Start());
  SoakerReading r;
  soaker.Read(&r);
  const int policy = r.sched_idle ? SCHED_IDLE : SCHED_OTHER;  // how to find the threads
  const SoakerCpu* before = Find(r, b_);
  ASSERT_NE(before, nullptr);
  const uint64_t gen_b = before->generation;
  pid_t tid = 0;
  for (auto [t, cpu] : PinnedTasks(policy)) {
    if (cpu == b_) tid = t;
  }
  ASSERT_NE(tid, 0);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(a_, &set);
  ASSERT_EQ(sched_setaffinity(tid, sizeof set, &set), 0);
  EXPECT_TRUE(Eventually([&] {
    soaker.Read(&r);
    const SoakerCpu* c = Find(r, b_);
    return c != nullptr && c->generation != gen_b;
  }));
  EXPECT_TRUE(Eventually([&] {
    soaker.Read(&r);
    return Tasks().size() == base_tasks_ + 2;  // the moved thread was joined
  }));
}

}  // namespace
}  // namespace bottleneckd::soaker_test
