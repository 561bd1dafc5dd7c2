// Content-coding for HTTP bodies: whether a request's Accept-Encoding lets
// the answer be gzip, and the gzip encoder (zlib) that makes it. /metrics uses
// both (http_server.cc), as node_exporter's promhttp does.
//   Accept-Encoding: gzip, deflate;q=0.5   -> gzip
//   Accept-Encoding: identity;q=1, gzip;q=0.5 -> identity (preferred)
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace bottleneckd {

// True when a response may be gzip-coded for a request whose Accept-Encoding
// header (several headers joined with ", ") is `accept_encoding` (RFC 9110
// section 12.5.3). The value is a comma-separated list of codings, each with
// optional parameters, of which only q ("q=0".."q=1", at most three decimals)
// counts; codings compare case-insensitively and "x-gzip" is gzip.
//   - gzip's weight is that of its own entry, else that of "*", else 0; an
//     entry listed twice counts once, the first one;
//   - gzip is chosen when its weight is above 0 and not below identity's
//     (identity's own entry, else "*"; an identity not listed does not
//     compete): an identity listed with a higher q is the client's preference;
//   - an entry that does not parse (a bad q, a coding that is not a token) is
//     skipped, as if absent; an empty or missing header means identity.
// Pure; thread-safe.
bool AcceptsGzip(std::string_view accept_encoding);

// zlib's fastest and its default level: the two /metrics was measured at
// (docs/performance-history.md, "gzip on /metrics").
inline constexpr int kGzipFastest = 1;
inline constexpr int kGzipDefault = 6;

// Writes `in` as one gzip member (RFC 1952: header, deflate data, CRC-32 and
// length; no file name, mtime 0) at zlib `level` (0-9) into *out, replacing
// what was there and keeping its capacity. A zlib error (an invalid level,
// no memory) is returned as IOError with zlib's message and *out is left
// empty: the caller sends the identity body instead, never a partial one.
// Thread-safe (each call has its own zlib stream).
Status GzipEncode(std::string_view in, int level, std::string* out);

}  // namespace bottleneckd
