#include "base/listen_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

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

namespace {

// The socket address of `address`; "every address" as IPv6's [::] when
// `dual_stack`, else IPv4's 0.0.0.0.
Status SocketAddress(const ListenAddress& address, bool dual_stack, sockaddr_storage* storage, socklen_t* len) {
  *storage = {};
  if (address.ipv6 || (address.host.empty() && dual_stack)) {
    auto* a6 = reinterpret_cast<sockaddr_in6*>(storage);
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(static_cast<uint16_t>(address.port));
    a6->sin6_addr = in6addr_any;
    if (!address.host.empty() && inet_pton(AF_INET6, address.host.c_str(), &a6->sin6_addr) != 1)
      return Status::InvalidArgument("'" + address.host + "' is not an IPv6 address");
    *len = sizeof(*a6);
  } else {
    auto* a4 = reinterpret_cast<sockaddr_in*>(storage);
    a4->sin_family = AF_INET;
    a4->sin_port = htons(static_cast<uint16_t>(address.port));
    a4->sin_addr.s_addr = htonl(INADDR_ANY);
    if (!address.host.empty() && inet_pton(AF_INET, address.host.c_str(), &a4->sin_addr) != 1)
      return Status::InvalidArgument("'" + address.host + "' is not an IPv4 address");
    *len = sizeof(*a4);
  }
  return Status::OK();
}

Status BindError(int err, const std::string& where) {
  if (err == EACCES || err == EPERM)
    return Status::PermissionDenied("permission denied binding " + where +
                                    " (ports below 1024 need CAP_NET_BIND_SERVICE; choose another with "
                                    "--web.listen-address)");
  if (err == EADDRINUSE)
    return Status::IOError("cannot listen on " + where +
                           ": address already in use (choose another with --web.listen-address)");
  return Status::FromErrno(err, "cannot listen on " + where);
}

// A bound TCP socket (not yet listening) in *fd, or the errno of what failed.
int BindSocket(const sockaddr_storage& storage, socklen_t len, int extra_type, UniqueFd* fd) {
  UniqueFd s(::socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | extra_type, 0));
  if (!s.valid()) return errno;
  int one = 1;  // a TIME_WAIT leftover of a previous run is no reason to fail
  ::setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (storage.ss_family == AF_INET6) {
    int v6only = 0;  // [::] serves IPv4 too (a specific IPv6 address is unaffected)
    ::setsockopt(s.get(), IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
  }
  if (::bind(s.get(), reinterpret_cast<const sockaddr*>(&storage), len) != 0) return errno;
  *fd = std::move(s);
  return 0;
}

}  // namespace

Status ProbeBind(const ListenAddress& address) {
  sockaddr_storage storage;
  socklen_t len;
  Status s = SocketAddress(address, false, &storage, &len);
  if (!s.ok()) return s;
  UniqueFd fd;
  int err = BindSocket(storage, len, 0, &fd);
  return err == 0 ? Status::OK() : BindError(err, address.ToString());
}

Status ListenOn(const ListenAddress& address, int backlog, UniqueFd* out, int* bound_port) {
  const std::string where = address.ToString();
  sockaddr_storage storage;
  socklen_t len;
  Status s = SocketAddress(address, true, &storage, &len);
  if (!s.ok()) return s;
  UniqueFd fd;
  int err = BindSocket(storage, len, SOCK_NONBLOCK, &fd);
  if (err == EAFNOSUPPORT && address.host.empty()) {  // a host without IPv6: every IPv4 address
    s = SocketAddress(address, false, &storage, &len);
    if (!s.ok()) return s;
    err = BindSocket(storage, len, SOCK_NONBLOCK, &fd);
  }
  if (err != 0) return BindError(err, where);
  if (::listen(fd.get(), backlog) != 0) return Status::FromErrno(errno, "cannot listen on " + where);
  sockaddr_storage bound{};
  socklen_t bound_len = sizeof(bound);
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &bound_len) != 0)
    return Status::FromErrno(errno, "cannot listen on " + where + ": getsockname()");
  *bound_port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                            : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  *out = std::move(fd);
  return Status::OK();
}

}  // namespace bottleneckd
