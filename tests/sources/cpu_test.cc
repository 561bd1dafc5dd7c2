// Tests of the cpu collector: ParseProcStat and ParsePressure on literal text,
// and CpuCollector::Collect over temporary and fixture trees.
#include "collectors/cpu.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/host_fs.h"
#include "sources/sample.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::cpu_test {
namespace {

constexpr uint64_t kU64Max = UINT64_MAX;

void ExpectCpu(const CpuTimes& got, const CpuTimes& want) {
  SCOPED_TRACE("cpu " + std::to_string(want.cpu));
  EXPECT_EQ(got.cpu, want.cpu);
  EXPECT_EQ(got.user, want.user);
  EXPECT_EQ(got.nice, want.nice);
  EXPECT_EQ(got.system, want.system);
  EXPECT_EQ(got.idle, want.idle);
  EXPECT_EQ(got.iowait, want.iowait);
  EXPECT_EQ(got.irq, want.irq);
  EXPECT_EQ(got.softirq, want.softirq);
  EXPECT_EQ(got.steal, want.steal);
  EXPECT_EQ(got.guest, want.guest);
  EXPECT_EQ(got.guest_nice, want.guest_nice);
}

void ExpectStat(const ProcStat& got, const ProcStat& want) {
  ASSERT_EQ(got.total.has_value(), want.total.has_value());
  if (want.total) ExpectCpu(*got.total, *want.total);
  ASSERT_EQ(got.cpus.size(), want.cpus.size());
  for (size_t i = 0; i < want.cpus.size(); ++i) ExpectCpu(got.cpus[i], want.cpus[i]);
  EXPECT_EQ(got.intr_total, want.intr_total);
  EXPECT_EQ(got.ctxt, want.ctxt);
  EXPECT_EQ(got.softirq_total, want.softirq_total);
  EXPECT_EQ(got.procs_running, want.procs_running);
  EXPECT_EQ(got.procs_blocked, want.procs_blocked);
}

struct StatCase {
  const char* name;
  const char* text;
  bool ok;
  ProcStat want;  // checked when ok
};

// A 4-field line as printed by Linux 2.4.
CpuTimes Old(int cpu, uint64_t user, uint64_t nice, uint64_t system, uint64_t idle) {
  CpuTimes t;
  t.cpu = cpu;
  t.user = user;
  t.nice = nice;
  t.system = system;
  t.idle = idle;
  return t;
}

// A 10-field line as printed since Linux 2.6.33.
CpuTimes Full(int cpu, uint64_t user, uint64_t nice, uint64_t system, uint64_t idle, uint64_t iowait, uint64_t irq,
              uint64_t softirq, uint64_t steal, uint64_t guest, uint64_t guest_nice) {
  CpuTimes t = Old(cpu, user, nice, system, idle);
  t.iowait = iowait;
  t.irq = irq;
  t.softirq = softirq;
  t.steal = steal;
  t.guest = guest;
  t.guest_nice = guest_nice;
  return t;
}

using OptU64 = std::optional<uint64_t>;

ProcStat MakeStat(std::optional<CpuTimes> total, std::vector<CpuTimes> cpus, OptU64 intr = {}, OptU64 ctxt = {},
                  OptU64 softirq = {}, OptU64 running = {}, OptU64 blocked = {}) {
  ProcStat st;
  st.total = total;
  st.cpus = std::move(cpus);
  st.intr_total = intr;
  st.ctxt = ctxt;
  st.softirq_total = softirq;
  st.procs_running = running;
  st.procs_blocked = blocked;
  return st;
}

const StatCase kStatCases[] = {
    {"this_machine",
     "cpu  3508 0 2908 43537 401 0 129 0 0 0\n"
     "cpu0 1298 0 1131 22745 11 0 54 0 0 0\n"
     "cpu1 2209 0 1777 20792 390 0 75 0 0 0\n"
     "intr 128037 0 0 0 1 1 11 0\n"
     "ctxt 258143\n"
     "btime 1796026371\n"
     "processes 3432\n"
     "procs_running 1\n"
     "procs_blocked 0\n"
     "softirq 89694 0 9122 4 1588 33094 0 4 25569 0 20313\n",
     true,
     MakeStat(Full(-1, 3508, 0, 2908, 43537, 401, 0, 129, 0, 0, 0),
              {Full(0, 1298, 0, 1131, 22745, 11, 0, 54, 0, 0, 0), Full(1, 2209, 0, 1777, 20792, 390, 0, 75, 0, 0, 0)},
              /*intr=*/128037, /*ctxt=*/258143, /*softirq=*/89694, /*running=*/1,
              /*blocked=*/0)},
    {"linux24_four_fields", "cpu  10 20 30 40\ncpu0 10 20 30 40\n", true,
     MakeStat(Old(-1, 10, 20, 30, 40), {Old(0, 10, 20, 30, 40)})},
    {"linux26_seven_fields", "cpu0 1 2 3 4 5 6 7\n", true,
     [] {
       CpuTimes t = Old(0, 1, 2, 3, 4);
       t.iowait = 5;
       t.irq = 6;
       t.softirq = 7;
       return MakeStat(std::nullopt, {t});
     }()},
    {"columns_past_guest_nice_skipped", "cpu3 1 2 3 4 5 6 7 8 9 10 11 12\n", true,
     MakeStat(std::nullopt, {Full(3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)})},
    {"offline_cpu_gap_and_no_trailing_newline", "cpu0 1 1 1 1\ncpu2 2 2 2 2", true,
     MakeStat(std::nullopt, {Old(0, 1, 1, 1, 1), Old(2, 2, 2, 2, 2)})},
    {"unknown_lines_skipped", "cpufreq 1\nbtime 5\n\nfoo bar baz\ncpu 1 2 3 4\nprocesses x\n", true,
     MakeStat(Old(-1, 1, 2, 3, 4), {})},
    {"u64_max", "cpu0 18446744073709551615 0 0 18446744073709551615\n", true,
     MakeStat(std::nullopt, {Old(0, kU64Max, 0, 0, kU64Max)})},
    {"malformed_counter_lines_are_missing_not_zero",
     "cpu 1 2 3 4\nintr x 1\nctxt 18446744073709551616\nsoftirq\nprocs_running -1\n"
     "procs_blocked 7\n",
     true, MakeStat(Old(-1, 1, 2, 3, 4), {}, {}, {}, {}, {}, /*blocked=*/7)},
    {"u64_overflow", "cpu0 18446744073709551616 0 0 0\n", false, {}},
    {"negative", "cpu0 -1 0 0 0\n", false, {}},
    {"plus_sign", "cpu0 +1 0 0 0\n", false, {}},
    {"non_numeric", "cpu0 1 x 3 4\n", false, {}},
    {"trailing_junk_in_value", "cpu0 1 2 3 4z\n", false, {}},
    {"too_few_fields", "cpu0 1 2 3\n", false, {}},
    {"label_only", "cpu\n", false, {}},
    {"truncated_second_line", "cpu  1 2 3 4 5\ncpu0 1 2", false, {}},
    {"bad_cpu_id", "cpu1x 1 2 3 4\n", false, {}},
    {"cpu_id_past_int", "cpu99999999999 1 2 3 4\n", false, {}},
    {"empty", "", false, {}},
    {"blank_lines_only", "\n\n  \n", false, {}},
    {"no_cpu_line", "intr 1 0\nctxt 2\n", false, {}},
};

TEST(ParseProcStatTest, Table) {
  for (const StatCase& c : kStatCases) {
    SCOPED_TRACE(c.name);
    ProcStat got;
    Status s = ParseProcStat(c.text, &got);
    if (!c.ok) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      continue;
    }
    ASSERT_OK(s);
    ExpectStat(got, c.want);
  }
}

TEST(ParseProcStatTest, ReplacesPreviousContents) {
  ProcStat st;
  ASSERT_OK(ParseProcStat("cpu 1 1 1 1\ncpu0 1 1 1 1\ncpu1 1 1 1 1\nctxt 9\n", &st));
  ASSERT_OK(ParseProcStat("cpu0 5 6 7 8\n", &st));
  EXPECT_FALSE(st.total.has_value());
  ASSERT_EQ(st.cpus.size(), 1u);
  EXPECT_EQ(st.cpus[0].user, 5u);
  EXPECT_FALSE(st.ctxt.has_value());
}

struct PressureCase {
  const char* name;
  const char* text;
  bool ok;
  std::optional<PressureLine> some, full;  // checked when ok
};

const PressureCase kPressureCases[] = {
    {"this_machine",
     "some avg10=1.81 avg60=0.72 avg300=0.83 total=5385625\n"
     "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
     true, PressureLine{1.81, 0.72, 0.83, 5385625}, PressureLine{0, 0, 0, 0}},
    {"before_5_13_some_only", "some avg10=0.50 avg60=12.25 avg300=100.00 total=42\n", true,
     PressureLine{0.5, 12.25, 100, 42}, std::nullopt},
    {"total_u64_max", "some avg10=0.00 avg60=0.00 avg300=0.00 total=18446744073709551615", true,
     PressureLine{0, 0, 0, kU64Max}, std::nullopt},
    {"unknown_key_and_line_skipped", "some avg10=1.00 avg60=2.00 avg900=7.00 avg300=3.00 total=4\nnone avg10=x\n", true,
     PressureLine{1, 2, 3, 4}, std::nullopt},
    {"total_overflow", "some avg10=0.00 avg60=0.00 avg300=0.00 total=18446744073709551616\n", false, std::nullopt,
     std::nullopt},
    {"missing_total", "some avg10=0.00 avg60=0.00 avg300=0.00\n", false, std::nullopt, std::nullopt},
    {"missing_avg60", "full avg10=0.00 avg300=0.00 total=1\n", false, std::nullopt, std::nullopt},
    {"bad_avg", "some avg10=abc avg60=0.00 avg300=0.00 total=1\n", false, std::nullopt, std::nullopt},
    {"negative_avg", "some avg10=-1.00 avg60=0.00 avg300=0.00 total=1\n", false, std::nullopt, std::nullopt},
    {"nan_avg", "some avg10=nan avg60=0.00 avg300=0.00 total=1\n", false, std::nullopt, std::nullopt},
    {"token_without_equals", "some avg10 0.00 avg60=0.00 avg300=0.00 total=1\n", false, std::nullopt, std::nullopt},
    {"truncated", "some avg10=1.00 avg60=", false, std::nullopt, std::nullopt},
    {"good_some_then_bad_full", "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 total=1\n", false,
     std::nullopt, std::nullopt},
    {"empty", "", false, std::nullopt, std::nullopt},
    {"no_some_or_full", "foo avg10=0.00\n", false, std::nullopt, std::nullopt},
};

void ExpectPressure(const std::optional<PressureLine>& got, const std::optional<PressureLine>& want) {
  ASSERT_EQ(got.has_value(), want.has_value());
  if (!want) return;
  EXPECT_DOUBLE_EQ(got->avg10, want->avg10);
  EXPECT_DOUBLE_EQ(got->avg60, want->avg60);
  EXPECT_DOUBLE_EQ(got->avg300, want->avg300);
  EXPECT_EQ(got->total_us, want->total_us);
}

TEST(ParsePressureTest, Table) {
  for (const PressureCase& c : kPressureCases) {
    SCOPED_TRACE(c.name);
    CpuPressure got;
    Status s = ParsePressure(c.text, &got);
    if (!c.ok) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      continue;
    }
    ASSERT_OK(s);
    ExpectPressure(got.some, c.some);
    ExpectPressure(got.full, c.full);
  }
}

// A HostFs whose pressure/cpu read fails the way a kernel booted with psi=0 does.
constexpr char kTwoCpus[] = "cpu  3 0 3 8\ncpu0 1 0 1 4\ncpu1 2 0 2 4\n";
constexpr char kPressure[] = "some avg10=0.10 avg60=0.20 avg300=0.30 total=99\n";

TEST(CpuCollectorTest, FillsStatAndPressure) {
  testing::TempDir dir;
  dir.Write("proc/stat", kTwoCpus);
  dir.Write("proc/pressure/cpu", kPressure);
  HostFs fs(testing::TempRoots(dir));
  CpuCollector c;
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  ASSERT_TRUE(s.stat.has_value());
  ASSERT_EQ(s.stat->cpus.size(), 2u);
  EXPECT_EQ(s.stat->cpus[1].cpu, 1);
  EXPECT_EQ(s.stat->cpus[1].idle, 4u);
  ASSERT_TRUE(s.cpu_pressure.has_value());
  ASSERT_TRUE(s.cpu_pressure->some.has_value());
  EXPECT_EQ(s.cpu_pressure->some->total_us, 99u);
  EXPECT_FALSE(s.cpu_pressure->full.has_value());
}

TEST(CpuCollectorTest, MissingPressureIsNotAnError) {
  testing::TempDir dir;
  dir.Write("proc/stat", kTwoCpus);
  HostFs fs(testing::TempRoots(dir));
  CpuCollector c;
  Sample s;
  Status st = c.Collect(fs, &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.stat.has_value());
  EXPECT_EQ(s.stat->cpus.size(), 2u);
  EXPECT_FALSE(s.cpu_pressure.has_value());
}

TEST(CpuCollectorTest, PsiDisabledAtBootIsNotAnError) {
  testing::TempDir dir;
  dir.Write("proc/stat", kTwoCpus);
  dir.Write("proc/pressure/cpu", kPressure);
  testing::FakeFs fs(testing::TempRoots(dir));
  fs.Fail("pressure/cpu", Status::NotSupported("pressure/cpu: Operation not supported"));
  CpuCollector c;
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  EXPECT_TRUE(s.stat.has_value());
  EXPECT_FALSE(s.cpu_pressure.has_value());
}

TEST(CpuCollectorTest, MissingStatIsReturned) {
  testing::TempDir dir;
  dir.Write("proc/pressure/cpu", kPressure);
  HostFs fs(testing::TempRoots(dir));
  CpuCollector c;
  Sample s;
  Status st = c.Collect(fs, &s);
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  // The path and the likely cause: a root that is no procfs.
  EXPECT_NE(st.message().find(dir.path() + "/proc/stat absent: every Linux kernel has it; is " + dir.path() +
                              "/proc a procfs (--path.procfs)?"),
            std::string::npos)
      << st.message();
  EXPECT_FALSE(s.stat.has_value());
  EXPECT_FALSE(s.cpu_pressure.has_value());
}

TEST(CpuCollectorTest, GarbledStatIsCorruptionNamingTheFile) {
  testing::TempDir dir;
  dir.Write("proc/stat", "cpu0 1 2\n");
  dir.Write("proc/pressure/cpu", kPressure);
  HostFs fs(testing::TempRoots(dir));
  CpuCollector c;
  Sample s;
  Status st = c.Collect(fs, &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find(dir.path() + "/proc/stat"), std::string::npos) << st.message();
  EXPECT_FALSE(s.stat.has_value());
  EXPECT_FALSE(s.cpu_pressure.has_value());
}

TEST(CpuCollectorTest, GarbledPressureKeepsStat) {
  testing::TempDir dir;
  dir.Write("proc/stat", kTwoCpus);
  dir.Write("proc/pressure/cpu", "some avg10=oops\n");
  HostFs fs(testing::TempRoots(dir));
  CpuCollector c;
  Sample s;
  Status st = c.Collect(fs, &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("pressure/cpu"), std::string::npos) << st.message();
  EXPECT_TRUE(s.stat.has_value());
  EXPECT_FALSE(s.cpu_pressure.has_value());
}

TEST(CpuCollectorTest, RecycledSampleIsOverwritten) {
  testing::TempDir two, one;
  two.Write("proc/stat", kTwoCpus);
  two.Write("proc/pressure/cpu", kPressure);
  one.Write("proc/stat", "cpu0 7 0 0 1\n");
  CpuCollector c;
  Sample s;
  ASSERT_OK(c.Collect(HostFs(testing::TempRoots(two)), &s));
  ASSERT_OK(c.Collect(HostFs(testing::TempRoots(one)), &s));
  ASSERT_TRUE(s.stat.has_value());
  EXPECT_FALSE(s.stat->total.has_value());
  ASSERT_EQ(s.stat->cpus.size(), 1u);
  EXPECT_EQ(s.stat->cpus[0].user, 7u);
  EXPECT_FALSE(s.cpu_pressure.has_value());
}

// tests/fixtures/vm/proc/stat and pressure/cpu, read by hand.
TEST(CpuCollectorFixtureTest, Vm) {
  HostFs fs(testing::FixtureRoots("vm"));
  CpuCollector c;
  Sample s;
  Status st = c.Collect(fs, &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.stat.has_value());
  ExpectStat(*s.stat, MakeStat(Full(-1, 112272, 0, 29437, 63862, 463, 0, 182, 0, 0, 0),
                               {Full(0, 56340, 0, 13501, 33139, 43, 0, 63, 0, 0, 0),
                                Full(1, 55931, 0, 15936, 30722, 420, 0, 119, 0, 0, 0)},
                               /*intr=*/555024, /*ctxt=*/787602, /*softirq=*/301609,
                               /*running=*/10, /*blocked=*/0));
  ASSERT_TRUE(s.cpu_pressure.has_value());
  ExpectPressure(s.cpu_pressure->some, PressureLine{99.15, 98.18, 82.55, 583604429});
  ExpectPressure(s.cpu_pressure->full, PressureLine{0, 0, 0, 0});
}

// tests/fixtures/seed-box (one CPU, 6.1, psi=1): the values its README lists.
TEST(CpuCollectorFixtureTest, SeedBox) {
  HostFs fs(testing::FixtureRoots("seed-box"));
  CpuCollector c;
  Sample s;
  Status st = c.Collect(fs, &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.stat.has_value());
  ExpectStat(*s.stat, MakeStat(Full(-1, 12451, 0, 46098, 81636, 160, 3606, 36049, 0, 0, 0),
                               {Full(0, 12451, 0, 46098, 81636, 160, 3606, 36049, 0, 0, 0)},
                               /*intr=*/9904904, /*ctxt=*/11051877, /*softirq=*/9779785,
                               /*running=*/2, /*blocked=*/0));
  ASSERT_TRUE(s.cpu_pressure.has_value());
  ExpectPressure(s.cpu_pressure->some, PressureLine{12.31, 11.87, 9.42, 128409117});
  ExpectPressure(s.cpu_pressure->full, PressureLine{0, 0, 0, 0});
}

}  // namespace
}  // namespace bottleneckd::cpu_test
