// The live/replay property (issue 48): the same ticks through the live tick
// (Recorder: the daemon's TickPipeline with every source's reading written
// down) and through --replay of what it wrote give identical snapshots: the
// same readings of every source, windows, verdicts with their evidence and
// plateau, and so the same /metrics but the read durations. The test
// enumerates the source registry: a source without scripted readings here
// fails it, and so does one whose codec loses or invents anything.
//
// The polled collectors read the seed-box fixture tree (the seeds' PCI-X
// box); each source's readings are scripted, growing tick by tick like
// real cumulative counters, with the strings real ones carry (frame and wait
// site names with spaces, a thread name with a tab).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "daemon/replay.h"
#include "exporters/prometheus/metrics.h"
#include "sources/source_registry.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::testing::live_replay_test {
namespace {

constexpr int64_t kSec = 1000000000;
constexpr int kTicks = 8;

// One source's readings at tick k, and how two of its readings compare.
struct Script {
  std::function<void(int k, Sample*)> fill;
  std::function<bool(const Sample&, const Sample&)> same;
};

template <typename T>
bool SameField(const std::optional<T>& a, const std::optional<T>& b) {
  return a.has_value() == b.has_value() && (!a || *a == *b);
}

const std::map<std::string, Script>& Scripts() {
  static const std::map<std::string, Script> kScripts = {
      {"soaker",
       {[](int k, Sample* s) {
          SoakerReading r;
          r.mono_ns = s->mono_ns;
          r.calibration_unix_seconds = 1764500000;
          r.caveat = k >= 4 ? "calibration kept in memory only (state directory not writable)" : "";
          r.cpus = {{0, 1000000ull * k, 600000000ull * k, 1, 2.5e6, 1764500000, false}};
          s->soaker = r;
        },
        [](const Sample& a, const Sample& b) { return SameField(a.soaker, b.soaker); }}},
      {"irqtime",
       {[](int k, Sample* s) {
          IrqTimeReading r;
          r.mono_ns = s->mono_ns;
          r.generation = 7;
          r.attach = "tp_btf";
          IrqTimeCpu c;
          c.cpu = 0;
          c.hardirq_ns = 20000000ull * k;
          c.hardirq_count = 40000ull * k;
          c.softirq_ns[kSoftirqNetRx] = 300000000ull * k;
          c.softirq_count[kSoftirqNetRx] = 50000ull * k;
          r.cpus = {c};
          r.irqs = {{24, 0, 20000000ull * k, 40000ull * k, 300000000ull * k, 50000ull * k}};
          s->irqtime = r;
        },
        [](const Sample& a, const Sample& b) { return SameField(a.irqtime, b.irqtime); }}},
      {"offcpu",
       {[](int k, Sample* s) {
          OffCpuReading r;
          r.mono_ns = s->mono_ns;
          r.generation = 3;
          r.tids = {4242};
          r.sites = {{4242, "do_nanosleep (clock_nanosleep)", false, 700000000ull * k, 14000ull * k, true},
                     {4242, "", true, 1000000ull * k, 10ull * k, false}};
          s->offcpu = r;
        },
        [](const Sample& a, const Sample& b) { return SameField(a.offcpu, b.offcpu); }}},
      {"profile",
       {[](int k, Sample* s) {
          ProfileReading r;
          r.mono_ns = s->mono_ns;
          r.since_ns = s->mono_ns - kSec;
          r.generation = 5;
          r.frequency_hz = 49;
          r.cpus = {{0, 49, 9}};
          r.cpu_totals = {{0, 49ull * k, 9ull * k}};
          r.stacks = {{4242, 4242, 0, "udp\techo", {"main (udpecho)", "copy_loop (udpecho)"}, 30},
                      {4242, 4242, 0, "udp\techo", {"__udp4_lib_rcv [kernel]"}, 10}};
          s->profile = r;
        },
        [](const Sample& a, const Sample& b) { return SameField(a.profile, b.profile); }}},
      {"pcap",
       {[](int k, Sample* s) {
          CaptureReading r;
          r.interface = "eth0";
          r.active = true;
          r.linktype = 113;
          r.direction_known = true;
          r.opened_mono_ns = kSec;
          r.stats_ok = true;
          r.pcap_received = static_cast<uint32_t>(60000 * k);
          r.pcap_dropped = static_cast<uint32_t>(100 * k);
          r.packets = r.receive_packets = r.requests = 60000ull * k;
          r.bytes = r.receive_bytes = r.request_bytes = 60000ull * 100 * k;
          r.transmit_packets = r.replies = r.paired = 50000ull * k;
          r.lost = 10000ull * k;
          r.sizes[1] = 60000ull * k;
          for (int i = 0; i < 50 * k; ++i) r.turnaround.Add(20e-6 * (1 + i % 7));
          FlowStats f;
          f.key.protocol = 17;
          f.key.src = {10, 0, 0, 1};
          f.key.dst = {10, 0, 0, 2};
          f.key.src_port = 40000;
          f.key.dst_port = 7;
          f.requests = f.packets = 60000ull * k;
          f.replies = f.paired = 50000ull * k;
          f.lost = 10000ull * k;
          r.top_flows = {f};
          s->capture = std::vector<CaptureReading>{r};
        },
        [](const Sample& a, const Sample& b) { return SameField(a.capture, b.capture); }}},
  };
  return kScripts;
}

// A source reading its script: tick k is its k-th Read.
class ScriptedSource : public Source {
 public:
  ScriptedSource(std::string name, const Script* s) : name_(std::move(name)), script_(s) {}
  std::string_view name() const override { return name_; }
  Status Start() override { return Status::OK(); }
  void Stop() override {}
  Status Read(Sample* out) override {
    script_->fill(++k_, out);
    return Status::OK();
  }

 private:
  std::string name_;
  const Script* script_;
  int k_ = 0;
};

// A registry entry whose source reads its script: everything else (the
// codec above all) is the real entry's.
class ScriptedEntry : public SourceEntry {
 public:
  ScriptedEntry(const SourceEntry* real, const Script* s) : real_(real), script_(s) {}
  std::string_view name() const override { return real_->name(); }
  std::string_view default_state() const override { return real_->default_state(); }
  std::string_view help() const override { return real_->help(); }
  LoadMode Wanted(const SourceConfig&) const override { return LoadMode::kAuto; }
  std::string OptionsKey(const SourceConfig&) const override { return ""; }
  std::unique_ptr<Source> Make(const SourceConfig&) const override {
    return std::make_unique<ScriptedSource>(std::string(name()), script_);
  }
  void SayStarted(Source&, const SourceConfig&) const override {}
  std::string_view WithoutIt() const override { return real_->WithoutIt(); }
  bool Encode(const Sample& s, std::string* text) const override { return real_->Encode(s, text); }
  Status Decode(std::string_view text, Sample* s) const override { return real_->Decode(text, s); }
  size_t max_file_bytes() const override { return real_->max_file_bytes(); }

 private:
  const SourceEntry* real_;
  const Script* script_;
};

// /metrics of a snapshot without the lines that time the reads (a replay's
// reads are not the recorder's).
std::string MetricsWithoutDurations(const Snapshot& s) {
  std::string text, out;
  AppendMetricsText(&s, BuildInfo{"test", "test"}, &text);
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(at, nl - at);
    if (line.find("bottleneckd_collector_duration_seconds") == std::string::npos) out += line + "\n";
    at = nl + 1;
  }
  return out;
}

TEST(LiveReplay, EverySourceReplaysToTheSnapshotsTheLiveTickMade) {
  std::vector<std::unique_ptr<ScriptedEntry>> entries;
  std::vector<const SourceEntry*> table;
  for (const SourceEntry* e : SourceRegistry()) {
    auto it = Scripts().find(std::string(e->name()));
    ASSERT_NE(it, Scripts().end()) << "source '" << e->name()
                                   << "' has no scripted readings here: add them, so its codec is held to the "
                                      "live/replay property";
    entries.push_back(std::make_unique<ScriptedEntry>(e, &it->second));
    table.push_back(entries.back().get());
  }
  TempDir d;
  Config c;
  c.roots = FixtureRoots("seed-box");
  SourceSet sources(table);
  HostFs host(c.roots);
  sources.Sync(SourceConfigOf(c, &host, false, false));
  ASSERT_EQ(sources.Running().size(), SourceRegistry().size());
  Recorder recorder(c, d.path() + "/rec", &sources);
  ASSERT_OK(recorder.Open());
  std::vector<std::shared_ptr<const Snapshot>> live;
  for (int k = 0; k < kTicks; ++k) {
    std::shared_ptr<const Snapshot> snap;
    ASSERT_OK(recorder.Tick(100 * kSec + k * kSec, 1764500000 * kSec + k * kSec, &snap));
    live.push_back(snap);
  }
  std::vector<std::string> names;
  for (const SourceEntry* e : SourceRegistry()) names.push_back(std::string(e->name()));
  EXPECT_EQ(recorder.info().sources, names);

  std::vector<Snapshot> replayed;
  RecordingInfo info;
  ASSERT_OK(ReplayRecording(
      d.path() + "/rec", c, [&](const Snapshot& s) { replayed.push_back(s); }, &info));
  EXPECT_EQ(info.sources, names);
  ASSERT_EQ(replayed.size(), live.size());
  int verdicts = 0;
  for (size_t k = 0; k < live.size(); ++k) {
    const Snapshot& a = *live[k];
    const Snapshot& b = replayed[k];
    for (const SourceEntry* e : SourceRegistry())
      EXPECT_TRUE(Scripts().at(std::string(e->name())).same(a.sample, b.sample))
          << "tick " << k << ": the replayed " << e->name() << " reading differs from the live one";
    ASSERT_EQ(a.window.has_value(), b.window.has_value()) << "tick " << k;
    EXPECT_EQ(WindowSummaryLine(a, live[0]->sample.mono_ns), WindowSummaryLine(b, replayed[0].sample.mono_ns));
    ASSERT_EQ(a.verdict.has_value(), b.verdict.has_value()) << "tick " << k;
    if (a.verdict) {
      ++verdicts;
      EXPECT_EQ(a.verdict->label, b.verdict->label) << "tick " << k;
      EXPECT_EQ(a.verdict->resource, b.verdict->resource) << "tick " << k;
      EXPECT_EQ(a.verdict->confidence, b.verdict->confidence) << "tick " << k;
      EXPECT_EQ(a.verdict->evidence, b.verdict->evidence) << "tick " << k;
      EXPECT_EQ(a.verdict->reasons, b.verdict->reasons) << "tick " << k;
      EXPECT_EQ(a.verdict->scores, b.verdict->scores) << "tick " << k;
    }
    EXPECT_EQ(a.plateau.has_value(), b.plateau.has_value()) << "tick " << k;
    EXPECT_EQ(MetricsWithoutDurations(a), MetricsWithoutDurations(b)) << "tick " << k;
  }
  EXPECT_EQ(verdicts, kTicks - 1);  // every window after the first was analysed
  // The sources' windows were not empty: the property compared numbers.
  ASSERT_TRUE(live.back()->window.has_value());
  EXPECT_FALSE(live.back()->window->captures.empty());
}

}  // namespace
}  // namespace bottleneckd::testing::live_replay_test
