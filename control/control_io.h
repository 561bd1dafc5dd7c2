// Socket I/O helpers of the control socket's client (ControlCall,
// control/control_socket.cc; the server is a line service of the event
// loop, exporters/http/event_server.h); not an interface for other code.
// The socket is non-blocking: WriteAll and ReadToEof wait, each bounded by a
// deadline, over the one-pass SendSome and RecvSome. Writes never raise
// SIGPIPE.
#pragma once

#include <sys/un.h>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"

namespace bottleneckd::control_io {

using Clock = std::chrono::steady_clock;

// "0.2 s", "2 s": a timeout for messages.
std::string Seconds(double s);
// Now plus `seconds`.
Clock::time_point After(double seconds);

// Fills *addr for `path`; InvalidArgument when empty, holding a NUL, or longer
// than sun_path allows (107 bytes).
Status MakeAddress(const std::string& path, sockaddr_un* addr);

enum class Io {
  kDone,      // finished (written all, or read up to EOF)
  kAgain,     // (the *Some calls) the socket takes or holds nothing more now
  kTimeout,   // the deadline passed
  kClosed,    // the peer is gone (EPIPE, ECONNRESET on write)
  kError,     // another error; errno says which
  kEof,       // the peer closed (or reset): what it sent before is all there is
  kOversize,  // `max` bytes are in *out
};

// One non-blocking pass each, for the client's waits below. SendSome sends what the socket takes now of *data and
// removes it from *data: kDone when all is sent, kAgain when the socket is full. RecvSome appends what has arrived to
// *out: kAgain when nothing more is there now, kEof, kOversize once *out holds `max` bytes.
Io SendSome(int fd, std::string_view* data);
Io RecvSome(int fd, std::string* out, size_t max);

// Waits for `events` on fd until the deadline. kDone when fd is ready or has
// an error the next call reports.
Io WaitFor(int fd, short events, Clock::time_point deadline);

// Writes all of `data` before the deadline.
Io WriteAll(int fd, std::string_view data, Clock::time_point deadline);

// Appends what arrives to *out until EOF (kEof), `max` bytes in *out
// (kOversize) or the deadline (kTimeout).
Io ReadToEof(int fd, std::string* out, size_t max, Clock::time_point deadline);

}  // namespace bottleneckd::control_io
