// --web.listen-address forms, and ProbeBind's reasons for a failed listen.
#include "base/listen_address.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "exporters/http/http_server.h"
#include "tests/support/test_util.h"

namespace bottleneckd::listen_address_test {
namespace {

struct Case {
  const char* in;
  bool ok;
  const char* host;
  int port;
  bool ipv6;
  const char* text;
};

TEST(ParseListenAddress, Table) {
  const Case cases[] = {
      {":9858", true, "", 9858, false, ":9858"},
      {"127.0.0.1:9858", true, "127.0.0.1", 9858, false, "127.0.0.1:9858"},
      {"localhost:80", true, "127.0.0.1", 80, false, "127.0.0.1:80"},
      {"[::1]:9858", true, "::1", 9858, true, "[::1]:9858"},
      {"[::]:0", true, "::", 0, true, "[::]:0"},
      {"0.0.0.0:65535", true, "0.0.0.0", 65535, false, "0.0.0.0:65535"},
  };
  for (const Case& c : cases) {
    ListenAddress a;
    Status s = ParseListenAddress(c.in, &a);
    ASSERT_TRUE(s.ok()) << c.in << ": " << s.ToString();
    EXPECT_EQ(a.host, c.host) << c.in;
    EXPECT_EQ(a.port, c.port) << c.in;
    EXPECT_EQ(a.ipv6, c.ipv6) << c.in;
    EXPECT_EQ(a.ToString(), c.text) << c.in;
  }
}

TEST(ParseListenAddress, Errors) {
  const std::pair<const char*, const char*> bad[] = {
      {"9858", "no port"},
      {"", "no port"},
      {":", "port must be a number"},
      {":65536", "port must be a number"},
      {":-1", "port must be a number"},
      {":98x", "port must be a number"},
      {"::1:9858", "IPv6 addresses need brackets"},
      {"[::1]9858", "missing ']:'"},
      {"[nope]:1", "is not an IPv6 address"},
      {"example.com:80", "is not an IPv4 address or localhost"},
      {"300.1.1.1:80", "is not an IPv4 address"},
  };
  for (const auto& [in, why] : bad) {
    ListenAddress a;
    Status s = ParseListenAddress(in, &a);
    EXPECT_FALSE(s.ok()) << in;
    EXPECT_NE(s.message().find(why), std::string::npos) << in << ": " << s.message();
    EXPECT_NE(s.message().find("expected :PORT"), std::string::npos) << s.message();
  }
}

TEST(ProbeBind, FreePortBinds) {
  ListenAddress a;
  ASSERT_OK(ParseListenAddress("127.0.0.1:0", &a));
  EXPECT_OK(ProbeBind(a));
}

TEST(ProbeBind, PortInUse) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(sa);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&sa), len), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len), 0);
  ListenAddress a;
  ASSERT_OK(ParseListenAddress("127.0.0.1:" + std::to_string(ntohs(sa.sin_port)), &a));
  Status s = ProbeBind(a);
  ::close(fd);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot listen on " + a.ToString() + ": address already in use"), std::string::npos)
      << s.message();
}

// The lowest port an unprivileged process may bind
// (net.ipv4.ip_unprivileged_port_start; 1024 when the file cannot be read).
int UnprivilegedPortStart() {
  std::ifstream in("/proc/sys/net/ipv4/ip_unprivileged_port_start");
  int port = 1024;
  in >> port;
  return port;
}

// As root, in the calling child: a network namespace of its own with the
// kernel's default ip_unprivileged_port_start (1024, a per-namespace
// setting) and its loopback up, so the probe meets the kernel's refusal
// whatever the host allows (this VM lets every user bind port 80). 0 when
// done, else the step that failed.
int OwnNamespaceWithPrivilegedPorts() {
  if (::unshare(CLONE_NEWNET) != 0) return 5;
  {
    std::ofstream out("/proc/sys/net/ipv4/ip_unprivileged_port_start");
    out << "1024\n";
    if (!out.flush()) return 6;
  }
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 7;
  ifreq lo{};
  std::strncpy(lo.ifr_name, "lo", sizeof lo.ifr_name - 1);
  bool up = ::ioctl(fd, SIOCGIFFLAGS, &lo) == 0;
  if (up) {
    lo.ifr_flags = static_cast<short>(lo.ifr_flags | IFF_UP);
    up = ::ioctl(fd, SIOCSIFFLAGS, &lo) == 0;
  }
  ::close(fd);
  return up ? 0 : 8;
}

// A child that drops to nobody (or the test itself when not root) probes
// 127.0.0.1:80; the message says "permission denied" (civetweb's was "null
// context"). As root (CI) the child has its own network namespace where
// port 80 is privileged; not root, the host's setting decides.
TEST(ProbeBind, PrivilegedPortAsUnprivilegedUser) {
  if (::geteuid() != 0 && UnprivilegedPortStart() <= 80)
    GTEST_SKIP() << "this host lets every user bind port 80 (as root the test makes a namespace where it does not)";
  ListenAddress a;
  ASSERT_OK(ParseListenAddress("127.0.0.1:80", &a));
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    const uid_t kNobody = 65534;
    if (::geteuid() == 0) {
      if (int step = OwnNamespaceWithPrivilegedPorts(); step != 0) _exit(step);
      if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) _exit(3);
    }
    Status s = ProbeBind(a);
    std::string out = std::to_string(static_cast<int>(s.code())) + " " + s.message();
    ssize_t n = ::write(fds[1], out.data(), out.size());
    _exit(n == static_cast<ssize_t>(out.size()) ? 0 : 4);
  }
  ::close(fds[1]);
  std::string got;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof(buf))) > 0;) got.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  EXPECT_EQ(got.rfind(std::to_string(static_cast<int>(Status::Code::kPermissionDenied)) + " ", 0), 0u) << got;
  EXPECT_NE(got.find("permission denied binding 127.0.0.1:80 (ports below 1024 need CAP_NET_BIND_SERVICE"),
            std::string::npos)
      << got;
}

}  // namespace
}  // namespace bottleneckd::listen_address_test
