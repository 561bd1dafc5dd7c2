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
#include "base/unique_fd.h"

namespace bottleneckd {

struct ListenAddress {
  std::string host;  // "" = every address; "127.0.0.1"; "::1"
  int port = 0;
  bool ipv6 = false;
  // The flag's form, for messages (":9858", "127.0.0.1:9858", "[::1]:9858").
  std::string ToString() const;
};

Status ParseListenAddress(std::string_view text, ListenAddress* out);

// Binds (and closes) a throw-away TCP socket on `address` to learn why the
// HTTP server could not listen there; "every address" is probed as IPv4's.
// OK when it binds. Otherwise PermissionDenied ("permission denied binding
// 127.0.0.1:80 (ports below 1024 need CAP_NET_BIND_SERVICE; ...)"), or an error
// that starts "cannot listen on ADDR: " and says why (address already in use,
// the errno's text otherwise).
Status ProbeBind(const ListenAddress& address);

// A non-blocking, close-on-exec TCP socket listening on `address` with
// `backlog` (capped by net.core.somaxconn), SO_REUSEADDR set. "Every address"
// is IPv6's [::] serving IPv4 too, or IPv4's 0.0.0.0 on a host without IPv6.
// *bound_port: the port bound (the kernel's choice when 0 was asked). Errors
// are ProbeBind's.
Status ListenOn(const ListenAddress& address, int backlog, UniqueFd* out, int* bound_port);

}  // namespace bottleneckd
