// Recordings on disk (docs/recording-format.md): RecordingFs over a copy of
// the seed-box fixture for two ticks through a real Sampler, replayed by
// ReplayFs into the same readings; replay of hand-written recordings (their
// files are the ground truth) into window rates; a full disk while
// recording; OpenRecording and ReplayFs refusing malformed or hostile
// recordings with the file named; RecordHost's directory rules. Version 1
// recordings (the hand-written one) replay as before; version 2 ones carry
// an irqtime file per sample into Sample::irqtime.
#include "daemon/replay.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "daemon/sampler.h"
#include "recording/recording.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::testing::replay_test {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kSec = 1000000000;
const char kEm0[] = "devices/pci0000:00/0000:00:02.0/0000:01:1d.0/0000:02:01.0";

bool IsLink(const std::string& p) { return fs::is_symlink(fs::symlink_status(p)); }

void ExpectSameReadings(const Sample& live, const Sample& replay) {
  ASSERT_TRUE(live.stat && replay.stat);
  ASSERT_EQ(live.stat->cpus.size(), replay.stat->cpus.size());
  for (size_t i = 0; i < live.stat->cpus.size(); ++i) {
    const CpuTimes &a = live.stat->cpus[i], &b = replay.stat->cpus[i];
    EXPECT_EQ(a.cpu, b.cpu);
    EXPECT_EQ(a.user, b.user);
    EXPECT_EQ(a.system, b.system);
    EXPECT_EQ(a.idle, b.idle);
    EXPECT_EQ(a.irq, b.irq);
    EXPECT_EQ(a.softirq, b.softirq);
  }
  ASSERT_TRUE(live.interrupts && replay.interrupts);
  ASSERT_EQ(live.interrupts->lines.size(), replay.interrupts->lines.size());
  for (size_t i = 0; i < live.interrupts->lines.size(); ++i) {
    EXPECT_EQ(live.interrupts->lines[i].name, replay.interrupts->lines[i].name);
    EXPECT_EQ(live.interrupts->lines[i].per_cpu, replay.interrupts->lines[i].per_cpu);
  }
  ASSERT_EQ(live.nic_irqs.size(), replay.nic_irqs.size());
  for (size_t i = 0; i < live.nic_irqs.size(); ++i) {
    EXPECT_EQ(live.nic_irqs[i].irq, replay.nic_irqs[i].irq);
    EXPECT_EQ(live.nic_irqs[i].interface, replay.nic_irqs[i].interface);
    EXPECT_EQ(live.nic_irqs[i].device, replay.nic_irqs[i].device);
  }
  ASSERT_TRUE(live.netdev && replay.netdev);
  ASSERT_EQ(live.netdev->size(), replay.netdev->size());
  for (size_t i = 0; i < live.netdev->size(); ++i) {
    const NetDev &a = (*live.netdev)[i], &b = (*replay.netdev)[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.ifindex, b.ifindex);
    EXPECT_EQ(a.is_virtual, b.is_virtual);
    EXPECT_EQ(a.pci_device, b.pci_device);
    EXPECT_EQ(a.driver, b.driver);
    EXPECT_EQ(a.stats, b.stats);
    EXPECT_EQ(a.ethtool, b.ethtool);
  }
  ASSERT_TRUE(live.softnet && replay.softnet);
  ASSERT_EQ(live.softnet->size(), replay.softnet->size());
  EXPECT_EQ((*live.softnet)[0].processed, (*replay.softnet)[0].processed);
  ASSERT_TRUE(live.sockets && replay.sockets);
  EXPECT_EQ(live.sockets->Get("Udp", "RcvbufErrors"), replay.sockets->Get("Udp", "RcvbufErrors"));
  ASSERT_TRUE(live.threads && replay.threads);
  ASSERT_EQ(live.threads->size(), replay.threads->size());
  for (size_t i = 0; i < live.threads->size(); ++i) {
    EXPECT_EQ((*live.threads)[i].task.tid, (*replay.threads)[i].task.tid);
    EXPECT_EQ((*live.threads)[i].task.utime, (*replay.threads)[i].task.utime);
  }
  ASSERT_TRUE(live.pci && replay.pci);
  ASSERT_EQ(live.pci->devices.size(), replay.pci->devices.size());
  for (size_t i = 0; i < live.pci->devices.size(); ++i) {
    const PciDevice &a = live.pci->devices[i], &b = replay.pci->devices[i];
    EXPECT_EQ(a.address, b.address);
    EXPECT_EQ(a.parent, b.parent);
    EXPECT_EQ(a.root_bus, b.root_bus);
    EXPECT_EQ(a.driver, b.driver);
    EXPECT_EQ(a.interfaces, b.interfaces);
    EXPECT_EQ(a.class_code, b.class_code);
    EXPECT_EQ(a.config.length, b.config.length);
  }
  ASSERT_EQ(live.results.size(), replay.results.size());
  for (size_t i = 0; i < live.results.size(); ++i) {
    EXPECT_EQ(live.results[i].name, replay.results[i].name);
    EXPECT_EQ(live.results[i].success, replay.results[i].success) << replay.results[i].error;
  }
}

void Replace(const std::string& path, const std::string& from, const std::string& to) {
  std::string text = ReadFileOrDie(path);
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << path;
  text.replace(at, from.size(), to);
  std::ofstream(path, std::ios::trunc) << text;
}

TEST(RecordingFs, TwoTicksOfTheSeedBoxReplayAsTheyWereRead) {
  TempDir tmp;
  const std::string host = tmp.path() + "/host", rec = tmp.path() + "/rec";
  fs::copy(FixtureDir("seed-box"), host, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  HostRoots roots{host + "/proc", host + "/sys", host + "/ethtool"};
  CollectorsConfig cc;
  cc.threads.targets = {{"udpecho", std::nullopt}};
  RecordingFs cap(roots, rec);
  Sampler live(&cap, cc);
  Sample s0, s1;
  ASSERT_OK(cap.BeginSample(0, 100 * kSec, 1764500000 * kSec));
  live.Take(&s0);
  ASSERT_OK(cap.EndSample());
  // Tick 1: em0 received 1000 more packets; cpu0 spent 50 ticks in user, 50 idle.
  Replace(host + "/sys/" + kEm0 + "/net/em0/statistics/rx_packets", "80568280", "80569280");
  Replace(host + "/proc/stat", "cpu0 12451 0 46098 81636", "cpu0 12501 0 46098 81686");
  ASSERT_OK(cap.BeginSample(1, 101 * kSec, 1764500001 * kSec));
  live.Take(&s1);
  ASSERT_OK(cap.EndSample());
  ASSERT_TRUE(cap.error().ok()) << cap.error().ToString();

  ReplayFs replay_fs(rec);
  Sampler replay(&replay_fs, cc);
  Sample r0, r1;
  ASSERT_OK(replay_fs.Select(0));
  replay.Take(&r0);
  ASSERT_OK(replay_fs.Select(1));
  replay.Take(&r1);
  ExpectSameReadings(s0, r0);
  ExpectSameReadings(s1, r1);

  // The fixture README's values, and tick 1's edits.
  EXPECT_EQ(r0.stat->cpus[0].user, 12451u);
  EXPECT_EQ(r1.stat->cpus[0].user, 12501u);
  EXPECT_EQ(r1.stat->cpus[0].idle, 81686u);
  auto em0 = [](const Sample& s) {
    return std::find_if(s.netdev->begin(), s.netdev->end(), [](const NetDev& d) { return d.name == "em0"; });
  };
  ASSERT_NE(em0(r1), r1.netdev->end());
  EXPECT_EQ(em0(r0)->Stat("rx_packets"), 80568280u);
  EXPECT_EQ(em0(r1)->Stat("rx_packets"), 80569280u);
  EXPECT_EQ(em0(r1)->Ethtool("rx_packets"), 80568280u);  // the ethtool file was not edited
  EXPECT_EQ(em0(r1)->driver, "e1000");
  EXPECT_EQ(em0(r1)->pci_device, "0000:02:01.0");
  const IrqLine* irq24 = nullptr;
  for (const IrqLine& l : r1.interrupts->lines)
    if (l.name == "24") irq24 = &l;
  ASSERT_NE(irq24, nullptr);
  EXPECT_EQ(irq24->per_cpu, std::vector<uint64_t>{9543711});
  ASSERT_FALSE(r1.nic_irqs.empty());
  const PciDevice* nic = r1.pci->Find("0000:02:01.0");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->parent, "0000:01:1d.0");
  EXPECT_EQ(nic->interfaces, std::vector<std::string>{"em0"});
  ASSERT_EQ(r1.threads->size(), 1u);
  EXPECT_EQ((*r1.threads)[0].pid, 812);
  EXPECT_EQ((*r1.threads)[0].task.utime, 11986u);

  // The recording's shape: links kept, static facts once, counters per tick.
  ASSERT_TRUE(IsLink(rec + "/static/sys/bus/pci/devices/0000:02:01.0"));
  EXPECT_EQ(fs::read_symlink(rec + "/static/sys/bus/pci/devices/0000:02:01.0").string(),
            std::string("../../../") + kEm0);
  EXPECT_TRUE(IsLink(rec + "/samples/000001/sys/class/net/em0"));
  EXPECT_TRUE(fs::exists(rec + "/static/sys/" + kEm0 + "/config"));
  EXPECT_FALSE(fs::exists(rec + "/samples/000001/sys/" + kEm0 + "/config"));
  EXPECT_EQ(ReadFileOrDie(rec + "/samples/000001/sys/" + kEm0 + "/net/em0/statistics/rx_packets"), "80569280\n");
  EXPECT_EQ(ReadFileOrDie(rec + "/samples/000001/time"), "101.000000000 1764500001.000000000\n");
  EXPECT_FALSE(fs::exists(rec + "/samples/000001.partial"));
  EXPECT_GT(cap.bytes_written(), 0u);
}

// A two-sample recording by hand; every number below is the test's ground truth.
void WriteHandRecording(const TempDir& d) {
  d.Write("recording.yaml",
          "format: bottleneckd-recording\nversion: 1\ninterval_seconds: 2\nsamples: 2\nsoaker: true\n"
          "runs:\n  - name: all\n    start: 0\n    end: 2\n");
  d.Write("samples/000000/time", "100.0 1764500000.0\n");
  d.Write("samples/000001/time", "102 1764500002\n");
  d.Write("samples/000000/proc/stat", "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 100 0 100 800 0 0 0 0 0 0\n");
  d.Write("samples/000001/proc/stat", "cpu  250 0 100 850 0 0 0 0 0 0\ncpu0 250 0 100 850 0 0 0 0 0 0\n");
  // eth9 is a plain directory: its facts in static/, its counters per tick.
  d.Write("static/sys/class/net/eth9/ifindex", "7\n");
  d.Write("static/sys/class/net/eth9/operstate", "up\n");
  const char* stats[][3] = {{"rx_packets", "1000", "3000"},
                            {"rx_bytes", "100000", "300000"},
                            {"tx_packets", "10", "10"},
                            {"tx_bytes", "600", "600"}};
  for (auto& s : stats) {
    d.Write(std::string("samples/000000/sys/class/net/eth9/statistics/") + s[0], std::string(s[1]) + "\n");
    d.Write(std::string("samples/000001/sys/class/net/eth9/statistics/") + s[0], std::string(s[2]) + "\n");
  }
  d.Write("samples/000000/soaker", "sched_idle 1\n0 0 0 1e9\n");
  d.Write("samples/000001/soaker", "sched_idle 1\n0 500000000 1000000000 1e9\n");
}

TEST(ReplayRecording, HandWrittenTickGivesTheWindowRates) {
  TempDir d;
  WriteHandRecording(d);
  std::vector<Snapshot> snaps;
  RecordingInfo info;
  Status s = ReplayRecording(
      d.path(), Config(), [&](const Snapshot& snap) { snaps.push_back(snap); }, &info);
  ASSERT_OK(s);
  EXPECT_EQ(info.samples, 2u);
  ASSERT_EQ(snaps.size(), 2u);
  EXPECT_FALSE(snaps[0].window.has_value());
  EXPECT_EQ(snaps[1].samples_total, 2u);
  EXPECT_EQ(snaps[1].interval_seconds, 2.0);
  EXPECT_EQ(snaps[1].sample.mono_ns, 102 * kSec);
  EXPECT_EQ(snaps[1].sample.wall_ns, 1764500002 * kSec);
  ASSERT_TRUE(snaps[1].window.has_value());
  const Window& w = *snaps[1].window;
  EXPECT_DOUBLE_EQ(w.seconds, 2.0);
  // cpu0 over 200 ticks (2 s at USER_HZ 100): +150 user, +50 idle.
  ASSERT_EQ(w.cpus.size(), 1u);
  EXPECT_DOUBLE_EQ(w.cpus[0].user_ratio, 0.75);
  // The soaker: 5e8 iterations at 1e9/s in 2 s = 25 % delivered idle; it was
  // charged 1 s, 0.5 s of which its loop accounts for: 25 % hidden. Busy is
  // 75 % by accounting less the soaker's 1 s of 2: 25 %.
  ASSERT_EQ(w.soaker.size(), 1u);
  EXPECT_DOUBLE_EQ(w.soaker[0].delivered_idle_ratio, 0.25);
  EXPECT_DOUBLE_EQ(w.soaker[0].hidden_ratio, 0.25);
  EXPECT_DOUBLE_EQ(w.cpus[0].busy_ratio, 0.25);
  // eth9: 2000 packets and 200000 bytes in 2 s.
  ASSERT_EQ(w.nics.size(), 1u);
  EXPECT_EQ(w.nics[0].interface, "eth9");
  EXPECT_EQ(w.nics[0].rx_packets_per_second, 1000.0);
  EXPECT_EQ(w.nics[0].rx_bits_per_second, 800000.0);
  EXPECT_EQ(w.nics[0].tx_packets_per_second, 0.0);
  const NetDev& eth9 = (*snaps[1].sample.netdev)[0];
  EXPECT_EQ(eth9.ifindex, 7);  // from static/
  EXPECT_EQ(eth9.operstate, "up");
  std::string line = WindowSummaryLine(snaps[1], snaps[0].sample.mono_ns);
  const std::string rates = "+2.000s  busiest cpu0 25.0%  eth9 rx 1000/s";
  EXPECT_EQ(line.substr(0, rates.size()), rates) << line;
  // 25 % busy, nothing dropped on any rung: not saturated.
  std::string why;
  if (snaps[1].verdict)
    for (const std::string& r : snaps[1].verdict->reasons) why += "\n  " + r;
  EXPECT_EQ(line.substr(rates.size(), 15), "  verdict none ") << line << why;
}

// The irqtime reading of a tick, as the source would give it at `mono_ns`.
IrqTimeReading HandIrqTime(int64_t mono_ns, uint64_t scale) {
  IrqTimeReading r;
  r.mono_ns = mono_ns;
  r.generation = 7;
  r.attach = "tp_btf";
  IrqTimeCpu c;
  c.cpu = 0;
  c.hardirq_ns = 1000 * scale;
  c.hardirq_count = scale;
  c.softirq_ns[kSoftirqNetRx] = 5000 * scale;
  c.softirq_count[kSoftirqNetRx] = 2 * scale;
  r.cpus = {c};
  r.irqs = {{24, 0, 1000 * scale, scale, 5000 * scale, 2 * scale}};
  return r;
}

// The hand recording as version 2 with an irqtime file per sample.
void WriteHandRecordingV2(const TempDir& d) {
  WriteHandRecording(d);
  Replace(d.path() + "/recording.yaml", "version: 1\n", "version: 2\nirqtime: true\n");
  d.Write("samples/000000/irqtime", IrqTimeFileText(HandIrqTime(100 * kSec, 1)));
  d.Write("samples/000001/irqtime", IrqTimeFileText(HandIrqTime(102 * kSec, 3)));
}

// Every snapshot of the replay of `dir` (a failure fails the test).
std::vector<Snapshot> ReplayAll(const std::string& dir, RecordingInfo* info = nullptr,
                                const Config& config = Config()) {
  std::vector<Snapshot> snaps;
  Status s = ReplayRecording(
      dir, config, [&](const Snapshot& snap) { snaps.push_back(snap); }, info);
  EXPECT_OK(s);
  return snaps;
}

const CollectorResult* FindResult(const Sample& s, const std::string& name) {
  for (const CollectorResult& r : s.results)
    if (r.name == name) return &r;
  return nullptr;
}

TEST(ReplayRecording, VersionTwoCarriesTheIrqTimeFileIntoTheSample) {
  TempDir d;
  WriteHandRecordingV2(d);
  RecordingInfo info;
  std::vector<Snapshot> snaps = ReplayAll(d.path(), &info);
  EXPECT_EQ(info.version, 2);
  EXPECT_TRUE(info.HasSource("irqtime"));
  ASSERT_EQ(snaps.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Sample& sample = snaps[i].sample;
    ASSERT_TRUE(sample.irqtime.has_value()) << i;
    EXPECT_EQ(*sample.irqtime, HandIrqTime((100 + 2 * static_cast<int64_t>(i)) * kSec, i == 0 ? 1 : 3)) << i;
    const CollectorResult* r = FindResult(sample, "irqtime");
    ASSERT_NE(r, nullptr) << i;
    EXPECT_TRUE(r->success) << r->error;
    ASSERT_NE(FindResult(sample, "soaker"), nullptr);  // the soaker as in version 1
  }
  // The rest of the replay is the version 1 one's.
  ASSERT_TRUE(snaps[1].window.has_value());
  EXPECT_DOUBLE_EQ(snaps[1].window->cpus[0].user_ratio, 0.75);
}

TEST(ReplayRecording, IrqTimeFilesAreReadOnlyWhenTheRecordingHasThem) {
  {  // version 1: no irqtime in any sample, no irqtime result
    TempDir d;
    WriteHandRecording(d);
    std::vector<Snapshot> snaps = ReplayAll(d.path());
    ASSERT_EQ(snaps.size(), 2u);
    for (const Snapshot& snap : snaps) {
      EXPECT_FALSE(snap.sample.irqtime.has_value());
      EXPECT_EQ(FindResult(snap.sample, "irqtime"), nullptr);
    }
  }
  {  // irqtime: false in version 2: files, if any, are not the recording's
    TempDir d;
    WriteHandRecordingV2(d);
    Replace(d.path() + "/recording.yaml", "irqtime: true", "irqtime: false");
    std::vector<Snapshot> snaps = ReplayAll(d.path());
    for (const Snapshot& snap : snaps) EXPECT_FALSE(snap.sample.irqtime.has_value());
  }
  {  // a sample without the file (the source failed to read that tick): no reading, no result
    TempDir d;
    WriteHandRecordingV2(d);
    fs::remove(d.path() + "/samples/000000/irqtime");
    std::vector<Snapshot> snaps = ReplayAll(d.path());
    ASSERT_EQ(snaps.size(), 2u);
    EXPECT_FALSE(snaps[0].sample.irqtime.has_value());
    EXPECT_EQ(FindResult(snaps[0].sample, "irqtime"), nullptr);
    EXPECT_TRUE(snaps[1].sample.irqtime.has_value());
  }
  {  // a malformed file fails the irqtime result of that tick; the replay goes on
    TempDir d;
    WriteHandRecordingV2(d);
    d.Write("samples/000001/irqtime", "format 1\ncpu 0 hardirq -1 1 unattributed 0 overflow 0\n");
    std::vector<Snapshot> snaps = ReplayAll(d.path());
    ASSERT_EQ(snaps.size(), 2u);
    EXPECT_TRUE(snaps[0].sample.irqtime.has_value());
    EXPECT_FALSE(snaps[1].sample.irqtime.has_value());
    const CollectorResult* r = FindResult(snaps[1].sample, "irqtime");
    ASSERT_NE(r, nullptr);
    EXPECT_FALSE(r->success);
    EXPECT_NE(r->error.find(d.path() + "/samples/000001/irqtime: line 2: expected 'cpu CPU hardirq"), std::string::npos)
        << r->error;
    ASSERT_TRUE(snaps[1].window.has_value());  // the collectors' window is unaffected
  }
}

TEST(RecordingFs, WritesTheIrqTimeFileReplayFsReadsBack) {
  TempDir tmp;
  const std::string rec = tmp.path() + "/rec";
  RecordingFs cap(FixtureRoots("seed-box"), rec);
  const std::string text = IrqTimeFileText(HandIrqTime(kSec, 1));
  EXPECT_FALSE(cap.WriteSampleFile("irqtime", text).ok());  // outside a sample
  ASSERT_OK(cap.BeginSample(0, kSec, kSec));
  ASSERT_OK(cap.WriteSampleFile("irqtime", text));
  ASSERT_OK(cap.EndSample());
  ASSERT_OK(cap.BeginSample(1, 2 * kSec, 2 * kSec));  // a tick without it
  ASSERT_OK(cap.EndSample());
  EXPECT_EQ(ReadFileOrDie(rec + "/samples/000000/irqtime"), IrqTimeFileText(HandIrqTime(kSec, 1)));
  ReplayFs replay(rec);
  std::string back, path;
  EXPECT_TRUE(replay.ReadSampleFile("irqtime", 1 << 20, &back, &path).IsNotFound());  // nothing selected
  ASSERT_OK(replay.Select(0));
  ASSERT_OK(replay.ReadSampleFile("irqtime", 1 << 20, &back, &path));
  EXPECT_EQ(path, rec + "/samples/000000/irqtime");
  IrqTimeReading r;
  ASSERT_OK(ParseIrqTimeFile(back, &r));
  EXPECT_EQ(r, HandIrqTime(kSec, 1));
  // A name that would leave the sample is refused.
  EXPECT_EQ(replay.ReadSampleFile("../000000/irqtime", 1 << 20, &back, &path).code(), Status::Code::kInvalidArgument);
  ASSERT_OK(replay.Select(1));
  EXPECT_TRUE(replay.ReadSampleFile("irqtime", 1 << 20, &back, &path).IsNotFound());
}

TEST(RecordingFs, FullDiskKeepsTheErrorAndTheReads) {
  TempDir tmp;
  const std::string rec = tmp.path() + "/rec";
  RecordingFs cap(FixtureRoots("seed-box"), rec);
  ASSERT_OK(cap.BeginSample(0, kSec, kSec));
  // RLIMIT_FSIZE makes every write past 100 bytes fail (EFBIG), as a full disk
  // fails it, even for root.
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = {100, old.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string stat, irq;
  Status read_stat = cap.ReadProc("stat", &stat);
  Status read_irq = cap.ReadSys("bus/pci/devices/0000:02:01.0/irq", &irq);
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, old_handler);
  ASSERT_OK(read_stat);
  EXPECT_EQ(stat.rfind("cpu  12451 0 46098 81636", 0), 0u);  // the read itself is whole
  ASSERT_OK(read_irq);                                       // reads go on after the failure
  EXPECT_EQ(irq, "24\n");
  ASSERT_FALSE(cap.error().ok());
  EXPECT_NE(cap.error().message().find("samples/000000.partial/proc/stat"), std::string::npos) << cap.error().message();
  EXPECT_FALSE(fs::exists(rec + "/samples/000000.partial/proc/stat"));             // no half-written file
  EXPECT_FALSE(fs::exists(rec + "/samples/000000.partial/sys/" + kEm0 + "/irq"));  // nothing after it
  EXPECT_FALSE(cap.EndSample().ok());
  EXPECT_FALSE(fs::exists(rec + "/samples/000000"));  // the broken tick stays .partial
  EXPECT_FALSE(cap.BeginSample(1, 2 * kSec, 2 * kSec).ok());
}

TEST(RecordingFs, UnwritableOutDirKeepsTheErrorAndTheReads) {
  TempDir tmp;
  tmp.Write("file", "x");
  RecordingFs cap(FixtureRoots("seed-box"), tmp.path() + "/file/rec");  // under a regular file
  Status s = cap.BeginSample(0, kSec, kSec);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(tmp.path() + "/file/rec"), std::string::npos) << s.message();
  EXPECT_FALSE(cap.error().ok());
  std::string stat;
  ASSERT_OK(cap.ReadProc("stat", &stat));
  EXPECT_EQ(stat.rfind("cpu  12451", 0), 0u);
}

TEST(RecordingFs, RefusesDescriptorsSoCollectorsReadByPath) {
  TempDir tmp;
  RecordingFs cap(FixtureRoots("seed-box"), tmp.path() + "/rec");
  UniqueFd fd;
  EXPECT_TRUE(cap.OpenSys("class/net/em0/statistics/rx_packets", &fd).IsNotSupported());
  ReplayFs replay(tmp.path());
  EXPECT_TRUE(replay.OpenSys("class/net/em0/statistics/rx_packets", &fd).IsNotSupported());
}

// A table read only to its head (the TCP table's listeners,
// collectors/input_sockets.h) is recorded as read, cut mid-line where the
// cap fell, and a replay serves the same head.
TEST(RecordingFs, PrefixReadsAreRecordedAndReplayedAsRead) {
  TempDir tmp;
  RecordingFs cap(HostRoots{}, tmp.path() + "/rec");
  ASSERT_OK(cap.BeginSample(0, kSec, kSec));
  std::string head;
  ASSERT_OK(cap.ReadProcPrefix("net/tcp", &head, 100));
  EXPECT_EQ(head.size(), 100u) << "the table's header line alone is longer";
  EXPECT_EQ(head.rfind("  sl  local_address", 0), 0u) << head;
  std::string whole;
  ASSERT_OK(cap.ReadProcPrefix("net/snmp", &whole, HostFs::kMaxSysBytes));
  EXPECT_EQ(whole.back(), '\n') << "a file shorter than the cap is read whole";
  ASSERT_OK(cap.EndSample());
  ReplayFs replay(tmp.path() + "/rec");
  ASSERT_OK(replay.Select(0));
  std::string back;
  ASSERT_OK(replay.ReadProcPrefix("net/tcp", &back, 100));
  EXPECT_EQ(back, head);
}

// The kept-descriptor fast path is the door's: the recorder refuses it, so a
// collector's ReadProcKept on the live host comes back through ReadProc and
// is recorded (it once read around the recorder, and live recordings held no
// proc/ at all).
TEST(RecordingFs, KeptReadsAreRecorded) {
  TempDir tmp;
  RecordingFs cap(HostRoots{}, tmp.path() + "/rec");
  ASSERT_TRUE(cap.live());
  UniqueFd fd;
  EXPECT_TRUE(cap.OpenProc("stat", &fd).IsNotSupported());
  ASSERT_OK(cap.BeginSample(0, kSec, kSec));
  UniqueFd kept;
  std::string text;
  ASSERT_OK(cap.ReadProcKept("stat", &kept, &text));
  EXPECT_LT(kept.get(), 0) << "nothing kept open around the recorder";
  EXPECT_TRUE(cap.SampleHoldsProc("stat"));
  // A whole live tick: the tables every collector reads.
  Sampler sampler(&cap, CollectorsConfig());
  Sample s;
  sampler.Take(&s);
  for (const char* table : {"interrupts", "softirqs", "net/snmp"}) EXPECT_TRUE(cap.SampleHoldsProc(table)) << table;
  ASSERT_OK(cap.EndSample());
  EXPECT_TRUE(std::filesystem::is_regular_file(tmp.path() + "/rec/samples/000000/proc/stat"));
}

struct Broken {
  const char* what;
  std::function<void(const TempDir&)> change;
  std::string error;  // relative to the recording directory
};

TEST(OpenRecording, RefusesMalformedRecordingsNamingTheFile) {
  const std::vector<Broken> cases = {
      {"no recording.yaml", [](const TempDir& d) { fs::remove(d.path() + "/recording.yaml"); },
       "/recording.yaml: missing: not a bottleneckd recording"},
      {"bad yaml", [](const TempDir& d) { d.Write("recording.yaml", "format: bottleneckd-recording\nversion: 4\n"); },
       "/recording.yaml:2:10: version 4 is newer than this bottleneckd reads (1-3)"},
      {"garbled time", [](const TempDir& d) { d.Write("samples/000001/time", "soon\n"); },
       "/samples/000001/time: expected '<monotonic seconds> <unix seconds>', got 'soon'"},
      {"truncated time", [](const TempDir& d) { d.Write("samples/000001/time", "102."); },
       "/samples/000001/time: expected '<monotonic seconds> <unix seconds>', got '102.'"},
      {"missing time", [](const TempDir& d) { fs::remove(d.path() + "/samples/000000/time"); },
       "/samples/000000/time: No such file"},
      {"time going back", [](const TempDir& d) { d.Write("samples/000001/time", "99 1764500002\n"); },
       "/samples/000001/time: monotonic time 99.000000000 s is not after sample 0's 100.000000000 s"},
      {"missing sample", [](const TempDir& d) { fs::remove_all(d.path() + "/samples/000001"); },
       "/samples/000001: missing ("},
      {"extra sample", [](const TempDir& d) { d.Write("samples/000002/time", "104 1\n"); },
       "/samples/000002: beyond the 2 samples"},
      {"stray entry", [](const TempDir& d) { d.Write("samples/notes.txt", "hi"); },
       "/samples/notes.txt: not a sample directory"},
      {"run past the end", [](const TempDir& d) { Replace(d.path() + "/recording.yaml", "end: 2", "end: 2.5"); },
       "/recording.yaml: run 'all' ends at 2.5 s, after the last sample at 2 s"},
      {"no samples", [](const TempDir& d) { Replace(d.path() + "/recording.yaml", "samples: 2", "samples: 0"); },
       "/recording.yaml: samples is 0"},
  };
  for (const Broken& c : cases) {
    TempDir d;
    WriteHandRecording(d);
    c.change(d);
    RecordingInfo info;
    Status s = OpenRecording(d.path(), &info);
    ASSERT_FALSE(s.ok()) << c.what;
    EXPECT_NE(s.message().find(d.path() + c.error), std::string::npos) << c.what << ": " << s.message();
    bool called = false;
    EXPECT_FALSE(ReplayRecording(d.path(), Config(), [&](const Snapshot&) { called = true; }).ok());
    EXPECT_FALSE(called) << c.what;
  }
}

TEST(OpenRecording, IgnoresAnUnfinishedSample) {
  TempDir d;
  WriteHandRecording(d);
  d.Write("samples/000002.partial/time", "104 1764500004\n");  // a recorder killed mid-tick
  RecordingInfo info;
  ASSERT_OK(OpenRecording(d.path(), &info));
  EXPECT_EQ(info.samples, 2u);
}

TEST(ReplayFs, RefusesEntriesLeadingOutOfTheRecording) {
  struct Case {
    const char* what;
    std::function<void(const std::string&)> plant;  // given samples/000001
    const char* entry;
  } cases[] = {
      {"absolute link", [](const std::string& s) { fs::create_symlink("/proc/stat", s + "/proc/stat2"); },
       "/proc/stat2"},
      {"climbing link", [](const std::string& s) { fs::create_symlink("../../../../../../etc", s + "/sys/etc"); },
       "/sys/etc"},
      {"link with inner ..", [](const std::string& s) { fs::create_symlink("proc/../../..", s + "/up"); }, "/up"},
      {"fifo", [](const std::string& s) { ::mkfifo((s + "/proc/fifo").c_str(), 0644); }, "/proc/fifo"},
  };
  for (const Case& c : cases) {
    TempDir d;
    WriteHandRecording(d);
    const std::string sample = d.path() + "/samples/000001";
    c.plant(sample);
    ReplayFs replay(d.path());
    EXPECT_TRUE(replay.Select(0).ok()) << c.what;
    Status s = replay.Select(1);
    ASSERT_FALSE(s.ok()) << c.what;
    EXPECT_NE(s.message().find(sample + c.entry), std::string::npos) << c.what << ": " << s.message();
    Status r = ReplayRecording(d.path(), Config(), [](const Snapshot&) {});
    EXPECT_NE(r.message().find(sample + c.entry), std::string::npos) << c.what << ": " << r.message();
  }
  // A link inside the sample is fine; ".." in a collector's path is not served.
  TempDir d;
  WriteHandRecording(d);
  fs::create_symlink("../proc/stat", d.path() + "/samples/000001/proc/stat1");
  ReplayFs replay(d.path());
  ASSERT_OK(replay.Select(1));
  std::string text;
  ASSERT_OK(replay.ReadProc("stat1", &text));
  EXPECT_EQ(text.rfind("cpu  250 0 100 850", 0), 0u);
  EXPECT_TRUE(replay.ReadProc("../../000000/proc/stat", &text).IsNotFound());
  EXPECT_TRUE(replay.Select(2).IsNotFound());
}

TEST(RecordHost, RefusesANonEmptyDirectoryAndAnEarlyStop) {
  TempDir d;
  d.Write("old/file", "x");
  Config c;
  c.roots = FixtureRoots("seed-box");
  Status s = RecordHost(c, d.path() + "/old", 1, nullptr);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find(d.path() + "/old exists and is not empty"), std::string::npos) << s.message();
  EXPECT_EQ(RecordHost(c, d.path() + "/old/file", 1, nullptr).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(RecordHost(c, d.path() + "/new", 0, nullptr).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(RecordHost(c, d.path() + "/new", 24 * 3600 + 1, nullptr).code(), Status::Code::kInvalidArgument);
  std::atomic<bool> stop{true};
  RecordProgress p;
  s = RecordHost(c, d.path() + "/new", 1, &stop, &p);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(p.samples, 0u);
}

TEST(RecordHost, RecordsTheFixtureAndReplaysIt) {
  TempDir d;
  Config c;
  c.roots = FixtureRoots("seed-box");
  c.interval_seconds = 0.25;
  RecordProgress p;
  ASSERT_OK(RecordHost(c, d.path() + "/rec", 1.5, nullptr, &p));
  // Ticks at 0, 0.25, ..., 1.5 s; a loaded machine (a sanitizer build on 2
  // busy cores) skips late ticks, never bunches them: at most 7, and at
  // least 2 unless one tick took over a second.
  EXPECT_GE(p.samples, 2u);
  EXPECT_LE(p.samples, 7u);
  size_t windows = 0;
  RecordingInfo info;
  ASSERT_OK(ReplayRecording(
      d.path() + "/rec", c, [&](const Snapshot& s) { windows += s.window ? 1 : 0; }, &info));
  EXPECT_EQ(info.samples, p.samples);
  EXPECT_EQ(windows, p.samples - 1);
  EXPECT_EQ(info.interval_seconds, 0.25);
  EXPECT_EQ(info.cpus, 1);  // the seed box has one CPU
  EXPECT_EQ(info.source, "recorded");
  EXPECT_EQ(info.version, kRecordingVersion);
  // irqtime mode auto (the default) loads only over the live /proc and /sys:
  // the live kernel's interrupt time is not the fixture's.
  EXPECT_FALSE(info.HasSource("irqtime"));
  EXPECT_FALSE(fs::exists(d.path() + "/rec/samples/000000/irqtime"));
}

TEST(RecordHost, IrqTimeModeOnLoadsOrRefusesToRecord) {
  TempDir d;
  Config c;
  c.roots = FixtureRoots("seed-box");
  c.interval_seconds = 0.25;
  c.irqtime.mode = IrqTimeMode::kOn;
  RecordProgress p;
  Status s = RecordHost(c, d.path() + "/rec", 0.25, nullptr, &p);
  if (!s.ok()) {  // no privilege or no tracepoints here: the error, nothing recorded
    EXPECT_NE(s.message().find("irqtime"), std::string::npos) << s.ToString();
    EXPECT_EQ(p.samples, 0u);
    EXPECT_FALSE(fs::exists(d.path() + "/rec/recording.yaml"));
    return;
  }
  RecordingInfo info;
  std::vector<Snapshot> snaps = ReplayAll(d.path() + "/rec", &info, c);
  EXPECT_TRUE(info.HasSource("irqtime"));
  ASSERT_FALSE(snaps.empty());
  ASSERT_TRUE(snaps[0].sample.irqtime.has_value());
  EXPECT_FALSE(snaps[0].sample.irqtime->cpus.empty());
  c.irqtime.mode = IrqTimeMode::kOff;  // and off is off
  ASSERT_OK(RecordHost(c, d.path() + "/rec2", 0.25, nullptr, &p));
  ASSERT_OK(OpenRecording(d.path() + "/rec2", &info));
  EXPECT_FALSE(info.HasSource("irqtime"));
}

}  // namespace
}  // namespace bottleneckd::testing::replay_test
