#include "recording/recording_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/unique_fd.h"

namespace bottleneckd {
namespace {

constexpr int kMaxDepth = 64;

DirEntry::Type TypeOf(mode_t m) {
  if (S_ISDIR(m)) return DirEntry::kDir;
  if (S_ISREG(m)) return DirEntry::kFile;
  if (S_ISLNK(m)) return DirEntry::kLink;
  return DirEntry::kOther;
}

// Lists the directory open as `fd` (consumed).
Status ListFd(int fd, const std::string& path, std::vector<DirEntry>* out) {
  out->clear();
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    int err = errno;
    ::close(fd);
    return Status::FromErrno(err, path);
  }
  while (struct dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    DirEntry entry;
    entry.name.assign(n);
    switch (e->d_type) {
      case DT_DIR: entry.type = DirEntry::kDir; break;
      case DT_REG: entry.type = DirEntry::kFile; break;
      case DT_LNK: entry.type = DirEntry::kLink; break;
      default: {
        struct stat st;
        entry.type =
            ::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? TypeOf(st.st_mode) : DirEntry::kOther;
      }
    }
    out->push_back(std::move(entry));
  }
  ::closedir(d);
  std::sort(out->begin(), out->end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return Status::OK();
}

// Checks the directory open as `fd` (consumed), `depth` levels below the root.
Status Walk(int fd, const std::string& path, int depth) {
  if (depth > kMaxDepth) {
    ::close(fd);
    return Status::InvalidArgument(path + ": nested deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  int keep = ::dup(fd);  // fdopendir takes `fd`; openat and readlinkat need one
  if (keep < 0) {
    ::close(fd);
    return Status::FromErrno(errno, path);
  }
  UniqueFd dir(keep);
  std::vector<DirEntry> entries;
  BN_RETURN_IF_ERROR(ListFd(fd, path, &entries));
  for (const DirEntry& e : entries) {
    const std::string p = path + "/" + e.name;
    if (e.type == DirEntry::kOther) return Status::InvalidArgument(p + ": not a file, directory or symlink");
    if (e.type == DirEntry::kDir) {
      int child = ::openat(dir.get(), e.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child < 0) return Status::FromErrno(errno, p);
      BN_RETURN_IF_ERROR(Walk(child, p, depth + 1));
    } else if (e.type == DirEntry::kLink) {
      char buf[4096];
      ssize_t n = ::readlinkat(dir.get(), e.name.c_str(), buf, sizeof(buf));
      if (n < 0) return Status::FromErrno(errno, p);
      std::string_view target(buf, static_cast<size_t>(std::min<ssize_t>(n, sizeof(buf))));
      // Only the depth matters for the check: the link's directory is `depth`
      // real directories below the root.
      std::string dir_rel;
      for (int i = 0; i < depth; ++i) dir_rel += i ? "/d" : "d";
      std::string resolved;
      if (static_cast<size_t>(n) >= sizeof(buf) || !ResolveLinkTarget(dir_rel, target, &resolved))
        return Status::InvalidArgument(p + ": symlink to '" + std::string(target.substr(0, 200)) +
                                       "' leads outside the recording");
    }
  }
  return Status::OK();
}

}  // namespace

Status ReadRecordingFile(const std::string& path, size_t max_bytes, std::string* out) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd.valid()) {
    if (errno == ELOOP) return Status::InvalidArgument(path + ": a symlink; a recording holds plain files");
    return Status::FromErrno(errno, path);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return Status::FromErrno(errno, path);
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + ": not a regular file");
  out->clear();
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, path);
    if (n == 0) break;
    if (out->size() + static_cast<size_t>(n) > max_bytes)
      return Status::InvalidArgument(path + ": larger than " + std::to_string(max_bytes) + " bytes");
    out->append(buf, static_cast<size_t>(n));
  }
  return Status::OK();
}

Status ListRecordingDir(const std::string& path, std::vector<DirEntry>* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) return Status::InvalidArgument(path + ": a symlink; a recording holds plain directories");
    return Status::FromErrno(errno, path);
  }
  return ListFd(fd, path, out);
}

Status CheckRecordingTree(const std::string& root) {
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) return Status::InvalidArgument(root + ": a symlink; a recording holds plain directories");
    return Status::FromErrno(errno, root);
  }
  return Walk(fd, root, 0);
}

bool SafeRel(std::string_view rel) {
  std::string unused;
  return CleanRel(rel, &unused);
}

bool CleanRel(std::string_view rel, std::string* out) {
  out->clear();
  while (!rel.empty()) {
    size_t slash = rel.find('/');
    std::string_view c = rel.substr(0, slash);
    rel.remove_prefix(slash == std::string_view::npos ? rel.size() : slash + 1);
    if (c.empty() || c == ".") continue;
    if (c == "..") return false;
    if (!out->empty()) *out += '/';
    out->append(c);
  }
  return true;
}

bool ResolveLinkTarget(std::string_view link_dir, std::string_view target, std::string* out) {
  if (target.empty() || target.front() == '/') return false;
  std::vector<std::string_view> parts;
  for (std::string_view d = link_dir; !d.empty();) {
    size_t slash = d.find('/');
    std::string_view c = d.substr(0, slash);
    d.remove_prefix(slash == std::string_view::npos ? d.size() : slash + 1);
    if (c.empty() || c == ".") continue;
    if (c == "..") return false;
    parts.push_back(c);
  }
  bool named = false;  // a name seen: no ".." may follow
  while (!target.empty()) {
    size_t slash = target.find('/');
    std::string_view c = target.substr(0, slash);
    target.remove_prefix(slash == std::string_view::npos ? target.size() : slash + 1);
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      if (named || parts.empty()) return false;
      parts.pop_back();
    } else {
      named = true;
      parts.push_back(c);
    }
  }
  out->clear();
  for (std::string_view c : parts) {
    if (!out->empty()) *out += '/';
    out->append(c);
  }
  return true;
}

}  // namespace bottleneckd
