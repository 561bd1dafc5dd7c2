// The learned delivery cost kept in the state directory
// (daemon/delivery_cost_file.h): read back exactly, dropped when the host
// changes, and a broken file is an error naming its line.
#include "daemon/delivery_cost_file.h"

#include <gtest/gtest.h>

#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::delivery_cost_file_test {
namespace {

using testing::TempDir;

DeliveryCostHost Host() { return {"AMD EPYC 7B13", "6.18.44-fc-v1045", 2, true}; }

DeliveryCost Learned() {
  DeliveryCost d;
  DeliveryFit f;
  for (int i = 0; i < 30; ++i) f.Add(700.0 * i + 0.1, 0.013 + 17.9e-6 * (700.0 * i + 0.1));
  d.Restore(InterruptSource::kMeasured, f);
  return d;
}

TEST(DeliveryCostFile, ReadsBackWhatItKept) {
  TempDir dir;
  DeliveryCost d = Learned();
  ASSERT_OK(StoreDeliveryCost(dir.path() + "/state", Host(), d));
  DeliveryCost back;
  std::string note;
  ASSERT_OK(LoadDeliveryCost(dir.path() + "/state", Host(), &back, &note));
  EXPECT_EQ(note, "restored from " + dir.path() + "/state/delivery-cost");
  const DeliveryFit& a = d.fit(InterruptSource::kMeasured);
  const DeliveryFit& b = back.fit(InterruptSource::kMeasured);
  for (auto [x, y] : {std::pair{a.n, b.n}, {a.sx, b.sx}, {a.sy, b.sy}, {a.sxx, b.sxx}, {a.sxy, b.sxy}, {a.syy, b.syy}})
    EXPECT_EQ(x, y);  // shortest exact form: bit for bit
  EXPECT_EQ(back.fit(InterruptSource::kTicks).n, 0);
  ASSERT_TRUE(b.SecondsPerInterrupt());
  EXPECT_NEAR(*b.SecondsPerInterrupt(), 17.9e-6, 1e-12);
}

TEST(DeliveryCostFile, AnotherHostsCostIsDropped) {
  TempDir dir;
  ASSERT_OK(StoreDeliveryCost(dir.path(), Host(), Learned()));
  DeliveryCostHost moved = Host();
  moved.kernel = "6.1.0-27-amd64";
  DeliveryCost back;
  std::string note;
  ASSERT_OK(LoadDeliveryCost(dir.path(), moved, &back, &note));
  EXPECT_EQ(back.fit(InterruptSource::kMeasured).n, 0);
  EXPECT_EQ(note, "learned on another host (AMD EPYC 7B13, kernel 6.18.44-fc-v1045, 2 CPUs): learning again");
}

TEST(DeliveryCostFile, NoFileYetIsNoError) {
  TempDir dir;
  DeliveryCost back;
  std::string note;
  ASSERT_OK(LoadDeliveryCost(dir.path(), Host(), &back, &note));
  EXPECT_EQ(note, "none learned yet");
}

TEST(DeliveryCostFile, BrokenFilesNameTheLine) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"", "empty delivery cost file: no format line"},
      {"format 2\n", "line 1: unsupported format '2'"},
      {"cpu_model x\n", "line 1: expected 'format 1'"},
      {"format 1\ncpu_model x\nkernel k\ncpus 0\n", "line 4: bad cpus '0'"},
      {"format 1\nhypervisor yes\n", "line 2: bad hypervisor 'yes' (0 or 1)"},
      {"format 1\n# c\nfit irq 1 2 3 4 5 6\n", "line 3: unknown interrupt source 'irq' (measured, ticks)"},
      {"format 1\nfit ticks 1 2 3 4 5\n", "line 2: bad number ''"},
      {"format 1\nfit ticks 1 2 nan 4 5 6\n", "line 2: bad number 'nan'"},
      {"format 1\nfit ticks -1 2 3 4 5 6\n", "line 2: negative count or sum of squares"},
      {"format 1\ncpu_model x\nkernel k\ncpus 2\n",
       "missing host line (cpu_model, kernel, cpus and hypervisor are all needed)"},
  };
  for (const Case& c : cases) {
    DeliveryCostHost host;
    DeliveryCost cost;
    Status s = ParseDeliveryCost(c.text, &host, &cost);
    EXPECT_TRUE(s.IsCorruption()) << c.text;
    EXPECT_EQ(s.message(), c.error) << c.text;
  }
  TempDir dir;
  dir.Write("delivery-cost", "format 1\nfit ticks x\n");
  DeliveryCost back;
  std::string note;
  Status s = LoadDeliveryCost(dir.path(), Host(), &back, &note);
  EXPECT_EQ(s.message(), dir.path() + "/delivery-cost: line 2: bad number 'x'");
}

TEST(DeliveryCostFile, TheHostIsReadFromProc) {
  TempDir root;
  root.Write("proc/cpuinfo",
             "processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: fpu hypervisor\n\nprocessor\t: 1\n"
             "model name\t: Test CPU 9000\nflags\t\t: fpu hypervisor\n");
  root.Write("proc/sys/kernel/osrelease", "6.1.0-27-amd64\n");
  HostRoots roots;
  roots.procfs = root.path() + "/proc";
  roots.sysfs = root.path() + "/sys";
  HostFs fs(roots);
  DeliveryCostHost host;
  ASSERT_OK(ReadDeliveryCostHost(fs, &host));
  EXPECT_EQ(host, (DeliveryCostHost{"Test CPU 9000", "6.1.0-27-amd64", 2, true}));
}

}  // namespace
}  // namespace bottleneckd::delivery_cost_file_test
