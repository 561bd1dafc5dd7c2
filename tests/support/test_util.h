// Helpers every suite shares (base only, so that a suite of any stage links
// them): fixture paths, ASSERT_OK, promtool, and a scratch directory that
// removes itself. The fake HostFs over a fixture tree: tests/support/fake_fs.h.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

// ASSERT_OK(expr), EXPECT_OK(expr): expr, a Status evaluated once, is OK;
// a failure prints the Status (a bare ASSERT_TRUE(s.ok()) printed nothing).
#define ASSERT_OK(expr)                                    \
  do {                                                     \
    const ::bottleneckd::Status& bn_status_ = (expr);      \
    ASSERT_TRUE(bn_status_.ok()) << bn_status_.ToString(); \
  } while (0)
#define EXPECT_OK(expr)                                    \
  do {                                                     \
    const ::bottleneckd::Status& bn_status_ = (expr);      \
    EXPECT_TRUE(bn_status_.ok()) << bn_status_.ToString(); \
  } while (0)

namespace bottleneckd::testing {

// Absolute path of tests/fixtures/<scenario>.
std::string FixtureDir(const std::string& scenario);

// Reads a whole file; aborts the test binary if it cannot.
std::string ReadFileOrDie(const std::string& path);

// Runs `promtool check metrics` on `metrics`; returns its exit status (-1 if it
// could not run) and appends what it printed to *output.
int RunPromtoolCheckMetrics(const std::string& metrics, std::string* output);

// Replaces values that change from run to run (timings, sample counts,
// wall-clock time, build revision) with placeholders. The process_* values
// are the daemon's own live usage (the real /proc/self, not the fixture
// tree), so only their presence is compared: the families stay in the golden
// file (and under promtool), their values do not.
std::string NormalizeVolatileMetrics(const std::string& metrics);

// A fresh directory under $TMPDIR, removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `content` to path()/rel, creating parent directories.
  void Write(const std::string& rel, const std::string& content) const;

 private:
  std::string path_;
};

}  // namespace bottleneckd::testing
