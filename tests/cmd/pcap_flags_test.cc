// The capture-analysis command line: `bottleneckd pcap FILE...` and
// `--report --pcap FILE`, and their errors.
#include <gtest/gtest.h>

#include "cmd/flags.h"
#include "tests/support/test_util.h"

namespace bottleneckd::pcap_flags_test {
namespace {

Status Parse(std::vector<const char*> argv, Flags* f) {
  return ParseFlags(static_cast<int>(argv.size()), argv.data(), f);
}

TEST(PcapFlags, FilesAfterTheCommand) {
  Flags f;
  ASSERT_OK(Parse({"b", "pcap", "a.pcap", "--format=json", "b.pcapng"}, &f));
  EXPECT_EQ(f.command, "pcap");
  ASSERT_EQ(f.pcap_files.size(), 2u);
  EXPECT_EQ(f.pcap_files[0], "a.pcap");
  EXPECT_EQ(f.pcap_files[1], "b.pcapng");
  EXPECT_EQ(f.format, "json");
}

TEST(PcapFlags, DashIsStandardInput) {
  Flags f;
  ASSERT_OK(Parse({"b", "pcap", "-"}, &f));
  ASSERT_EQ(f.pcap_files.size(), 1u);
  EXPECT_EQ(f.pcap_files[0], "-");
  // Any other word starting with '-' is still a flag.
  EXPECT_FALSE(Parse({"b", "pcap", "-x"}, &f).ok());
}

TEST(PcapFlags, ReportWithPcap) {
  Flags f;
  ASSERT_OK(Parse({"b", "--report", "--pcap", "x.pcap", "--pcap=y.pcap"}, &f));
  EXPECT_TRUE(f.report);
  EXPECT_EQ(f.command, "");
  ASSERT_EQ(f.pcap_files.size(), 2u);
  EXPECT_EQ(f.pcap_files[1], "y.pcap");
}

TEST(PcapFlags, Errors) {
  struct {
    std::vector<const char*> argv;
    const char* msg;
  } cases[] = {
      {{"b", "pcap"}, "pcap needs capture files"},
      {{"b", "--pcap", "x"}, "--pcap does not go with the daemon: it is for --report"},
      {{"b", "--report", "--pcap", "x", "--replay", "d"}, "different reports"},
      {{"b", "pcap", "x", "--replay", "d"}, "--replay does not go with pcap"},
      {{"b", "record", "x"}, "unexpected argument 'x' for record"},  // positional files belong to pcap only
  };
  for (auto& c : cases) {
    Flags f;
    Status s = Parse(c.argv, &f);
    EXPECT_FALSE(s.ok()) << c.msg;
    EXPECT_NE(s.message().find(c.msg), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace bottleneckd::pcap_flags_test
