#include "tests/support/fake_fs.h"

#include <fcntl.h>

#include "tests/support/test_util.h"

namespace bottleneckd::testing {

HostRoots FixtureRoots(const std::string& scenario) {
  HostRoots r;
  std::string d = FixtureDir(scenario);
  r.procfs = d + "/proc";
  r.sysfs = d + "/sys";
  r.ethtool = d + "/ethtool";
  return r;
}

HostRoots TempRoots(const TempDir& dir) {
  HostRoots r;
  r.procfs = dir.path() + "/proc";
  r.sysfs = dir.path() + "/sys";
  return r;
}

const Status* FakeFs::Fault(std::string_view rel) const {
  for (const auto& [part, status] : faults_)
    if (rel.find(part) != std::string_view::npos) return &status;
  return nullptr;
}

Status FakeFs::ReadProc(std::string_view rel, std::string* out) const {
  if (const Status* f = Fault(rel)) return *f;
  return HostFs::ReadProc(rel, out);
}

Status FakeFs::ReadSys(std::string_view rel, std::string* out, size_t max_bytes) const {
  if (Counted(rel)) ++calls.read_sys;
  if (const Status* f = Fault(rel)) return *f;
  return HostFs::ReadSys(rel, out, max_bytes);
}

Status FakeFs::ReadSysPrefix(std::string_view rel, std::string* out, size_t max_bytes) const {
  if (const Status* f = Fault(rel)) return *f;
  const bool config = rel.size() >= 7 && rel.substr(rel.size() - 7) == "/config";
  return HostFs::ReadSysPrefix(rel, out,
                               unprivileged_pci_config && config ? std::min<size_t>(max_bytes, 64) : max_bytes);
}

Status FakeFs::ReadProcPrefix(std::string_view rel, std::string* out, size_t max_bytes) const {
  if (const Status* f = Fault(rel)) return *f;
  return HostFs::ReadProcPrefix(rel, out, max_bytes);
}

Status FakeFs::OpenSys(std::string_view rel, UniqueFd* out) const {
  if (Counted(rel)) ++calls.open_sys;
  if (const Status* f = Fault(rel)) return *f;
  if (!unreadable_open.empty() && rel.find(unreadable_open) != std::string_view::npos) {
    int fd = ::open(SysPath(rel).c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return Status::FromErrno(errno, SysPath(rel));
    *out = UniqueFd(fd);
    return Status::OK();
  }
  return HostFs::OpenSys(rel, out);
}

Status FakeFs::ListProc(std::string_view rel, std::vector<std::string>* names) const {
  if (rel.empty()) ++calls.list_proc_root;
  if (const Status* f = Fault(rel)) return *f;
  return HostFs::ListProc(rel, names);
}

Status FakeFs::ListSys(std::string_view rel, std::vector<std::string>* names) const {
  if (const Status* f = Fault(rel)) return *f;
  return HostFs::ListSys(rel, names);
}

Status FakeFs::ReadLinkSys(std::string_view rel, std::string* target) const {
  if (Counted(rel)) ++calls.read_link_sys;
  if (const Status* f = Fault(rel)) return *f;
  return HostFs::ReadLinkSys(rel, target);
}

}  // namespace bottleneckd::testing
