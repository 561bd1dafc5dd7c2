// Helpers shared by the tests: fixture paths, a HostFs over a fixture tree, and
// a scratch directory that removes itself.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include "collectors/host_fs.h"

namespace bottleneckd::testing {

// Absolute path of tests/fixtures/<scenario>.
std::string FixtureDir(const std::string& scenario);

// Roots for a fixture scenario: <dir>/proc, <dir>/sys, <dir>/ethtool.
HostRoots FixtureRoots(const std::string& scenario);

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

// A HostFs that reads PCI config space as an unprivileged user does: the
// kernel gives only the first 64 bytes of each "config" file.
class UnprivilegedFs : public HostFs {
 public:
  using HostFs::HostFs;
  Status ReadSysPrefix(std::string_view rel, std::string* out, size_t max_bytes) const override {
    bool config = rel.size() >= 7 && rel.substr(rel.size() - 7) == "/config";
    return HostFs::ReadSysPrefix(rel, out, config ? std::min<size_t>(max_bytes, 64) : max_bytes);
  }
};

}  // namespace bottleneckd::testing
