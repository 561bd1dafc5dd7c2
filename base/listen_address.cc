#include "base/listen_address.h"

#include <arpa/inet.h>

#include "base/parse_util.h"

namespace bottleneckd {

std::string ListenAddress::CivetPorts() const {
  std::string port_s = std::to_string(port);
  if (host.empty()) return "+" + port_s;  // civetweb: IPv4 and IPv6 on every address
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

}  // namespace bottleneckd
