#include "collectors/host_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
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

// Opens `path` for reading without ever blocking: O_NONBLOCK makes opening a
// FIFO return at once, and anything but a regular file (FIFO, socket,
// device, directory) is refused, so a read can neither wait for a writer nor
// stream forever. /proc and /sys files, and recorded trees, are regular.
Status OpenRegular(const std::string& path, UniqueFd* out) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) return Status::FromErrno(errno, path);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return Status::FromErrno(errno, path);
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISDIR(st.st_mode)  ? "a directory"
                                              : "not a regular file";
    return Status::InvalidArgument(path + ": " + kind + ", not a regular file: not read");
  }
  *out = std::move(fd);
  return Status::OK();
}

// After a read that needed (or was refused at) far more than the file now
// holds, the buffer gives its memory back instead of keeping the peak.
void ReleaseSlack(std::string* out) {
  constexpr size_t kKeep = 1u << 20;
  if (out->capacity() > kKeep && out->capacity() > 4 * out->size()) {
    out->shrink_to_fit();
    ::malloc_trim(0);
  }
}

// How a read treats a file longer than its cap.
enum class Cap { kError, kPrefix };

// The /proc text files the kernel writes without a newline, read as they
// are: /proc/PID/task/TID/wchan (and /proc/PID/wchan), a single symbol
// name; /proc/PID/task/TID/children, "410 420 " (the pids a thread forked).
bool Unterminated(std::string_view rel) {
  for (std::string_view name : {"wchan", "children"})
    if (rel == name || (rel.size() > name.size() && rel.ends_with(name) && rel[rel.size() - name.size() - 1] == '/'))
      return true;
  return false;
}

// Reads until EOF or max_bytes; out keeps its capacity between calls.
// `lines`: the file is text whose every line ends with a newline.
// The reads land in a buffer on the stack and only what they return is
// appended: growing `out` with resize() before each read zero-filled 16 KiB,
// then 32 KiB, for every small /proc file, 3.4 % of an idle tick in memset
// (docs/performance-history.md "The idle tick against its floor").
// `positional`: pread from offset 0 on (a descriptor kept open and read
// again), else read from where the descriptor stands.
Status ReadOpen(const UniqueFd& fd, const std::string& path, std::string* out, size_t max_bytes, bool whole, Cap cap,
                bool lines, bool positional) {
  out->clear();
  // One byte past the cap tells a file of exactly max_bytes (a PCI config
  // space) from a longer one.
  const size_t limit = cap == Cap::kPrefix ? max_bytes : max_bytes + 1;
  char buf[65536];
  for (;;) {
    size_t old = out->size();
    if (cap == Cap::kPrefix && old >= max_bytes) break;
    if (old > max_bytes) {
      // Hitting the cap is an error, never a value: the text is cut.
      out->clear();
      ReleaseSlack(out);
      return Status::IOError(path + ": larger than " + std::to_string(max_bytes) + " bytes: not read");
    }
    size_t want = std::min(sizeof(buf), limit - old);
    ssize_t n;
    do {
      n = positional ? ::pread(fd.get(), buf, want, static_cast<off_t>(old)) : ::read(fd.get(), buf, want);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return Status::FromErrno(errno, path);
    out->append(buf, static_cast<size_t>(n));
    if (n == 0) break;
    if (!whole && static_cast<size_t>(n) < want) break;  // sysfs: one show() call
  }
  ReleaseSlack(out);
  // The kernel ends every line of a text file, /proc's and sysfs's, with a
  // newline: text that stops mid-line was cut (a write in progress, a file
  // truncated), and its last number would read as a smaller one.
  if (cap == Cap::kError && lines && !out->empty() && out->back() != '\n') {
    out->clear();
    return Status::Corruption(path + ": ends mid-line (cut short?): not read");
  }
  return Status::OK();
}

Status ReadFile(const std::string& path, std::string* out, size_t max_bytes, bool whole, Cap cap = Cap::kError,
                bool lines = true) {
  UniqueFd fd;
  out->clear();
  BN_RETURN_IF_ERROR(OpenRegular(path, &fd));
  return ReadOpen(fd, path, out, max_bytes, whole, cap, lines, /*positional=*/false);
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

Status HostFs::MissingProcFiles(const std::string& paths) const {
  return Status::NotFound(paths + " absent: every Linux kernel has it; is " + roots_.procfs +
                          " a procfs (--path.procfs)?");
}

Status HostFs::MissingSysFiles(const std::string& paths) const {
  return Status::NotFound(paths + " absent: every Linux kernel has it; is " + roots_.sysfs +
                          " a sysfs (--path.sysfs)?");
}

Status HostFs::ReadProc(std::string_view rel, std::string* out) const {
  return ReadFile(ProcPath(rel), out, kMaxProcBytes, /*whole=*/true, Cap::kError, !Unterminated(rel));
}

Status HostFs::ReadProcPrefix(std::string_view rel, std::string* out, size_t max_bytes) const {
  Status s = ReadFile(ProcPath(rel), out, max_bytes, /*whole=*/true, Cap::kPrefix);
  if (s.ok() && out->size() < max_bytes && !out->empty() && out->back() != '\n') {
    out->clear();
    return Status::Corruption(ProcPath(rel) + ": ends mid-line (cut short?): not read");
  }
  return s;
}

Status HostFs::OpenProc(std::string_view rel, UniqueFd* out) const {
  if (!live()) return Status::NotSupported(ProcPath(rel) + ": kept descriptors only on the live host; read by path");
  return OpenRegular(ProcPath(rel), out);
}

Status HostFs::ReadProcKept(std::string_view rel, UniqueFd* kept, std::string* out) const {
  const bool lines = !Unterminated(rel);
  for (int attempt = 0;; ++attempt) {
    // The path is built only to open (a tick's read through a kept
    // descriptor allocates nothing); an error returned always comes from a
    // read through a descriptor just opened, so it names the file.
    std::string path;
    if (kept->get() < 0) {
      path = ProcPath(rel);
      out->clear();
      Status opened = OpenProc(rel, kept);
      if (opened.IsNotSupported()) {
        *kept = UniqueFd();
        return ReadProc(rel, out);
      }
      BN_RETURN_IF_ERROR(opened);
    }
    Status s = ReadOpen(*kept, path, out, kMaxProcBytes, /*whole=*/true, Cap::kError, lines, /*positional=*/true);
    if (s.ok()) return s;
    *kept = UniqueFd();  // the next attempt, or call, opens afresh
    if (attempt > 0 || !path.empty()) return s;
  }
}

Status HostFs::ReadSys(std::string_view rel, std::string* out, size_t max_bytes) const {
  return ReadFile(SysPath(rel), out, max_bytes, /*whole=*/false);
}

Status HostFs::ReadSysPrefix(std::string_view rel, std::string* out, size_t max_bytes) const {
  return ReadFile(SysPath(rel), out, max_bytes, /*whole=*/false, Cap::kPrefix);
}

Status HostFs::OpenSys(std::string_view rel, UniqueFd* out) const { return OpenRegular(SysPath(rel), out); }

Status HostFs::PreadAttribute(const UniqueFd& fd, std::string* out, size_t max_bytes) {
  // Small attributes (every counter) go through a stack buffer: resizing *out
  // to max_bytes first would zero-fill it on every call.
  // One byte past the cap: a longer attribute is an error, not a value cut
  // short.
  char small[4097];
  const size_t limit = max_bytes + 1;
  const bool use_small = limit <= sizeof(small);
  if (!use_small) out->resize(limit);
  char* dst = use_small ? small : out->data();
  ssize_t n;
  do {
    n = ::pread(fd.get(), dst, limit, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    int err = errno;
    out->clear();
    return Status::FromErrno(err, "pread of fd " + std::to_string(fd.get()));
  }
  if (static_cast<size_t>(n) > max_bytes) {
    out->clear();
    return Status::IOError("pread of fd " + std::to_string(fd.get()) + ": longer than " + std::to_string(max_bytes) +
                           " bytes: not read");
  }
  if (use_small) {
    out->assign(small, static_cast<size_t>(n));
  } else {
    out->resize(static_cast<size_t>(n));
  }
  if (!out->empty() && out->back() != '\n') {
    out->clear();
    return Status::Corruption("pread of fd " + std::to_string(fd.get()) + ": ends mid-line (cut short?): not read");
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

namespace {

Status ReadLinkAt(const std::string& path, std::string* target) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
  if (n < 0) return Status::FromErrno(errno, path);
  if (static_cast<size_t>(n) == sizeof(buf)) return Status::IOError(path + ": link target too long");
  target->assign(buf, static_cast<size_t>(n));
  return Status::OK();
}

}  // namespace

Status HostFs::ReadLinkProc(std::string_view rel, std::string* target) const {
  return ReadLinkAt(ProcPath(rel), target);
}

Status HostFs::ReadLinkSys(std::string_view rel, std::string* target) const { return ReadLinkAt(SysPath(rel), target); }

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
