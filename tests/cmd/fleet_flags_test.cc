// The fleet report's flags and run --join/--leave: what they set, and the
// usage errors of giving them where they do not belong.
#include <gtest/gtest.h>

#include <vector>

#include "cmd/flags.h"

namespace bottleneckd::fleet_flags_test {
namespace {

Status Parse(std::vector<const char*> args, Flags* f) {
  args.insert(args.begin(), "bottleneckd");
  return ParseFlags(static_cast<int>(args.size()), args.data(), f);
}

TEST(FleetFlags, TheReportFromAQueryApi) {
  Flags f;
  ASSERT_TRUE(Parse({"--report", "--prometheus.url", "http://prom:9090", "--run", "echo", "--since", "2d", "--selector",
                     "{job=\"bn\"}", "--prometheus.timeout", "5s", "--prometheus.bearer-token-file", "/etc/token",
                     "--format", "json"},
                    &f)
                  .ok());
  EXPECT_TRUE(f.report);
  EXPECT_EQ(f.prometheus_url, "http://prom:9090");
  EXPECT_EQ(f.report_run, "echo");
  EXPECT_EQ(f.since, 2 * 86400);
  EXPECT_EQ(f.selector, "{job=\"bn\"}");
  EXPECT_EQ(f.prometheus_timeout, 5);
  EXPECT_EQ(f.bearer_token_file, "/etc/token");
  EXPECT_EQ(f.format, "json");
}

TEST(FleetFlags, UsageErrors) {
  struct Case {
    std::vector<const char*> args;
    const char* says;
  };
  const Case cases[] = {
      {{"--report", "--selector", "{}"}, "--selector goes with the fleet report"},
      {{"--report", "--since", "1h"}, "--since goes with the fleet report"},
      {{"--report", "--prometheus.url", "http://p", "--last", "3"}, "does not go with --pcap, --replay, --last"},
      {{"--report", "--prometheus.url", "http://p", "--format", "folded"}, "--format folded"},
      {{"--report", "--prometheus.url", "http://p", "--format", "folded-offcpu"}, "--format folded-offcpu"},
      // The folded stacks are one run's.
      {{"--report", "--format", "folded-offcpu"},
       "--format folded-offcpu prints one run's off-CPU stacks: bottleneckd --report --run NAME --format "
       "folded-offcpu"},
      {{"--report", "--format", "folded"}, "--format folded prints one run's on-CPU stacks"},
      {{"--report", "--prometheus.url", "http://p", "--since", "soon"}, "--since must be a duration"},
      {{"--report", "--prometheus.url", "http://p", "--prometheus.timeout", "0s"}, "--prometheus.timeout must be"},
      {{"--prometheus.url", "http://p"}, "--prometheus.url does not go with the daemon"},
      {{"run", "--join", "a", "--leave", "a"}, "--join and --leave are different requests"},
      {{"run", "--join", "a", "--", "true"}, "wrap no command"},
      {{"run", "--leave", "a", "--name", "b"}, "wrap no command"},
      {{"run"}, "run needs a command"},
  };
  for (const Case& c : cases) {
    Flags f;
    Status s = Parse(c.args, &f);
    EXPECT_FALSE(s.ok()) << c.args[0];
    EXPECT_NE(s.message().find(c.says), std::string::npos) << s.message();
  }
}

TEST(FleetFlags, JoinAndLeaveTakeTheRunsName) {
  Flags f;
  ASSERT_TRUE(Parse({"run", "--join", "echo 550M"}, &f).ok());
  EXPECT_EQ(f.command, "run");
  EXPECT_EQ(f.run_join, "echo 550M");
  Flags g;
  ASSERT_TRUE(Parse({"run", "--leave", "echo 550M"}, &g).ok());
  EXPECT_EQ(g.run_leave, "echo 550M");
  EXPECT_TRUE(g.run_argv.empty());
}

}  // namespace
}  // namespace bottleneckd::fleet_flags_test
