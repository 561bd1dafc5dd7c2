// Recording formats (docs/recording-format.md): recording.yaml and the
// soaker file (examples from the doc, round trips, every validation error with
// its line and column) and the sample times. The file-system side (capture,
// replay, validation of a recording directory) is in replay_test.cc.
#include "recording/recording.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace bottleneckd::testing {
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
  ASSERT_TRUE(ParseRecordingInfo(doc, "r.yaml", &r).ok());
  EXPECT_EQ(r.version, 1);
  EXPECT_EQ(r.interval_seconds, 1.0);
  EXPECT_EQ(r.source, "recorded");
  EXPECT_EQ(r.created, "2026-11-30T11:30:00Z");
  EXPECT_EQ(r.hostname, "box1");
  EXPECT_EQ(r.kernel, "6.1.0-13-amd64");
  EXPECT_EQ(r.cpus, 2);
  EXPECT_FALSE(r.soaker);
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
  in.soaker = true;
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
  EXPECT_TRUE(out.soaker);
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
        BadInfo{"format: bottleneckd-recording\nversion: 2\ninterval_seconds: 1\nsamples: 2\n",
                "r.yaml:2:10: version 2 is not supported (this bottleneckd reads version 1)"},
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
        BadInfo{std::string(kBase) + "runs:\n  - name: a\n    start: 0\n    end: 1\n    expected:\n      label: cpus\n",
                "r.yaml:10:14: expected label must be cpu, interrupt, bus, none or undetermined, got 'cpus'"},
        BadInfo{
            std::string(kBase) + "runs:\n  - name: a\n    start: 0\n    end: 1\n    expected:\n      resource: cpu0\n",
            "r.yaml:10:7: expected needs a label"},
        BadInfo{"format: bottleneckd-recording\nversion: 1\ninterval_seconds: 1\nsamples: [2\n", "r.yaml:5:1: "}));

TEST(SoakerFile, ParsesTheDocumentedExample) {
  SoakerReading r;
  ASSERT_TRUE(ParseSoakerFile("# cpu iterations thread_cpu_ns calibrated_iterations_per_second\n"
                              "sched_idle 1\ncalibration_unix_seconds 1764500000\ncaveat nice 19: SCHED_IDLE refused\n"
                              "1 5 6 2e9\n0 123456789 987654321 1.5e9\n",
                              &r)
                  .ok());
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
  in.cpus = {{0, 10, 20, 7, 2087512.25, 1764500001, false}, {5, UINT64_MAX, 0, 1, 1.0 / 3, -1, true}};
  SoakerReading out;
  ASSERT_TRUE(ParseSoakerFile(SoakerFileText(in), &out).ok()) << SoakerFileText(in);
  EXPECT_EQ(out.mono_ns, in.mono_ns);
  EXPECT_FALSE(out.sched_idle);
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
}  // namespace bottleneckd::testing
