// The exporter's metric families: naming conventions, the documented list,
// and values read through the real collectors from a fixture tree.
#include "exporters/prometheus/metrics.h"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "daemon/daemon.h"
#include "exporters/prometheus/text_format.h"
#include "tests/support/fake_fs.h"
#include "tests/support/metric_families.h"
#include "tests/support/test_util.h"

namespace bottleneckd::metrics_test {
namespace {

std::shared_ptr<const Snapshot> TwoTicks(const std::string& scenario, bool matrix = false) {
  static SnapshotStore store;
  Config c;
  c.roots = testing::FixtureRoots(scenario);
  c.collectors.interrupts.per_cpu_matrix = matrix;
  c.collectors.threads.targets.push_back(ThreadTarget{"udpecho", std::nullopt});
  Daemon d(c, &store);
  d.Tick();
  d.Tick();
  return store.Latest();
}

using testing::Find;
using testing::Label;

// Every family listed, prefixed (bottleneckd_, or process_ for the names every
// client library exports), _total on counters only, with help, and
// ratios in [0, 1].
void ExpectConventions(const std::vector<prometheus::MetricFamily>& fams) {
  std::set<std::string> known(ExportedMetricNames().begin(), ExportedMetricNames().end());
  for (const auto& f : fams) {
    EXPECT_TRUE(known.count(f.name)) << f.name << " is emitted but not in ExportedMetricNames()";
    EXPECT_TRUE(f.name.rfind("bottleneckd_", 0) == 0 || f.name.rfind("process_", 0) == 0) << f.name;
    bool total = f.name.size() > 6 && f.name.substr(f.name.size() - 6) == "_total";
    EXPECT_EQ(total, f.type == prometheus::MetricType::Counter)
        << f.name << ": counters and only counters end in _total";
    EXPECT_FALSE(f.help.empty()) << f.name;
    if (f.name.find("_ratio") != std::string::npos)
      for (const auto& m : f.metric) {
        EXPECT_GE(m.gauge.value, 0) << f.name;
        EXPECT_LE(m.gauge.value, 1.0000001) << f.name;
      }
  }
}

TEST(Metrics, NamesAreValidAndFollowConventions) {
  std::string bad;
  EXPECT_TRUE(ValidateMetricNames(&bad)) << bad;
  auto snap = TwoTicks("large-host", /*matrix=*/true);
  ExpectConventions(BuildMetricFamilies(snap.get(), GetBuildInfo()));
}

TEST(Metrics, EveryExportedNameIsDocumented) {
  std::string doc = testing::ReadFileOrDie(std::string(BOTTLENECKD_SOURCE_DIR) + "/docs/metrics.md");
  for (const std::string& n : ExportedMetricNames()) EXPECT_NE(doc.find("`" + n), std::string::npos) << n;
}

// The names the project uses outside the exporter (the shipped alert and
// recording rules, the Grafana dashboards, the fleet report's queries, the
// docs) are names the exporter emits: the one list, metric_names.def. A
// histogram's series add _bucket, _sum and _count; a recording rule's own
// name (level:metric:operations) is not a metric and is left out.
TEST(Metrics, EveryNameUsedElsewhereIsOnTheList) {
  std::set<std::string> known(ExportedMetricNames().begin(), ExportedMetricNames().end());
  const std::regex name(R"((?:^|[^\w:])(bottleneckd_[a-z0-9_]+)(?![\w:]))");
  const std::string src = BOTTLENECKD_SOURCE_DIR;
  std::vector<std::string> files = {"etc/prometheus/bottleneckd-alerts.yml",
                                    "etc/prometheus/bottleneckd-recording.yml",
                                    "etc/grafana/bottleneckd-host.json",
                                    "etc/grafana/bottleneckd-fleet.json",
                                    "fleet/fleet_fetch.cc",
                                    "README.md"};
  // Every page of docs/ but the performance history, which quotes old names.
  for (const auto& e : std::filesystem::directory_iterator(src + "/docs"))
    if (e.path().extension() == ".md" && e.path().filename() != "performance-history.md")
      files.push_back("docs/" + e.path().filename().string());
  int used = 0;
  for (const std::string& file : files) {
    const std::string text = testing::ReadFileOrDie(src + "/" + file);
    for (std::sregex_iterator it(text.begin(), text.end(), name), end; it != end; ++it) {
      std::string n = (*it)[1];
      for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        const std::string sx = suffix;
        if (!known.count(n) && n.size() > sx.size() && n.ends_with(sx) &&
            known.count(n.substr(0, n.size() - sx.size())))
          n = n.substr(0, n.size() - sx.size());
      }
      if (n.ends_with("_")) continue;  // a prefix in prose: "bottleneckd_cpu_*"
      // Not metrics: the package's file names (bottleneckd_0.1_amd64.deb) and
      // the stages' libraries (bottleneckd_window: window/; bottleneckd_http:
      // exporters/http/).
      const std::string stem = n.substr(std::string("bottleneckd_").size());
      if (std::isdigit(static_cast<unsigned char>(stem[0])) || std::filesystem::is_directory(src + "/" + stem) ||
          std::filesystem::is_directory(src + "/exporters/" + stem))
        continue;
      ++used;
      EXPECT_TRUE(known.count(n)) << file << " names " << n << ", which the exporter does not emit";
    }
  }
  EXPECT_GT(used, 50);
}

TEST(Metrics, NoSnapshotGivesOnlyBuildInfo) {
  auto fams = BuildMetricFamilies(nullptr, BuildInfo{"1.2.3", "abc"});
  ASSERT_EQ(fams.size(), 1u);
  EXPECT_EQ(fams[0].name, "bottleneckd_build_info");
  EXPECT_EQ(Label(fams[0].metric[0], "version"), "1.2.3");
}

TEST(Metrics, PerCpuIrqMatrixOnlyWhenAsked) {
  auto off = BuildMetricFamilies(TwoTicks("seed-box").get(), GetBuildInfo());
  EXPECT_EQ(Find(off, "bottleneckd_interrupts_cpu_total"), nullptr);
  auto on = BuildMetricFamilies(TwoTicks("seed-box", true).get(), GetBuildInfo());
  const auto* m = Find(on, "bottleneckd_interrupts_cpu_total");
  ASSERT_NE(m, nullptr);
  // seed-box: one CPU, every line of /proc/interrupts (numeric and named) once.
  std::string text = testing::ReadFileOrDie(testing::FixtureDir("seed-box") + "/proc/interrupts");
  size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) - 1;  // minus header
  EXPECT_EQ(m->metric.size(), lines);
}

TEST(Metrics, SeedBoxValuesComeFromTheFixtureFiles) {
  auto fams = BuildMetricFamilies(TwoTicks("seed-box").get(), GetBuildInfo());
  std::string dir = testing::FixtureDir("seed-box");
  // em0's packet counter equals the sysfs file.
  const auto* rx = Find(fams, "bottleneckd_network_receive_packets_total");
  ASSERT_NE(rx, nullptr);
  uint64_t want = std::stoull(testing::ReadFileOrDie(dir + "/sys/class/net/em0/statistics/rx_packets"));
  bool seen = false;
  for (const auto& m : rx->metric)
    if (Label(m, "interface") == "em0") {
      EXPECT_DOUBLE_EQ(m.counter.value, static_cast<double>(want));
      seen = true;
    }
  EXPECT_TRUE(seen);
  // The drop ladder has all three rungs; the seed box loses at the socket.
  const auto* drops = Find(fams, "bottleneckd_network_drops_total");
  ASSERT_NE(drops, nullptr);
  std::set<std::string> rungs;
  for (const auto& m : drops->metric) rungs.insert(Label(m, "rung"));
  EXPECT_EQ(rungs, (std::set<std::string>{"nic", "backlog", "socket"}));
  // A window of two identical readings: the target thread used 0 % of a CPU.
  const auto* ratio = Find(fams, "bottleneckd_thread_cpu_ratio");
  ASSERT_NE(ratio, nullptr);
  ASSERT_EQ(ratio->metric.size(), 1u);
  EXPECT_EQ(Label(ratio->metric[0], "process"), "udpecho");
  EXPECT_EQ(ratio->metric[0].gauge.value, 0);
  // Every collector succeeded on the fixture.
  const auto* ok = Find(fams, "bottleneckd_collector_success");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->metric.size(), 7u);  // cpu, interrupts, softirqs, netdev, pci, sockets, threads
  for (const auto& m : ok->metric) EXPECT_EQ(m.gauge.value, 1) << Label(m, "collector");
}

// bottleneckd_thread_wait_ratio: a target thread's waiting split by what it
// waited on (analysis/wait_class.h), one series per class, matched to its
// window row by tid; a thread the analysis had no shares for has none.
TEST(Metrics, ThreadWaitsAreExportedByClass) {
  auto snap = std::make_shared<Snapshot>(*TwoTicks("seed-box"));
  Snapshot* s = snap.get();
  ASSERT_TRUE(s->window);
  ASSERT_FALSE(s->window->threads.empty());
  ThreadWindow other = s->window->threads[0];
  other.tid += 1000;  // no shares
  s->window->threads.push_back(other);
  ThreadWaitShares w;
  w.tid = s->window->threads[0].tid;
  w.shares[static_cast<size_t>(WaitClass::kPeer)] = 0.56;
  w.shares[static_cast<size_t>(WaitClass::kInput)] = 0.30;
  s->thread_waits = {w};
  auto fams = BuildMetricFamilies(s, GetBuildInfo());
  const auto* waits = Find(fams, "bottleneckd_thread_wait_ratio");
  ASSERT_NE(waits, nullptr);
  ASSERT_EQ(waits->metric.size(), kWaitClassCount);
  std::map<std::string, double> by_class;
  for (const auto& m : waits->metric) {
    EXPECT_EQ(Label(m, "tid"), std::to_string(w.tid));
    EXPECT_EQ(Label(m, "process"), "udpecho");
    by_class[Label(m, "class")] = m.gauge.value;
  }
  EXPECT_EQ(by_class,
            (std::map<std::string, double>{
                {"input", 0.30}, {"peer", 0.56}, {"lock", 0}, {"disk", 0}, {"sleep", 0}, {"other", 0}, {"unseen", 0}}));
  s->thread_waits.clear();
  EXPECT_EQ(Find(BuildMetricFamilies(s, GetBuildInfo()), "bottleneckd_thread_wait_ratio"), nullptr);
}

// bottleneckd_thread_wait_seconds_total: the same classes as seconds since
// the analysis first saw the thread (WaitSecondsTotals), a counter.
TEST(Metrics, ThreadWaitSecondsAreCountersByClass) {
  auto snap = std::make_shared<Snapshot>(*TwoTicks("seed-box"));
  Snapshot* s = snap.get();
  ASSERT_TRUE(s->window);
  ASSERT_FALSE(s->window->threads.empty());
  ThreadWaitSeconds w;
  w.tid = s->window->threads[0].tid;
  w.seconds[static_cast<size_t>(WaitClass::kSleep)] = 12.5;
  s->thread_wait_seconds = {w};
  auto fams = BuildMetricFamilies(s, GetBuildInfo());
  const auto* secs = Find(fams, "bottleneckd_thread_wait_seconds_total");
  ASSERT_NE(secs, nullptr);
  EXPECT_EQ(secs->type, prometheus::MetricType::Counter);
  ASSERT_EQ(secs->metric.size(), kWaitClassCount);
  for (const auto& m : secs->metric)
    EXPECT_EQ(m.counter.value, Label(m, "class") == "sleep" ? 12.5 : 0) << Label(m, "class");
  s->thread_wait_seconds.clear();
  EXPECT_EQ(Find(BuildMetricFamilies(s, GetBuildInfo()), "bottleneckd_thread_wait_seconds_total"), nullptr);
}

// irqtime (sources/irqtime.h): two CPUs, eth0's TxRx-0 (IRQ 30) on both,
// TxRx-1 (IRQ 31) on cpu1, and IRQ 99 that is no NIC's.
Snapshot IrqTimeSnapshot() {
  Snapshot s;
  IrqTimeReading r;
  r.mono_ns = 5;
  r.generation = 1;
  r.attach = "raw_tp";
  IrqTimeCpu c0, c1;
  c0.cpu = 0;
  c0.hardirq_ns = 1500000000;
  c0.hardirq_count = 1200;
  c0.softirq_ns[1] = 250000000;   // TIMER
  c0.softirq_ns[3] = 2000000000;  // NET_RX
  c0.softirq_count[1] = 30;
  c0.softirq_count[3] = 400;
  c1.cpu = 1;
  c1.hardirq_ns = 40000000;
  c1.hardirq_count = 7;
  c1.softirq_ns[9] = 3000000;  // RCU
  c1.softirq_count[9] = 2;
  r.cpus = {c0, c1};
  auto irq = [](uint32_t n, int cpu, uint64_t hard, uint64_t soft) {
    IrqTimeIrq e;
    e.irq = n;
    e.cpu = cpu;
    e.hardirq_ns = hard;
    e.hardirq_count = 1;
    e.net_softirq_ns = soft;
    e.net_softirq_count = 1;
    return e;
  };
  r.irqs = {irq(30, 0, 100000000, 300000000), irq(30, 1, 50000000, 200000000), irq(31, 1, 10000000, 0),
            irq(99, 0, 900000000, 0)};
  s.sample.irqtime = r;
  s.sample.nic_irqs = {NicIrq{30, "eth0", "TxRx-0", "0000:01:00.0"}, NicIrq{31, "eth0", "TxRx-1", "0000:01:00.0"},
                       NicIrq{32, "eth0", "TxRx-2", "0000:01:00.0"}};
  Window w;
  CpuWindow acc;
  acc.cpu = 0;
  acc.interrupt_ratio = 0.3;
  w.cpus = {acc};
  IrqTimeCpuWindow m;
  m.cpu = 0;
  m.hardirq_ratio = 0.05;
  m.softirq_ratio = 0.1;
  w.irqtime = {m};
  s.window = w;
  return s;
}

// Values of a family by the concatenation of the given labels' values.
std::map<std::string, double> ByLabels(const prometheus::MetricFamily& f, std::initializer_list<const char*> labels) {
  std::map<std::string, double> out;
  for (const auto& m : f.metric) {
    std::string key;
    const char* sep = "";
    for (const char* l : labels) {
      key += sep + Label(m, l);
      sep = "/";
    }
    out[key] = f.type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
  }
  return out;
}

TEST(IrqTimeMetrics, CountersInSecondsFromTheReading) {
  Snapshot s = IrqTimeSnapshot();
  auto fams = BuildMetricFamilies(&s, GetBuildInfo());
  ExpectConventions(fams);
  const auto* info = Find(fams, "bottleneckd_irqtime_info");
  ASSERT_NE(info, nullptr);
  ASSERT_EQ(info->metric.size(), 1u);
  EXPECT_EQ(Label(info->metric[0], "attach"), "raw_tp");
  EXPECT_EQ(info->metric[0].gauge.value, 1);

  const auto* secs = Find(fams, "bottleneckd_cpu_interrupt_seconds_total");
  ASSERT_NE(secs, nullptr);
  EXPECT_EQ(ByLabels(*secs, {"cpu", "kind"}),
            (std::map<std::string, double>{
                {"0/hardirq", 1.5}, {"0/softirq", 2.25}, {"1/hardirq", 0.04}, {"1/softirq", 0.003}}));

  const auto* vec = Find(fams, "bottleneckd_softirq_seconds_total");
  ASSERT_NE(vec, nullptr);
  auto v = ByLabels(*vec, {"cpu", "vector"});
  EXPECT_EQ(v.size(), 20u) << "every vector of every CPU";
  std::set<std::string> names;
  for (const auto& m : vec->metric) names.insert(Label(m, "vector"));
  EXPECT_EQ(names, (std::set<std::string>{"hi", "timer", "net_tx", "net_rx", "block", "irq_poll", "tasklet", "sched",
                                          "hrtimer", "rcu"}));
  EXPECT_EQ(v["0/timer"], 0.25);
  EXPECT_EQ(v["0/net_rx"], 2);
  EXPECT_EQ(v["0/net_tx"], 0);
  EXPECT_EQ(v["1/rcu"], 0.003);

  const auto* n = Find(fams, "bottleneckd_irqtime_interrupts_total");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(
      ByLabels(*n, {"cpu", "kind"}),
      (std::map<std::string, double>{{"0/hardirq", 1200}, {"0/softirq", 430}, {"1/hardirq", 7}, {"1/softirq", 2}}));

  // Summed over CPUs; IRQ 99 is no queue's and TxRx-2 has not interrupted.
  const auto* q = Find(fams, "bottleneckd_nic_queue_interrupt_seconds_total");
  ASSERT_NE(q, nullptr);
  auto qv = ByLabels(*q, {"interface", "queue", "kind"});
  ASSERT_EQ(qv.size(), 4u);
  EXPECT_NEAR(qv["eth0/TxRx-0/hardirq"], 0.15, 1e-12);
  EXPECT_NEAR(qv["eth0/TxRx-0/softirq"], 0.5, 1e-12);
  EXPECT_EQ(qv["eth0/TxRx-1/hardirq"], 0.01);
  EXPECT_EQ(qv["eth0/TxRx-1/softirq"], 0);

  std::string text, out;
  AppendTextFormat(fams, &text);
  EXPECT_EQ(testing::RunPromtoolCheckMetrics(text, &out), 0) << out << text;
}

TEST(IrqTimeMetrics, InterruptRatioHasASourceLabel) {
  Snapshot s = IrqTimeSnapshot();
  auto fams = BuildMetricFamilies(&s, GetBuildInfo());
  const auto* f = Find(fams, "bottleneckd_cpu_interrupt_ratio");
  ASSERT_NE(f, nullptr);
  auto v = ByLabels(*f, {"cpu", "source"});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v["0/accounting"], 0.3);
  EXPECT_NEAR(v["0/ebpf"], 0.15, 1e-12);
}

TEST(ProfileMetrics, SamplesPerCpuBusyAndIdleAndWhatWasLost) {
  Snapshot s = IrqTimeSnapshot();
  ProfileReading r;
  r.cpus = {{0, 49, 40}};  // this tick's: not what the counters export
  r.cpu_totals = {{0, 490, 400}, {1, 245, 5}};
  r.dropped = 3;
  r.stack_lost = 7;
  s.sample.profile = r;
  auto fams = BuildMetricFamilies(&s, GetBuildInfo());
  ExpectConventions(fams);
  const auto* n = Find(fams, "bottleneckd_profile_samples_total");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(ByLabels(*n, {"cpu", "state"}),
            (std::map<std::string, double>{{"0/busy", 90}, {"0/idle", 400}, {"1/busy", 240}, {"1/idle", 5}}));
  const auto* dropped = Find(fams, "bottleneckd_profile_dropped_samples_total");
  ASSERT_NE(dropped, nullptr);
  EXPECT_EQ(dropped->metric.at(0).counter.value, 3);
  const auto* lost = Find(fams, "bottleneckd_profile_lost_stacks_total");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->metric.at(0).counter.value, 7);

  s.sample.profile.reset();
  fams = BuildMetricFamilies(&s, GetBuildInfo());
  for (const char* name : {"bottleneckd_profile_samples_total", "bottleneckd_profile_dropped_samples_total",
                           "bottleneckd_profile_lost_stacks_total"})
    EXPECT_EQ(Find(fams, name), nullptr) << name;
}

TEST(IrqTimeMetrics, NoneWithoutTheSource) {
  Snapshot s = IrqTimeSnapshot();
  s.sample.irqtime.reset();
  s.window->irqtime.clear();
  auto fams = BuildMetricFamilies(&s, GetBuildInfo());
  for (const char* name :
       {"bottleneckd_irqtime_info", "bottleneckd_cpu_interrupt_seconds_total", "bottleneckd_softirq_seconds_total",
        "bottleneckd_irqtime_interrupts_total", "bottleneckd_nic_queue_interrupt_seconds_total"})
    EXPECT_EQ(Find(fams, name), nullptr) << name;
  const auto* f = Find(fams, "bottleneckd_cpu_interrupt_ratio");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(ByLabels(*f, {"cpu", "source"}), (std::map<std::string, double>{{"0/accounting", 0.3}}));
}

}  // namespace
}  // namespace bottleneckd::metrics_test
