#include "base/status.h"

#include <cerrno>
#include <cstring>

namespace bottleneckd {

Status Status::FromErrno(int err, std::string_view context) {
  std::string msg(context);
  msg += ": ";
  msg += std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
    case ENODEV:
    case ENXIO: return NotFound(msg);
    case EACCES:
    case EPERM: return PermissionDenied(msg);
    case EOPNOTSUPP:
    case EINVAL: return NotSupported(msg);
    default: return IOError(msg);
  }
}

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk: return "OK";
    case Code::kNotFound: name = "not found"; break;
    case Code::kCorruption: name = "corruption"; break;
    case Code::kIOError: name = "I/O error"; break;
    case Code::kInvalidArgument: name = "invalid argument"; break;
    case Code::kNotSupported: name = "not supported"; break;
    case Code::kPermissionDenied: name = "permission denied"; break;
  }
  return std::string(name) + ": " + msg_;
}

Status Status::WithContext(std::string_view prefix) const {
  if (ok()) return *this;
  std::string msg(prefix);
  msg += ": ";
  msg += msg_;
  return Status(code_, msg);
}

}  // namespace bottleneckd
