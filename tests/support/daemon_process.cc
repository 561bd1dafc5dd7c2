#include "tests/support/daemon_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

namespace bottleneckd::testing {
namespace {

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

int ConnectLoopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

HttpResponse HttpRequest(int port, const std::string& method, const std::string& path, const std::string& headers) {
  HttpResponse r;
  int fd = ConnectLoopback(port);
  if (fd < 0) return r;
  std::string req = method + " " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n" + headers + "\r\n";
  if (::write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
    ::close(fd);
    return r;
  }
  std::string all;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    all.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  size_t sep = all.find("\r\n\r\n");
  if (all.compare(0, 9, "HTTP/1.1 ") != 0 && all.compare(0, 9, "HTTP/1.0 ") != 0) return r;
  r.status = std::atoi(all.c_str() + 9);
  r.headers = all.substr(0, sep);
  if (sep != std::string::npos) r.body = all.substr(sep + 4);
  return r;
}

DaemonProcess::~DaemonProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (stderr_fd_ >= 0) ::close(stderr_fd_);
  if (!state_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(state_dir_, ec);
  }
}

bool DaemonProcess::Start(const std::vector<std::string>& given) {
  std::vector<std::string> args;
  if (state_dir_.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/bottleneckd-daemon.XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) return false;
    state_dir_ = templ;
  }
  args.push_back("--path.state=" + state_dir_);
  args.push_back("--control.socket=" + control_socket());
  args.insert(args.end(), given.begin(), given.end());  // later flags win
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return false;
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(p[1], STDERR_FILENO);
    int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, STDOUT_FILENO);
    std::vector<char*> argv;
    std::string bin = BOTTLENECKD_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (std::string& s : copy) argv.push_back(s.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(p[1]);
  stderr_fd_ = p[0];
  ::fcntl(stderr_fd_, F_SETFL, O_NONBLOCK);
  if (!WaitForLog("msg=listening", 10)) {
    error_ = "daemon did not report listening; stderr:\n" + stderr_;
    return false;
  }
  // "msg=listening address=127.0.0.1:PORT ..." or "address=:PORT"
  size_t at = stderr_.find("address=", stderr_.find("msg=listening"));
  size_t end = stderr_.find_first_of(" \n", at);
  std::string addr = stderr_.substr(at + 8, end - at - 8);
  port_ = std::atoi(addr.c_str() + addr.rfind(':') + 1);
  return port_ > 0;
}

void DaemonProcess::Signal(int sig) const {
  if (pid_ > 0) ::kill(pid_, sig);
}

int DaemonProcess::Wait(double timeout_s) {
  double end = Now() + timeout_s;
  while (Now() < end) {
    int st;
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      Stderr();
      return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

const std::string& DaemonProcess::Stderr() {
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(stderr_fd_, buf, sizeof(buf));
    if (n <= 0) break;
    stderr_.append(buf, static_cast<size_t>(n));
  }
  return stderr_;
}

bool DaemonProcess::WaitForMetric(const std::string& needle, double timeout_s, bool present) const {
  double end = Now() + timeout_s;
  while (Now() < end) {
    if ((Get("/metrics").body.find(needle) != std::string::npos) == present) return true;
    ::poll(nullptr, 0, 50);
  }
  return false;
}

bool DaemonProcess::WaitForLog(const std::string& needle, double timeout_s) {
  double end = Now() + timeout_s;
  while (Now() < end) {
    if (Stderr().find(needle) != std::string::npos) return true;
    struct pollfd pfd = {stderr_fd_, POLLIN, 0};
    ::poll(&pfd, 1, 50);
  }
  return Stderr().find(needle) != std::string::npos;
}

}  // namespace bottleneckd::testing
