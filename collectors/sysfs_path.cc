#include "collectors/sysfs_path.h"

#include <vector>

namespace bottleneckd {
namespace {

bool IsHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool AllHex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!IsHexDigit(c)) return false;
  return true;
}

// Appends the components of `path` to *parts, applying "." and "..". False
// when ".." would climb above the start (or is not allowed at all).
bool Push(std::string_view path, bool allow_up, std::vector<std::string_view>* parts) {
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view c = path.substr(0, slash);
    path.remove_prefix(slash == std::string_view::npos ? path.size() : slash + 1);
    if (c.empty() || c == ".") continue;
    if (c != "..") {
      parts->push_back(c);
    } else if (!allow_up || parts->empty()) {
      return false;
    } else {
      parts->pop_back();
    }
  }
  return true;
}

}  // namespace

bool IsPciAddress(std::string_view s) {
  size_t c1 = s.find(':');
  if (c1 == std::string_view::npos || c1 < 4 || c1 > 8 || !AllHex(s.substr(0, c1))) return false;
  s.remove_prefix(c1 + 1);
  return s.size() == 7 && AllHex(s.substr(0, 2)) && s[2] == ':' && AllHex(s.substr(3, 2)) && s[5] == '.' &&
         s[6] >= '0' && s[6] <= '7';
}

std::string_view Basename(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view Dirname(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

Status ResolveSysLink(const HostFs& fs, std::string_view rel, std::string* out) {
  std::string target;
  BN_RETURN_IF_ERROR(fs.ReadLinkSys(rel, &target));
  if (!target.empty() && target.front() == '/') {
    return Status::NotSupported(std::string(rel) + ": absolute link target " + target);
  }
  std::vector<std::string_view> parts;
  if (!Push(Dirname(rel), false, &parts) || !Push(target, true, &parts)) {
    return Status::NotFound(std::string(rel) + ": link " + target + " leaves the sysfs root");
  }
  out->clear();
  for (std::string_view c : parts) {
    if (!out->empty()) *out += '/';
    out->append(c);
  }
  return Status::OK();
}

std::string PciFunctionOf(std::string_view device_dir, std::string* function_dir) {
  while (!device_dir.empty() && device_dir.back() == '/') device_dir.remove_suffix(1);
  std::string_view dir;
  if (IsPciAddress(Basename(device_dir))) {
    dir = device_dir;
  } else if (IsPciAddress(Basename(Dirname(device_dir)))) {
    dir = Dirname(device_dir);
  } else {
    if (function_dir) function_dir->clear();
    return "";
  }
  if (function_dir) function_dir->assign(dir);
  return std::string(Basename(dir));
}

}  // namespace bottleneckd
