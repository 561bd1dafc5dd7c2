#include "control/control_io.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace bottleneckd::control_io {

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g s", s);
  return buf;
}

Clock::time_point After(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

Status MakeAddress(const std::string& path, sockaddr_un* addr) {
  std::memset(addr, 0, sizeof(*addr));
  addr->sun_family = AF_UNIX;
  if (path.empty()) return Status::InvalidArgument("empty control socket path");
  if (path.find('\0') != std::string::npos) return Status::InvalidArgument("control socket path contains a NUL byte");
  if (path.size() >= sizeof(addr->sun_path))
    return Status::InvalidArgument("control socket path " + path + " is " + std::to_string(path.size()) +
                                   " bytes; a Unix socket path is at most " +
                                   std::to_string(sizeof(addr->sun_path) - 1));
  std::memcpy(addr->sun_path, path.data(), path.size());
  return Status::OK();
}

Io SendSome(int fd, std::string_view* data) {
  while (!data->empty()) {
    ssize_t n = ::send(fd, data->data(), data->size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      data->remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Io::kAgain;
    return n < 0 && (errno == EPIPE || errno == ECONNRESET) ? Io::kClosed : Io::kError;
  }
  return Io::kDone;
}

Io RecvSome(int fd, std::string* out, size_t max) {
  char buf[4096];
  for (;;) {
    if (out->size() >= max) return Io::kOversize;
    size_t want = std::min(sizeof(buf), max - out->size());
    ssize_t n = ::recv(fd, buf, want, MSG_DONTWAIT);
    if (n > 0) {
      out->append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0 || errno == ECONNRESET) return Io::kEof;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? Io::kAgain : Io::kError;
  }
}

Io WaitFor(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left < 0) left = 0;
    pollfd p = {fd, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Io::kError;
    if (p.revents) return Io::kDone;
    if (left == 0) return Io::kTimeout;
  }
}

Io WriteAll(int fd, std::string_view data, Clock::time_point deadline) {
  for (;;) {
    Io r = SendSome(fd, &data);
    if (r != Io::kAgain) return r;
    if ((r = WaitFor(fd, POLLOUT, deadline)) != Io::kDone) return r;
  }
}

Io ReadToEof(int fd, std::string* out, size_t max, Clock::time_point deadline) {
  for (;;) {
    Io r = RecvSome(fd, out, max);
    if (r != Io::kAgain) return r;
    if ((r = WaitFor(fd, POLLIN, deadline)) != Io::kDone) return r;
  }
}

}  // namespace bottleneckd::control_io
