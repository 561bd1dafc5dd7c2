// Status: the outcome of every operation on the collection path (LevelDB style).
// No exceptions cross a collector; errno becomes a Status in exactly one place
// (Status::FromErrno). A default-constructed Status is OK. Copyable, cheap when OK.
// [[nodiscard]]: a Status that is dropped is a compile error (-Werror); a
// caller that really has nothing to do with one says so with IgnoreError()
// and a comment why.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace bottleneckd {

class [[nodiscard]] Status {
 public:
  enum class Code { kOk = 0, kNotFound, kCorruption, kIOError, kInvalidArgument, kNotSupported, kPermissionDenied };

  Status() = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  static Status InvalidArgument(std::string_view msg) { return Status(Code::kInvalidArgument, msg); }
  static Status NotSupported(std::string_view msg) { return Status(Code::kNotSupported, msg); }
  static Status PermissionDenied(std::string_view msg) { return Status(Code::kPermissionDenied, msg); }
  // Maps an errno value to a Status whose message is "<context>: <strerror>".
  static Status FromErrno(int err, std::string_view context);

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }
  bool IsPermissionDenied() const { return code_ == Code::kPermissionDenied; }
  const std::string& message() const { return msg_; }

  // "OK" or "<code name>: <message>".
  std::string ToString() const;

  // Drops the Status on purpose (best-effort clean-up, a failure already
  // reported another way). Say why at the call.
  void IgnoreError() const {}

  // Returns a copy whose message is "<prefix>: <message>" (no-op when OK).
  Status WithContext(std::string_view prefix) const;

 private:
  Status(Code code, std::string_view msg) : code_(code), msg_(msg) {}

  Code code_ = Code::kOk;
  std::string msg_;
};

}  // namespace bottleneckd

// Returns early from the enclosing function when `expr` is not OK.
#define BN_RETURN_IF_ERROR(expr)        \
  do {                                  \
    ::bottleneckd::Status _st = (expr); \
    if (!_st.ok()) return _st;          \
  } while (0)
