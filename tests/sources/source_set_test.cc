// SourceSet (sources/source_set.h) over entries of its own: when each source
// is built, kept, rebuilt, retried and stopped; what a refusal in mode on
// leaves; that reads are timed results in entry order. The registry's real
// entries decide from the config as the daemon used to by hand.
#include "sources/source_set.h"

#include <gtest/gtest.h>

#include "sources/sample.h"
#include "sources/source_registry.h"
#include "tests/support/test_util.h"

namespace bottleneckd::source_set_test {
namespace {

// What the fake sources did, shared with the test.
struct Ledger {
  int made = 0, started = 0, stopped = 0, reads = 0;
  Status start = Status::OK();  // what Start returns
};

class FakeSource : public Source {
 public:
  FakeSource(std::string name, Ledger* l) : name_(std::move(name)), l_(l) { ++l_->made; }
  std::string_view name() const override { return name_; }
  Status Start() override {
    ++l_->started;
    return l_->start;
  }
  void Stop() override { ++l_->stopped; }
  Status Read(Sample* s) override {
    ++l_->reads;
    s->mono_ns += 1;
    return name_ == "broken" ? Status::IOError("map gone") : Status::OK();
  }

 private:
  std::string name_;
  Ledger* l_;
};

// An entry whose wish and options come from the test through the config's
// irqtime options (mode: how it loads; btf_path: its options key).
class FakeEntry : public SourceEntry {
 public:
  FakeEntry(std::string name, Ledger* l, bool retry = false) : name_(std::move(name)), l_(l), retry_(retry) {}
  std::string_view name() const override { return name_; }
  std::string_view default_state() const override { return "auto"; }
  std::string_view help() const override { return "a fake"; }
  LoadMode Wanted(const SourceConfig& c) const override { return c.irqtime->mode; }
  std::string OptionsKey(const SourceConfig& c) const override { return c.irqtime->btf_path; }
  std::unique_ptr<Source> Make(const SourceConfig&) const override { return std::make_unique<FakeSource>(name_, l_); }
  bool RetryEachTick() const override { return retry_; }
  Status CanRestart() const override { return restart; }
  std::string_view WithoutIt() const override { return "nothing"; }
  bool Encode(const Sample&, std::string*) const override { return false; }
  Status Decode(std::string_view, Sample*) const override { return Status::OK(); }
  Status restart = Status::OK();

 private:
  std::string name_;
  Ledger* l_;
  bool retry_;
};

struct Fixture {
  CollectorsConfig collectors;
  IrqTimeOptions o;
  SourceConfig Config(LoadMode m, const std::string& key) {
    o.mode = m;
    o.btf_path = key;
    SourceConfig c;
    c.collectors = &collectors;
    c.irqtime = &o;
    return c;
  }
};

TEST(SourceSet, BuildsOnceKeepsRebuildsOnNewOptionsAndStops) {
  Ledger l;
  FakeEntry e("fake", &l);
  SourceSet set({&e});
  Fixture f;
  set.Sync(f.Config(LoadMode::kOff, "a"));
  EXPECT_EQ(l.made, 0);
  EXPECT_EQ(set.Find("fake"), nullptr);
  set.Sync(f.Config(LoadMode::kAuto, "a"));
  set.Sync(f.Config(LoadMode::kAuto, "a"));  // the same options: kept
  EXPECT_EQ(l.made, 1);
  EXPECT_NE(set.Find("fake"), nullptr);
  ASSERT_EQ(set.Running().size(), 1u);
  set.Sync(f.Config(LoadMode::kAuto, "b"));  // a reload with other options: rebuilt
  EXPECT_EQ(l.made, 2);
  EXPECT_EQ(l.stopped, 1);
  set.Sync(f.Config(LoadMode::kOff, "b"));  // not wanted any more: stopped
  EXPECT_EQ(l.stopped, 2);
  EXPECT_EQ(set.Find("fake"), nullptr);
  EXPECT_TRUE(set.Running().empty());
}

TEST(SourceSet, ARefusalIsTriedOncePerOptionsUnlessRetriedEachTick) {
  Ledger once, each;
  once.start = each.start = Status::PermissionDenied("CAP_BPF not held");
  FakeEntry a("once", &once), b("each", &each, /*retry=*/true);
  SourceSet set({&a, &b});
  Fixture f;
  for (int i = 0; i < 3; ++i) set.Sync(f.Config(LoadMode::kAuto, "k"));
  EXPECT_EQ(once.made, 1);
  EXPECT_EQ(each.made, 3);
  EXPECT_TRUE(set.fatal_error().ok());           // mode auto: said, not fatal
  set.Sync(f.Config(LoadMode::kAuto, "other"));  // new options: tried again
  EXPECT_EQ(once.made, 2);
  once.start = each.start = Status::OK();
  set.Sync(f.Config(LoadMode::kAuto, "other"));
  EXPECT_EQ(once.made, 2);               // refused with these options, not tried again
  EXPECT_NE(set.Find("each"), nullptr);  // retried, and now it runs
}

TEST(SourceSet, ARefusalInModeOnIsTheFatalError) {
  Ledger l;
  l.start = Status::PermissionDenied("CAP_BPF and CAP_PERFMON not held");
  FakeEntry e("fake", &l);
  SourceSet set({&e});
  Fixture f;
  set.Sync(f.Config(LoadMode::kOn, "k"));
  EXPECT_EQ(set.fatal_error().code(), Status::Code::kPermissionDenied);
  EXPECT_NE(set.fatal_error().message().find("fake (mode on)"), std::string::npos) << set.fatal_error().ToString();
  set.Sync(f.Config(LoadMode::kOff, "k"));
  EXPECT_TRUE(set.fatal_error().ok());
}

TEST(SourceSet, ASourceKeptWhenRefusedIsReadAndNotRetried) {
  Ledger l;
  l.start = Status::PermissionDenied("needs CAP_NET_RAW");
  struct Kept : FakeEntry {
    using FakeEntry::FakeEntry;
    bool KeptWhenRefused() const override { return true; }
  } e("pcap", &l);
  SourceSet set({&e});
  Fixture f;
  set.Sync(f.Config(LoadMode::kAuto, "lo"));
  set.Sync(f.Config(LoadMode::kAuto, "lo"));
  EXPECT_EQ(l.made, 1);
  ASSERT_NE(set.Find("pcap"), nullptr);
  Sample s;
  set.Read(&s);
  EXPECT_EQ(l.reads, 1);  // its reading says why it is down
  EXPECT_TRUE(set.fatal_error().ok());
}

TEST(SourceSet, ASourceThatMayNotRestartKeepsRunning) {
  Ledger l;
  FakeEntry e("pcap", &l);
  SourceSet set({&e});
  Fixture f;
  set.Sync(f.Config(LoadMode::kAuto, "eth0"));
  e.restart = Status::PermissionDenied("the capability to open captures was dropped");
  set.Sync(f.Config(LoadMode::kAuto, "eth1"));
  EXPECT_EQ(l.made, 1);
  EXPECT_EQ(l.stopped, 0);
  EXPECT_NE(set.Find("pcap"), nullptr);
}

TEST(SourceSet, ReadsAreTimedResultsInEntryOrder) {
  Ledger la, lb;
  FakeEntry a("broken", &la), b("fine", &lb);
  SourceSet set({&a, &b});
  Fixture f;
  set.Sync(f.Config(LoadMode::kAuto, "k"));
  Sample s;
  set.Read(&s);
  ASSERT_EQ(s.results.size(), 2u);
  EXPECT_EQ(s.results[0].name, "broken");
  EXPECT_FALSE(s.results[0].success);
  EXPECT_EQ(s.results[0].error, "map gone");
  EXPECT_EQ(s.results[1].name, "fine");
  EXPECT_TRUE(s.results[1].success);
  EXPECT_GE(s.results[1].duration_seconds, 0);
  EXPECT_EQ(s.mono_ns, 2);  // both read
  set.StopAll();
  EXPECT_EQ(la.stopped + lb.stopped, 2);
}

// The real entries decide as the daemon did before they existed: the eBPF
// sources in mode auto only over the live host, offcpu only with targets,
// the soaker with a run in mode runs and never while it calibrates, capture
// with an interface, every switchable one off when disabled.
TEST(SourceRegistry, EntriesDecideFromTheConfig) {
  CollectorsConfig k;
  CaptureOptions cap;
  SoakerOptions soak;
  IrqTimeOptions irq;
  ProfileOptions prof;
  SourceConfig c;
  c.collectors = &k;
  c.capture = &cap;
  c.soaker = &soak;
  c.irqtime = &irq;
  c.profile = &prof;
  c.live = true;
  EXPECT_EQ(IrqTimeEntry().Wanted(c), LoadMode::kAuto);
  EXPECT_EQ(ProfileEntry().Wanted(c), LoadMode::kAuto);
  EXPECT_EQ(OffCpuEntry().Wanted(c), LoadMode::kOff);   // no targets
  EXPECT_EQ(CaptureEntry().Wanted(c), LoadMode::kOff);  // no interface
  EXPECT_EQ(SoakerEntry().Wanted(c), LoadMode::kOff);   // mode runs, no run
  c.live = false;
  EXPECT_EQ(IrqTimeEntry().Wanted(c), LoadMode::kOff);
  irq.mode = LoadMode::kOn;
  EXPECT_EQ(IrqTimeEntry().Wanted(c), LoadMode::kOn);  // asked for: loaded over any tree
  k.disabled = {"irqtime", "pcap"};
  EXPECT_EQ(IrqTimeEntry().Wanted(c), LoadMode::kOff);
  cap.interfaces = {"lo"};
  EXPECT_EQ(CaptureEntry().Wanted(c), LoadMode::kOff);
  k.disabled.clear();
  EXPECT_EQ(CaptureEntry().Wanted(c), LoadMode::kAuto);
  k.threads.targets.resize(1);
  EXPECT_EQ(OffCpuEntry().Wanted(c), LoadMode::kOff);  // not the live host
  c.live = true;
  EXPECT_EQ(OffCpuEntry().Wanted(c), LoadMode::kAuto);
  c.run_active = true;
  EXPECT_EQ(SoakerEntry().Wanted(c), LoadMode::kAuto);
  c.soaker_calibrating = true;
  EXPECT_EQ(SoakerEntry().Wanted(c), LoadMode::kOff);
  // The options a reload compares.
  const std::string before = ProfileEntry().OptionsKey(c);
  prof.frequency_hz = 99;
  EXPECT_NE(ProfileEntry().OptionsKey(c), before);
  // Only the switchable sources are collectors' names.
  EXPECT_TRUE(KnownCollectorName("offcpu"));
  EXPECT_FALSE(KnownCollectorName("soaker"));
}

}  // namespace
}  // namespace bottleneckd::source_set_test
