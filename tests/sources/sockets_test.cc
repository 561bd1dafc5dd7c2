// Tests of the sockets collector: ParseProcNetSnmp, ParseProcNetNetstat and
// SocketStats::Get on literal text, and SocketsCollector::Collect over temporary
// and fixture trees.
#include "collectors/sockets.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "collectors/host_fs.h"
#include "sources/sample.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::sockets_test {
namespace {

struct Table {
  std::string protocol;
  std::vector<std::pair<std::string, int64_t>> fields;
};

void ExpectTables(const SocketStats& got, const std::vector<Table>& want) {
  ASSERT_EQ(got.tables.size(), want.size());
  for (size_t t = 0; t < want.size(); ++t) {
    SCOPED_TRACE(want[t].protocol);
    EXPECT_EQ(got.tables[t].protocol, want[t].protocol);
    ASSERT_EQ(got.tables[t].fields.size(), want[t].fields.size());
    for (size_t i = 0; i < want[t].fields.size(); ++i) {
      EXPECT_EQ(got.tables[t].fields[i].name, want[t].fields[i].first);
      EXPECT_EQ(got.tables[t].fields[i].value, want[t].fields[i].second) << want[t].fields[i].first;
    }
  }
}

enum class File { kSnmp, kNetstat };

struct SnmpCase {
  const char* name;
  File file;
  const char* text;
  bool ok;
  std::vector<Table> want;  // checked when ok
};

const SnmpCase kCases[] = {
    {"this_machine_snmp",
     File::kSnmp,
     "Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos "
     "InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds ReasmOKs "
     "ReasmFails FragOKs FragFails FragCreates OutTransmits\n"
     "Ip: 2 64 1369 0 0 0 0 0 1369 915 0 0 0 0 0 0 0 0 0 915\n"
     "IcmpMsg: InType3\n"
     "IcmpMsg: 1\n"
     "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets "
     "CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
     "Tcp: 1 200 120000 -1 14 2 1 0 0 1342 890 0 0 3 0\n"
     "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors "
     "IgnoredMulti MemErrors\n"
     "Udp: 26 0 0 27 0 0 0 0 0\n"
     "UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors "
     "IgnoredMulti MemErrors\n"
     "UdpLite: 0 0 0 0 0 0 0 0 0\n",
     true,
     {{"Tcp",
       {{"RtoAlgorithm", 1},
        {"RtoMin", 200},
        {"RtoMax", 120000},
        {"MaxConn", -1},
        {"ActiveOpens", 14},
        {"PassiveOpens", 2},
        {"AttemptFails", 1},
        {"EstabResets", 0},
        {"CurrEstab", 0},
        {"InSegs", 1342},
        {"OutSegs", 890},
        {"RetransSegs", 0},
        {"InErrs", 0},
        {"OutRsts", 3},
        {"InCsumErrors", 0}}},
      {"Udp",
       {{"InDatagrams", 26},
        {"NoPorts", 0},
        {"InErrors", 0},
        {"OutDatagrams", 27},
        {"RcvbufErrors", 0},
        {"SndbufErrors", 0},
        {"InCsumErrors", 0},
        {"IgnoredMulti", 0},
        {"MemErrors", 0}}},
      {"UdpLite",
       {{"InDatagrams", 0},
        {"NoPorts", 0},
        {"InErrors", 0},
        {"OutDatagrams", 0},
        {"RcvbufErrors", 0},
        {"SndbufErrors", 0},
        {"InCsumErrors", 0},
        {"IgnoredMulti", 0},
        {"MemErrors", 0}}}}},
    {"old_kernel_udp_without_rcvbuf_errors",
     File::kSnmp,
     "Udp: InDatagrams NoPorts InErrors OutDatagrams\nUdp: 1 2 3 4",
     true,
     {{"Udp", {{"InDatagrams", 1}, {"NoPorts", 2}, {"InErrors", 3}, {"OutDatagrams", 4}}}}},
    {"tabs_and_blank_lines",
     File::kSnmp,
     "\nUdp:\tInErrors\tRcvbufErrors\n\nUdp:\t5\t6\n\n",
     true,
     {{"Udp", {{"InErrors", 5}, {"RcvbufErrors", 6}}}}},
    {"protocol_split_over_two_pairs",
     File::kSnmp,
     "Udp: A B\nUdp: 1 2\nUdp: C\nUdp: 3\n",
     true,
     {{"Udp", {{"A", 1}, {"B", 2}, {"C", 3}}}}},
    {"int64_boundaries",
     File::kSnmp,
     "Tcp: Big MaxConn\nTcp: 9223372036854775807 -1\n",
     true,
     {{"Tcp", {{"Big", INT64_MAX}, {"MaxConn", -1}}}}},
    // Counters are never negative; only Tcp MaxConn may be (-1: no limit).
    {"negative_counter", File::kSnmp, "Tcp: Small\nTcp: -9223372036854775808\n", false, {}},
    {"negative_netstat", File::kNetstat, "TcpExt: ListenDrops\nTcpExt: -1\n", false, {}},
    {"skipped_table_not_validated", File::kSnmp, "Ip: a b\nIp: x\nUdp: A\nUdp: 1\n", true, {{"Udp", {{"A", 1}}}}},
    {"tcpext_is_a_netstat_table", File::kSnmp, "TcpExt: TW\nTcpExt: 1\n", true, {}},
    {"this_machine_netstat_excerpt",
     File::kNetstat,
     "TcpExt: SyncookiesSent TW ListenOverflows ListenDrops TCPBacklogDrop TCPRcvQDrop\n"
     "TcpExt: 0 11 0 0 0 0\n"
     "IpExt: InNoRoutes InTruncatedPkts InOctets OutOctets\n"
     "IpExt: 0 0 45735404 57677\n"
     "MPTcpExt: MPCapableSYNRX\n"
     "MPTcpExt: 0\n",
     true,
     {{"TcpExt",
       {{"SyncookiesSent", 0},
        {"TW", 11},
        {"ListenOverflows", 0},
        {"ListenDrops", 0},
        {"TCPBacklogDrop", 0},
        {"TCPRcvQDrop", 0}}}}},
    {"udp_is_an_snmp_table", File::kNetstat, "Udp: InErrors\nUdp: 1\n", true, {}},
    {"int64_overflow", File::kSnmp, "Udp: InErrors\nUdp: 9223372036854775808\n", false, {}},
    {"u64_max_is_past_int64", File::kNetstat, "TcpExt: TW\nTcpExt: 18446744073709551615\n", false, {}},
    {"non_numeric", File::kSnmp, "Udp: InErrors NoPorts\nUdp: 1 x\n", false, {}},
    {"plus_sign", File::kSnmp, "Udp: InErrors\nUdp: +1\n", false, {}},
    {"more_names_than_values", File::kSnmp, "Udp: InErrors NoPorts\nUdp: 1\n", false, {}},
    {"more_values_than_names", File::kNetstat, "TcpExt: TW\nTcpExt: 1 2\n", false, {}},
    {"header_without_values", File::kSnmp, "Udp: InErrors NoPorts\n", false, {}},
    {"truncated_after_pair", File::kSnmp, "Tcp: A\nTcp: 1\nUdp: InErrors", false, {}},
    {"header_followed_by_other_protocol", File::kSnmp, "Udp: InErrors\nTcp: 1\n", false, {}},
    {"line_without_protocol", File::kSnmp, "InErrors NoPorts\n1 2\n", false, {}},
    {"values_without_protocol", File::kSnmp, "Udp: InErrors\n1\n", false, {}},
    {"empty", File::kSnmp, "", false, {}},
    {"blank_only", File::kNetstat, "\n\n", false, {}},
};

Status Parse(File file, std::string_view text, SocketStats* out) {
  return file == File::kSnmp ? ParseProcNetSnmp(text, out) : ParseProcNetNetstat(text, out);
}

TEST(ParseProcNetSnmpTest, Table) {
  for (const SnmpCase& c : kCases) {
    SCOPED_TRACE(c.name);
    SocketStats got;
    Status s = Parse(c.file, c.text, &got);
    if (!c.ok) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      continue;
    }
    ASSERT_OK(s);
    ExpectTables(got, c.want);
  }
}

TEST(ParseProcNetSnmpTest, AppendsOtherTablesAndOverwritesItsOwn) {
  SocketStats st;
  ASSERT_OK(ParseProcNetSnmp("Udp: InErrors RcvbufErrors\nUdp: 1 2\n", &st));
  ASSERT_OK(ParseProcNetNetstat("TcpExt: TW\nTcpExt: 3\n", &st));
  // The next tick's snmp replaces Udp in place (here with one field fewer).
  ASSERT_OK(ParseProcNetSnmp("Udp: InErrors\nUdp: 10\n", &st));
  ExpectTables(st, {{"Udp", {{"InErrors", 10}}}, {"TcpExt", {{"TW", 3}}}});
}

TEST(SocketStatsTest, Get) {
  SocketStats st;
  ASSERT_OK(ParseProcNetSnmp("Tcp: MaxConn InSegs\nTcp: -1 7\nUdp: InErrors\nUdp: 0\n", &st));
  EXPECT_EQ(st.Get("Tcp", "MaxConn"), -1);
  EXPECT_EQ(st.Get("Tcp", "InSegs"), 7);
  EXPECT_EQ(st.Get("Udp", "InErrors"), 0);                 // present and zero
  EXPECT_EQ(st.Get("Udp", "RcvbufErrors"), std::nullopt);  // missing, not zero
  EXPECT_EQ(st.Get("UdpLite", "InErrors"), std::nullopt);
  EXPECT_EQ(st.Get("Tcp", "InErrors"), std::nullopt);
}

constexpr char kSnmp[] =
    "Ip: Forwarding\nIp: 1\n"
    "Udp: InDatagrams InErrors RcvbufErrors\nUdp: 100 7 5\n"
    "UdpLite: InDatagrams\nUdpLite: 0\n";
constexpr char kNetstat[] = "TcpExt: ListenDrops TCPBacklogDrop\nTcpExt: 2 3\n";

TEST(SocketsCollectorTest, ReadsBothFiles) {
  testing::TempDir dir;
  dir.Write("proc/net/snmp", kSnmp);
  dir.Write("proc/net/netstat", kNetstat);
  SocketsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::TempRoots(dir)), &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.sockets.has_value());
  ExpectTables(*s.sockets, {{"Udp", {{"InDatagrams", 100}, {"InErrors", 7}, {"RcvbufErrors", 5}}},
                            {"UdpLite", {{"InDatagrams", 0}}},
                            {"TcpExt", {{"ListenDrops", 2}, {"TCPBacklogDrop", 3}}}});
}

TEST(SocketsCollectorTest, MissingNetstatUsesSnmp) {
  testing::TempDir dir;
  dir.Write("proc/net/snmp", kSnmp);
  SocketsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::TempRoots(dir)), &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.sockets.has_value());
  EXPECT_EQ(s.sockets->Get("Udp", "RcvbufErrors"), 5);
  EXPECT_EQ(s.sockets->Get("TcpExt", "ListenDrops"), std::nullopt);
}

TEST(SocketsCollectorTest, MissingSnmpUsesNetstat) {
  testing::TempDir dir;
  dir.Write("proc/net/netstat", kNetstat);
  SocketsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::TempRoots(dir)), &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.sockets.has_value());
  ExpectTables(*s.sockets, {{"TcpExt", {{"ListenDrops", 2}, {"TCPBacklogDrop", 3}}}});
}

// Both files absent is a wrong root (every Linux kernel has them): an error
// naming the paths, where it was "not supported" (a success) before.
TEST(SocketsCollectorTest, BothMissingIsAnErrorNamingThePaths) {
  testing::TempDir dir;
  dir.Write("proc/stat", "cpu 1 1 1 1\n");
  SocketsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::TempRoots(dir)), &s);
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find("absent: every Linux kernel has it; is " + dir.path() + "/proc a procfs"),
            std::string::npos)
      << st.message();
  EXPECT_FALSE(s.sockets.has_value());
}

TEST(SocketsCollectorTest, GarbledNetstatIsCorruptionNamingTheFile) {
  testing::TempDir dir;
  dir.Write("proc/net/snmp", kSnmp);
  dir.Write("proc/net/netstat", "TcpExt: ListenDrops TCPBacklogDrop\nTcpExt: 2\n");
  SocketsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::TempRoots(dir)), &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find(dir.path() + "/proc/net/netstat"), std::string::npos) << st.message();
  EXPECT_FALSE(s.sockets.has_value());
}

TEST(SocketsCollectorTest, RecycledSampleDropsTablesNoLongerPresent) {
  testing::TempDir first, second;
  first.Write("proc/net/snmp", kSnmp);
  first.Write("proc/net/netstat", kNetstat);
  second.Write("proc/net/snmp", "Udp: InDatagrams InErrors\nUdp: 200 8\n");
  SocketsCollector c;
  Sample s;
  ASSERT_OK(c.Collect(HostFs(testing::TempRoots(first)), &s));
  ASSERT_OK(c.Collect(HostFs(testing::TempRoots(second)), &s));
  ASSERT_TRUE(s.sockets.has_value());
  ExpectTables(*s.sockets, {{"Udp", {{"InDatagrams", 200}, {"InErrors", 8}}}});
}

// tests/fixtures/vm/proc/net/snmp and netstat, read by hand (field positions in
// TcpExt counted on the header line).
TEST(SocketsCollectorFixtureTest, Vm) {
  SocketsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::FixtureRoots("vm")), &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.sockets.has_value());
  const SocketStats& k = *s.sockets;
  ASSERT_EQ(k.tables.size(), 4u);
  EXPECT_EQ(k.tables[0].protocol, "Tcp");
  EXPECT_EQ(k.tables[0].fields.size(), 15u);
  EXPECT_EQ(k.tables[1].protocol, "Udp");
  EXPECT_EQ(k.tables[1].fields.size(), 9u);
  EXPECT_EQ(k.tables[2].protocol, "UdpLite");
  EXPECT_EQ(k.tables[2].fields.size(), 9u);
  EXPECT_EQ(k.tables[3].protocol, "TcpExt");
  EXPECT_EQ(k.tables[3].fields.size(), 135u);
  EXPECT_EQ(k.Get("Tcp", "MaxConn"), -1);
  EXPECT_EQ(k.Get("Tcp", "ActiveOpens"), 15);
  EXPECT_EQ(k.Get("Tcp", "InSegs"), 1360);
  EXPECT_EQ(k.Get("Tcp", "OutSegs"), 910);
  EXPECT_EQ(k.Get("Tcp", "OutRsts"), 3);
  EXPECT_EQ(k.Get("Udp", "InDatagrams"), 29);
  EXPECT_EQ(k.Get("Udp", "OutDatagrams"), 30);
  EXPECT_EQ(k.Get("Udp", "RcvbufErrors"), 0);
  EXPECT_EQ(k.Get("Udp", "MemErrors"), 0);
  EXPECT_EQ(k.Get("UdpLite", "InDatagrams"), 0);
  EXPECT_EQ(k.Get("TcpExt", "TW"), 12);
  EXPECT_EQ(k.Get("TcpExt", "DelayedACKLost"), 1);
  EXPECT_EQ(k.Get("TcpExt", "ListenOverflows"), 0);
  EXPECT_EQ(k.Get("TcpExt", "TCPHPHits"), 4);
  EXPECT_EQ(k.Get("TcpExt", "TCPPureAcks"), 35);
  EXPECT_EQ(k.Get("TcpExt", "TCPHPAcks"), 8);
  EXPECT_EQ(k.Get("TcpExt", "TCPTimeouts"), 2);
  EXPECT_EQ(k.Get("TcpExt", "TCPRcvCoalesce"), 720);
  EXPECT_EQ(k.Get("TcpExt", "TCPAODroppedIcmps"), 0);
  EXPECT_EQ(k.Get("Ip", "InReceives"), std::nullopt);   // not kept
  EXPECT_EQ(k.Get("IpExt", "InOctets"), std::nullopt);  // not kept
}

// tests/fixtures/seed-box: the echo test's losses sit at the socket rung.
TEST(SocketsCollectorFixtureTest, SeedBox) {
  SocketsCollector c;
  Sample s;
  Status st = c.Collect(HostFs(testing::FixtureRoots("seed-box")), &s);
  ASSERT_OK(st);
  ASSERT_TRUE(s.sockets.has_value());
  const SocketStats& k = *s.sockets;
  ASSERT_EQ(k.tables.size(), 4u);
  EXPECT_EQ(k.tables[0].protocol, "Tcp");
  EXPECT_EQ(k.tables[1].protocol, "Udp");
  EXPECT_EQ(k.tables[2].protocol, "UdpLite");
  EXPECT_EQ(k.tables[3].protocol, "TcpExt");
  EXPECT_EQ(k.tables[3].fields.size(), 126u);  // 6.1's TcpExt list
  ExpectTables(SocketStats{{k.tables[1]}}, {{"Udp",
                                             {{"InDatagrams", 80419959},
                                              {"NoPorts", 12},
                                              {"InErrors", 146484},
                                              {"OutDatagrams", 80419963},
                                              {"RcvbufErrors", 146484},
                                              {"SndbufErrors", 0},
                                              {"InCsumErrors", 0},
                                              {"IgnoredMulti", 23},
                                              {"MemErrors", 0}}}});
  EXPECT_EQ(k.Get("Tcp", "MaxConn"), -1);
  EXPECT_EQ(k.Get("Tcp", "PassiveOpens"), 9);
  EXPECT_EQ(k.Get("Tcp", "InSegs"), 9926);
  EXPECT_EQ(k.Get("Tcp", "OutSegs"), 11459);
  EXPECT_EQ(k.Get("Tcp", "RetransSegs"), 4);
  EXPECT_EQ(k.Get("TcpExt", "TW"), 3);
  EXPECT_EQ(k.Get("TcpExt", "DelayedACKs"), 212);
  EXPECT_EQ(k.Get("TcpExt", "ListenDrops"), 0);
  EXPECT_EQ(k.Get("TcpExt", "TCPHPHits"), 3802);
  EXPECT_EQ(k.Get("TcpExt", "TCPPureAcks"), 4011);
  EXPECT_EQ(k.Get("TcpExt", "TCPHPAcks"), 2977);
  EXPECT_EQ(k.Get("TcpExt", "BeyondWindow"), std::nullopt);  // not in 6.1's list
  EXPECT_EQ(k.Get("IpExt", "InOctets"), std::nullopt);       // not kept
}

}  // namespace
}  // namespace bottleneckd::sockets_test
