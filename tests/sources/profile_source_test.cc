// ProfileSource on this machine's kernel (the suite runs as root, as CI
// does): what a Read keeps of a thread that ends while the Read names its
// frames. integration.profile_test is the profiler's path through the
// daemon; this is the race it once lost (a fresh-clone CI of af16569: 21 of
// a program's 54 samples [lost]).
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "sources/capabilities.h"
#include "sources/profile.h"
#include "tests/support/test_util.h"

namespace bottleneckd::profile_source_test {
namespace {

int Tid() { return static_cast<int>(syscall(SYS_gettid)); }

// One user stack, the same at every sample, until told to stop.
[[gnu::noinline]] void Spin(const std::atomic<bool>& stop) {
  volatile uint64_t n = 0;
  while (!stop.load(std::memory_order_relaxed)) n = n + 1;
}

class Spinner {
 public:
  Spinner()
      : t_([this] {
          tid_.store(Tid());
          Spin(stop_);
        }) {
    while (tid_.load() == 0) std::this_thread::yield();
  }
  ~Spinner() { Join(); }
  void Join() {
    stop_.store(true);
    if (t_.joinable()) t_.join();
  }
  int tid() const { return tid_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> tid_{0};
  std::thread t_;
};

struct Walked {
  uint64_t samples = 0, lost = 0;
};
Walked SamplesOf(const ProfileReading& r, int tid) {
  Walked w;
  for (const ProfileStack& s : r.stacks) {
    if (s.tid != tid) continue;
    w.samples += s.samples;
    if (!s.frames.empty() && s.frames.front() == "[lost]") w.lost += s.samples;
  }
  return w;
}

// A Read copies its samples' stacks out of the kernel's map and deletes
// them before it names any frame. A sample taken meanwhile whose stack is
// one of those shares its id; had the ids been deleted after the naming,
// the sample would lose its stack unless the thread walked it again after,
// and a thread that ended during the naming never does: its last samples
// were [lost]. Here the spinner samples its one stack through a naming
// made 300 ms long, ends in it, and the next Read must still have its stack.
TEST(ProfileSource, AThreadThatEndsWhileAReadNamesFramesKeepsItsLastStacks) {
  ASSERT_TRUE(HaveEffectiveCapability(CAP_SYS_ADMIN)) << "the suite runs as root";
  ProfileOptions o;
  o.frequency_hz = kProfileMaxFrequencyHz;
  ProfileSource src(o);
  ASSERT_OK(src.Start());
  ASSERT_OK(src.SetWalk({}, {}, true));
  Spinner spinner;
  const int tid = spinner.tid();
  ProfileReading first, during, after;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_OK(src.Read(&first));
  ASSERT_GT(SamplesOf(first, tid).samples, 0u) << "the spinner was never sampled";
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  src.SetBeforeNamingForTest([&spinner] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    spinner.Join();
  });
  ASSERT_OK(src.Read(&during));
  src.SetBeforeNamingForTest(nullptr);
  ASSERT_OK(src.Read(&after));
  const Walked w = SamplesOf(after, tid);
  // 300 ms at 999 Hz is about 300 samples of a thread that has its CPU; a
  // busy 2-CPU host gives it less.
  ASSERT_GE(w.samples, 10u) << "the spinner was sampled " << w.samples << " times while the read named frames";
  // A sample whose stack met another's in the map's bucket is lost too; the
  // race lost them all.
  EXPECT_LE(w.lost * 10, w.samples) << w.lost << " of the spinner's " << w.samples << " last samples lost their stack";
}

}  // namespace
}  // namespace bottleneckd::profile_source_test
