// --web.listen-address parsing, node_exporter's forms:
//   ":9858"            every address (IPv4 and IPv6 where the host has it)
//   "127.0.0.1:9858"   one IPv4 address ("localhost" means 127.0.0.1)
//   "[::1]:9858"       one IPv6 address
// Port 0 asks the kernel for a free port (tests). Anything else is an error
// that says which form was expected.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace bottleneckd {

struct ListenAddress {
  std::string host;  // "" = every address; "127.0.0.1"; "::1"
  int port = 0;
  bool ipv6 = false;
  // The civetweb "listening_ports" value ("+9858", "127.0.0.1:9858", "[::1]:9858").
  std::string CivetPorts() const;
};

Status ParseListenAddress(std::string_view text, ListenAddress* out);

}  // namespace bottleneckd
