#include "base/state_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "base/parse_util.h"
#include "base/unique_fd.h"

namespace bottleneckd {

Status ReadStateFile(const std::string& path, size_t max_bytes, std::string* text) {
  text->clear();
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Status::FromErrno(errno, path);
  char buf[8192];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, path);
    if (n == 0) break;
    text->append(buf, static_cast<size_t>(n));
    if (text->size() > max_bytes)
      return Status::Corruption(path + ": larger than " + std::to_string(max_bytes >> 10) + " KiB");
  }
  return Status::OK();
}

Status WriteStateFile(const std::string& dir, const std::string& name, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::FromErrno(ec.value(), "creating " + dir);
  std::string path = dir + "/" + name;
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&tmp](Status s) {
    ::unlink(tmp.c_str());
    return s;
  };
  {
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd.valid()) return Status::FromErrno(errno, tmp);
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail(Status::FromErrno(errno, tmp));
      done += static_cast<size_t>(n);
    }
    if (::fsync(fd.get()) != 0) return fail(Status::FromErrno(errno, tmp));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail(Status::FromErrno(errno, "rename to " + path));
  return Status::OK();
}

Status StateLineError(size_t n, const std::string& what) {
  return Status::Corruption("line " + std::to_string(n) + ": " + what);
}

Status ForEachStateLine(std::string_view text, int format, const char* what,
                        const std::function<Status(size_t n, std::string_view key, std::string_view value)>& on_line) {
  bool seen = false;
  std::string_view raw;
  size_t n = 0;
  while (NextLine(&text, &raw)) {
    ++n;
    std::string_view line = Trim(raw);
    if (line.empty() || line.front() == '#') continue;
    std::string_view rest = line;
    std::string_view key = NextToken(&rest);
    std::string_view value = Trim(rest);
    if (!seen) {
      int64_t v = 0;
      if (key != "format") return StateLineError(n, "expected 'format " + std::to_string(format) + "'");
      if (!ParseI64(value, &v) || v != format)
        return StateLineError(n, "unsupported format '" + std::string(value) + "'");
      seen = true;
      continue;
    }
    BN_RETURN_IF_ERROR(on_line(n, key, value));
  }
  if (!seen) return Status::Corruption("empty " + std::string(what) + ": no format line");
  return Status::OK();
}

}  // namespace bottleneckd
