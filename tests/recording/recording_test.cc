// Recording formats (docs/recording-format.md): recording.yaml (versions 1
// and 2), the soaker and irqtime files (examples from the doc, round trips,
// every validation error with its line and column) and the sample times. The file-system side (capture,
// replay, validation of a recording directory) is in replay_test.cc.
#include "recording/recording.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "tests/support/test_util.h"

namespace bottleneckd::testing::recording_test {
namespace {

const char kBase[] = "format: bottleneckd-recording\nversion: 1\ninterval_seconds: 1\nsamples: 2\n";

TEST(RecordingInfo, ParsesTheDocumentedExample) {
  const char* doc =
      "format: bottleneckd-recording   # required, exactly this\n"
      "version: 1\n"
      "interval_seconds: 1.0\n"
      "source: recorded\n"
      "created: 2026-11-30T11:30:00Z\n"
      "host:\n  hostname: box1\n  kernel: 6.1.0-13-amd64\n  cpus: 2\n"
      "soaker: false\n"
      "samples: 31\n"
      "runs:\n"
      "  - name: echo-550\n    start: 10.0\n    end: 40.0\n"
      "    offered_bits_per_second: 550000000\n    offered_packets_per_second: 67139\n"
      "    expected:\n      label: cpu\n      resource: cpu0\n";
  RecordingInfo r;
  ASSERT_OK(ParseRecordingInfo(doc, "r.yaml", &r));
  EXPECT_EQ(r.version, 1);
  EXPECT_EQ(r.interval_seconds, 1.0);
  EXPECT_EQ(r.source, "recorded");
  EXPECT_EQ(r.created, "2026-11-30T11:30:00Z");
  EXPECT_EQ(r.hostname, "box1");
  EXPECT_EQ(r.kernel, "6.1.0-13-amd64");
  EXPECT_EQ(r.cpus, 2);
  EXPECT_FALSE(r.HasSource("soaker"));
  EXPECT_EQ(r.samples, 31u);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].name, "echo-550");
  EXPECT_EQ(r.runs[0].start, 10.0);
  EXPECT_EQ(r.runs[0].end, 40.0);
  EXPECT_EQ(r.runs[0].offered_bits_per_second, 550000000.0);
  EXPECT_EQ(r.runs[0].offered_packets_per_second, 67139.0);
  EXPECT_EQ(r.runs[0].expected_label, "cpu");
  EXPECT_EQ(r.runs[0].expected_resource, "cpu0");
}

TEST(RecordingInfo, YamlRoundTripsEveryField) {
  RecordingInfo in;
  in.interval_seconds = 0.1;
  in.source = "simulated";
  in.created = "2026-11-30T11:30:00.25+01:00";
  in.hostname = "box \"one\": #1\\ null";  // quotes, colon, comment and escape characters
  in.kernel = "6.1.0\ttab\nnewline\x01";
  in.cpus = 64;
  in.sources = {"pcap", "soaker", "irqtime", "offcpu", "profile"};
  in.samples = 1234567;
  RecordingRun a;
  a.name = "echo 550 +32 copies";
  a.start = 10.25;
  a.end = 40.1;
  a.offered_bits_per_second = 550e6;
  a.offered_packets_per_second = 67139.0625;
  a.expected_label = "undetermined";
  a.expected_resource = "em0 (0000:02:01.0)";
  RecordingRun b;
  b.name = "null";
  b.start = 0;
  b.end = 1e-3;
  in.runs = {a, b};
  RecordingInfo out;
  Status s = ParseRecordingInfo(RecordingInfoYaml(in), "r.yaml", &out);
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << RecordingInfoYaml(in);
  EXPECT_EQ(out.interval_seconds, 0.1);
  EXPECT_EQ(out.source, in.source);
  EXPECT_EQ(out.created, in.created);
  EXPECT_EQ(out.hostname, in.hostname);
  EXPECT_EQ(out.kernel, in.kernel);
  EXPECT_EQ(out.cpus, 64);
  EXPECT_EQ(out.version, kRecordingVersion);
  EXPECT_EQ(out.sources, in.sources);
  EXPECT_EQ(out.samples, 1234567u);
  ASSERT_EQ(out.runs.size(), 2u);
  EXPECT_EQ(out.runs[0].name, a.name);
  EXPECT_EQ(out.runs[0].start, 10.25);
  EXPECT_EQ(out.runs[0].end, 40.1);
  EXPECT_EQ(out.runs[0].offered_bits_per_second, 550e6);
  EXPECT_EQ(out.runs[0].offered_packets_per_second, 67139.0625);
  EXPECT_EQ(out.runs[0].expected_label, "undetermined");
  EXPECT_EQ(out.runs[0].expected_resource, a.expected_resource);
  EXPECT_EQ(out.runs[1].name, "null");
  EXPECT_EQ(out.runs[1].end, 1e-3);
  EXPECT_FALSE(out.runs[1].offered_bits_per_second.has_value());
  EXPECT_EQ(out.runs[1].expected_label, "");
}

TEST(RecordingInfo, EmitsOddHostnameSafely) {
  RecordingInfo in;
  in.hostname = "a: #\"b\"\nc";
  in.samples = 3;
  const std::string yaml = RecordingInfoYaml(in);
  // One hostname line: the newline is escaped, not written.
  EXPECT_NE(yaml.find("\n  hostname: \"a: #\\\"b\\\"\\nc\"\n"), std::string::npos) << yaml;
  RecordingInfo out;
  Status s = ParseRecordingInfo(yaml, "r.yaml", &out);
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << yaml;
  EXPECT_EQ(out.hostname, in.hostname);
  EXPECT_EQ(out.samples, 3u);
}

TEST(RecordingInfo, ReadsFileOfTheHandWrittenWriter) {
  // Byte for byte what bottleneckd wrote before it used the YAML emitter.
  const std::string old =
      "# bottleneckd recording (docs/recording-format.md)\n"
      "format: bottleneckd-recording\n"
      "version: 2\n"
      "interval_seconds: 0.5\n"
      "source: \"recorded\"\n"
      "created: \"2026-11-30T11:30:00Z\"\n"
      "host:\n"
      "  hostname: \"box\\x01 \\\"one\\\"\\n\"\n"
      "  cpus: 4\n"
      "soaker: false\n"
      "irqtime: true\n"
      "samples: 7\n"
      "runs:\n"
      "  - name: \"r1\"\n"
      "    start: 1.5\n"
      "    end: 3\n"
      "    expected:\n"
      "      label: \"cpu\"\n";
  RecordingInfo r;
  Status s = ParseRecordingInfo(old, "r.yaml", &r);
  ASSERT_OK(s);
  EXPECT_EQ(r.hostname, "box\x01 \"one\"\n");
  EXPECT_EQ(r.interval_seconds, 0.5);
  EXPECT_EQ(r.cpus, 4);
  EXPECT_EQ(r.sources, std::vector<std::string>{"irqtime"});
  EXPECT_EQ(r.samples, 7u);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].end, 3);
  EXPECT_EQ(r.runs[0].expected_label, "cpu");
  // Written again with the emitter, it reads back the same.
  RecordingInfo again;
  ASSERT_TRUE(ParseRecordingInfo(RecordingInfoYaml(r), "r.yaml", &again).ok()) << RecordingInfoYaml(r);
  EXPECT_EQ(again.hostname, r.hostname);
  EXPECT_EQ(again.created, r.created);
  EXPECT_EQ(again.runs[0].start, 1.5);
}

TEST(RecordingInfo, ReadsVersionOneAndTwo) {
  RecordingInfo r;
  ASSERT_OK(ParseRecordingInfo(kBase, "r.yaml", &r));  // version 1: no irqtime
  EXPECT_EQ(r.version, 1);
  EXPECT_FALSE(r.HasSource("irqtime"));
  // A version 1 file is written back as version 1 (no irqtime key), so a tool
  // that rewrites recording.yaml does not promise files the samples lack.
  EXPECT_EQ(RecordingInfoYaml(r).find("irqtime"), std::string::npos);
  RecordingInfo back;
  ASSERT_OK(ParseRecordingInfo(RecordingInfoYaml(r), "r.yaml", &back));
  EXPECT_EQ(back.version, 1);

  const std::string v2 = "format: bottleneckd-recording\nversion: 2\ninterval_seconds: 1\nsamples: 2\n";
  ASSERT_OK(ParseRecordingInfo(v2, "r.yaml", &r));
  EXPECT_EQ(r.version, 2);
  EXPECT_FALSE(r.HasSource("irqtime"));  // absent: false
  ASSERT_OK(ParseRecordingInfo(v2 + "irqtime: true\nsoaker: true\n", "r.yaml", &r));
  EXPECT_EQ(r.sources, (std::vector<std::string>{"soaker", "irqtime"}));
  // Written back as version 2 said it, not as a sources list.
  EXPECT_NE(RecordingInfoYaml(r).find("\nsoaker: true\nirqtime: true\n"), std::string::npos) << RecordingInfoYaml(r);
  ASSERT_OK(ParseRecordingInfo(v2 + "irqtime: false\n", "r.yaml", &r));
  EXPECT_FALSE(r.HasSource("irqtime"));
  EXPECT_EQ(RecordingInfo().version, 3);  // what bottleneckd record writes
}

TEST(RecordingInfo, VersionThreeListsItsSources) {
  const std::string v3 = "format: bottleneckd-recording\nversion: 3\ninterval_seconds: 1\nsamples: 2\n";
  RecordingInfo r;
  ASSERT_OK(ParseRecordingInfo(v3 + "sources: [pcap, offcpu, profile]\n", "r.yaml", &r));
  EXPECT_EQ(r.sources, (std::vector<std::string>{"pcap", "offcpu", "profile"}));
  EXPECT_NE(RecordingInfoYaml(r).find("\nsources: [pcap, offcpu, profile]\n"), std::string::npos)
      << RecordingInfoYaml(r);
  ASSERT_OK(ParseRecordingInfo(v3, "r.yaml", &r));
  EXPECT_TRUE(r.sources.empty());
  // Each way of getting it wrong names the line and column.
  EXPECT_EQ(ParseRecordingInfo(v3 + "sources: [pcap, nic]\n", "r.yaml", &r).message(),
            "r.yaml:5:17: unknown source 'nic' (this bottleneckd records pcap, soaker, irqtime, offcpu, profile)");
  EXPECT_EQ(ParseRecordingInfo(v3 + "sources: [soaker, soaker]\n", "r.yaml", &r).message(),
            "r.yaml:5:19: source 'soaker' listed twice");
  EXPECT_EQ(ParseRecordingInfo(v3 + "soaker: true\n", "r.yaml", &r).message(),
            "r.yaml:5:1: soaker is said in sources from version 3 on (sources: [soaker, ...])");
  const std::string v2 = "format: bottleneckd-recording\nversion: 2\ninterval_seconds: 1\nsamples: 2\n";
  EXPECT_EQ(ParseRecordingInfo(v2 + "sources: [soaker]\n", "r.yaml", &r).message(),
            "r.yaml:5:1: sources came with version 3; a version 2 recording says soaker and irqtime");
}

struct BadInfo {
  std::string yaml, error;
};

class RecordingInfoError : public ::testing::TestWithParam<BadInfo> {};

TEST_P(RecordingInfoError, NamesFileLineAndColumn) {
  RecordingInfo r;
  Status s = ParseRecordingInfo(GetParam().yaml, "r.yaml", &r);
  ASSERT_FALSE(s.ok()) << GetParam().yaml;
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find(GetParam().error), std::string::npos) << s.message();
}

// Columns counted by hand: "interval_seconds: " is 18 characters, so its
// value starts in column 19.
INSTANTIATE_TEST_SUITE_P(
    All, RecordingInfoError,
    ::testing::Values(
        BadInfo{"", "r.yaml: empty: not a bottleneckd recording"}, BadInfo{"- a\n", "r.yaml:1:1: must be a mapping"},
        BadInfo{"format: other\nversion: 1\ninterval_seconds: 1\nsamples: 2\n",
                "r.yaml:1:9: format must be 'bottleneckd-recording', got 'other'"},
        BadInfo{"format: bottleneckd-recording\nversion: 4\ninterval_seconds: 1\nsamples: 2\n",
                "r.yaml:2:10: version 4 is newer than this bottleneckd reads (1-3)"},
        BadInfo{"format: bottleneckd-recording\nversion: 0\ninterval_seconds: 1\nsamples: 2\n",
                "r.yaml:2:10: version 0 is not a recording version (this bottleneckd reads 1-3)"},
        BadInfo{std::string(kBase) + "irqtime: true\n",
                "r.yaml:5:1: irqtime came with version 2; a version 1 recording has no irqtime files"},
        BadInfo{"format: bottleneckd-recording\nversion: 2\ninterval_seconds: 1\nsamples: 2\nirqtime: 1.5\n",
                "r.yaml:5:10: irqtime must be true or false"},
        BadInfo{"format: bottleneckd-recording\nversion: one\ninterval_seconds: 1\nsamples: 2\n",
                "r.yaml:2:10: version must be a whole number"},
        BadInfo{"format: bottleneckd-recording\nversion: 1\ninterval_seconds: 0\nsamples: 2\n",
                "r.yaml:3:19: interval_seconds must be a number from 0.001 to 86400, got '0'"},
        BadInfo{"format: bottleneckd-recording\nversion: 1\ninterval_seconds: 1\nsamples: 2.5\n",
                "r.yaml:4:10: samples must be a whole number from 0 to 1000000000, got '2.5'"},
        BadInfo{"format: bottleneckd-recording\nversion: 1\ninterval_seconds: 1\nsamples: -1\n",
                "r.yaml:4:10: samples must be a whole number"},
        BadInfo{"format: bottleneckd-recording\nversion: 1\ninterval_seconds: 1\n",
                "r.yaml:1:1: missing required key 'samples'"},
        BadInfo{"version: 1\ninterval_seconds: 1\nsamples: 2\n", "r.yaml:1:1: missing required key 'format'"},
        BadInfo{std::string(kBase) + "intervl: 1\n", "r.yaml:5:1: unknown key 'intervl' in recording.yaml"},
        BadInfo{std::string(kBase) + "samples: 3\n", "r.yaml:5:1: duplicate key 'samples' in recording.yaml"},
        BadInfo{std::string(kBase) + "source: live\n", "r.yaml:5:9: source must be recorded or simulated"},
        BadInfo{std::string(kBase) + "created: yesterday\n", "r.yaml:5:10: created must be an RFC 3339 time"},
        BadInfo{std::string(kBase) + "created: 2026-11-30 11:30:00\n", "r.yaml:5:10: created must be an RFC 3339"},
        BadInfo{std::string(kBase) + "host: {cpus: two}\n", "r.yaml:5:14: cpus must be a whole number"},
        BadInfo{std::string(kBase) + "host:\n  hostnme: x\n", "r.yaml:6:3: unknown key 'hostnme' in host"},
        BadInfo{std::string(kBase) + "host: box1\n", "r.yaml:5:7: host must be a mapping"},
        BadInfo{std::string(kBase) + "soaker: maybe\n", "r.yaml:5:9: soaker must be true or false"},
        BadInfo{std::string(kBase) + "runs: 3\n", "r.yaml:5:7: runs must be a list"},
        BadInfo{std::string(kBase) + "runs:\n  - name: a\n    start: 1\n", "r.yaml:6:5: a run needs 'end'"},
        BadInfo{std::string(kBase) + "runs:\n  - name:\n    start: 1\n    end: 2\n",
                "r.yaml:6:5: a run's name must not be empty"},
        BadInfo{std::string(kBase) + "runs:\n  - name: a\n    start: 5\n    end: 2\n",
                "r.yaml:8:10: run 'a' ends at 2 s, not after its start at 5 s"},
        BadInfo{std::string(kBase) + "runs:\n  - name: a\n    start: 0\n    end: 1\n    stat: 1\n",
                "r.yaml:9:5: unknown key 'stat' in a run"},
        BadInfo{
            std::string(kBase) + "runs:\n  - name: a\n    start: 0\n    end: 1\n    offered_bits_per_second: fast\n",
            "r.yaml:9:30: offered_bits_per_second must be a number"},
        BadInfo{
            std::string(kBase) + "runs:\n  - name: a\n    start: 0\n    end: 1\n    expected:\n      label: cpus\n",
            "r.yaml:10:14: expected label must be one of cpu, interrupt, bus, wait, none, undetermined, got 'cpus'"},
        BadInfo{
            std::string(kBase) + "runs:\n  - name: a\n    start: 0\n    end: 1\n    expected:\n      resource: cpu0\n",
            "r.yaml:10:7: expected needs a label"},
        BadInfo{"format: bottleneckd-recording\nversion: 1\ninterval_seconds: 1\nsamples: [2\n", "r.yaml:5:1: "}));

TEST(SoakerFile, ParsesTheDocumentedExample) {
  SoakerReading r;
  ASSERT_OK(
      ParseSoakerFile("# cpu iterations thread_cpu_ns calibrated_iterations_per_second\n"
                      "sched_idle 1\ncalibration_unix_seconds 1764500000\ncaveat nice 19: SCHED_IDLE refused\n"
                      "1 5 6 2e9\n0 123456789 987654321 1.5e9\n",
                      &r));
  EXPECT_TRUE(r.sched_idle);
  EXPECT_EQ(r.calibration_unix_seconds, 1764500000);
  EXPECT_EQ(r.caveat, "nice 19: SCHED_IDLE refused");
  EXPECT_EQ(r.mono_ns, 0);
  ASSERT_EQ(r.cpus.size(), 2u);  // sorted by CPU
  EXPECT_EQ(r.cpus[0].cpu, 0);
  EXPECT_EQ(r.cpus[0].iterations, 123456789u);
  EXPECT_EQ(r.cpus[0].thread_cpu_ns, 987654321u);
  EXPECT_EQ(r.cpus[0].iterations_per_second, 1.5e9);
  EXPECT_EQ(r.cpus[1].cpu, 1);
  EXPECT_EQ(r.cpus[1].iterations_per_second, 2e9);
}

TEST(SoakerFile, RoundTripsEveryField) {
  SoakerReading in;
  in.mono_ns = 123456789012345;
  in.sched_idle = false;
  in.calibration_unix_seconds = 1764500000;
  in.caveat = "cpu3: affinity refused\nsecond line";
  in.running = false;
  in.calibration_generation = 42;
  in.cpus = {{0, 10, 20, 7, 2087512.25, 1764500001, false, 0}, {5, UINT64_MAX, 0, 1, 1.0 / 3, -1, true, 612345678}};
  SoakerReading out;
  ASSERT_TRUE(ParseSoakerFile(SoakerFileText(in), &out).ok()) << SoakerFileText(in);
  SoakerReading want = in;
  want.caveat = "cpu3: affinity refused second line";  // one line in the file
  EXPECT_TRUE(out == want) << SoakerFileText(in);      // every field
  EXPECT_EQ(out.mono_ns, in.mono_ns);
  EXPECT_FALSE(out.sched_idle);
  EXPECT_FALSE(out.running);
  EXPECT_EQ(out.calibration_generation, 42u);
  EXPECT_EQ(out.calibration_unix_seconds, 1764500000);
  EXPECT_EQ(out.caveat, "cpu3: affinity refused second line");  // one line in the file
  ASSERT_EQ(out.cpus.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(out.cpus[i].cpu, in.cpus[i].cpu);
    EXPECT_EQ(out.cpus[i].iterations, in.cpus[i].iterations);
    EXPECT_EQ(out.cpus[i].thread_cpu_ns, in.cpus[i].thread_cpu_ns);
    EXPECT_EQ(out.cpus[i].generation, in.cpus[i].generation);
    EXPECT_EQ(out.cpus[i].iterations_per_second, in.cpus[i].iterations_per_second);
    EXPECT_EQ(out.cpus[i].calibrated_unix_seconds, in.cpus[i].calibrated_unix_seconds);
    EXPECT_EQ(out.cpus[i].calibration_borrowed, in.cpus[i].calibration_borrowed);
    EXPECT_EQ(out.cpus[i].calibration_cpu_ns, in.cpus[i].calibration_cpu_ns);
  }
}

TEST(SoakerFile, MalformedLinesNameTheLine) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"0 1 2\n", "line 1: expected 'cpu iterations thread_cpu_ns calibrated_iterations_per_second'"},
      {"0 1 x 3\n", "line 1: expected 'cpu iterations"},
      {"0 1 2 -3\n", "line 1: expected 'cpu iterations"},
      {"# c\n0 1 2 nan\n", "line 2: expected 'cpu iterations"},
      {"-1 1 2 3\n", "line 1: expected a CPU number or a known key"},
      {"idle 1\n", "line 1: expected a CPU number or a known key"},
      {"sched_idle 2\n", "line 1: sched_idle must be 0 or 1"},
      {"sched_idle 1 1\n", "line 1: one value expected"},
      {"running yes\n", "line 1: running must be 0 or 1"},
      {"calibration_generation -1\n", "line 1: calibration_generation must be a whole number"},
      {"0 1 2 3 calibration_cpu_ns=x\n", "line 1: calibration_cpu_ns must be a whole number"},
      {"calibration_unix_seconds soon\n", "line 1: calibration_unix_seconds must be a whole number"},
      {"mono_seconds -5\n", "line 1: mono_seconds must be seconds"},
      {"0 1 2 3 generation=x\n", "line 1: generation must be a whole number"},
      {"0 1 2 3 borrowed=2\n", "line 1: borrowed must be 0 or 1"},
      {"0 1 2 3 colour=red\n", "line 1: unknown key 'colour'"},
      {"0 1 2 3 extra\n", "line 1: expected key=value"},
      {"0 1 2 3\n0 4 5 6\n", "cpu 0 appears twice"},
  };
  for (const Case& c : cases) {
    SoakerReading r;
    Status s = ParseSoakerFile(c.text, &r);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.message().find(c.error), std::string::npos) << c.text << " -> " << s.message();
  }
}

// The example of docs/recording-format.md, "irqtime".
const char kIrqTimeDoc[] =
    "format 1\n"
    "mono_ns 123456789\n"
    "generation 42\n"
    "attach tp_btf\n"
    "# cpu CPU hardirq NS COUNT unattributed NS overflow COUNT VECTOR NS COUNT ...\n"
    "cpu 1 hardirq 5 1 unattributed 0 overflow 0 NET_RX 7 2\n"
    "cpu 0 hardirq 22319 1 unattributed 100 overflow 3 HI 0 0 TIMER 300750 28 NET_TX 10 1 NET_RX 2000 4 "
    "BLOCK 0 0 IRQ_POLL 0 0 TASKLET 0 0 SCHED 9 1 HRTIMER 0 0 RCU 11 2\n"
    "\n"
    "irq 31 1 hardirq 14318 1 net 0 0\n"
    "irq 31 0 hardirq 8000 3 net 1900 4\n"
    "irq 24 0 hardirq 1 1 net 0 0\n";

TEST(IrqTimeFile, ParsesTheDocumentedExample) {
  IrqTimeReading r;
  Status s = ParseIrqTimeFile(kIrqTimeDoc, &r);
  ASSERT_OK(s);
  EXPECT_EQ(r.mono_ns, 123456789);
  EXPECT_EQ(r.generation, 42u);
  EXPECT_EQ(r.attach, "tp_btf");
  ASSERT_EQ(r.cpus.size(), 2u);  // sorted by CPU
  const IrqTimeCpu& c0 = r.cpus[0];
  EXPECT_EQ(c0.cpu, 0);
  EXPECT_EQ(c0.hardirq_ns, 22319u);
  EXPECT_EQ(c0.hardirq_count, 1u);
  EXPECT_EQ(c0.net_unattributed_ns, 100u);
  EXPECT_EQ(c0.irq_overflow_count, 3u);
  EXPECT_EQ(c0.softirq_ns[1], 300750u);  // TIMER
  EXPECT_EQ(c0.softirq_count[1], 28u);
  EXPECT_EQ(c0.softirq_ns[kSoftirqNetTx], 10u);
  EXPECT_EQ(c0.softirq_ns[kSoftirqNetRx], 2000u);
  EXPECT_EQ(c0.softirq_count[kSoftirqNetRx], 4u);
  EXPECT_EQ(c0.softirq_ns[9], 11u);  // RCU
  EXPECT_EQ(c0.softirq_total_ns(), 300750u + 10 + 2000 + 9 + 11);
  const IrqTimeCpu& c1 = r.cpus[1];
  EXPECT_EQ(c1.cpu, 1);
  EXPECT_EQ(c1.softirq_ns[kSoftirqNetRx], 7u);
  EXPECT_EQ(c1.softirq_count[kSoftirqNetRx], 2u);
  EXPECT_EQ(c1.softirq_total_ns(), 7u);  // the vectors it leaves out are 0
  ASSERT_EQ(r.irqs.size(), 3u);          // sorted by (irq, cpu)
  EXPECT_EQ(r.irqs[0], (IrqTimeIrq{24, 0, 1, 1, 0, 0}));
  EXPECT_EQ(r.irqs[1], (IrqTimeIrq{31, 0, 8000, 3, 1900, 4}));
  EXPECT_EQ(r.irqs[2], (IrqTimeIrq{31, 1, 14318, 1, 0, 0}));
}

TEST(IrqTimeFile, RoundTripsEveryField) {
  IrqTimeReading in;
  in.mono_ns = INT64_MAX;
  in.generation = UINT64_MAX;
  in.attach = "raw_tp";
  for (int cpu : {0, 3, kMaxCpuId}) {
    IrqTimeCpu c;
    c.cpu = cpu;
    c.hardirq_ns = UINT64_MAX - static_cast<uint64_t>(cpu);
    c.hardirq_count = 17u + static_cast<uint64_t>(cpu);
    c.net_unattributed_ns = 5;
    c.irq_overflow_count = UINT64_MAX;
    for (int v = 0; v < kSoftirqVectors; ++v) {
      c.softirq_ns[v] = 1000u * static_cast<uint64_t>(v) + static_cast<uint64_t>(cpu);
      c.softirq_count[v] = static_cast<uint64_t>(v);
    }
    in.cpus.push_back(c);
  }
  in.irqs = {{0, 0, 1, 2, 3, 4}, {31, 3, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX}, {UINT32_MAX, kMaxCpuId, 9}};
  const std::string text = IrqTimeFileText(in);
  IrqTimeReading out;
  Status s = ParseIrqTimeFile(text, &out);
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << text;
  EXPECT_EQ(out, in) << text;
  EXPECT_EQ(IrqTimeFileText(out), text);
  // The writer names all ten vectors, in the kernel's order.
  EXPECT_NE(text.find(" HI 0 0 TIMER 1000 1 NET_TX 2000 2 NET_RX 3000 3 BLOCK 4000 4 IRQ_POLL 5000 5 TASKLET 6000 6 "
                      "SCHED 7000 7 HRTIMER 8000 8 RCU 9000 9\n"),
            std::string::npos)
      << text;

  // An empty reading: the header only; no attach line when none is known.
  IrqTimeReading empty, back;
  ASSERT_TRUE(ParseIrqTimeFile(IrqTimeFileText(empty), &back).ok()) << IrqTimeFileText(empty);
  EXPECT_EQ(back, empty);
  EXPECT_EQ(IrqTimeFileText(empty), "format 1\nmono_ns 0\ngeneration 0\n");
}

TEST(IrqTimeFile, MalformedLinesNameTheLine) {
  const std::string cpu0 = "cpu 0 hardirq 1 1 unattributed 0 overflow 0";
  struct Case {
    std::string text, error;
  } cases[] = {
      {"", "no 'format 1' line: not an irqtime file"},
      {"# nothing\n\n", "no 'format 1' line"},
      {"mono_ns 5\nformat 1\n", "line 1: expected 'format 1' first, got 'mono_ns 5'"},
      {"format 2\n", "line 1: unknown irqtime format (this bottleneckd reads format 1)"},
      {"format\n", "line 1: format takes one value"},
      {"format 1\nformat 1\n", "line 2: format given twice"},
      {"format 1\nmono_ns 1\nmono_ns 2\n", "line 3: mono_ns given twice"},
      {"format 1\nmono_ns -5\n", "line 2: mono_ns must be a whole number of nanoseconds"},
      {"format 1\nmono_ns 9223372036854775808\n", "line 2: mono_ns must be a whole number of nanoseconds"},
      {"format 1\ngeneration 18446744073709551616\n", "line 2: generation must be a whole number"},
      {"format 1\ngeneration 1 2\n", "line 2: generation takes one value"},
      {"format 1\nattach kprobe\n", "line 2: attach must be tp_btf or raw_tp"},
      {"format 1\nsoftirq 3\n",
       "line 2: unknown key 'softirq' (expected format, mono_ns, generation, attach, cpu or irq)"},
      {"format 1\n0 1 2\n", "line 2: unknown key '0'"},
      {"format 1\ncpu 0\n", "line 2: expected 'cpu CPU hardirq NS COUNT unattributed NS overflow COUNT"},
      {"format 1\ncpu -1 hardirq 1 1 unattributed 0 overflow 0\n", "line 2: expected 'cpu CPU hardirq"},
      {"format 1\ncpu 65536 hardirq 1 1 unattributed 0 overflow 0\n", "line 2: expected 'cpu CPU hardirq"},
      {"format 1\ncpu 0 hardirq -1 1 unattributed 0 overflow 0\n", "line 2: expected 'cpu CPU hardirq"},
      {"format 1\ncpu 0 hardirq 18446744073709551616 1 unattributed 0 overflow 0\n",
       "line 2: expected 'cpu CPU hardirq"},
      {"format 1\ncpu 0 hardirq 1 unattributed 0 overflow 0\n", "line 2: expected 'cpu CPU hardirq"},
      {"format 1\ncpu 0 unattributed 0 hardirq 1 1 overflow 0\n", "line 2: expected 'cpu CPU hardirq"},
      {"format 1\n" + cpu0 + " NET_RX 5\n", "line 2: expected 'cpu CPU hardirq"},
      {"format 1\n" + cpu0 + " NET_RX 5 -1\n", "line 2: expected 'cpu CPU hardirq"},
      {"format 1\n" + cpu0 + " NET_RX 5 1x\n", "line 2: expected 'cpu CPU hardirq"},
      {"format 1\n" + cpu0 + " NET_RX 18446744073709551616 1\n", "line 2: expected 'cpu CPU hardirq"},
      {"format 1\n" + cpu0 + " NETRX 5 1\n", "line 2: unknown softirq vector 'NETRX'"},
      {"format 1\n" + cpu0 + " net_rx 5 1\n", "line 2: unknown softirq vector 'net_rx'"},
      {"format 1\n" + cpu0 + " TIMER 5 1 TIMER 6 1\n", "line 2: vector TIMER given twice"},
      {"format 1\n" + cpu0 + "\n# c\n" + cpu0 + "\n", "line 4: cpu 0 given twice"},
      {"format 1\nirq 31 0 hardirq 1 1\n", "line 2: expected 'irq IRQ CPU hardirq NS COUNT net NS COUNT'"},
      {"format 1\nirq 31 0 hardirq 1 1 net 0 0 extra\n", "line 2: expected 'irq IRQ CPU"},
      {"format 1\nirq -31 0 hardirq 1 1 net 0 0\n", "line 2: expected 'irq IRQ CPU"},
      {"format 1\nirq 4294967296 0 hardirq 1 1 net 0 0\n", "line 2: expected 'irq IRQ CPU"},
      {"format 1\nirq 31 x hardirq 1 1 net 0 0\n", "line 2: expected 'irq IRQ CPU"},
      {"format 1\nirq 31 0 hardirq 1 1 net 0 18446744073709551616\n", "line 2: expected 'irq IRQ CPU"},
      {"format 1\nirq 31 0 hardirq 1 1 net 0 0\nirq 31 1 hardirq 1 1 net 0 0\nirq 31 0 hardirq 2 2 net 0 0\n",
       "line 4: irq 31 on cpu 0 given twice"},
  };
  for (const Case& c : cases) {
    IrqTimeReading r;
    Status s = ParseIrqTimeFile(c.text, &r);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_TRUE(s.IsCorruption()) << c.text << " -> " << s.ToString();
    EXPECT_NE(s.message().find(c.error), std::string::npos) << c.text << " -> " << s.message();
  }
}

TEST(SampleTimes, NamesAndSeconds) {
  EXPECT_EQ(SampleDirName(0), "samples/000000");
  EXPECT_EQ(SampleDirName(31), "samples/000031");
  EXPECT_EQ(SampleDirName(1234567), "samples/1234567");
  EXPECT_EQ(FormatSecondsNs(12000000500), "12.000000500");
  EXPECT_EQ(FormatSecondsNs(0), "0.000000000");
  int64_t ns = 0;
  ASSERT_TRUE(ParseSecondsNs("12.000000500", &ns));
  EXPECT_EQ(ns, 12000000500);
  ASSERT_TRUE(ParseSecondsNs("1764500000.25", &ns));  // past a double's nanosecond precision
  EXPECT_EQ(ns, 1764500000250000000);
  ASSERT_TRUE(ParseSecondsNs("12.0000000009", &ns));  // digits past nanoseconds are dropped
  EXPECT_EQ(ns, 12000000000);
  ASSERT_TRUE(ParseSecondsNs("7", &ns));
  EXPECT_EQ(ns, 7000000000);
  ASSERT_TRUE(ParseSecondsNs("1e-3", &ns));
  EXPECT_EQ(ns, 1000000);
  for (const char* bad : {"", "-1", "+1", "1.2.3", "abc", "nan", "inf", "1e300", "9300000000"})
    EXPECT_FALSE(ParseSecondsNs(bad, &ns)) << bad;
}

}  // namespace
}  // namespace bottleneckd::testing::recording_test
