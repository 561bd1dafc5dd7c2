// DaemonProcess: runs the real bottleneckd binary for end-to-end tests, reads
// its logfmt stderr to learn the bound address, and talks HTTP to it over
// loopback. The process is killed (SIGKILL) if a test ends without Wait().
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace bottleneckd::testing {

struct HttpResponse {
  int status = 0;  // 0: connection failed
  std::string headers;
  std::string body;
};

// A TCP socket connected to 127.0.0.1:port with 5 s send and receive
// timeouts (the caller closes it), or -1.
int ConnectLoopback(int port);

// One HTTP/1.0 request to 127.0.0.1:port (raw socket, 5 s timeout).
// `headers`: more request header lines, each ending in "\r\n".
HttpResponse HttpRequest(int port, const std::string& method, const std::string& path, const std::string& headers = "");

class DaemonProcess {
 public:
  ~DaemonProcess();

  // Starts BOTTLENECKD_BINARY with args and waits (up to 10 s) for its
  // "msg=listening" line. False (with the stderr so far in error()) otherwise.
  // The daemon gets its own state directory and control socket in a scratch
  // directory (state_dir(); removed with this object) unless args set them:
  // tests never touch /var/lib/bottleneckd or /run/bottleneckd.
  bool Start(const std::vector<std::string>& args);

  int port() const { return port_; }
  const std::string& state_dir() const { return state_dir_; }
  std::string control_socket() const { return state_dir_ + "/control.sock"; }
  pid_t pid() const { return pid_; }
  HttpResponse Get(const std::string& path) const { return HttpRequest(port_, "GET", path); }

  void Signal(int sig) const;
  // Waits up to timeout_s for exit; returns the exit status, or -1 on timeout.
  int Wait(double timeout_s);
  // Everything the daemon wrote to stderr so far (drains the pipe).
  const std::string& Stderr();
  // Polls Stderr() until it contains `needle` or timeout_s passes.
  bool WaitForLog(const std::string& needle, double timeout_s);
  // Polls /metrics until its body contains `needle` (present = true) or no
  // longer does (present = false), or timeout_s passes. The snapshot is
  // published at the end of a tick: wait for what a tick makes, never sleep.
  bool WaitForMetric(const std::string& needle, double timeout_s, bool present = true) const;
  const std::string& error() const { return error_; }

 private:
  pid_t pid_ = -1;
  int stderr_fd_ = -1;
  int port_ = 0;
  std::string stderr_;
  std::string error_;
  std::string state_dir_;
};

}  // namespace bottleneckd::testing
