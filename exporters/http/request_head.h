// The head of one HTTP/1.x request (RFC 9112 sections 2-3, 5-6), parsed from
// the bytes a connection has read so far. The HTTP server (event_server.h)
// calls it after every read; it is pure and bounded, so it is also fuzzed
// (tests/fuzz/request_head_fuzz.cc).
//
// What it accepts, and what it refuses with the status an answer should carry:
//   - lines end in CRLF or a bare LF; up to 2 empty lines before the request
//     line are skipped (a client's CRLF after a previous body);
//   - request line METHOD SP TARGET SP HTTP/1.D: the method a token, the
//     target origin-form ("/path?query") or absolute-form
//     ("http://host:port/path"), the path taken without the query and not
//     percent-decoded; anything else 400; HTTP/2 or later 505;
//   - header fields NAME ":" OWS VALUE OWS, the name a token (whitespace
//     before the colon, obsolete line folding, a control byte: 400);
//   - Content-Length digits, equal when repeated; Transfer-Encoding with
//     Content-Length is refused (400) as request smuggling; either means the
//     request has a body, which the server never reads (it answers and
//     closes);
//   - Connection's tokens "close" and "keep-alive" (case-insensitive) decide
//     persistence with the version: 1.1 persists unless "close", 1.0 only
//     with "keep-alive";
//   - Accept-Encoding lines joined with ", " (RFC 9110 section 5.3);
//   - Authorization's value, as sent (twice is 400: which one would count?);
//   - a head longer than `max_head` bytes without its end is 431.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace bottleneckd {

struct RequestHead {
  std::string method;           // as sent: methods are case-sensitive
  std::string path;             // "/metrics": the target without its query
  int minor_version = 1;        // HTTP/1.0 or HTTP/1.1
  bool keep_alive = true;       // the connection may carry another request
  bool has_body = false;        // Content-Length > 0 or Transfer-Encoding
  std::string accept_encoding;  // every Accept-Encoding line, joined
  std::string authorization;    // the Authorization line's value (given twice: 400)
  size_t size = 0;              // bytes of the head, its blank line included
};

enum class HeadParse {
  kIncomplete,  // no end of head yet, and under max_head: read more
  kComplete,    // *out holds the head; out->size bytes are consumed
  kError,       // *status and *error say why; answer and close
};

// Parses the head at the start of `in`. On kError, *status is 400, 431 or 505
// and *error one line saying why ("header line without ':'").
HeadParse ParseRequestHead(std::string_view in, size_t max_head, RequestHead* out, int* status, std::string* error);

}  // namespace bottleneckd
