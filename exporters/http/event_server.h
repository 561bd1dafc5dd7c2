// EventServer: a small read-only HTTP/1.1 server on one epoll loop, for the
// daemon's endpoint (http_server.h holds its routes). A connection costs a
// file descriptor and its buffers, never a thread, so idle or trickling
// clients cannot starve a scrape (issue 32; civetweb gave each connection a
// worker thread, and 1000 slow clients failed ~40 % of scrapes).
//
// Why our own loop and not libmicrohttpd (Debian 0.9.75, epoll mode), measured
// 2026-12-04 with tests/integration/hostile_http.py against a probe server:
// libmicrohttpd has only an inactivity timeout, so 200 slowloris connections
// (a byte every 300 ms) were never closed (0 of 200 in 12 s) and would fill
// any connection limit; over its limit it closes new connections without an
// answer; each connection holds a preallocated memory pool (1000 slowloris:
// +4.5 MB). The loop here is ~500 lines, its parser (request_head.h) fuzzed.
//
// Behaviour:
//   - GET and HEAD of a route's exact path; another path 404; another method
//     405 with "Allow: GET, HEAD", answered at once and closed without reading
//     the request's body. HEAD gets GET's headers, no body.
//   - Deadlines: a request head must be complete `head_timeout_ms` after its
//     first byte (a slowloris is closed then, without an answer); a
//     connection with no request under way (new with nothing sent yet, as
//     nginx's "reusable" ones, or kept alive between requests) is idle and
//     closes after `idle_timeout_ms`; a response not fully written after
//     `write_timeout_ms` is abandoned (reset). Bytes already in a socket's
//     buffer are read before its deadline is judged, however late the loop.
//   - Keep-alive as HTTP/1.1 says (http_request.h), pipelined requests in
//     order. A request with a body, an error answer (400, 431, 505, 503) or
//     "Connection: close" closes after the answer.
//   - At most `max_connections` at once. A new connection past it first
//     evicts the longest-idle connection; when none is idle it is
//     answered "503 Service Unavailable" with "Retry-After: 1" and closed.
//   - Fast routes run on the loop thread; slow routes (`HttpRoute::slow`) on
//     one worker thread behind a queue of `worker_queue` requests (503 when
//     full), so a page that reads the run store never delays a scrape.
// The same loop serves a line protocol on a listener of its own
// (StartLines: the control socket, control/control_socket.h), one request
// line per connection: the peer's credentials are checked at accept, the
// line must end within `timeout_ms` of it (else the `timed_out` answer), it
// is answered by `handle` on a worker thread of the service's own (never
// behind the HTTP worker's queue, never on the loop thread), and the
// connection closes after the answer. Past `max_connections` a newcomer is
// answered `busy` at once. One loop, one set of deadlines, limits and
// buffered writes for both protocols; one fuzzer drives it
// (tests/fuzz/http_connection_fuzz.cc). The daemon runs the control socket
// on an instance of its own (its own loop thread): the HTTP endpoint's
// connection limit and hostile clients never stand between a `stop` and
// the run it closes.
// Thread-safety: handlers of fast routes are called on the loop thread only,
// of slow routes on the worker thread only. Start and the destructor from one
// thread; BoundAddress and GetStats from any.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/listen_address.h"
#include "base/status.h"
#include "base/unique_fd.h"

namespace bottleneckd {

struct HttpRequest {
  std::string path;
  std::string accept_encoding;  // every Accept-Encoding line, joined with ", "
  bool head = false;            // HEAD: the answer's body is not sent
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain";
  std::string headers;                      // more header lines, each ending in "\r\n"
  std::shared_ptr<const std::string> body;  // null: empty; shared so one body serves many scrapes
};

struct HttpRoute {
  std::string path;  // matched exactly ("/metrics")
  bool slow = false;
  std::function<HttpResponse(const HttpRequest&)> handler;
};

class WebSecurity;

struct EventServerOptions {
  int head_timeout_ms = 2000;
  int idle_timeout_ms = 60000;
  int write_timeout_ms = 10000;
  size_t max_head = 8192;
  size_t max_connections = 0;  // 0: min(4096, RLIMIT_NOFILE - 128), at least 16
  size_t worker_queue = 16;
  int listen_backlog = 512;  // capped by net.core.somaxconn
  // The web config's TLS, basic auth and headers (web_security.h); null:
  // plain HTTP, no auth. With TLS a connection starts with its handshake,
  // under the head deadline (a client that stalls mid-handshake is closed
  // then, unanswered), and one past the connection limit is closed without
  // the plain-text 503. With users every request first shows its
  // credentials: none or malformed ones are answered 401 at once; unknown
  // ones go to the password thread (bcrypt, one at a time, `auth_queue`
  // waiting: 503 past it), and those that pass are cached.
  std::shared_ptr<WebSecurity> security;
  size_t auth_queue = 16;
};

// A line-protocol peer, from SO_PEERCRED and SO_PEERGROUPS at accept.
struct LinePeer {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary
};

// A line protocol served by the loop (StartLines). Each answer is the whole
// text written to the peer.
struct LineService {
  std::string name;  // in log lines ("control socket")
  size_t max_line = 4096;
  size_t max_connections = 64;
  int timeout_ms = 2000;  // from accept to the newline; afresh to take the answer
  // At accept: "" admits the peer; anything else is written to it, and what
  // it sends is read and dropped until the timeout, then it is closed.
  std::function<std::string(const LinePeer&)> admit;
  // The answer to one request line (its newline and anything after it
  // dropped), called on the service's worker thread.
  std::function<std::string(std::string_view line, const LinePeer&)> handle;
  std::string busy;        // past max_connections
  std::string timed_out;   // no newline within timeout_ms
  std::string oversize;    // no newline within max_line bytes
  std::string incomplete;  // the peer closed before its newline
};

class EventServer {
 public:
  // What the loop has done, for tests and the debug log.
  struct Stats {
    uint64_t accepted = 0;
    uint64_t requests = 0;
    uint64_t refused = 0;          // 503 at the connection limit or a full worker queue
    uint64_t evicted = 0;          // idle connections (or silent TLS ones) closed for a newcomer
    uint64_t timed_out = 0;        // closed at a head, idle or write deadline
    uint64_t bad = 0;              // 400, 431, 505
    uint64_t tls_failed = 0;       // handshakes refused or broken (one stalled: timed_out)
    uint64_t auth_checks = 0;      // passwords checked by bcrypt (cache misses)
    uint64_t auth_failed[4] = {};  // 401 answers, by AuthFailure (web_security.h)
    size_t open = 0;
    size_t max_connections = 0;
    size_t deadlines = 0;     // entries in the deadline heap, superseded ones included (as of the last count)
    size_t idle_entries = 0;  // entries in the idle queue, stale ones included (as of the last count)
  };

  ~EventServer();  // stops the loop and the worker, closes every connection

  // Listens on `address` (base/listen_address.h: ListenOn) and starts the loop.
  // An address that cannot be bound returns ListenOn's error.
  static Status Start(const ListenAddress& address, std::vector<HttpRoute> routes, const EventServerOptions& options,
                      std::unique_ptr<EventServer>* out);
  // Serves `service` on `listener` (bound, listening; a Unix socket: its
  // peers' credentials are read at accept) and nothing else.
  static Status StartLines(UniqueFd listener, LineService service, std::unique_ptr<EventServer>* out);

  // The address bound, with the kernel's port when 0 was asked.
  std::string BoundAddress() const;
  Stats GetStats() const;

 private:
  class Loop;
  explicit EventServer(std::unique_ptr<Loop> loop);
  std::unique_ptr<Loop> loop_;
};

}  // namespace bottleneckd
