// A HostFs over a fixture tree, and the one fake HostFs of the suites (for
// the suites of collectors/ and the stages above it; test_util.h is base-only).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "collectors/host_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::testing {

// Roots for a fixture scenario: <dir>/proc, <dir>/sys, <dir>/ethtool.
HostRoots FixtureRoots(const std::string& scenario);

// Roots for a tree a test writes into `dir`: <dir>/proc and <dir>/sys.
HostRoots TempRoots(const TempDir& dir);

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
  Status ReadProcPrefix(std::string_view rel, std::string* out, size_t max_bytes) const override;
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
