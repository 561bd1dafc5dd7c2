#include "base/unix_group.h"

#include <grp.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace bottleneckd {

Status ResolveGroup(const std::string& name, gid_t* gid, std::string* shown) {
  long hint = ::sysconf(_SC_GETGR_R_SIZE_MAX);
  std::vector<char> buf(hint > 0 ? static_cast<size_t>(hint) : 16384);
  group g{};
  group* found = nullptr;
  for (;;) {
    int rc = name.empty() ? ::getgrgid_r(::getegid(), &g, buf.data(), buf.size(), &found)
                          : ::getgrnam_r(name.c_str(), &g, buf.data(), buf.size(), &found);
    if (rc == ERANGE && buf.size() < (1u << 24)) {
      buf.resize(buf.size() * 2);
      continue;
    }
    break;
  }
  if (name.empty()) {
    *gid = ::getegid();
    *shown = found ? std::string(found->gr_name) : std::to_string(*gid);
    return Status::OK();
  }
  if (!found) return Status::InvalidArgument("unknown group '" + name + "'");
  *gid = found->gr_gid;
  *shown = name;
  return Status::OK();
}

}  // namespace bottleneckd
