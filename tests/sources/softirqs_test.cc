// Tests of the softirqs collector: ParseProcSoftirqs and ParseSoftnetStat on
// literal text, and SoftirqsCollector::Collect over temporary and fixture trees.
#include "collectors/softirqs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/host_fs.h"
#include "sources/sample.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::softirqs_test {
namespace {

constexpr uint64_t kU64Max = UINT64_MAX;

struct Row {
  std::string type;
  std::vector<uint64_t> per_cpu;
};

void ExpectSoftirqs(const Softirqs& got, const std::vector<int>& cpus, const std::vector<Row>& rows) {
  EXPECT_EQ(got.cpus, cpus);
  ASSERT_EQ(got.rows.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(got.rows[i].type, rows[i].type);
    EXPECT_EQ(got.rows[i].per_cpu, rows[i].per_cpu) << rows[i].type;
  }
}

struct SoftirqsCase {
  const char* name;
  const char* text;
  bool ok;
  std::vector<int> cpus;  // checked when ok
  std::vector<Row> rows;
};

const SoftirqsCase kSoftirqsCases[] = {
    {"this_machine",
     "                    CPU0       CPU1       \n"
     "          HI:          0          0\n"
     "       TIMER:       4575       4547\n"
     "      NET_TX:          4          0\n"
     "      NET_RX:        764        824\n"
     "       BLOCK:          0      33094\n"
     "    IRQ_POLL:          0          0\n"
     "     TASKLET:          3          1\n"
     "       SCHED:      13256      12313\n"
     "     HRTIMER:          0          0\n"
     "         RCU:       9814      10499\n",
     true,
     {0, 1},
     {{"HI", {0, 0}},
      {"TIMER", {4575, 4547}},
      {"NET_TX", {4, 0}},
      {"NET_RX", {764, 824}},
      {"BLOCK", {0, 33094}},
      {"IRQ_POLL", {0, 0}},
      {"TASKLET", {3, 1}},
      {"SCHED", {13256, 12313}},
      {"HRTIMER", {0, 0}},
      {"RCU", {9814, 10499}}}},
    {"one_cpu_tabs_no_trailing_newline", "\tCPU0\nNET_RX:\t5", true, {0}, {{"NET_RX", {5}}}},
    {"cpu_id_gap_and_blank_lines",
     "CPU0 CPU2\n\nNET_TX: 1 2\n\n NET_RX: 3 4\n",
     true,
     {0, 2},
     {{"NET_TX", {1, 2}}, {"NET_RX", {3, 4}}}},
    {"header_only", "    CPU0    CPU1\n", true, {0, 1}, {}},
    {"u64_max", "CPU0\nNET_RX: 18446744073709551615\n", true, {0}, {{"NET_RX", {kU64Max}}}},
    {"u64_overflow", "CPU0\nNET_RX: 18446744073709551616\n", false, {}, {}},
    {"negative", "CPU0\nNET_RX: -1\n", false, {}, {}},
    {"non_numeric", "CPU0 CPU1\nNET_RX: 1 x\n", false, {}, {}},
    {"fewer_counts_than_cpus", "CPU0 CPU1\nNET_RX: 1\n", false, {}, {}},
    {"more_counts_than_cpus", "CPU0 CPU1\nNET_RX: 1 2 3\n", false, {}, {}},
    {"truncated_mid_row", "CPU0 CPU1\nHI: 0 0\nTIMER: 45", false, {}, {}},
    {"row_without_colon", "CPU0\nNET_RX 1\n", false, {}, {}},
    {"row_without_type", "CPU0\n : 1\n", false, {}, {}},
    {"bad_header_id", "CPU0 CPUx\nNET_RX: 1 2\n", false, {}, {}},
    {"header_id_past_int", "CPU2147483648\nNET_RX: 1\n", false, {}, {}},
    {"header_missing", "NET_RX: 1 2\n", false, {}, {}},
    {"lowercase_header", "cpu0\nNET_RX: 1\n", false, {}, {}},
    {"empty", "", false, {}, {}},
    {"blank_only", "\n   \n", false, {}, {}},
};

TEST(ParseProcSoftirqsTest, Table) {
  for (const SoftirqsCase& c : kSoftirqsCases) {
    SCOPED_TRACE(c.name);
    Softirqs got;
    Status s = ParseProcSoftirqs(c.text, &got);
    if (!c.ok) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      continue;
    }
    ASSERT_OK(s);
    ExpectSoftirqs(got, c.cpus, c.rows);
  }
}

TEST(ParseProcSoftirqsTest, ReplacesPreviousRows) {
  Softirqs got;
  ASSERT_OK(ParseProcSoftirqs("CPU0 CPU1\nHI: 1 2\nNET_RX: 3 4\nRCU: 5 6\n", &got));
  ASSERT_OK(ParseProcSoftirqs("CPU3\nNET_TX: 9\n", &got));
  ExpectSoftirqs(got, {3}, {{"NET_TX", {9}}});
}

struct Softnet {
  int cpu;
  bool cpu_from_column;
  uint64_t processed, dropped, time_squeeze;
  std::optional<uint64_t> cpu_collision, received_rps, flow_limit_count, backlog_len;
};

void ExpectSoftnet(const std::vector<SoftnetCpu>& got, const std::vector<Softnet>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("line " + std::to_string(i + 1));
    EXPECT_EQ(got[i].cpu, want[i].cpu);
    EXPECT_EQ(got[i].cpu_from_column, want[i].cpu_from_column);
    EXPECT_EQ(got[i].processed, want[i].processed);
    EXPECT_EQ(got[i].dropped, want[i].dropped);
    EXPECT_EQ(got[i].time_squeeze, want[i].time_squeeze);
    EXPECT_EQ(got[i].cpu_collision, want[i].cpu_collision);
    EXPECT_EQ(got[i].received_rps, want[i].received_rps);
    EXPECT_EQ(got[i].flow_limit_count, want[i].flow_limit_count);
    EXPECT_EQ(got[i].backlog_len, want[i].backlog_len);
  }
}

struct SoftnetCase {
  const char* name;
  const char* text;
  bool ok;
  std::vector<Softnet> want;  // checked when ok
};

constexpr auto kNone = std::nullopt;

const SoftnetCase kSoftnetCases[] = {
    {"this_machine_15_columns",
     "00000012 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
     "00000000 00000000 00000000 00000000 00000000 00000000\n"
     "00000549 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
     "00000000 00000000 00000000 00000001 00000000 00000000\n",
     true,
     {{0, true, 0x12, 0, 0, 0, 0, 0, 0}, {1, true, 0x549, 0, 0, 0, 0, 0, 0}}},
    {"old_kernel_9_columns",
     "0000272d 00000003 00000001 00000000 00000000 00000000 00000000 00000000 00000005\n"
     "00000010 00000000 00000002 00000000 00000000 00000000 00000000 00000000 00000000\n",
     true,
     {{0, false, 0x272d, 3, 1, 5, kNone, kNone, kNone}, {1, false, 0x10, 0, 2, 0, kNone, kNone, kNone}}},
    {"10_columns_received_rps",
     "000000ff 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 0000000a\n",
     true,
     {{0, false, 0xff, 0, 0, 0, 0xa, kNone, kNone}}},
    {"11_columns_flow_limit",
     "00000001 00000002 00000003 0 0 0 0 0 00000004 00000005 00000006\n",
     true,
     {{0, false, 1, 2, 3, 4, 5, 6, kNone}}},
    {"12_columns_backlog_without_cpu_id",
     "00000001 00000002 00000003 0 0 0 0 0 00000004 00000005 00000006 00000007\n"
     "00000010 00000020 00000030 0 0 0 0 0 00000040 00000050 00000060 00000070\n",
     true,
     {{0, false, 1, 2, 3, 4, 5, 6, 7}, {1, false, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70}}},
    {"13_columns_offline_cpu_gap",
     "00000001 0 0 0 0 0 0 0 0 0 0 0 00000000\n"
     "00000002 0 0 0 0 0 0 0 0 0 0 0 00000003\n",
     true,
     {{0, true, 1, 0, 0, 0, 0, 0, 0}, {3, true, 2, 0, 0, 0, 0, 0, 0}}},
    {"16_columns_extra_skipped",
     "a 0 0 0 0 0 0 0 0 0 0 0 0000000b 1 2 ffff\n",
     true,
     {{11, true, 0xa, 0, 0, 0, 0, 0, 0}}},
    {"cpu_id_int_max", "0 0 0 0 0 0 0 0 0 0 0 0 7fffffff\n", true, {{2147483647, true, 0, 0, 0, 0, 0, 0, 0}}},
    {"u64_max_and_blank_lines",
     "\nffffffffffffffff FFFFFFFFFFFFFFFF 0 0 0 0 0 0 0\n\n",
     true,
     {{0, false, kU64Max, kU64Max, 0, 0, kNone, kNone, kNone}}},
    {"u64_overflow", "10000000000000000 0 0 0 0 0 0 0 0\n", false, {}},
    {"cpu_id_past_int", "0 0 0 0 0 0 0 0 0 0 0 0 80000000\n", false, {}},
    {"8_columns", "00000001 0 0 0 0 0 0 0\n", false, {}},
    {"non_hex", "0000zz00 0 0 0 0 0 0 0 0\n", false, {}},
    {"0x_prefix", "0x12 0 0 0 0 0 0 0 0\n", false, {}},
    {"negative", "-1 0 0 0 0 0 0 0 0\n", false, {}},
    {"truncated_second_line", "00000001 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n00000002 0 0 0", false, {}},
    {"empty", "", false, {}},
    {"blank_only", "\n \n", false, {}},
};

TEST(ParseSoftnetStatTest, Table) {
  for (const SoftnetCase& c : kSoftnetCases) {
    SCOPED_TRACE(c.name);
    std::vector<SoftnetCpu> got;
    Status s = ParseSoftnetStat(c.text, &got);
    if (!c.ok) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      continue;
    }
    ASSERT_OK(s);
    ExpectSoftnet(got, c.want);
  }
}

TEST(ParseSoftnetStatTest, ReplacesPreviousContents) {
  std::vector<SoftnetCpu> got;
  ASSERT_OK(ParseSoftnetStat("1 0 0 0 0 0 0 0 0\n2 0 0 0 0 0 0 0 0\n", &got));
  ASSERT_OK(ParseSoftnetStat("3 0 0 0 0 0 0 0 0\n", &got));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].processed, 3u);
}

constexpr char kSoftirqs[] = "   CPU0   CPU1\n NET_TX: 1 2\n NET_RX: 30 40\n";
constexpr char kSoftnet[] =
    "00000064 00000001 00000002 0 0 0 0 0 0 0 0 0 00000000\n"
    "000000c8 00000003 00000004 0 0 0 0 0 0 0 0 0 00000001\n";

TEST(SoftirqsCollectorTest, FillsBoth) {
  testing::TempDir dir;
  dir.Write("proc/softirqs", kSoftirqs);
  dir.Write("proc/net/softnet_stat", kSoftnet);
  SoftirqsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::TempRoots(dir)), &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.softirqs.has_value());
  ExpectSoftirqs(*s.softirqs, {0, 1}, {{"NET_TX", {1, 2}}, {"NET_RX", {30, 40}}});
  ASSERT_TRUE(s.softnet.has_value());
  ExpectSoftnet(*s.softnet, {{0, true, 100, 1, 2, 0, 0, 0, 0}, {1, true, 200, 3, 4, 0, 0, 0, 0}});
}

TEST(SoftirqsCollectorTest, MissingSoftnetFillsSoftirqs) {
  testing::TempDir dir;
  dir.Write("proc/softirqs", kSoftirqs);
  SoftirqsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::TempRoots(dir)), &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.softirqs.has_value());
  EXPECT_EQ(s.softirqs->rows.size(), 2u);
  EXPECT_FALSE(s.softnet.has_value());
}

TEST(SoftirqsCollectorTest, MissingSoftirqsFillsSoftnet) {
  testing::TempDir dir;
  dir.Write("proc/net/softnet_stat", kSoftnet);
  SoftirqsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::TempRoots(dir)), &s);
  ASSERT_OK(st);
  EXPECT_FALSE(s.softirqs.has_value());
  ASSERT_TRUE(s.softnet.has_value());
  EXPECT_EQ(s.softnet->size(), 2u);
}

// Both files absent is a wrong root (every Linux kernel has them): an error
// naming the paths, where it was "not supported" (a success) before.
TEST(SoftirqsCollectorTest, BothMissingIsAnErrorNamingThePaths) {
  testing::TempDir dir;
  dir.Write("proc/stat", "cpu 1 1 1 1\n");
  SoftirqsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::TempRoots(dir)), &s);
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find("absent: every Linux kernel has it; is " + dir.path() + "/proc a procfs"),
            std::string::npos)
      << st.message();
  EXPECT_FALSE(s.softirqs.has_value());
  EXPECT_FALSE(s.softnet.has_value());
}

TEST(SoftirqsCollectorTest, GarbledSoftnetIsCorruptionNamingTheFile) {
  testing::TempDir dir;
  dir.Write("proc/softirqs", kSoftirqs);
  dir.Write("proc/net/softnet_stat", "00000064 00000001\n");
  SoftirqsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::TempRoots(dir)), &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find(dir.path() + "/proc/net/softnet_stat"), std::string::npos) << st.message();
  EXPECT_TRUE(s.softirqs.has_value());
  EXPECT_FALSE(s.softnet.has_value());
}

TEST(SoftirqsCollectorTest, GarbledSoftirqsIsCorruptionNamingTheFile) {
  testing::TempDir dir;
  dir.Write("proc/softirqs", "CPU0 CPU1\nNET_RX: 1\n");
  dir.Write("proc/net/softnet_stat", kSoftnet);
  SoftirqsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::TempRoots(dir)), &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find(dir.path() + "/proc/softirqs"), std::string::npos) << st.message();
  EXPECT_FALSE(s.softirqs.has_value());
  EXPECT_TRUE(s.softnet.has_value());
}

TEST(SoftirqsCollectorTest, RecycledSampleIsOverwritten) {
  testing::TempDir first, second;
  first.Write("proc/softirqs", kSoftirqs);
  first.Write("proc/net/softnet_stat", kSoftnet);
  second.Write("proc/softirqs", "CPU0\nNET_RX: 7\n");
  SoftirqsCollector c;
  Sample s;
  ASSERT_OK(c.Collect(HostFs(testing::TempRoots(first)), &s));
  ASSERT_OK(c.Collect(HostFs(testing::TempRoots(second)), &s));
  ASSERT_TRUE(s.softirqs.has_value());
  ExpectSoftirqs(*s.softirqs, {0}, {{"NET_RX", {7}}});
  EXPECT_FALSE(s.softnet.has_value());
}

// tests/fixtures/vm/proc/softirqs and net/softnet_stat, read by hand.
TEST(SoftirqsCollectorFixtureTest, Vm) {
  SoftirqsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::FixtureRoots("vm")), &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.softirqs.has_value());
  ExpectSoftirqs(*s.softirqs, {0, 1},
                 {{"HI", {0, 0}},
                  {"TIMER", {25248, 30708}},
                  {"NET_TX", {4, 0}},
                  {"NET_RX", {784, 843}},
                  {"BLOCK", {0, 47976}},
                  {"IRQ_POLL", {0, 0}},
                  {"TASKLET", {3, 1}},
                  {"SCHED", {31464, 30267}},
                  {"HRTIMER", {0, 0}},
                  {"RCU", {66062, 68399}}});
  ASSERT_TRUE(s.softnet.has_value());
  ExpectSoftnet(*s.softnet, {{0, true, 0x12, 0, 0, 0, 0, 0, 0}, {1, true, 0x55f, 0, 0, 0, 0, 0, 0}});
}

// tests/fixtures/seed-box (one CPU, 6.1: 13 softnet columns, CPU id 0).
TEST(SoftirqsCollectorFixtureTest, SeedBox) {
  SoftirqsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::FixtureRoots("seed-box")), &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.softirqs.has_value());
  ExpectSoftirqs(*s.softirqs, {0},
                 {{"HI", {0}},
                  {"TIMER", {71922}},
                  {"NET_TX", {1291}},
                  {"NET_RX", {9562493}},
                  {"BLOCK", {21511}},
                  {"IRQ_POLL", {0}},
                  {"TASKLET", {37}},
                  {"SCHED", {64305}},
                  {"HRTIMER", {0}},
                  {"RCU", {58226}}});
  ASSERT_TRUE(s.softnet.has_value());
  // "04cd8a49 00000000 00000b62 ...": 80,579,145 processed, 2914 squeezes.
  ExpectSoftnet(*s.softnet, {{0, true, 0x04cd8a49, 0, 0xb62, 0, 0, 0, 0}});
}

}  // namespace
}  // namespace bottleneckd::softirqs_test
