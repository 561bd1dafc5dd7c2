// The Sampler under the self-limit back-off, over the seed-box fixture
// through the real read path: the expensive collectors are read every
// backoff-th tick and carried (marked, with their real read time) between;
// the others are read every tick; the window over a carried tick has none of
// the carried rates and the next one spans the real readings.
#include <gtest/gtest.h>

#include "daemon/daemon.h"
#include "daemon/sampler.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"
#include "window/window.h"

namespace bottleneckd::sampler_backoff_test {
namespace {

const CollectorResult* Result(const Sample& s, const std::string& name) {
  for (const CollectorResult& r : s.results)
    if (r.name == name) return &r;
  return nullptr;
}

TEST(SamplerBackoff, ExpensiveCollectorsCarriedBetweenReads) {
  HostFs fs(testing::FixtureRoots("seed-box"));
  CollectorsConfig config;
  config.threads.targets = {ThreadTarget{"udpecho", std::nullopt}};
  Sampler sampler(&fs, config);
  EXPECT_EQ(sampler.BackoffCollectorNames(), (std::vector<std::string>{"interrupts", "netdev", "pci", "threads"}));
  sampler.SetBackoff(2);
  Sample s[3];
  sampler.Take(&s[0], nullptr);  // read: tick 0 is due
  s[0].mono_ns = 10'000'000'000;
  sampler.Take(&s[1], &s[0]);  // tick 1: carried
  s[1].mono_ns = 11'000'000'000;
  sampler.Take(&s[2], &s[1]);  // tick 2: read
  s[2].mono_ns = 12'000'000'000;
  for (const char* name : {"interrupts", "netdev", "pci", "threads"}) {
    const CollectorResult* r = Result(s[1], name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_TRUE(r->carried) << name;
    EXPECT_EQ(r->read_mono_ns, s[0].mono_ns) << name;
    EXPECT_EQ(r->success, Result(s[0], name)->success) << name;
    EXPECT_EQ(r->duration_seconds, 0) << name;
    EXPECT_FALSE(Result(s[2], name)->carried) << name;
    EXPECT_FALSE(Result(s[0], name)->carried) << name;
  }
  for (const char* name : {"cpu", "softirqs", "sockets"}) EXPECT_FALSE(Result(s[1], name)->carried) << name;
  ASSERT_TRUE(s[0].threads && s[1].threads && s[0].netdev && s[1].netdev);
  EXPECT_FALSE(s[0].threads->empty()) << "the fixture has udpecho threads";
  EXPECT_EQ(s[1].threads->size(), s[0].threads->size());
  EXPECT_EQ(s[1].netdev->size(), s[0].netdev->size());
  EXPECT_EQ(s[1].pci, s[0].pci) << "the same topology object";
  EXPECT_TRUE(s[1].interrupts.has_value());

  // A static fixture: zero rates where a window exists at all. What matters
  // is which parts have one.
  Window w;
  ASSERT_TRUE(ComputeWindow(s[0], s[1], &w));
  EXPECT_TRUE(w.threads.empty()) << "no thread window across a carried reading";
  EXPECT_TRUE(w.nics.empty()) << "no NIC window across a carried reading";
  ASSERT_TRUE(ComputeWindow(s[1], s[2], &w));
  EXPECT_FALSE(w.threads.empty());
  EXPECT_FALSE(w.nics.empty());

  sampler.SetBackoff(1);
  Sample s3;
  sampler.Take(&s3, &s[2]);
  for (const CollectorResult& r : s3.results) EXPECT_FALSE(r.carried) << r.name;
}

TEST(SamplerBackoff, CarriedTickKeepsTheLastBusEstimate) {
  auto topo = std::make_shared<const PciTopology>();
  Snapshot prev;
  prev.sample.mono_ns = 1'000'000'000;
  prev.sample.pci = topo;
  prev.bus_paths = std::make_shared<const std::vector<BusPath>>();
  prev.bus.emplace().nics.emplace_back().interface = "em0";  // the last real estimate
  auto next = [&](bool carried) {
    Snapshot s;
    s.sample.mono_ns = 2'000'000'000;
    s.sample.pci = topo;
    CollectorResult r;
    r.name = "netdev";
    r.success = true;
    r.carried = carried;
    r.read_mono_ns = carried ? prev.sample.mono_ns : 0;
    s.sample.results = {r};
    CompleteSnapshot(&prev, DefaultBusModelOptions(), &s);
    return s;
  };
  Snapshot carried = next(true);
  ASSERT_TRUE(carried.window.has_value());
  ASSERT_TRUE(carried.bus.has_value());
  ASSERT_EQ(carried.bus->nics.size(), 1u);
  EXPECT_EQ(carried.bus->nics[0].interface, "em0") << "kept, not re-modelled from a window without NIC rates";
  Snapshot read = next(false);
  ASSERT_TRUE(read.bus.has_value());
  EXPECT_TRUE(read.bus->nics.empty()) << "a real reading is modelled anew (no paths here: no NICs)";
}

}  // namespace
}  // namespace bottleneckd::sampler_backoff_test
