// End to end: the real binary against fixture trees on 127.0.0.1 with a
// kernel-chosen port. /metrics is diffed against tests/golden/<scenario>.metrics
// (BOTTLENECKD_UPDATE_GOLDEN=1 rewrites the golden files; review the diff by
// hand against the fixture's README before committing), checked by
// `promtool check metrics`, and the daemon's signals and bad-input behaviour
// are exercised.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "sources/soaker.h"
#include "tests/support/daemon_process.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::testing::e2e_test {
namespace {

std::vector<std::string> FixtureArgs(const std::string& scenario, const std::string& config) {
  HostRoots r = FixtureRoots(scenario);
  return {"--config.file=" + config, "--web.listen-address=127.0.0.1:0", "--path.procfs=" + r.procfs,
          "--path.sysfs=" + r.sysfs, "--path.ethtool=" + r.ethtool};
}

std::string ConfigFile(const TempDir& dir, const std::string& yaml) {
  dir.Write("bottleneckd.yaml", yaml);
  return dir.path() + "/bottleneckd.yaml";
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, MetricsMatchGoldenAndPassPromtool) {
  const std::string scenario = GetParam();
  TempDir dir;
  // The seed box's udpecho process is a thread target.
  std::string cfg = ConfigFile(dir, "interval: 200ms\ncollectors:\n  threads:\n    targets:\n      - name: udpecho\n");
  DaemonProcess d;
  ASSERT_TRUE(d.Start(FixtureArgs(scenario, cfg))) << d.error();
  // Wait for the first window (two samples): the window-derived families,
  // the verdict's among them, are present from then on. Polled, not slept: a
  // sanitizer build at -O0 took over 500 ms for the large host's first window.
  ASSERT_TRUE(d.WaitForMetric("\nbottleneckd_verdict_info{", 60)) << d.Stderr();
  HttpResponse r = d.Get("/metrics");
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.headers.find("text/plain; version=0.0.4"), std::string::npos);

  std::string promtool_out;
  EXPECT_EQ(RunPromtoolCheckMetrics(r.body, &promtool_out), 0) << promtool_out;

  // The series budget of docs/metrics.md "Series per host": what one host
  // costs every Prometheus and remote_write behind it. A new family that
  // scales with CPUs, IRQs or NICs shows here before it reaches a fleet.
  const std::map<std::string, size_t> budget = {
      {"vm", 600}, {"seed-box", 800}, {"pcie-box", 3200}, {"large-host", 5500}};
  size_t series = 0;
  for (size_t at = 0; at < r.body.size();) {
    size_t end = r.body.find('\n', at);
    if (end == std::string::npos) end = r.body.size();
    if (end > at && r.body[at] != '#') ++series;
    at = end + 1;
  }
  EXPECT_LE(series, budget.at(scenario)) << scenario << ": over the series budget of docs/metrics.md";

  std::string got = NormalizeVolatileMetrics(r.body);
  std::string golden_path = std::string(BOTTLENECKD_SOURCE_DIR) + "/tests/golden/" + scenario + ".metrics";
  const char* update = std::getenv("BOTTLENECKD_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(golden_path) << got;
  }
  std::string want = ReadFileOrDie(golden_path);
  EXPECT_EQ(got, want) << "diff against " << golden_path
                       << " (BOTTLENECKD_UPDATE_GOLDEN=1 rewrites it; review the change)";
  d.Signal(SIGTERM);
  EXPECT_EQ(d.Wait(10), 0) << d.Stderr();
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenTest, ::testing::Values("seed-box", "vm", "large-host", "pcie-box"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(DaemonHttp, EndpointsAndMethods) {
  TempDir dir;
  DaemonProcess d;
  ASSERT_TRUE(d.Start(FixtureArgs("seed-box", ConfigFile(dir, "interval: 1s\n")))) << d.error();
  HttpResponse root = d.Get("/");
  EXPECT_EQ(root.status, 200);
  EXPECT_NE(root.body.find("href=\"/metrics\""), std::string::npos);
  EXPECT_NE(root.body.find("<td>netdev</td><td>ok"), std::string::npos) << root.body;
  // The seed box's em0 sits on the P64H2's PCI-X 133 MHz / 64-bit segment.
  EXPECT_NE(root.body.find("<h2>Bus paths</h2>"), std::string::npos) << root.body;
  EXPECT_NE(
      root.body.find("<td>em0</td><td>0000:01:1d.0</td><td>pcix</td><td>133MHz</td><td>64bit</td><td>1066.7 MB/s"),
      std::string::npos)
      << root.body;
  HttpResponse health = d.Get("/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, "ok\n");
  EXPECT_EQ(d.Get("/nope").status, 404);
  // Exact paths: "/metricsXYZ" and "/metrics/x" are not /metrics.
  for (const char* path : {"/metricsXYZ", "/metrics/", "/metrics/anything", "/healthz/x", "/healthzz"})
    EXPECT_EQ(d.Get(path).status, 404) << path;
  // A percent-encoded NUL does not cut the path short (it was served as /metrics).
  for (const char* path : {"/metrics%00", "/metrics%00/../../etc/passwd", "/healthz%00.html", "/%00"})
    EXPECT_EQ(d.Get(path).status, 404) << path;
  EXPECT_EQ(HttpRequest(d.port(), "HEAD", "/metrics/x").status, 404);
  EXPECT_EQ(d.Get("/metrics?name=x").status, 200) << "a query string is not part of the path";
  EXPECT_EQ(HttpRequest(d.port(), "POST", "/metrics").status, 405);
  EXPECT_EQ(HttpRequest(d.port(), "DELETE", "/").status, 405);
  HttpResponse head = HttpRequest(d.port(), "HEAD", "/metrics");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  d.Signal(SIGINT);
  EXPECT_EQ(d.Wait(10), 0);
  EXPECT_NE(d.Stderr().find("msg=stopped"), std::string::npos);
}

// A POST announcing a 1 GiB body gets its 405 and the connection closed without
// the server reading the body: the client's writes fail after a few MB of
// socket buffers instead of being read and discarded (up to 64 MiB tried).
TEST(DaemonHttp, PostWithHugeBodyIsNotRead) {
  TempDir dir;
  DaemonProcess d;
  ASSERT_TRUE(d.Start(FixtureArgs("seed-box", ConfigFile(dir, "interval: 1s\n")))) << d.error();
  int fd = ConnectLoopback(d.port());
  ASSERT_GE(fd, 0);
  std::string head = "POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1073741824\r\n\r\n";
  ASSERT_EQ(::send(fd, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  char reply[256] = {};
  ssize_t got = ::recv(fd, reply, sizeof(reply) - 1, 0);
  ASSERT_GT(got, 12);
  EXPECT_EQ(std::string(reply, 12), "HTTP/1.1 405");
  const std::string chunk(1 << 16, 'x');
  size_t sent = 0;
  while (sent < (64u << 20)) {
    ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  ::close(fd);
  EXPECT_LT(sent, 64u << 20) << "the server kept reading the body";
  EXPECT_EQ(d.Get("/healthz").status, 200);
}

// A garbled kernel file sets that collector's success to 0 with one log line;
// the others keep working, sampling goes on, and it recovers when the file does.
TEST(DaemonBadInput, GarbledFileFailsOneCollectorOnly) {
  TempDir dir;
  std::filesystem::copy(FixtureDir("seed-box"), dir.path() + "/tree",
                        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  std::string softnet = dir.path() + "/tree/proc/net/softnet_stat";
  std::string good = ReadFileOrDie(softnet);
  dir.Write("tree/proc/net/softnet_stat", "0000zzzz 00000000\ngarbage\n");
  std::string cfg = ConfigFile(dir, "interval: 100ms\n");
  DaemonProcess d;
  ASSERT_TRUE(
      d.Start({"--config.file=" + cfg, "--web.listen-address=127.0.0.1:0", "--path.procfs=" + dir.path() + "/tree/proc",
               "--path.sysfs=" + dir.path() + "/tree/sys", "--path.ethtool=" + dir.path() + "/tree/ethtool"}))
      << d.error();
  std::string m = d.Get("/metrics").body;
  EXPECT_NE(m.find("bottleneckd_collector_success{collector=\"softirqs\"} 0"), std::string::npos) << m;
  EXPECT_NE(m.find("bottleneckd_collector_success{collector=\"cpu\"} 1"), std::string::npos);
  EXPECT_NE(m.find("bottleneckd_collector_success{collector=\"netdev\"} 1"), std::string::npos);
  // Three more ticks over the garbled file (counted by the daemon, not slept):
  // one error line for the failure, not one per tick.
  auto samples = [&d] {
    std::string body = d.Get("/metrics").body;
    size_t at = body.find("\nbottleneckd_samples_total ");
    return at == std::string::npos ? -1L : std::atol(body.c_str() + at + 27);
  };
  long first_samples = samples();
  ASSERT_GE(first_samples, 0);
  for (int i = 0; i < 400 && samples() < first_samples + 3; ++i) ::poll(nullptr, 0, 50);
  ASSERT_GE(samples(), first_samples + 3) << "the daemon stopped ticking";
  const std::string& log = d.Stderr();
  size_t first = log.find("msg=\"collector failed\" collector=softirqs");
  ASSERT_NE(first, std::string::npos) << log;
  EXPECT_EQ(log.find("msg=\"collector failed\" collector=softirqs", first + 1), std::string::npos) << log;
  EXPECT_NE(log.find("softnet_stat"), std::string::npos) << "the error names the file: " << log;

  dir.Write("tree/proc/net/softnet_stat", good);
  ASSERT_TRUE(d.WaitForLog("msg=\"collector recovered\" collector=softirqs", 5)) << d.Stderr();
  EXPECT_TRUE(d.WaitForMetric("bottleneckd_collector_success{collector=\"softirqs\"} 1", 5));

  // A missing file: the same, and the daemon keeps sampling.
  std::filesystem::remove(dir.path() + "/tree/proc/stat");
  ASSERT_TRUE(d.WaitForLog("msg=\"collector failed\" collector=cpu", 5)) << d.Stderr();
  EXPECT_TRUE(d.WaitForMetric("bottleneckd_collector_success{collector=\"cpu\"} 0", 5));
  EXPECT_EQ(d.Get("/healthz").status, 200);
  d.Signal(SIGTERM);
  EXPECT_EQ(d.Wait(10), 0);
}

TEST(DaemonSignals, HupReloadsAndBadReloadKeepsRunning) {
  TempDir dir;
  std::string cfg = ConfigFile(dir, "interval: 1s\n");
  DaemonProcess d;
  ASSERT_TRUE(d.Start(FixtureArgs("seed-box", cfg))) << d.error();
  dir.Write("bottleneckd.yaml", "interval: 200ms\ncollectors:\n  sockets:\n    enabled: false\n");
  d.Signal(SIGHUP);
  ASSERT_TRUE(d.WaitForLog("msg=\"configuration applied\"", 5)) << d.Stderr();
  EXPECT_TRUE(d.WaitForMetric("collector=\"sockets\"", 10, false)) << "sockets disabled by the reload";

  dir.Write("bottleneckd.yaml", "interval: 200ms\ncollectors:\n  netdev:\n    includ: [eth0]\n");
  d.Signal(SIGHUP);
  ASSERT_TRUE(d.WaitForLog("msg=\"reload failed; keeping the running config\"", 5)) << d.Stderr();
  EXPECT_NE(d.Stderr().find("bottleneckd.yaml:4:5: unknown key 'includ'"), std::string::npos) << d.Stderr();
  EXPECT_EQ(d.Get("/healthz").status, 200);

  // Hostile files (issue 17): a pattern std::regex overflowed the stack on,
  // and a 2 MiB file; both refused, the daemon keeps serving.
  dir.Write("bottleneckd.yaml",
            "collectors:\n  netdev:\n    include: ['" + std::string(3000, '(') + std::string(3000, ')') + "']\n");
  d.Signal(SIGHUP);
  ASSERT_TRUE(d.WaitForLog("include: pattern is 6000 bytes, over the 4096-byte limit", 5)) << d.Stderr();
  dir.Write("bottleneckd.yaml", "# " + std::string(2 << 20, 'x') + "\n");
  d.Signal(SIGHUP);
  ASSERT_TRUE(d.WaitForLog("over the limit of 1048576 bytes", 5)) << d.Stderr();
  EXPECT_EQ(d.Get("/healthz").status, 200);
  std::string m = d.Get("/metrics").body;
  EXPECT_EQ(m.find("collector=\"sockets\""), std::string::npos) << "the last good config still applies";
  d.Signal(SIGTERM);
  EXPECT_EQ(d.Wait(10), 0);
}

TEST(DaemonCli, ConfigCheckAndErrors) {
  TempDir dir;
  std::string good = ConfigFile(dir, "interval: 2s\n");
  std::string cmd = std::string(BOTTLENECKD_BINARY) + " --config.check --config.file=" + good + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  dir.Write("bad.yaml", "interval: 1s\nweb:\n  listen_address: [1, 2\n");
  cmd = std::string(BOTTLENECKD_BINARY) + " --config.check --config.file=" + dir.path() + "/bad.yaml > " + dir.path() +
        "/out 2>&1";
  int st = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(st), 1);
  std::string out = ReadFileOrDie(dir.path() + "/out");
  EXPECT_NE(out.find("bad.yaml:4:1"), std::string::npos) << out;

  // A bad flag value is a usage error (2), a bad file a config error (1).
  cmd = std::string(BOTTLENECKD_BINARY) + " --web.listen-address=nonsense --config.check > " + dir.path() + "/out 2>&1";
  st = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(st), 2);
  out = ReadFileOrDie(dir.path() + "/out");
  EXPECT_NE(out.find("invalid listen address 'nonsense'"), std::string::npos) << out;

  cmd = std::string(BOTTLENECKD_BINARY) + " --bogus > " + dir.path() + "/out 2>&1";
  st = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(st), 2);
  EXPECT_NE(ReadFileOrDie(dir.path() + "/out").find("unknown flag --bogus"), std::string::npos);
}

TEST(DaemonCli, PortInUseIsAClearError) {
  TempDir dir;
  DaemonProcess first;
  ASSERT_TRUE(first.Start(FixtureArgs("seed-box", ConfigFile(dir, "")))) << first.error();
  std::string cmd = std::string(BOTTLENECKD_BINARY) + " --config.file=" + dir.path() +
                    "/bottleneckd.yaml --web.listen-address=127.0.0.1:" + std::to_string(first.port()) + " > " +
                    dir.path() + "/out 2>&1";
  int st = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(st), 1);
  EXPECT_NE(ReadFileOrDie(dir.path() + "/out").find("cannot listen on 127.0.0.1:" + std::to_string(first.port())),
            std::string::npos)
      << ReadFileOrDie(dir.path() + "/out");
}

// The soaker through the real binary on this host: `--once --soaker` exports a
// soaker busy ratio and hidden ratio for every CPU and stores a calibration;
// `calibrate` redoes it on demand.
TEST(DaemonSoaker, OnceWithSoakerAndCalibrate) {
  TempDir dir;
  std::string state = dir.path() + "/state";
  std::string cfg = ConfigFile(dir, "soaker:\n  calibration_time: 100ms\n");
  std::string cmd = std::string(BOTTLENECKD_BINARY) + " --once --soaker --config.file=" + cfg +
                    " --path.state=" + state + " > " + dir.path() + "/out 2>" + dir.path() + "/err";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << ReadFileOrDie(dir.path() + "/err");
  std::string out = ReadFileOrDie(dir.path() + "/out");
  std::string stat = ReadFileOrDie("/proc/stat");
  int cpus = 0;
  for (size_t at = stat.find("\ncpu"); at != std::string::npos; at = stat.find("\ncpu", at + 1)) ++cpus;
  ASSERT_GT(cpus, 0);
  std::regex soaker_busy(R"(bottleneckd_cpu_busy_ratio\{cpu="[0-9]+",source="soaker"\} ([0-9.e+-]+))");
  int seen = 0;
  for (std::sregex_iterator it(out.begin(), out.end(), soaker_busy), end; it != end; ++it) {
    double v = std::stod((*it)[1]);
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 1);
    ++seen;
  }
  EXPECT_EQ(seen, cpus) << out;
  EXPECT_NE(out.find("bottleneckd_cpu_hidden_ratio{cpu=\"0\"}"), std::string::npos);
  EXPECT_NE(out.find("bottleneckd_soaker_info{scheduler=\"idle\"} 1"), std::string::npos) << "root may use SCHED_IDLE";
  std::string calib = ReadFileOrDie(state + "/soaker-calibration");
  EXPECT_NE(calib.find("format 1"), std::string::npos) << calib;
  EXPECT_NE(calib.find("\ncpu 0 "), std::string::npos) << calib;

  cmd = std::string(BOTTLENECKD_BINARY) + " calibrate --config.file=" + cfg + " --path.state=" + state + " > " +
        dir.path() + "/cal 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << ReadFileOrDie(dir.path() + "/cal");
  EXPECT_NE(ReadFileOrDie(dir.path() + "/cal").find("cpu0 "), std::string::npos);
}

// soaker.calibration_max_age through the binary: a stored calibration made to
// look two hours old is kept with a 3h limit and measured again with 1h.
TEST(DaemonSoaker, CalibrationMaxAge) {
  TempDir dir;
  std::string state = dir.path() + "/state";
  auto once = [&](const std::string& max_age) {
    std::string cfg = ConfigFile(dir, "soaker:\n  calibration_time: 100ms\n  calibration_max_age: " + max_age + "\n");
    std::string cmd = std::string(BOTTLENECKD_BINARY) + " --once --soaker --config.file=" + cfg +
                      " --path.state=" + state + " > /dev/null 2>" + dir.path() + "/err";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << ReadFileOrDie(dir.path() + "/err");
  };
  once("1h");  // none stored: calibrates
  SoakerCalibrationFile f;
  ASSERT_OK(LoadSoakerCalibration(state + "/soaker-calibration", &f));
  ASSERT_FALSE(f.cpus.empty());
  const int64_t two_hours_ago = static_cast<int64_t>(std::time(nullptr)) - 7200;
  for (SoakerCalibration& c : f.cpus) {
    c.iterations_per_second = 4321;  // a rate no real measurement gives exactly
    c.measured_unix_seconds = two_hours_ago;
    c.disturbed = false;  // a busy box marks a calibration disturbed: measured again whatever its age
  }
  ASSERT_OK(StoreSoakerCalibration(state, f));

  once("3h");
  SoakerCalibrationFile kept;
  ASSERT_OK(LoadSoakerCalibration(state + "/soaker-calibration", &kept));
  ASSERT_EQ(kept.cpus.size(), f.cpus.size());
  EXPECT_EQ(kept.cpus[0].iterations_per_second, 4321);
  EXPECT_EQ(kept.cpus[0].measured_unix_seconds, two_hours_ago);

  once("1h");
  SoakerCalibrationFile redone;
  ASSERT_OK(LoadSoakerCalibration(state + "/soaker-calibration", &redone));
  ASSERT_EQ(redone.cpus.size(), f.cpus.size());
  for (const SoakerCalibration& c : redone.cpus) {
    EXPECT_NE(c.iterations_per_second, 4321);
    EXPECT_GT(c.measured_unix_seconds, two_hours_ago + 7000);
  }
}

}  // namespace
}  // namespace bottleneckd::testing::e2e_test
