// TickStages (daemon/tick_stages.h): a tick's time by stage, the slowest
// three named with the slowest collector, as the overrun warning says them.
#include "daemon/tick_stages.h"

#include <gtest/gtest.h>

#include <thread>

namespace bottleneckd {
namespace {

TEST(TickStages, TheSlowestStagesAreNamedWithTheSlowestCollector) {
  TickStages t;
  t.Start();
  t.Add("sources' options", 0.0001);
  t.Add("collectors", 12.912);
  t.Add("continuous sources", 0.002);
  t.Add("analysis", 0.004);
  t.Add("runs and their store", 0.0025);
  t.Collector("cpu", 0.001);
  t.Collector("threads", 12.905);
  t.Collector("netdev", 0.003);
  EXPECT_NEAR(t.total_seconds(), 12.9206, 1e-9);
  EXPECT_EQ(t.Slowest(),
            "collectors 12.912 s (slowest: threads 12.905 s), analysis 0.004 s, runs and their store 0.003 s");
  // A new tick forgets the last one's.
  t.Start();
  t.Add("analysis", 0.5);
  EXPECT_EQ(t.Slowest(), "analysis 0.500 s");
}

TEST(TickStages, MarkTimesTheStageSinceThePreviousMark) {
  TickStages t;
  t.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  t.Mark("collectors");
  t.Mark("analysis");
  EXPECT_GE(t.total_seconds(), 0.02);
  EXPECT_EQ(t.Slowest().rfind("collectors 0.0", 0), 0u) << t.Slowest();
}

}  // namespace
}  // namespace bottleneckd
