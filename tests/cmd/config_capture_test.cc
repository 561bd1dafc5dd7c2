// collectors.pcap in the config and the --capture.* flags: defaults (capture
// off), every key, errors with file:line:col, and the flags over the file.
#include <gtest/gtest.h>

#include "cmd/flags.h"
#include "daemon/config.h"
#include "tests/support/test_util.h"

namespace bottleneckd::config_capture_test {
namespace {

Status Parse(const std::string& yaml, Config* c) { return ParseConfig(yaml, "b.yaml", c); }

TEST(ConfigCapture, OffByDefaultAndTheShippedConfigAgrees) {
  Config d, shipped;
  ASSERT_OK(Parse("", &d));
  EXPECT_TRUE(d.collectors.pcap.interfaces.empty());
  EXPECT_FALSE(CaptureEnabled(d.collectors));
  EXPECT_EQ(d.collectors.pcap.snaplen, 128u);
  EXPECT_EQ(d.collectors.pcap.buffer_bytes, 8u << 20);
  EXPECT_EQ(d.collectors.pcap.timeout_ms, 100);
  EXPECT_EQ(d.collectors.pcap.filter, "");
  EXPECT_FALSE(d.collectors.pcap.promiscuous);
  std::string text = testing::ReadFileOrDie(std::string(BOTTLENECKD_SOURCE_DIR) + "/etc/bottleneckd.yaml");
  Status s = ParseConfig(text, "etc/bottleneckd.yaml", &shipped);
  ASSERT_OK(s);
  const CaptureOptions& a = shipped.collectors.pcap;
  const CaptureOptions& b = d.collectors.pcap;
  EXPECT_EQ(a.interfaces, b.interfaces);
  EXPECT_EQ(a.snaplen, b.snaplen);
  EXPECT_EQ(a.buffer_bytes, b.buffer_bytes);
  EXPECT_EQ(a.timeout_ms, b.timeout_ms);
  EXPECT_EQ(a.filter, b.filter);
  EXPECT_EQ(a.promiscuous, b.promiscuous);
  EXPECT_EQ(a.traffic.top_flows, b.traffic.top_flows);
  EXPECT_EQ(a.traffic.max_tracked_flows, b.traffic.max_tracked_flows);
  EXPECT_DOUBLE_EQ(a.traffic.reply_timeout_seconds, b.traffic.reply_timeout_seconds);
}

TEST(ConfigCapture, EveryKey) {
  Config c;
  Status s = Parse(
      "collectors:\n"
      "  pcap:\n"
      "    interfaces: [eth0, veth1]\n"
      "    snaplen: 96\n"
      "    buffer_bytes: 33554432\n"
      "    timeout: 250ms\n"
      "    filter: udp port 7\n"
      "    promiscuous: true\n"
      "    top_flows: 8\n"
      "    max_flows: 1000\n"
      "    reply_timeout: 2s\n",
      &c);
  ASSERT_OK(s);
  const CaptureOptions& o = c.collectors.pcap;
  EXPECT_EQ(o.interfaces, (std::vector<std::string>{"eth0", "veth1"}));
  EXPECT_EQ(o.snaplen, 96u);
  EXPECT_EQ(o.buffer_bytes, 32u << 20);
  EXPECT_EQ(o.timeout_ms, 250);
  EXPECT_EQ(o.filter, "udp port 7");
  EXPECT_TRUE(o.promiscuous);
  EXPECT_EQ(o.traffic.top_flows, 8u);
  EXPECT_EQ(o.traffic.max_tracked_flows, 1000u);
  EXPECT_DOUBLE_EQ(o.traffic.reply_timeout_seconds, 2);
  EXPECT_TRUE(CaptureEnabled(c.collectors));
}

TEST(ConfigCapture, DisabledWinsOverInterfaces) {
  Config c;
  ASSERT_OK(Parse("collectors:\n  pcap:\n    enabled: false\n    interfaces: [eth0]\n", &c));
  EXPECT_FALSE(CaptureEnabled(c.collectors));
}

struct BadCase {
  const char* yaml;
  const char* where;  // file:line:col
  const char* says;
};

TEST(ConfigCapture, ErrorsNameLineColumnAndWhatIsWrong) {
  const BadCase cases[] = {
      {"collectors:\n  pcap:\n    interfaces: eth0\n", "b.yaml:3:17", "must be a list"},
      {"collectors:\n  pcap:\n    interfaces: [eth0, eth0]\n", "b.yaml:3:24", "listed twice"},
      {"collectors:\n  pcap:\n    interfaces: [a/b]\n", "b.yaml:3:18", "not an interface name"},
      {"collectors:\n  pcap:\n    interfaces: [abcdefghijklmnop]\n", "b.yaml:3:18", "1 to 15 characters"},
      {"collectors:\n  pcap:\n    snaplen: 10\n", "b.yaml:3:14", "snaplen must be a whole number from 64"},
      {"collectors:\n  pcap:\n    timeout: 0s\n", "b.yaml:3:14", "timeout must be a duration"},
      {"collectors:\n  pcap:\n    filter: udp and and\n", "b.yaml:3:13", "collectors.pcap.filter \"udp and and\""},
      {"collectors:\n  pcap:\n    snaplength: 96\n", "b.yaml:3:5", "unknown key 'snaplength' in collectors.pcap"},
      {"collectors:\n  pcap:\n    promiscuous: maybe\n", "b.yaml:3:18", "promiscuous must be true or false"},
  };
  for (const BadCase& b : cases) {
    Config c;
    Status s = Parse(b.yaml, &c);
    ASSERT_FALSE(s.ok()) << b.yaml;
    EXPECT_NE(s.message().find(b.where), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(b.says), std::string::npos) << s.message();
  }
}

TEST(CaptureFlags, InterfacesReplaceTheFilesAndTheFilterIsChecked) {
  const char* argv[] = {"bottleneckd", "--capture.interface=veth0", "--capture.interface", "eth1",
                        "--capture.filter=udp"};
  Flags f;
  ASSERT_OK(ParseFlags(5, argv, &f));
  Config c;
  ASSERT_OK(Parse("collectors:\n  pcap:\n    interfaces: [eth9]\n", &c));
  ASSERT_OK(ApplyFlags(f, &c));
  EXPECT_EQ(c.collectors.pcap.interfaces, (std::vector<std::string>{"veth0", "eth1"}));
  EXPECT_EQ(c.collectors.pcap.filter, "udp");

  // A filter that does not compile is a usage error of the command line.
  const char* bad_filter[] = {"bottleneckd", "--capture.filter=port port"};
  Status s = ParseFlags(2, bad_filter, &f);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--capture.filter"), std::string::npos) << s.message();

  const char* bad_if[] = {"bottleneckd", "--capture.interface=a/b"};
  s = ParseFlags(2, bad_if, &f);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--capture.interface needs an interface name"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace bottleneckd::config_capture_test
