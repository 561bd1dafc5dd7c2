#include "collectors/host_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/unique_fd.h"
#include "collectors/ethtool.h"

namespace bottleneckd {
namespace {

std::string Join(const std::string& root, std::string_view rel) {
  std::string p = root;
  if (!p.empty() && p.back() != '/') p += '/';
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  p.append(rel);
  return p;
}

// Reads until EOF or max_bytes; out keeps its capacity between calls.
Status ReadFile(const std::string& path, std::string* out, size_t max_bytes, bool whole) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return Status::FromErrno(errno, path);
  out->clear();
  size_t chunk = whole ? 16384 : std::min<size_t>(max_bytes, 4096);
  for (;;) {
    size_t old = out->size();
    if (old >= max_bytes) {
      if (whole) return Status::IOError(path + ": larger than " + std::to_string(max_bytes) + " bytes");
      break;
    }
    size_t want = std::min(chunk, max_bytes - old);
    out->resize(old + want);
    ssize_t n;
    do {
      n = ::read(fd.get(), out->data() + old, want);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      int err = errno;
      out->resize(old);
      return Status::FromErrno(err, path);
    }
    out->resize(old + static_cast<size_t>(n));
    if (n == 0) break;
    if (!whole && static_cast<size_t>(n) < want) break;  // sysfs: one show() call
    if (chunk < (1u << 20)) chunk *= 2;
  }
  return Status::OK();
}

Status ListDir(const std::string& path, std::vector<std::string>* names) {
  names->clear();
  DIR* d = ::opendir(path.c_str());
  if (d == nullptr) return Status::FromErrno(errno, path);
  while (struct dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    names->emplace_back(n);
  }
  ::closedir(d);
  std::sort(names->begin(), names->end());
  return Status::OK();
}

}  // namespace

HostFs::HostFs(HostRoots roots) : roots_(std::move(roots)) {}
HostFs::~HostFs() = default;

bool HostFs::live() const { return roots_.procfs == "/proc" && roots_.sysfs == "/sys"; }

std::string HostFs::ProcPath(std::string_view rel) const { return Join(roots_.procfs, rel); }
std::string HostFs::SysPath(std::string_view rel) const { return Join(roots_.sysfs, rel); }

Status HostFs::ReadProc(std::string_view rel, std::string* out) const {
  return ReadFile(ProcPath(rel), out, kMaxProcBytes, /*whole=*/true);
}

Status HostFs::ReadSys(std::string_view rel, std::string* out, size_t max_bytes) const {
  return ReadFile(SysPath(rel), out, max_bytes, /*whole=*/false);
}

Status HostFs::OpenSys(std::string_view rel, UniqueFd* out) const {
  std::string path = SysPath(rel);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, path);
  *out = UniqueFd(fd);
  return Status::OK();
}

Status HostFs::PreadAttribute(const UniqueFd& fd, std::string* out, size_t max_bytes) {
  // Small attributes (every counter) go through a stack buffer: resizing *out
  // to max_bytes first would zero-fill it on every call.
  char small[4096];
  const bool use_small = max_bytes <= sizeof(small);
  if (!use_small) out->resize(max_bytes);
  char* dst = use_small ? small : out->data();
  ssize_t n;
  do {
    n = ::pread(fd.get(), dst, max_bytes, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    int err = errno;
    out->clear();
    return Status::FromErrno(err, "pread of fd " + std::to_string(fd.get()));
  }
  if (use_small) {
    out->assign(small, static_cast<size_t>(n));
  } else {
    out->resize(static_cast<size_t>(n));
  }
  return Status::OK();
}

bool HostFs::Unlinked(const UniqueFd& fd) {
  struct stat st;
  return ::fstat(fd.get(), &st) == 0 && st.st_nlink == 0;
}

Status HostFs::ListProc(std::string_view rel, std::vector<std::string>* names) const {
  return ListDir(ProcPath(rel), names);
}

Status HostFs::ListSys(std::string_view rel, std::vector<std::string>* names) const {
  return ListDir(SysPath(rel), names);
}

Status HostFs::ReadLinkSys(std::string_view rel, std::string* target) const {
  std::string path = SysPath(rel);
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
  if (n < 0) return Status::FromErrno(errno, path);
  if (static_cast<size_t>(n) == sizeof(buf)) return Status::IOError(path + ": link target too long");
  target->assign(buf, static_cast<size_t>(n));
  return Status::OK();
}

Status HostFs::EthtoolStats(const std::string& ifname, NamedCounters* out) const {
  if (roots_.ethtool.empty()) return ReadEthtoolStatsIoctl(ifname, out);
  std::string text;
  std::string path = Join(roots_.ethtool, ifname);
  Status s = ReadFile(path, &text, kMaxSysBytes * 16, /*whole=*/true);
  if (s.IsNotFound()) return Status::NotSupported(path + ": no ethtool statistics recorded");
  BN_RETURN_IF_ERROR(s);
  return ParseEthtoolStats(text, out).WithContext(path);
}

}  // namespace bottleneckd
