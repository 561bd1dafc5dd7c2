// Socket I/O helpers shared by the control socket's server and client
// (runs/control_socket.cc); not an interface for other code. Every wait is
// bounded by a deadline and, on the server, by a wake-up fd the destructor
// signals. Sockets are non-blocking; writes never raise SIGPIPE.
#pragma once

#include <sys/un.h>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"

namespace bottleneckd::control_io {

using Clock = std::chrono::steady_clock;

// Owns a file descriptor; closes it on destruction.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// "0.2 s", "2 s": a timeout for messages.
std::string Seconds(double s);
// Now plus `seconds`.
Clock::time_point After(double seconds);

// Fills *addr for `path`; InvalidArgument when empty, holding a NUL, or longer
// than sun_path allows (107 bytes).
Status MakeAddress(const std::string& path, sockaddr_un* addr);

enum class Io {
  kDone,      // finished (written all, or read up to the newline)
  kTimeout,   // the deadline passed
  kWoken,     // wake_fd fired: the server is stopping
  kClosed,    // the peer is gone (EPIPE, ECONNRESET on write)
  kError,     // another error; errno says which
  kEof,       // the peer closed (or reset) before the read was done
  kOversize,  // `max` bytes arrived without the newline
};

// Waits for `events` on fd until the deadline, or until wake_fd (when >= 0)
// becomes readable. kDone when fd is ready or has an error the next call reports.
Io WaitFor(int fd, short events, Clock::time_point deadline, int wake_fd);

// Writes all of `data` before the deadline.
Io WriteAll(int fd, std::string_view data, Clock::time_point deadline, int wake_fd);

// Appends what arrives to *out until a newline is in it (when
// stop_at_newline; bytes after it may be appended too), EOF (kEof; a reset
// counts as EOF: what the peer sent before is all there is), `max` bytes in
// *out (kOversize) or the deadline.
Io ReadUntil(int fd, std::string* out, size_t max, Clock::time_point deadline, int wake_fd, bool stop_at_newline);

// Discards what the peer still sends, at most `max` bytes, until EOF or the
// deadline, so that closing does not reset a connection whose answer the
// peer has not read yet.
void Drain(int fd, size_t max, Clock::time_point deadline, int wake_fd);

}  // namespace bottleneckd::control_io
