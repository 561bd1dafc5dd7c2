// The JSON outputs (run report, pcap report) through a strict parser:
// Python's json over a strict UTF-8 decode. Numbers keep full precision (a
// Unix timestamp's microseconds), NaN and infinities are null, strings are
// valid UTF-8 and escaped whatever bytes a name or path holds.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>

#include "exporters/report/json_writer.h"
#include "exporters/report/pcap_report.h"
#include "exporters/report/report.h"
#include "tests/support/test_util.h"

namespace bottleneckd::json_output_test {
namespace {

// Runs python3 on `doc` with `script` (which reads the parsed document as d)
// and returns its stdout; the exit status in *rc (0: parsed and all held).
std::string Python(const std::string& doc, const std::string& script, int* rc) {
  testing::TempDir dir;
  std::string path = dir.path() + "/doc.json";
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(doc.data(), 1, doc.size(), f);
  std::fclose(f);
  std::string cmd =
      "python3 -c 'import json,sys; d=json.loads(open(sys.argv[1],\"rb\").read().decode(\"utf-8\",\"strict\")); " +
      script + "' " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  *rc = pclose(p);
  return out;
}

TEST(JsonNumber, ShortestRoundTrip) {
  EXPECT_EQ(JsonNumber(1796110000.123456), "1796110000.123456");
  EXPECT_EQ(JsonNumber(0.1), "0.1");
  EXPECT_EQ(JsonNumber(1e-7), "1e-07");
  EXPECT_EQ(JsonNumber(3), "3");
  EXPECT_EQ(JsonNumber(0.0002), "0.0002");
  EXPECT_EQ(JsonNumber(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(JsonNumber(-0.0), "0");
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(JsonNumber(-std::numeric_limits<double>::infinity()), "null");
}

TEST(JsonString, ValidUtf8AndEscaped) {
  EXPECT_EQ(JsonString("a\"b\\c\nd\te\x01\x7f"), "\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\"");
  EXPECT_EQ(JsonString("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
  EXPECT_EQ(JsonString("udpecho\xe2\x82"), "\"udpecho\xef\xbf\xbd\xef\xbf\xbd\"");
  EXPECT_EQ(JsonString("\xed\xa0\x80"), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");  // a surrogate
}

TEST(ReportJson, StrictParserReadsFullPrecisionAndOddNames) {
  Report r;
  r.store = "/var/lib/bottleneckd/runs\xff.db";
  RunReport run;
  run.name = "echo \xe2\x82 550M";
  run.start = 1796110000.25;
  run.end = 1796110003.5;  // a 3 s run: start and end must differ
  run.verdict.confidence = std::numeric_limits<double>::quiet_NaN();
  run.verdict.evidence = {"thread udp\xc3"};
  r.runs = {run};
  int rc = 0;
  std::string out = Python(ReportJson(r),
                           "run = d[\"runs\"][0]; "
                           "assert run[\"start\"] == 1796110000.25, run[\"start\"]; "
                           "assert run[\"end\"] == 1796110003.5, run[\"end\"]; "
                           "assert run[\"name\"] == \"echo \\ufffd\\ufffd 550M\", run[\"name\"]; "
                           "assert run[\"verdict\"][\"confidence\"] is None; "
                           "print(\"ok\")",
                           &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "ok\n");
}

TEST(PcapReportJson, StrictParserReadsOddPaths) {
  PcapReport p;
  p.info.path = "/tmp/capture-\xc3(.pcap";
  p.error = "truncated \xff record";
  int rc = 0;
  std::string out = Python(PcapReportJson({p}), "print(\"ok\")", &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "ok\n");
}

}  // namespace
}  // namespace bottleneckd::json_output_test
