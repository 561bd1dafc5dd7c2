// Helpers shared by the tests: fixture paths, a HostFs over a fixture tree, and
// a scratch directory that removes itself.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "collectors/host_fs.h"

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

// The one fake HostFs of the suites: the real tree under its roots, bent
// where a test says so, and its calls counted.
class FakeFs : public HostFs {
 public:
  using HostFs::HostFs;

  // Every call on a path holding `part` returns `status` (a file that
  // vanished, a kernel without the feature); the first match wins.
  void Fail(std::string part, Status status) { faults_.emplace_back(std::move(part), std::move(status)); }
  void ClearFaults() { faults_.clear(); }
  // OpenSys of a path holding this opens it write-only: the open succeeds
  // and every read of the descriptor fails (EBADF).
  std::string unreadable_open;
  // PCI config space as an unprivileged user reads it: the kernel gives the
  // first 64 bytes of each "config" file.
  bool unprivileged_pci_config = false;

  // Calls on paths holding `counted` ("" every path); list_proc_root counts
  // scans of the procfs root itself.
  std::string counted;
  struct Calls {
    int open_sys = 0, read_sys = 0, read_link_sys = 0, list_proc_root = 0;
  };
  mutable Calls calls;

  Status ReadProc(std::string_view rel, std::string* out) const override;
  Status ReadSys(std::string_view rel, std::string* out, size_t max_bytes) const override;
  Status ReadSysPrefix(std::string_view rel, std::string* out, size_t max_bytes) const override;
  Status OpenSys(std::string_view rel, UniqueFd* out) const override;
  Status ListProc(std::string_view rel, std::vector<std::string>* names) const override;
  Status ListSys(std::string_view rel, std::vector<std::string>* names) const override;
  Status ReadLinkSys(std::string_view rel, std::string* target) const override;

 private:
  const Status* Fault(std::string_view rel) const;
  bool Counted(std::string_view rel) const { return rel.find(counted) != std::string_view::npos; }

  std::vector<std::pair<std::string, Status>> faults_;
};

}  // namespace bottleneckd::testing
