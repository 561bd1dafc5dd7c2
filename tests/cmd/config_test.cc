// Config parsing: defaults, every key, and errors with file, line and column.
#include "daemon/config.h"

#include <gtest/gtest.h>

#include "base/parse_util.h"
#include "cmd/flags.h"
#include "daemon/tick_pipeline.h"
#include "sources/source_registry.h"
#include "tests/support/test_util.h"

namespace bottleneckd::config_test {
namespace {

// How the source's entry loads under config c (sources/source_entry.h).
LoadMode Wanted(const SourceEntry& e, const Config& c) {
  HostFs fs(c.roots);
  return e.Wanted(SourceConfigOf(c, &fs, false, false));
}

TEST(ParseConfig, EmptyDocumentGivesDefaults) {
  Config c;
  ASSERT_OK(ParseConfig("", "x.yaml", &c));
  EXPECT_DOUBLE_EQ(c.interval_seconds, 1.0);
  EXPECT_EQ(c.listen_address, ":9858");
  EXPECT_EQ(c.roots.procfs, "/proc");
  EXPECT_EQ(c.roots.sysfs, "/sys");
  EXPECT_EQ(c.roots.ethtool, "");
  EXPECT_EQ(c.log_level, LogLevel::kInfo);
  EXPECT_TRUE(c.collectors.netdev.hide_idle_virtual);
  EXPECT_FALSE(c.collectors.interrupts.per_cpu_matrix);
}

TEST(ParseConfig, ShippedConfigIsValidAndHoldsTheDefaults) {
  Config shipped, defaults;
  std::string text = testing::ReadFileOrDie(std::string(BOTTLENECKD_SOURCE_DIR) + "/etc/bottleneckd.yaml");
  Status s = ParseConfig(text, "etc/bottleneckd.yaml", &shipped);
  ASSERT_OK(s);
  ASSERT_OK(ParseConfig("", "", &defaults));
  EXPECT_DOUBLE_EQ(shipped.interval_seconds, defaults.interval_seconds);
  EXPECT_EQ(shipped.listen_address, defaults.listen_address);
  EXPECT_EQ(shipped.roots.procfs, defaults.roots.procfs);
  EXPECT_EQ(shipped.roots.sysfs, defaults.roots.sysfs);
  EXPECT_EQ(shipped.roots.ethtool, defaults.roots.ethtool);
  EXPECT_EQ(shipped.collectors.netdev.ethtool, defaults.collectors.netdev.ethtool);
  EXPECT_EQ(shipped.collectors.netdev.hide_idle_virtual, defaults.collectors.netdev.hide_idle_virtual);
  EXPECT_EQ(shipped.collectors.interrupts.per_cpu_matrix, defaults.collectors.interrupts.per_cpu_matrix);
  EXPECT_TRUE(shipped.collectors.threads.targets.empty());
  EXPECT_EQ(shipped.state_dir, defaults.state_dir);
  EXPECT_EQ(shipped.soaker.mode, defaults.soaker.mode);
  EXPECT_EQ(shipped.soaker.mode, SoakerMode::kRuns);
  EXPECT_DOUBLE_EQ(shipped.soaker.calibration_seconds, defaults.soaker.calibration_seconds);
  EXPECT_DOUBLE_EQ(shipped.soaker.calibration_max_age_seconds, defaults.soaker.calibration_max_age_seconds);
  EXPECT_EQ(shipped.soaker.calibration_percentile, defaults.soaker.calibration_percentile);
  EXPECT_EQ(shipped.irqtime.mode, defaults.irqtime.mode);
  EXPECT_EQ(shipped.irqtime.mode, IrqTimeMode::kAuto);
  EXPECT_EQ(Wanted(IrqTimeEntry(), shipped), IrqTimeMode::kAuto);
  EXPECT_EQ(shipped.profile, defaults.profile);
}

TEST(ParseConfig, Profile) {
  Config c;
  ASSERT_OK(
      ParseConfig("collectors:\n  profile:\n    mode: \"on\"\n    frequency: 99\n    stacks: all\n", "x.yaml", &c));
  EXPECT_EQ(c.profile.mode, ProfileMode::kOn);
  EXPECT_EQ(c.profile.frequency_hz, 99);
  EXPECT_EQ(c.profile.stacks, ProfileStacks::kAll);
  EXPECT_NE(Wanted(ProfileEntry(), c), LoadMode::kOff);
  // Over fixture trees the live kernel's stacks would be mixed in: auto stays off.
  ASSERT_OK(ParseConfig("paths:\n  procfs: /tmp/p\n", "x.yaml", &c));
  EXPECT_EQ(c.profile, ProfileOptions());
  EXPECT_EQ(Wanted(ProfileEntry(), c), LoadMode::kOff);
  ASSERT_OK(ParseConfig("collectors:\n  profile:\n    enabled: false\n", "x.yaml", &c));
  EXPECT_EQ(Wanted(ProfileEntry(), c), LoadMode::kOff);

  Status s = ParseConfig("collectors:\n  profile:\n    frequency: 0\n", "x.yaml", &c);
  EXPECT_NE(s.message().find("x.yaml:3:16"), std::string::npos) << s.ToString();
  s = ParseConfig("collectors:\n  profile:\n    frequency: 49.5\n", "x.yaml", &c);
  EXPECT_NE(s.message().find("x.yaml:3:16"), std::string::npos) << s.ToString();
  s = ParseConfig("collectors:\n  profile:\n    stacks: some\n", "x.yaml", &c);
  EXPECT_EQ(s.message(), "x.yaml:3:13: collectors.profile.stacks must be named, runs or all");
  ASSERT_OK(ParseConfig("collectors:\n  profile:\n    stacks: runs\n", "x.yaml", &c));
  EXPECT_EQ(c.profile.stacks, ProfileStacks::kRuns);
  s = ParseConfig("collectors:\n  profile:\n    mode: maybe\n", "x.yaml", &c);
  EXPECT_EQ(s.message(), "x.yaml:3:11: collectors.profile.mode must be auto, on or off");
}

TEST(ParseConfig, IrqTime) {
  Config c;
  Status s = ParseConfig("collectors:\n  irqtime:\n    mode: \"on\"\n    btf_path: /tmp/vmlinux\n", "x.yaml", &c);
  ASSERT_OK(s);
  EXPECT_EQ(c.irqtime.mode, IrqTimeMode::kOn);
  EXPECT_EQ(c.irqtime.btf_path, "/tmp/vmlinux");
  EXPECT_EQ(Wanted(IrqTimeEntry(), c), IrqTimeMode::kOn);

  // Disabling the collector turns it off whatever the mode says.
  ASSERT_OK(ParseConfig("collectors:\n  irqtime:\n    mode: \"on\"\n    enabled: false\n", "x.yaml", &c));
  EXPECT_EQ(c.irqtime.mode, IrqTimeMode::kOn);
  EXPECT_EQ(Wanted(IrqTimeEntry(), c), IrqTimeMode::kOff);

  s = ParseConfig("collectors:\n  irqtime:\n    mode: always\n", "x.yaml", &c);
  EXPECT_EQ(s.message(), "x.yaml:3:11: collectors.irqtime.mode must be auto, on or off");
  s = ParseConfig("collectors:\n  irqtime:\n    btf: /x\n", "x.yaml", &c);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("x.yaml:3:5"), std::string::npos) << s.ToString();
}

TEST(ParseConfig, EveryKey) {
  const char* yaml = R"(interval: 250ms
web:
  listen_address: "127.0.0.1:9999"
paths:
  procfs: /tmp/p
  sysfs: /tmp/s
  ethtool: /tmp/e
log:
  level: debug
collectors:
  interrupts:
    per_cpu_matrix: true
  netdev:
    include: ["^eth", "^em[0-9]$"]
    exclude: ["^veth"]
    hide_idle_virtual: false
    ethtool: no
  sockets:
    enabled: false
  threads:
    targets:
      - name: udpecho
      - pid: 42
state_dir: /srv/bn
soaker:
  mode: always
  calibration_time: 250ms
  calibration_max_age: 30m
  calibration_percentile: 75
)";
  Config c;
  Status s = ParseConfig(yaml, "c.yaml", &c);
  ASSERT_OK(s);
  EXPECT_DOUBLE_EQ(c.interval_seconds, 0.25);
  EXPECT_EQ(c.listen_address, "127.0.0.1:9999");
  EXPECT_EQ(c.roots.procfs, "/tmp/p");
  EXPECT_EQ(c.roots.sysfs, "/tmp/s");
  EXPECT_EQ(c.roots.ethtool, "/tmp/e");
  EXPECT_EQ(c.log_level, LogLevel::kDebug);
  EXPECT_TRUE(c.collectors.interrupts.per_cpu_matrix);
  EXPECT_EQ(c.collectors.netdev.include, (std::vector<std::string>{"^eth", "^em[0-9]$"}));
  EXPECT_EQ(c.collectors.netdev.exclude, (std::vector<std::string>{"^veth"}));
  EXPECT_FALSE(c.collectors.netdev.hide_idle_virtual);
  EXPECT_FALSE(c.collectors.netdev.ethtool);
  EXPECT_FALSE(CollectorEnabled(c.collectors, "sockets", true));
  EXPECT_TRUE(CollectorEnabled(c.collectors, "cpu", true));
  EXPECT_EQ(c.state_dir, "/srv/bn");
  EXPECT_EQ(c.soaker.state_dir, "/srv/bn") << "the soaker keeps its calibration in state_dir";
  EXPECT_EQ(c.soaker.mode, SoakerMode::kAlways);
  EXPECT_DOUBLE_EQ(c.soaker.calibration_seconds, 0.25);
  EXPECT_DOUBLE_EQ(c.soaker.calibration_max_age_seconds, 1800);
  EXPECT_EQ(c.soaker.calibration_percentile, 75);
  ASSERT_EQ(c.collectors.threads.targets.size(), 2u);
  EXPECT_EQ(c.collectors.threads.targets[0].name, "udpecho");
  EXPECT_EQ(c.collectors.threads.targets[1].pid, 42);
}

struct ErrorCase {
  const char* yaml;
  const char* where;  // "file:line:col"
  const char* what;
};

TEST(ParseConfig, ErrorsNameFileLineAndColumn) {
  const ErrorCase cases[] = {
      {"intervall: 1s\n", "b.yaml:1:1", "unknown key 'intervall'"},
      {"interval: fast\n", "b.yaml:1:11", "interval must be a duration"},
      {"interval: 1ms\n", "b.yaml:1:11", "interval must be a duration from 10ms to 1h, like 1s or 500ms, got '1ms'"},
      {"interval: -1s\n", "b.yaml:1:11", "interval must be a duration"},
      {"web:\n  listen: x\n", "b.yaml:2:3", "unknown key 'listen' in web"},
      {"web: 5\n", "b.yaml:1:6", "web must be a mapping"},
      {"log:\n  level: loud\n", "b.yaml:2:10", "log.level must be"},
      {"collectors:\n  bogus: {}\n", "b.yaml:2:3", "unknown collector 'bogus'"},
      {"collectors:\n  netdev:\n    include: ['(']\n", "b.yaml:3:15", "invalid pattern '('"},
      {"collectors:\n  netdev:\n    ethtool: maybe\n", "b.yaml:3:14", "must be true or false"},
      {"collectors:\n  netdev:\n    include: eth0\n", "b.yaml:3:14", "must be a list of patterns"},
      {"collectors:\n  threads:\n    targets:\n      - pid: abc\n", "b.yaml:4:14", "pid must be a positive"},
      {"collectors:\n  threads:\n    targets:\n      - {name: a, pid: 3}\n", "b.yaml:4:9",
       "exactly one of name or pid"},
      {"collectors:\n  threads:\n    targets:\n      - {comm: a}\n", "b.yaml:4:10", "unknown key 'comm'"},
      {"a: [1, 2\n", "b.yaml:2:1", "end of sequence"},
      {"soaker:\n  mode: sometimes\n", "b.yaml:2:9", "soaker.mode must be off, runs or always"},
      {"soaker:\n  calibration_time: 20ms\n", "b.yaml:2:21", "from 50ms to 10s"},
      {"soaker:\n  calibration_max_age: 500ms\n", "b.yaml:2:24", "from 1s to 3650d"},
      {"soaker:\n  calibration_max_age: soon\n", "b.yaml:2:24", "calibration_max_age must be a duration"},
      {"soaker:\n  calibration_percentile: 100\n", "b.yaml:2:27", "auto or a whole number from 1 to 99"},
      {"soaker:\n  calibration_percentile: 0\n", "b.yaml:2:27", "auto or a whole number from 1 to 99"},
      {"soaker:\n  calibration_percentile: [95]\n", "b.yaml:2:27", "auto or a whole number from 1 to 99"},
      {"soaker:\n  calibrate: 1s\n", "b.yaml:2:3", "unknown key 'calibrate' in soaker"},
      {"state_dir: \"\"\n", "b.yaml:1:12", "state_dir must not be empty"},
      {"a: 1\n a: 2\n  - x\n", "b.yaml:", ""},
  };
  for (const ErrorCase& c : cases) {
    Config cfg;
    Status s = ParseConfig(c.yaml, "b.yaml", &cfg);
    ASSERT_FALSE(s.ok()) << c.yaml;
    EXPECT_EQ(s.message().rfind(c.where, 0), 0u) << c.yaml << " -> " << s.message();
    EXPECT_NE(s.message().find(c.what), std::string::npos) << c.yaml << " -> " << s.message();
  }
}

TEST(LoadConfigFile, MissingFileIsNotFoundAndNamesThePath) {
  Config c;
  Status s = LoadConfigFile("/nonexistent/bottleneckd.yaml", &c);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.message().find("/nonexistent/bottleneckd.yaml"), std::string::npos);
}

TEST(ParseDuration, Forms) {
  double s = 0;
  EXPECT_TRUE(ParseDuration("1s", &s));
  EXPECT_DOUBLE_EQ(s, 1);
  EXPECT_TRUE(ParseDuration("500ms", &s));
  EXPECT_DOUBLE_EQ(s, 0.5);
  EXPECT_TRUE(ParseDuration("2m", &s));
  EXPECT_DOUBLE_EQ(s, 120);
  EXPECT_TRUE(ParseDuration("1.5s", &s));
  EXPECT_DOUBLE_EQ(s, 1.5);
  EXPECT_TRUE(ParseDuration("1h", &s));
  EXPECT_DOUBLE_EQ(s, 3600);
  for (const char* bad : {"", "1", "s", "0s", "-1s", "1x", "1 s", "ms", "1e999s"})
    EXPECT_FALSE(ParseDuration(bad, &s)) << bad;
}

TEST(Flags, ParseAndApply) {
  const char* argv[] = {"bottleneckd",
                        "--config.file=/x.yaml",
                        "--web.listen-address",
                        "127.0.0.1:1",
                        "--path.procfs=/p",
                        "--path.sysfs",
                        "/s",
                        "--path.ethtool=/e",
                        "--log.level=warn",
                        "--no-collector.threads",
                        "--collector.sockets",
                        "--config.check"};
  Flags f;
  Status s = ParseFlags(std::size(argv), argv, &f);
  ASSERT_OK(s);
  EXPECT_EQ(f.config_file, "/x.yaml");
  EXPECT_TRUE(f.config_file_given);
  EXPECT_TRUE(f.config_check);
  Config c;
  c.collectors.disabled.push_back("sockets");
  ASSERT_OK(ApplyFlags(f, &c));
  EXPECT_EQ(c.listen_address, "127.0.0.1:1");
  EXPECT_EQ(c.roots.procfs, "/p");
  EXPECT_EQ(c.roots.sysfs, "/s");
  EXPECT_EQ(c.roots.ethtool, "/e");
  EXPECT_EQ(c.log_level, LogLevel::kWarn);
  EXPECT_FALSE(CollectorEnabled(c.collectors, "threads", true));
  EXPECT_TRUE(CollectorEnabled(c.collectors, "sockets", false)) << "the flag wins over the file";

  const char* soaker_argv[] = {"bottleneckd", "--soaker", "--path.state=/st"};
  Flags g;
  ASSERT_OK(ParseFlags(std::size(soaker_argv), soaker_argv, &g));
  EXPECT_EQ(g.command, "");
  Config d;
  d.soaker.mode = SoakerMode::kOff;
  ASSERT_OK(ApplyFlags(g, &d));
  EXPECT_TRUE(d.run_active);
  EXPECT_EQ(d.soaker.mode, SoakerMode::kRuns) << "--soaker turns an off soaker on for this run";
  EXPECT_EQ(d.state_dir, "/st");
  EXPECT_EQ(d.soaker.state_dir, "/st");
}

TEST(Flags, Errors) {
  struct {
    std::vector<const char*> argv;
    const char* msg;
  } cases[] = {
      {{"b", "--nope"}, "unknown flag --nope"},
      {{"b", "--web.listen-address"}, "needs a value"},
      {{"b", "--collector.frobnicator"}, "unknown collector"},
      {{"b", "--config.check=yes"}, "takes no value"},
      {{"b", "--collector.cpu=no"}, "takes no value"},
  };
  for (auto& c : cases) {
    Flags f;
    Status s = ParseFlags(static_cast<int>(c.argv.size()), c.argv.data(), &f);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find(c.msg), std::string::npos) << s.message();
  }
  Flags f;
  f.log_level = "loud";
  Config c;
  EXPECT_FALSE(ApplyFlags(f, &c).ok());
}

TEST(Flags, UsageListsEveryCollector) {
  std::string u = Usage();
  for (const char* name :
       {"cpu", "interrupts", "softirqs", "netdev", "pci", "sockets", "threads", "pcap", "irqtime", "offcpu"})
    EXPECT_NE(u.find(std::string("\n  ") + name + " "), std::string::npos) << name << " in\n" << u;
  for (const char* command : {"calibrate", "record", "run", "pcap"}) EXPECT_NE(u.find(command), std::string::npos);
}

TEST(Flags, EachCommandHasItsOwnHelp) {
  struct {
    std::vector<const char*> argv;
    const char* has;
    const char* lacks;
  } cases[] = {
      {{"b", "run", "--help"}, "--name", "--once"},
      {{"b", "pcap", "--help"}, "--format", "--path.procfs"},
      {{"b", "record", "-h"}, "--duration", "--report"},
      {{"b", "--help"}, "--web.listen-address", "--duration"},
  };
  for (auto& c : cases) {
    Flags f;
    Status s = ParseFlags(static_cast<int>(c.argv.size()), c.argv.data(), &f);
    ASSERT_TRUE(s.ok()) << c.argv[1] << ": " << s.ToString();
    EXPECT_TRUE(f.help);
    EXPECT_NE(f.help_text.find(c.has), std::string::npos) << f.help_text;
    EXPECT_EQ(f.help_text.find(c.lacks), std::string::npos) << f.help_text;
  }
}

TEST(Flags, ForeignFlagsAreRefused) {
  struct {
    std::vector<const char*> argv;
    const char* msg;
  } cases[] = {
      {{"b", "pcap", "x", "--once"}, "--once does not go with pcap"},
      {{"b", "--report", "--soaker"}, "--soaker does not go with --report"},
      {{"b", "--report", "--capture.interface", "eth0"}, "--capture.interface does not go with --report"},
      {{"b", "--format", "json"}, "--format does not go with the daemon: it is for --report and pcap"},
      {{"b", "--path.procfs", "--once"}, "--path.procfs needs a value, got the flag '--once'"},
      {{"b", "--path.procfs=/p", "run", "--", "true"}, nullptr},  // a host flag before run is run's
      {{"b", "--web.listen-address=:1", "run", "--", "true"}, "--web.listen-address does not go with run"},
  };
  for (auto& c : cases) {
    Flags f;
    Status s = ParseFlags(static_cast<int>(c.argv.size()), c.argv.data(), &f);
    if (c.msg == nullptr) {
      EXPECT_OK(s);
      EXPECT_EQ(f.procfs.value_or(""), "/p");
      continue;
    }
    EXPECT_FALSE(s.ok()) << c.msg;
    EXPECT_NE(s.message().find(c.msg), std::string::npos) << s.message();
  }
}

// offcpu is switched like a collector, by the file or a flag; it has no other key.
TEST(Config, OffCpuIsASwitchableSource) {
  Config c;
  ASSERT_OK(ParseConfig("", "x.yaml", &c));
  EXPECT_TRUE(CollectorEnabled(c.collectors, "offcpu", true));
  ASSERT_OK(ParseConfig("collectors:\n  offcpu:\n    enabled: false\n", "x.yaml", &c));
  EXPECT_FALSE(CollectorEnabled(c.collectors, "offcpu", true));
  Status s = ParseConfig("collectors:\n  offcpu:\n    mode: on\n", "x.yaml", &c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("x.yaml:3:"), std::string::npos) << s.message();
  const char* argv[] = {"b", "--no-collector.offcpu"};
  Flags f;
  ASSERT_OK(ParseFlags(std::size(argv), argv, &f));
  Config flagged;
  ASSERT_OK(ApplyFlags(f, &flagged));
  EXPECT_FALSE(CollectorEnabled(flagged.collectors, "offcpu", true));
}

// offcpu loads on the live host when the threads collector has a target:
// configured, or the command a run follows (bottleneckd run: RunTracker::
// Follow), unless offcpu or threads is switched off.
TEST(Config, OffCpuLoadsWithTargetsOrARunsCommand) {
  const SourceEntry* offcpu = FindSourceEntry("offcpu");
  ASSERT_NE(offcpu, nullptr);
  auto wanted = [&](const std::string& yaml, bool run_follows) {
    Config c;
    EXPECT_OK(ParseConfig(yaml, "x.yaml", &c));
    HostFs fs(c.roots);
    SourceConfig s = SourceConfigOf(c, &fs, run_follows, false);
    s.run_follows = run_follows;
    return offcpu->Wanted(s);
  };
  EXPECT_EQ(wanted("", false), LoadMode::kOff);
  EXPECT_EQ(wanted("", true), LoadMode::kAuto);
  EXPECT_EQ(wanted("collectors:\n  threads:\n    targets:\n      - name: udpecho\n", false), LoadMode::kAuto);
  EXPECT_EQ(wanted("collectors:\n  offcpu:\n    enabled: false\n", true), LoadMode::kOff);
  EXPECT_EQ(wanted("collectors:\n  threads:\n    enabled: false\n", true), LoadMode::kOff);
}

TEST(Flags, PcapIsACollector) {
  const char* argv[] = {"b", "--collector.pcap", "--no-collector.irqtime"};
  Flags f;
  ASSERT_OK(ParseFlags(std::size(argv), argv, &f));
  Config c;
  ASSERT_OK(ApplyFlags(f, &c));
  EXPECT_TRUE(CollectorEnabled(c.collectors, "pcap", false));
  EXPECT_FALSE(CollectorEnabled(c.collectors, "irqtime", true));
  // On, with nothing to capture on, is an error that says what to give.
  Status s = CheckCaptureInterfaces(c.collectors);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--capture.interface"), std::string::npos) << s.message();
  c.collectors.pcap.interfaces = {"eth0"};
  EXPECT_OK(CheckCaptureInterfaces(c.collectors));
  EXPECT_TRUE(CaptureEnabled(c.collectors));
}

}  // namespace
}  // namespace bottleneckd::config_test
