// The recorded sources' files (sources/reading_file.h and each entry's codec):
// readings built by hand, with the strings real ones carry (frame names with
// spaces, a thread name with a tab and a '%'), go to text and back unchanged;
// each malformed line is refused naming the file, the line and the form.
#include "sources/reading_file.h"

#include <gtest/gtest.h>

#include "sources/sample.h"
#include "sources/source_registry.h"
#include "tests/support/test_util.h"

namespace bottleneckd::reading_file_test {
namespace {

TEST(ReadingFile, FieldsComeBackByteForByte) {
  ReadingFileWriter w(1);
  w.Line("x").S("a\tb%c\nd\r").S("").U(18446744073709551615u).I(-5).D(0.1).D(1e-300).B(true);
  const std::string text = w.Take();
  EXPECT_EQ(text, "format\t1\nx\ta%09b%25c%0Ad%0D\t\t18446744073709551615\t-5\t0.1\t1e-300\t1\n");
  ReadingFileReader r(text, "test");
  int format = 0;
  ASSERT_OK(r.Format(1, &format));
  ASSERT_TRUE(r.Next());
  EXPECT_EQ(r.key(), "x");
  std::string s, empty;
  uint64_t u = 0;
  int64_t i = 0;
  double d = 0, tiny = 0;
  bool b = false;
  ASSERT_TRUE(r.S(&s) && r.S(&empty) && r.U(&u) && r.I(&i) && r.D(&d) && r.D(&tiny) && r.B(&b));
  EXPECT_EQ(s, "a\tb%c\nd\r");
  EXPECT_EQ(empty, "");
  EXPECT_EQ(u, 18446744073709551615u);
  EXPECT_EQ(i, -5);
  EXPECT_EQ(d, 0.1);
  EXPECT_EQ(tiny, 1e-300);
  EXPECT_TRUE(b);
  EXPECT_TRUE(r.AtEnd());
  EXPECT_FALSE(r.U(&u));
  EXPECT_FALSE(r.Next());
}

TEST(ReadingFile, RefusesWhatItCannotRead) {
  int format = 0;
  ReadingFileReader none("", "offcpu");
  EXPECT_EQ(none.Format(1, &format).message(),
            "offcpu line 0: expected 'format<TAB>N' first: not a offcpu file, got ''");
  ReadingFileReader newer("format\t2\n", "offcpu");
  EXPECT_EQ(newer.Format(1, &format).message(),
            "offcpu line 1: unknown offcpu format (this bottleneckd reads 1 to 1), got 'format?2'");
  ReadingFileReader bad("format\t1\nx\t%4\t-1\tnan\t2\n", "t");
  ASSERT_OK(bad.Format(1, &format));
  ASSERT_TRUE(bad.Next());
  std::string s;
  uint64_t u = 0;
  double d = 0;
  bool b = false;
  EXPECT_FALSE(bad.S(&s));  // a cut escape
  EXPECT_FALSE(bad.U(&u));  // a sign
  EXPECT_FALSE(bad.D(&d));  // not finite
  EXPECT_FALSE(bad.B(&b));  // neither 0 nor 1
}

// The entry named `name` reads `text` into a Sample (time 7 ns).
Status Decode(const std::string& name, const std::string& text, Sample* s) {
  s->mono_ns = 7;
  return FindSourceEntry(name)->Decode(text, s);
}

OffCpuReading HandOffCpu() {
  OffCpuReading r;
  r.mono_ns = 5000000000;
  r.generation = 42;
  r.dropped = 3;
  r.tids = {1234, 1240};
  r.sites = {{1234, "do_nanosleep (clock_nanosleep)", false, 900000000, 1800, true, kWokenByInterrupt},
             {1234, "futex_do_wait (futex)", false, 400000, 80, true, 1240},
             {1234, "futex_do_wait (futex)", false, 3000, 2, true, kOtherWaker},
             {1234, "__skb_wait_for_more_packets (recvfrom)", false, 9000, 3, true, 1240, true},
             {1234, "", false, 12345, 7, false},
             {1240, "schedule_timeout (epoll_wait)", true, 5, 1, true}};
  r.sites[1].stack = "main (udpwork);pthread_mutex_lock (libc.so.6);entry_SYSCALL_64 [kernel];schedule [kernel]";
  r.wakers = {{1240, 1234, "udp\twork%1"}};
  return r;
}

TEST(OffCpuFile, RoundTrips) {
  const OffCpuReading r = HandOffCpu();
  const std::string text = OffCpuFileText(r);
  EXPECT_NE(text.find("\nsite\t1234\t0\t1\t900000000\t1800\t0\t0\tdo_nanosleep (clock_nanosleep)\t\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nsite\t1234\t0\t1\t400000\t80\t1240\t0\tfutex_do_wait (futex)\tmain (udpwork);"
                      "pthread_mutex_lock (libc.so.6);entry_SYSCALL_64 [kernel];schedule [kernel]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nsite\t1234\t0\t0\t12345\t7\t-1\t0\t\t\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nwaker\t1240\t1234\tudp%09work%251\n"), std::string::npos) << text;
  Sample s;
  ASSERT_OK(Decode("offcpu", text, &s));
  ASSERT_TRUE(s.offcpu.has_value());
  EXPECT_EQ(*s.offcpu, r);
}

// A recording made before wakers were kept (format 1): its sites read as no
// waker seen.
TEST(OffCpuFile, FormatOneReadsWithoutWakers) {
  Sample s;
  ASSERT_OK(
      Decode("offcpu", "format\t1\nreading\t1\t2\t3\ntids\t7\nsite\t7\t0\t1\t500\t2\tfutex_do_wait (futex)\n", &s));
  ASSERT_TRUE(s.offcpu.has_value());
  ASSERT_EQ(s.offcpu->sites.size(), 1u);
  EXPECT_EQ(s.offcpu->sites[0].waker, kNoWaker);
  EXPECT_EQ(s.offcpu->sites[0].where, "futex_do_wait (futex)");
  // A waker line is format 2's.
  EXPECT_EQ(Decode("offcpu", "format\t1\nreading\t1\t2\t3\nwaker\t7\t7\tx\n", &s).message(),
            "offcpu line 3: unknown key 'waker' (expected reading, tids, site or waker), got 'waker?7?7?x'");
}

// A recording made before whole stacks were kept (format 2): its sites read
// as not walked to a stack, their wait sites and wakers as they were.
TEST(OffCpuFile, FormatTwoReadsWithoutStacks) {
  Sample s;
  ASSERT_OK(Decode("offcpu",
                   "format\t2\nreading\t1\t2\t3\ntids\t7\nsite\t7\t0\t1\t500\t2\t9\t0\tfutex_do_wait (futex)\n", &s));
  ASSERT_TRUE(s.offcpu.has_value());
  ASSERT_EQ(s.offcpu->sites.size(), 1u);
  EXPECT_EQ(s.offcpu->sites[0].waker, 9);
  EXPECT_EQ(s.offcpu->sites[0].stack, "");
  // Format 3 wants the column.
  EXPECT_EQ(
      Decode("offcpu", "format\t3\nreading\t1\t2\t3\nsite\t7\t0\t1\t500\t2\t9\t0\tx\n", &s).message(),
      "offcpu line 3: expected 'site TID INVOLUNTARY SAMPLED NS COUNT WAKER SOFTIRQ WHERE STACK' (WAKER from -3), "
      "got 'site?7?0?1?500?2?9?0?x'");
}

TEST(OffCpuFile, RefusesMalformedLines) {
  const std::string head = "format\t2\nreading\t1\t2\t3\n";
  Sample s;
  EXPECT_EQ(Decode("offcpu", head + "site\t0\t0\t1\t5\t1\t-1\t0\tx\n", &s).message(),
            "offcpu line 3: expected 'site TID INVOLUNTARY SAMPLED NS COUNT WAKER SOFTIRQ WHERE' (WAKER from -3), got "
            "'site?0?0?1?5?1?-1?0?x'");
  EXPECT_EQ(Decode("offcpu", head + "site\t7\t0\t1\t5\t1\t-4\t0\tx\n", &s).message(),
            "offcpu line 3: expected 'site TID INVOLUNTARY SAMPLED NS COUNT WAKER SOFTIRQ WHERE' (WAKER from -3), got "
            "'site?7?0?1?5?1?-4?0?x'");
  EXPECT_EQ(Decode("offcpu", head + "site\t7\t0\t1\t5\t1\t-3\t0\tx\n", &s).message(),
            "offcpu line 3: a period under way (WAKER -3) has COUNT 0, got 'site?7?0?1?5?1?-3?0?x'");
  EXPECT_EQ(Decode("offcpu", head + "waker\t9\t1\ta\nwaker\t8\t1\tb\n", &s).message(),
            "offcpu line 4: waker lines go by increasing TID, got 'waker?8?1?b'");
  EXPECT_EQ(Decode("offcpu", head + "waker\t9\tx\ta\n", &s).message(),
            "offcpu line 3: expected 'waker TID PID NAME', got 'waker?9?x?a'");
  EXPECT_EQ(Decode("offcpu", head + "tids\t1\tx\n", &s).message(),
            "offcpu line 3: a thread id is a whole number from 1, got 'tids?1?x'");
  EXPECT_EQ(Decode("offcpu", head + "reading\t1\t2\t3\n", &s).message(),
            "offcpu line 3: reading given twice, got 'reading?1?2?3'");
  EXPECT_EQ(Decode("offcpu", "format\t2\n", &s).message(), "offcpu: no 'reading' line");
  EXPECT_EQ(Decode("offcpu", head + "stack\t1\n", &s).message(),
            "offcpu line 3: unknown key 'stack' (expected reading, tids, site or waker), got 'stack?1'");
  EXPECT_FALSE(s.offcpu.has_value());  // nothing half read
}

ProfileReading HandProfile() {
  ProfileReading p;
  p.mono_ns = 9000000000;
  p.since_ns = 8000000000;
  p.generation = 7;
  p.frequency_hz = 49;
  p.dropped = 1;
  p.stack_lost = 2;
  p.cpus = {{0, 49, 10}, {1, 49, 49}};
  p.cpu_totals = {{0, 490, 100}, {1, 490, 480}};
  p.stacks = {{100, 101, 0, "udp\techo%1", {"main (udpecho)", "copy_loop (udpecho)", "__udp4_lib_rcv [kernel]"}, 30},
              {100, 101, 0, "udp\techo%1", {"[truncated]", "0x7f3a2c01b2e0 (libfoo.so.1)"}, 5},
              {1, 1, 1, "systemd", {}, 4}};
  return p;
}

TEST(ProfileFile, RoundTripsFramesNamedAtRecordTime) {
  const ProfileReading p = HandProfile();
  Sample s;
  ASSERT_OK(Decode("profile", ProfileFileText(p), &s));
  ASSERT_TRUE(s.profile.has_value());
  EXPECT_EQ(*s.profile, p);
}

TEST(ProfileFile, RefusesMalformedLines) {
  const std::string head = "format\t1\nreading\t1\t0\t3\t49\t0\t0\n";
  Sample s;
  EXPECT_EQ(Decode("profile", head + "cpu\t0\t5\t6\n", &s).message(),
            "profile line 3: expected 'cpu CPU SAMPLES IDLE', IDLE <= SAMPLES, got 'cpu?0?5?6'");
  EXPECT_EQ(Decode("profile", head + "stack\t1\t1\t0\t5\n", &s).message(),
            "profile line 3: expected 'stack PID TID CPU SAMPLES COMM FRAME...', got 'stack?1?1?0?5'");
  EXPECT_EQ(Decode("profile", head + "stack\t1\t1\t0\t5\tc\tok\tbad%zz\n", &s).message(),
            "profile line 3: a frame has a bad %-escape, got 'stack?1?1?0?5?c?ok?bad%zz'");
  EXPECT_EQ(Decode("profile", "format\t1\nreading\t1\t0\t3\t5000\t0\t0\n", &s).message(),
            "profile line 2: expected 'reading MONO_NS SINCE_NS GENERATION FREQUENCY_HZ DROPPED STACK_LOST', got "
            "'reading?1?0?3?5000?0?0'");
}

std::vector<CaptureReading> HandCapture() {
  CaptureReading a;
  a.interface = "eth0";
  a.active = true;
  a.linktype = 113;
  a.direction_known = true;
  a.opened_mono_ns = 123;
  a.stats_ok = true;
  a.pcap_received = 4294967295u;
  a.pcap_dropped = 2;
  a.pcap_ifdropped = 1;
  a.packets = 1000, a.bytes = 64000, a.receive_packets = 600, a.receive_bytes = 38400;
  a.transmit_packets = 400, a.transmit_bytes = 25600, a.requests = 600, a.replies = 400;
  a.request_bytes = 38400, a.reply_bytes = 25600, a.paired = 390, a.lost = 10, a.unmatched_replies = 10;
  a.truncated = 1, a.malformed = 2, a.not_ip = 3;
  a.sizes = {1000, 0, 0, 0, 0, 0, 0, 0};
  for (double t : {20e-6, 25e-6, 31e-6, 0.002, 0.5}) a.turnaround.Add(t);
  FlowStats f;
  f.key.protocol = 17;
  f.key.src = {10, 0, 0, 1};
  f.key.dst = {10, 0, 0, 2};
  f.key.src_port = 40000;
  f.key.dst_port = 7;
  f.requests = 600, f.replies = 400, f.paired = 390, f.lost = 10, f.bytes = 64000, f.packets = 1000;
  a.top_flows = {f};
  f.key.ipv6 = true;
  f.key.src[15] = 0xfe;
  f.packets_error = 3;
  a.top_flows.push_back(f);
  CaptureReading b;
  b.interface = "veth one";
  b.error = "needs CAP_NET_RAW\t(capture off)";
  return {a, b};
}

TEST(CaptureFile, RoundTripsCountersHistogramsAndFlows) {
  const std::vector<CaptureReading> c = HandCapture();
  const std::string text = CaptureFileText(c);
  Sample s;
  ASSERT_OK(Decode("pcap", text, &s));
  ASSERT_TRUE(s.capture.has_value());
  EXPECT_EQ(*s.capture, c);
  EXPECT_EQ((*s.capture)[0].turnaround.Percentile(50), c[0].turnaround.Percentile(50));
  // No payload: nothing in the file but counters, addresses and ports.
  EXPECT_EQ(text.find("payload"), std::string::npos);
}

TEST(CaptureFile, RefusesMalformedLines) {
  const std::string head = "format\t1\ninterface\teth0\t1\t\t113\t1\t5\t1\t1\t2\t3\n";
  Sample s;
  EXPECT_EQ(Decode("pcap", "format\t1\ncounts\t1\n", &s).message(),
            "pcap line 2: 'counts' before any interface line, got 'counts?1'");
  EXPECT_EQ(Decode("pcap", head + "turnaround\t2\t0.1\t0.2\t0.3\t5\t1\n", &s).message(),
            "pcap line 3: the turnaround histogram does not add up (bucket out of range or repeated, counts not "
            "COUNT), got 'turnaround?2?0.1?0.2?0.3?5?1'");
  EXPECT_EQ(Decode("pcap", head + "turnaround\t1\t0.1\t0.2\t0.3\t99999\t1\n", &s).code(), Status::Code::kCorruption);
  EXPECT_EQ(Decode("pcap", head + "flow\t0\t17\t0a\t0a\t1\t2\t0\t0\t0\t0\t0\t0\t0\n", &s).code(),
            Status::Code::kCorruption);  // addresses are 32 hex digits
  EXPECT_EQ(Decode("pcap", "format\t1\ninterface\teth0\t1\t\t113\t1\t5\t1\t1\t2\t4294967296\n", &s).message(),
            "pcap line 2: pcap_stats counters are 32-bit whole numbers, got "
            "'interface?eth0?1??113?1?5?1?1?2?4294967296'");
  EXPECT_EQ(Decode("pcap", head + "sizes\t1\n", &s).message(),
            "pcap line 3: expected 8 whole numbers after 'sizes', got 'sizes?1'");
}

// Every entry's codec: no reading, no file; a reading read back is encoded
// to the same text (the property test in tests/exporters/prometheus/
// live_replay_test.cc runs them through the daemon's tick).
TEST(SourceEntries, EncodeNothingWithoutAReading) {
  for (const SourceEntry* e : SourceRegistry()) {
    std::string text;
    EXPECT_FALSE(e->Encode(Sample(), &text)) << e->name();
  }
}

}  // namespace
}  // namespace bottleneckd::reading_file_test
