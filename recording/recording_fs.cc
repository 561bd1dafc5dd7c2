// RecordingFs: the live HostFs, writing everything read into a recording
// (docs/recording-format.md, "How files are captured").
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "base/unique_fd.h"
#include "collectors/sysfs_path.h"
#include "recording/recording.h"
#include "recording/recording_files.h"

namespace bottleneckd {
namespace {

constexpr int kMaxLinkDepth = 16;

const char* TreeDir(int tree) { return tree == 0 ? "proc" : tree == 1 ? "sys" : "ethtool"; }

std::string Join(const std::string& a, std::string_view b) {
  if (b.empty()) return a;
  std::string p = a;
  p += '/';
  p.append(b);
  return p;
}

Status MakeDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return Status::OK();
  return Status::FromErrno(errno, path);
}

// Writes the whole file; a failure (disk full) removes what was written.
Status WriteWhole(const std::string& path, std::string_view content, uint64_t* bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::FromErrno(errno, "recording " + path);
  int err = 0;
  for (size_t done = 0; done < content.size() && err == 0;) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      err = n < 0 ? errno : ENOSPC;
    else
      done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;  // NFS and friends report a full disk here
  if (err != 0) {
    ::unlink(path.c_str());
    return Status::FromErrno(err, "recording " + path);
  }
  *bytes += content.size();
  return Status::OK();
}

// Path of `dir` (under `root`) relative to root once symlinks are resolved;
// false when either is missing or dir lies outside root.
bool PhysicalRel(const std::string& root, const std::string& dir, std::string* out) {
  char a[PATH_MAX], b[PATH_MAX];
  if (::realpath(root.c_str(), a) == nullptr || ::realpath(dir.c_str(), b) == nullptr) return false;
  std::string_view r = a, d = b;
  if (d == r) {
    out->clear();
    return true;
  }
  if (r == "/") r = "";
  if (d.size() <= r.size() + 1 || d.substr(0, r.size()) != r || d[r.size()] != '/') return false;
  out->assign(d.substr(r.size() + 1));
  return true;
}

}  // namespace

RecordingFs::RecordingFs(HostRoots roots, std::string out_dir)
    : HostFs(std::move(roots)), out_dir_(std::move(out_dir)) {}

std::string RecordingFs::LiveRoot(Tree tree) const {
  return tree == Tree::kProc ? roots().procfs : tree == Tree::kSys ? roots().sysfs : std::string();
}

std::vector<std::string> RecordingFs::Roots() const {
  if (sample_dir_.empty() || !error_.ok()) return {};
  if (first_) return {sample_dir_, out_dir_ + "/static"};
  return {sample_dir_};
}

void RecordingFs::Fail(const Status& s) const {
  if (error_.ok()) error_ = s;
}

Status RecordingFs::BeginSample(size_t index, int64_t mono_ns, int64_t wall_ns) {
  if (!error_.ok()) return error_;
  BN_RETURN_IF_ERROR(EndSample());
  final_dir_ = Join(out_dir_, SampleDirName(index));
  first_ = index == 0;
  written_.clear();
  std::error_code ec;
  std::filesystem::create_directories(out_dir_ + "/samples", ec);
  Status s = ec ? Status::IOError("recording " + out_dir_ + "/samples: " + ec.message()) : Status::OK();
  if (s.ok() && ::mkdir((final_dir_ + ".partial").c_str(), 0755) != 0)
    s = Status::FromErrno(errno, final_dir_ + ".partial");
  if (s.ok() && first_ && ::mkdir((out_dir_ + "/static").c_str(), 0755) != 0)
    s = Status::FromErrno(errno, out_dir_ + "/static");
  if (s.ok()) {
    s = WriteWhole(final_dir_ + ".partial/time", FormatSecondsNs(mono_ns) + " " + FormatSecondsNs(wall_ns) + "\n",
                   &bytes_);
  }
  if (!s.ok()) {
    Fail(s);
    return s;
  }
  sample_dir_ = final_dir_ + ".partial";
  return Status::OK();
}

Status RecordingFs::EndSample() {
  if (sample_dir_.empty()) return error_;
  std::string from = std::move(sample_dir_);
  sample_dir_.clear();
  written_.clear();
  if (!error_.ok()) return error_;  // an incomplete tick stays .partial
  if (::rename(from.c_str(), final_dir_.c_str()) != 0) Fail(Status::FromErrno(errno, from));
  return error_;
}

Status RecordingFs::WriteSampleFile(std::string_view name, std::string_view content) {
  if (!error_.ok()) return error_;
  if (sample_dir_.empty())
    return Status::InvalidArgument("writing the " + std::string(name) + " file outside a sample");
  Status s = WriteWhole(sample_dir_ + "/" + std::string(name), content, &bytes_);
  Fail(s);
  return s;
}

Status RecordingFs::WriteWindow(std::string_view line) {
  std::string text(line);
  text += '\n';
  return WriteSampleFile("window", text);
}

bool RecordingFs::SampleHoldsProc(std::string_view rel) const {
  std::string clean;
  if (!CleanRel(rel, &clean) || clean.empty()) return false;
  const std::string dir = sample_dir_.empty() ? final_dir_ : sample_dir_;
  struct stat st;
  return ::stat(Join(Join(dir, "proc"), clean).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// ---- the reads ----

Status RecordingFs::ReadProc(std::string_view rel, std::string* out) const {
  Status s = HostFs::ReadProc(rel, out);
  if (s.ok()) Record(Tree::kProc, rel, *out, /*truncated=*/false);
  return s;
}

Status RecordingFs::ReadSys(std::string_view rel, std::string* out, size_t max_bytes) const {
  Status s = HostFs::ReadSys(rel, out, max_bytes);
  if (s.ok()) Record(Tree::kSys, rel, *out, /*truncated=*/false);  // a longer file is an error
  return s;
}

Status RecordingFs::ReadSysPrefix(std::string_view rel, std::string* out, size_t max_bytes) const {
  Status s = HostFs::ReadSysPrefix(rel, out, max_bytes);
  if (s.ok()) Record(Tree::kSys, rel, *out, out->size() >= max_bytes);
  return s;
}

Status RecordingFs::ReadProcPrefix(std::string_view rel, std::string* out, size_t max_bytes) const {
  Status s = HostFs::ReadProcPrefix(rel, out, max_bytes);
  if (s.ok()) Record(Tree::kProc, rel, *out, out->size() >= max_bytes);
  return s;
}

Status RecordingFs::OpenSys(std::string_view rel, UniqueFd*) const {
  return Status::NotSupported(SysPath(rel) + ": kept descriptors are not recorded; read by path");
}

Status RecordingFs::OpenProc(std::string_view rel, UniqueFd*) const {
  return Status::NotSupported(ProcPath(rel) + ": kept descriptors are not recorded; read by path");
}

Status RecordingFs::ListProc(std::string_view rel, std::vector<std::string>* names) const {
  Status s = HostFs::ListProc(rel, names);
  if (s.ok()) RecordListing(Tree::kProc, rel, *names);
  return s;
}

Status RecordingFs::ListSys(std::string_view rel, std::vector<std::string>* names) const {
  Status s = HostFs::ListSys(rel, names);
  if (s.ok()) RecordListing(Tree::kSys, rel, *names);
  return s;
}

Status RecordingFs::ReadLinkSys(std::string_view rel, std::string* target) const {
  Status s = HostFs::ReadLinkSys(rel, target);
  if (s.ok()) RecordLink(Tree::kSys, rel, *target);
  return s;
}

// A descriptor's link ("socket:[123]", "pipe:[9]") is recorded as the link
// it is; one to a file outside the tree (an absolute path) is not: replay
// then resolves no object for it (docs/recording-format.md).
Status RecordingFs::ReadLinkProc(std::string_view rel, std::string* target) const {
  Status s = HostFs::ReadLinkProc(rel, target);
  if (s.ok()) RecordLink(Tree::kProc, rel, *target);
  return s;
}

Status RecordingFs::EthtoolStats(const std::string& ifname, NamedCounters* out) const {
  Status s = HostFs::EthtoolStats(ifname, out);
  if (!s.ok() || ifname.find('/') != std::string::npos) return s;
  std::string text = "NIC statistics:\n";  // `ethtool -S IF`, what ParseEthtoolStats reads
  for (const auto& [name, value] : *out) {
    if (name.find('\n') != std::string::npos) continue;
    text += "     " + name + ": " + std::to_string(value) + "\n";
  }
  Record(Tree::kEthtool, ifname, text, false);
  return s;
}

// ---- writing them ----

void RecordingFs::Record(Tree tree, std::string_view rel, std::string_view content, bool truncated) const {
  std::string clean;
  if (!CleanRel(rel, &clean) || clean.empty()) return;
  for (const std::string& root : Roots()) {
    Status s = WriteIn(root, tree, clean, content, truncated);
    if (!s.ok()) return Fail(s);
  }
}

void RecordingFs::RecordListing(Tree tree, std::string_view rel, const std::vector<std::string>& names) const {
  std::string clean;
  if (!CleanRel(rel, &clean)) return;
  for (const std::string& root : Roots()) {
    Status s = ListIn(root, tree, clean, names);
    if (!s.ok()) return Fail(s);
  }
}

void RecordingFs::RecordLink(Tree tree, std::string_view rel, std::string_view target) const {
  std::string clean;
  if (!CleanRel(rel, &clean) || clean.empty()) return;
  for (const std::string& root : Roots()) {
    Status s = LinkIn(root, tree, clean, target);
    if (!s.ok()) return Fail(s);
  }
}

Status RecordingFs::WriteIn(const std::string& root, Tree tree, const std::string& rel, std::string_view content,
                            bool truncated) const {
  const std::string path = Join(Join(root, TreeDir(static_cast<int>(tree))), rel);
  auto it = written_.find(path);
  if (it != written_.end() && truncated && it->second > content.size()) return Status::OK();
  BN_RETURN_IF_ERROR(MirrorDir(root, tree, std::string(Dirname(rel)), 0));
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status::OK();  // a listing said directory
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && ::stat(path.c_str(), &st) != 0) {
    // A listing recreated it as a link (/proc/mounts -> self/mounts): the
    // file goes where it points, whose directory must exist.
    std::string dir_rel, target_rel;
    char buf[4096];
    ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
    const std::string base = Join(root, TreeDir(static_cast<int>(tree)));
    if (n <= 0 || static_cast<size_t>(n) >= sizeof(buf) || !PhysicalRel(base, Join(base, Dirname(rel)), &dir_rel) ||
        !ResolveLinkTarget(dir_rel, std::string_view(buf, static_cast<size_t>(n)), &target_rel))
      return Status::OK();
    BN_RETURN_IF_ERROR(MirrorDir(root, tree, std::string(Dirname(target_rel)), 1));
  }
  BN_RETURN_IF_ERROR(WriteWhole(path, content, &bytes_));
  written_[path] = content.size();
  return Status::OK();
}

Status RecordingFs::MirrorDir(const std::string& root, Tree tree, const std::string& rel, int depth) const {
  if (depth > kMaxLinkDepth) return Status::IOError(Join(root, rel) + ": too many levels of symbolic links");
  const std::string base = Join(root, TreeDir(static_cast<int>(tree)));
  BN_RETURN_IF_ERROR(MakeDir(base));
  const std::string live = LiveRoot(tree);
  std::string prefix;
  for (std::string_view rest = rel; !rest.empty();) {
    size_t slash = rest.find('/');
    std::string_view c = rest.substr(0, slash);
    rest.remove_prefix(slash == std::string_view::npos ? rest.size() : slash + 1);
    if (c.empty()) continue;
    prefix = prefix.empty() ? std::string(c) : prefix + "/" + std::string(c);
    const std::string path = Join(base, prefix);
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) continue;
      return Status::IOError("recording " + path + ": exists and is not a directory");
    }
    std::string target_rel;
    if (::lstat(path.c_str(), &st) == 0) {  // a link made earlier whose target is not there yet
      char buf[4096];
      ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
      std::string dir_rel;
      if (n <= 0 || static_cast<size_t>(n) >= sizeof(buf) ||
          !PhysicalRel(base, Join(base, Dirname(prefix)), &dir_rel) ||
          !ResolveLinkTarget(dir_rel, std::string_view(buf, static_cast<size_t>(n)), &target_rel))
        return Status::IOError("recording " + path + ": a symlink that cannot be followed");
      BN_RETURN_IF_ERROR(MirrorDir(root, tree, target_rel, depth + 1));
      continue;
    }
    if (!live.empty() && ::lstat(Join(live, prefix).c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      char buf[4096];
      ssize_t n = ::readlink(Join(live, prefix).c_str(), buf, sizeof(buf));
      if (n > 0 && static_cast<size_t>(n) < sizeof(buf)) {
        std::string_view target(buf, static_cast<size_t>(n));
        if (MakeLink(root, tree, prefix, target).ok()) {
          std::string dir_rel;
          if (PhysicalRel(base, Join(base, Dirname(prefix)), &dir_rel) &&
              ResolveLinkTarget(dir_rel, target, &target_rel)) {
            BN_RETURN_IF_ERROR(MirrorDir(root, tree, target_rel, depth + 1));
            continue;
          }
        }
      }
      // A link that may not be recreated (absolute, leaving the tree): a directory.
    }
    BN_RETURN_IF_ERROR(MakeDir(path));
  }
  return Status::OK();
}

Status RecordingFs::MakeLink(const std::string& root, Tree tree, const std::string& rel,
                             std::string_view target) const {
  const std::string base = Join(root, TreeDir(static_cast<int>(tree)));
  const std::string live = LiveRoot(tree);
  const std::string dir(Dirname(rel));
  std::string live_dir, cap_dir, unused;
  // Judged where the link sits in both trees: a target that stays inside
  // the live tree but would leave the recording (or the reverse) is refused.
  if (live.empty() || !PhysicalRel(live, Join(live, dir), &live_dir) || !ResolveLinkTarget(live_dir, target, &unused) ||
      !PhysicalRel(base, Join(base, dir), &cap_dir) || !ResolveLinkTarget(cap_dir, target, &unused))
    return Status::NotSupported(Join(live, rel) + ": link target '" + std::string(target) + "' not recorded");
  const std::string path = Join(base, rel);
  if (::symlink(std::string(target).c_str(), path.c_str()) == 0 || errno == EEXIST) return Status::OK();
  return Status::FromErrno(errno, "recording " + path);
}

Status RecordingFs::ListIn(const std::string& root, Tree tree, const std::string& rel,
                           const std::vector<std::string>& names) const {
  BN_RETURN_IF_ERROR(MirrorDir(root, tree, rel, 0));
  const std::string dir = Join(Join(root, TreeDir(static_cast<int>(tree))), rel);
  const std::string live = Join(LiveRoot(tree), rel);
  for (const std::string& name : names) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) continue;
    const std::string path = Join(dir, name);
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0) continue;  // recorded already
    const std::string entry = Join(live, name);
    if (::lstat(entry.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      char buf[4096];
      ssize_t n = ::readlink(entry.c_str(), buf, sizeof(buf));
      if (n > 0 && static_cast<size_t>(n) < sizeof(buf) &&
          MakeLink(root, tree, Join(rel, name), std::string_view(buf, static_cast<size_t>(n))).ok())
        continue;
    }
    if (::stat(entry.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      BN_RETURN_IF_ERROR(MakeDir(path));
      continue;
    }
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (!fd.valid() && errno != EEXIST) return Status::FromErrno(errno, "recording " + path);
  }
  return Status::OK();
}

Status RecordingFs::LinkIn(const std::string& root, Tree tree, const std::string& rel, std::string_view target) const {
  BN_RETURN_IF_ERROR(MirrorDir(root, tree, std::string(Dirname(rel)), 0));
  struct stat st;
  const std::string path = Join(Join(root, TreeDir(static_cast<int>(tree))), rel);
  if (::lstat(path.c_str(), &st) == 0) return Status::OK();  // recorded already (by a listing)
  Status s = MakeLink(root, tree, rel, target);
  return s.IsNotSupported() ? Status::OK() : s;
}

}  // namespace bottleneckd
