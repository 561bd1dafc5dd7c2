#include "base/listen_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "base/parse_util.h"

namespace bottleneckd {

std::string ListenAddress::ToString() const {
  std::string port_s = std::to_string(port);
  if (host.empty()) return ":" + port_s;
  if (ipv6) return "[" + host + "]:" + port_s;
  return host + ":" + port_s;
}

Status ParseListenAddress(std::string_view text, ListenAddress* out) {
  const std::string forms = " (expected :PORT, HOST:PORT or [IPV6]:PORT, e.g. :9858 or 127.0.0.1:9858)";
  std::string quoted = "invalid listen address '" + std::string(text) + "'";
  ListenAddress a;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find("]:");
    if (close == std::string_view::npos) return Status::InvalidArgument(quoted + ": missing ']:'" + forms);
    a.host = std::string(text.substr(1, close - 1));
    a.ipv6 = true;
    port = text.substr(close + 2);
    in6_addr addr6;
    if (inet_pton(AF_INET6, a.host.c_str(), &addr6) != 1)
      return Status::InvalidArgument(quoted + ": '" + a.host + "' is not an IPv6 address" + forms);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return Status::InvalidArgument(quoted + ": no port" + forms);
    a.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
    if (a.host.find(':') != std::string::npos)
      return Status::InvalidArgument(quoted + ": IPv6 addresses need brackets" + forms);
    if (a.host == "localhost") a.host = "127.0.0.1";
    in_addr addr4;
    if (!a.host.empty() && inet_pton(AF_INET, a.host.c_str(), &addr4) != 1)
      return Status::InvalidArgument(quoted + ": '" + a.host + "' is not an IPv4 address or localhost" + forms);
  }
  uint64_t p;
  if (!ParseU64(port, &p) || p > 65535)
    return Status::InvalidArgument(quoted + ": port must be a number from 0 to 65535" + forms);
  a.port = static_cast<int>(p);
  *out = a;
  return Status::OK();
}

Status ProbeBind(const ListenAddress& address) {
  sockaddr_storage storage{};
  socklen_t len;
  if (address.ipv6) {
    auto* a6 = reinterpret_cast<sockaddr_in6*>(&storage);
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(static_cast<uint16_t>(address.port));
    if (inet_pton(AF_INET6, address.host.c_str(), &a6->sin6_addr) != 1)
      return Status::InvalidArgument("'" + address.host + "' is not an IPv6 address");
    len = sizeof(*a6);
  } else {
    auto* a4 = reinterpret_cast<sockaddr_in*>(&storage);
    a4->sin_family = AF_INET;
    a4->sin_port = htons(static_cast<uint16_t>(address.port));
    a4->sin_addr.s_addr = htonl(INADDR_ANY);
    if (!address.host.empty() && inet_pton(AF_INET, address.host.c_str(), &a4->sin_addr) != 1)
      return Status::InvalidArgument("'" + address.host + "' is not an IPv4 address");
    len = sizeof(*a4);
  }
  const std::string where = address.ToString();
  int fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno(errno, "cannot listen on " + where + ": socket()");
  int one = 1;  // as civetweb does: a TIME_WAIT leftover is no reason
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  int err = ::bind(fd, reinterpret_cast<sockaddr*>(&storage), len) == 0 ? 0 : errno;
  ::close(fd);
  if (err == 0) return Status::OK();
  if (err == EACCES || err == EPERM)
    return Status::PermissionDenied("permission denied binding " + where +
                                    " (ports below 1024 need CAP_NET_BIND_SERVICE; choose another with "
                                    "--web.listen-address)");
  if (err == EADDRINUSE)
    return Status::IOError("cannot listen on " + where +
                           ": address already in use (choose another with --web.listen-address)");
  return Status::FromErrno(err, "cannot listen on " + where);
}

}  // namespace bottleneckd
