// Hostile configs (issue 17): patterns that would exhaust std::regex, keys
// given twice, values that swallow the next line, unknown groups, bad listen
// addresses, huge files and lists. Each is refused with file:line:column
// before it can cost the daemon its stack, its time or its memory.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "base/pattern.h"
#include "daemon/config.h"
#include "tests/support/test_util.h"

namespace bottleneckd::config_hostile_test {
namespace {

using testing::ReadFileOrDie;
using testing::TempDir;

std::string Error(const std::string& yaml) {
  Config c;
  Status s = ParseConfig(yaml, "h.yaml", &c);
  return s.ok() ? "OK" : s.message();
}

std::string Include(const std::string& pattern) { return "collectors:\n  netdev:\n    include: ['" + pattern + "']\n"; }

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(HostileConfig, LongAndDeepPatternsAreRefusedNotOverflowed) {
  // 2000 nested groups overflowed std::regex's recursive compiler; RE2
  // parses and compiles without recursion.
  const std::string deep = Repeat("(", 2000) + "eth" + Repeat(")", 2000);
  EXPECT_EQ(Error(Include(deep)), "OK");
  std::unique_ptr<Pattern> p;
  ASSERT_OK(Pattern::Compile(deep, &p));
  EXPECT_TRUE(p->Search("veth0"));

  EXPECT_EQ(Error(Include(std::string(4097, 'a'))),
            "h.yaml:3:15: include: pattern is 4097 bytes, over the 4096-byte limit");
  EXPECT_EQ(Error(Include(std::string(4096, 'a'))), "OK");
  // Within the length cap, but a program bigger than max_mem.
  EXPECT_EQ(Error(Include("\\pL{200}")),
            "h.yaml:3:15: include: invalid pattern '\\pL{200}': pattern too large - compile failed");
  // The error quotes 64 bytes of a long pattern.
  EXPECT_EQ(Error(Include(std::string(100, 'x') + "(")), "h.yaml:3:15: include: invalid pattern '" +
                                                             std::string(64, 'x') +
                                                             "...': missing ): " + std::string(53, 'x') + "...");
  // RE2 syntax: lookaround (ECMAScript only) is refused.
  EXPECT_EQ(Error(Include("^(?!veth)")),
            "h.yaml:3:15: include: invalid pattern '^(?!veth)': invalid perl operator: (?!");
}

TEST(HostileConfig, PatternSearchesAsBefore) {
  std::unique_ptr<Pattern> p;
  ASSERT_OK(Pattern::Compile("eth", &p));
  EXPECT_TRUE(p->Search("veth1"));
  EXPECT_TRUE(p->Search("eth0"));
  EXPECT_FALSE(p->Search("em1"));
  ASSERT_OK(Pattern::Compile("^eth[0-9]$", &p));
  EXPECT_TRUE(p->Search("eth0"));
  EXPECT_FALSE(p->Search("veth0"));
  EXPECT_FALSE(p->Search("eth10"));
  // Linear time: a pattern that backtracks exponentially in std::regex.
  ASSERT_OK(Pattern::Compile("^(a+)+$", &p));
  EXPECT_FALSE(p->Search(std::string(5000, 'a') + "b"));
}

TEST(HostileConfig, DuplicateKeysNameBothLines) {
  EXPECT_EQ(Error("interval: 1s\nweb:\n  listen_address: \":1\"\ninterval: 2s\n"),
            "h.yaml:4:1: duplicate key 'interval' (first at line 1)");
  EXPECT_EQ(Error("collectors:\n  netdev:\n    include: []\n    exclude: []\n    include: [x]\n"),
            "h.yaml:5:5: duplicate key 'include' (first at line 3)");
  EXPECT_EQ(Error("collectors:\n  threads:\n    targets:\n      - {name: a, name: b}\n"),
            "h.yaml:4:19: duplicate key 'name' (first at line 4)");
  // An alias repeats a mapping, not its keys.
  EXPECT_EQ(Error("verdict: &v {}\nruns: *v\n"), "OK");
}

// A tab in the indentation is said as such, where it is (yaml-cpp said
// "illegal map value" at the line after it).
TEST(HostileConfig, ATabInTheIndentationIsSaid) {
  EXPECT_EQ(Error("verdict:\n\tpacket_path_interfaces: [lo]\n"),
            "h.yaml:2:1: a tab in the indentation: YAML indents with spaces only");
  EXPECT_EQ(Error("collectors:\n  netdev:\n  \t include: [eth0]\n"),
            "h.yaml:3:3: a tab in the indentation: YAML indents with spaces only");
  // A tab inside a value is no indentation.
  EXPECT_EQ(Error("state_dir: \"/var/lib/a\tb\"\n").find("indentation"), std::string::npos);
}

TEST(HostileConfig, UnclosedQuoteDoesNotSwallowTheNextLine) {
  EXPECT_EQ(Error("state_dir: \"/var/lib/x\ninterval: 2s\n"),
            "h.yaml:1:12: state_dir must fit on one line, but its value runs on to the next (an unclosed quote?)");
  EXPECT_EQ(Error("paths:\n  procfs: '/proc\n  sysfs: /sys'\n"),
            "h.yaml:2:11: procfs must fit on one line, but its value runs on to the next (an unclosed quote?)");
  EXPECT_EQ(Error("state_dir: /var/lib\n  bottleneckd\n"),
            "h.yaml:1:12: state_dir must fit on one line, but its value runs on to the next (an unclosed quote?)");
  EXPECT_EQ(Error("state_dir: |\n  /var/lib\n"), "h.yaml:1:12: state_dir must fit on one line (an unclosed quote?)");
  EXPECT_EQ(Error("state_dir: \"/var/lib\\x01\"\n"), "h.yaml:1:12: state_dir holds a control character (0x01)");
  EXPECT_EQ(Error("runs:\n  control_socket: \"/run/b\\0.sock\"\n"),
            "h.yaml:2:19: control_socket holds a control character (0x00)");
  EXPECT_EQ(Error("collectors:\n  netdev:\n    include:\n      - \"eth0\n      - veth\n"),
            "h.yaml:4:9: include must fit on one line, but its value runs on to the next (an unclosed quote?)");

  // One-line values in every form stay valid.
  Config c;
  ASSERT_OK(
      ParseConfig("state_dir: \"/var/lib/x\"  # comment\n"
                  "paths: {procfs: '/it''s', sysfs: \"/s\\\"y\"}\n"
                  "web:\n  listen_address: &a \"127.0.0.1:9\"\n"
                  "collectors:\n  pcap:\n    filter: \"udp and\n      port 53\"\n",
                  "h.yaml", &c));
  EXPECT_EQ(c.state_dir, "/var/lib/x");
  EXPECT_EQ(c.roots.procfs, "/it's");
  EXPECT_EQ(c.roots.sysfs, "/s\"y");
  EXPECT_EQ(c.listen_address, "127.0.0.1:9");
  EXPECT_EQ(c.collectors.pcap.filter, "udp and port 53");                   // a filter may span lines
  ASSERT_OK(ParseConfig("\xEF\xBB\xBFstate_dir: \"/x\"\n", "h.yaml", &c));  // byte-order mark
  EXPECT_EQ(c.state_dir, "/x");
}

TEST(HostileConfig, UnknownControlGroup) {
  EXPECT_EQ(Error("runs:\n  control_group: no-such-group\n"),
            "h.yaml:2:18: runs.control_group: unknown group 'no-such-group' for the control socket");
  EXPECT_EQ(Error("runs:\n  control_group: root\n"), "OK");
}

TEST(HostileConfig, ListenAddressErrorsHaveThePosition) {
  EXPECT_EQ(Error("web:\n  listen_address: nope\n"),
            "h.yaml:2:19: web.listen_address: invalid listen address 'nope': no port (expected :PORT, HOST:PORT or "
            "[IPV6]:PORT, e.g. :9858 or 127.0.0.1:9858)");
  EXPECT_EQ(Error("web:\n  listen_address: \":70000\"\n").rfind("h.yaml:2:19: web.listen_address: ", 0), 0u);
}

TEST(HostileConfig, ListsAreCapped) {
  const std::string targets = "collectors:\n  threads:\n    targets:\n";
  EXPECT_EQ(Error(targets + Repeat("      - pid: 1\n", 1025)),
            "h.yaml:4:7: collectors.threads.targets has 1025 entries, over the limit of 1024");
  EXPECT_EQ(Error(targets + Repeat("      - pid: 1\n", 1024)), "OK");
  EXPECT_EQ(Error("collectors:\n  netdev:\n    exclude: [" + Repeat("a, ", 1024) + "a]\n"),
            "h.yaml:3:14: exclude has 1025 entries, over the limit of 1024");
  EXPECT_EQ(Error("collectors:\n  pcap:\n    interfaces: [" + Repeat("a, ", 1024) + "a]\n"),
            "h.yaml:3:17: collectors.pcap.interfaces has 1025 entries, over the limit of 1024");
  EXPECT_EQ(Error("verdict:\n  packet_path_interfaces: [" + Repeat("a, ", 1024) + "a]\n"),
            "h.yaml:2:27: packet_path_interfaces has 1025 entries, over the limit of 1024");
}

TEST(HostileConfig, HugeConfigIsRefusedBeforeParsing) {
  // 2 MiB of thread targets: refused by size, never built.
  const std::string huge = "collectors:\n  threads:\n    targets:\n" + Repeat("      - pid: 1\n", 150000);
  ASSERT_GT(huge.size(), kMaxConfigBytes);
  EXPECT_EQ(Error(huge),
            "h.yaml: the config is " + std::to_string(huge.size()) + " bytes, over the limit of 1048576 bytes");
  EXPECT_EQ(Error(std::string(kMaxConfigBytes, '\n')), "OK");

  TempDir dir;
  dir.Write("huge.yaml", huge);
  Config c;
  Status s = LoadConfigFile(dir.path() + "/huge.yaml", &c);
  EXPECT_EQ(s.message(), dir.path() + "/huge.yaml: the config is " + std::to_string(huge.size()) +
                             " bytes, over the limit of 1048576 bytes");
}

// The crash: --config.check died with SIGSEGV (exit 139) on a deep
// pattern. Now it is a config error (exit 1) naming the position.
TEST(HostileConfig, ConfigCheckRefusesADeepPattern) {
  TempDir dir;
  dir.Write("deep.yaml", Include(Repeat("(", 3000) + Repeat(")", 3000)));
  std::string cmd = std::string(BOTTLENECKD_BINARY) + " --config.check --config.file=" + dir.path() + "/deep.yaml > " +
                    dir.path() + "/out 2>&1";
  int st = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(st)) << st;
  EXPECT_EQ(WEXITSTATUS(st), 1);
  std::string out = ReadFileOrDie(dir.path() + "/out");
  EXPECT_EQ(out, "bottleneckd: config error: " + dir.path() +
                     "/deep.yaml:3:15: include: pattern is 6000 bytes, over the 4096-byte limit\n");

  // Deep but within the cap: checked, and valid.
  dir.Write("deep.yaml", Include(Repeat("(", 2000) + "eth" + Repeat(")", 2000)));
  st = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(st)) << st;
  EXPECT_EQ(WEXITSTATUS(st), 0) << ReadFileOrDie(dir.path() + "/out");
}

}  // namespace
}  // namespace bottleneckd::config_hostile_test
