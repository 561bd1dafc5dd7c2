// PromClient: reads a Prometheus-compatible query API (Prometheus,
// VictoriaMetrics, anything answering /api/v1/query_range) over HTTP or
// HTTPS with libcurl, as a Prometheus client would: a timeout for each
// request, a bearer token read from a file (never a flag value, which `ps`
// shows), a CA file for TLS, the body capped. Queries go as POST forms (a
// long selector does not hit a URL limit; both stores take it).
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "fleet/prom_response.h"

namespace bottleneckd {

struct CurlLibrary;

struct PromClientOptions {
  std::string url;                // http(s)://host:port[/prefix]: the API is URL/api/v1/...
  double timeout_seconds = 30;    // each request, connect to last byte
  std::string bearer_token_file;  // "Authorization: Bearer <first line>"; "" for none
  std::string ca_file;            // PEM bundle for the server's certificate; "" for the system's
};

// The most of one answer read (bytes): a store that sends more is cut off
// with an error that says so.
inline constexpr size_t kPromMaxBody = 256u << 20;

// Where a client's time went, over all its requests (--log.level=debug).
struct PromClientTimes {
  double http_seconds = 0;   // from the request's start to the answer's last byte
  double parse_seconds = 0;  // the answers' JSON read into matrices
  size_t bytes = 0;          // the answers' bodies, as received (after gzip)
};

class PromClient {
 public:
  // Checks the URL's scheme, reads the token file and opens the CA file:
  // InvalidArgument naming the flag for a bad URL, an unreadable or empty
  // token file, an unreadable CA file.
  static Status Create(const PromClientOptions& o, std::unique_ptr<PromClient>* out);
  ~PromClient();

  // /api/v1/query_range over [start, end] (Unix seconds) every `step`
  // seconds. IOError for a server that cannot be reached, does not answer in
  // time or answers an HTTP error; Corruption for an answer that is not the
  // API's (prom_response.h). Each message starts with what was asked of whom.
  Status QueryRange(const std::string& query, double start, double end, double step, PromMatrix* out) const;

  const std::string& url() const { return o_.url; }
  size_t requests() const { return requests_; }
  const PromClientTimes& times() const { return times_; }

 private:
  explicit PromClient(PromClientOptions o, std::string token);
  // POSTs `form` to URL/path; the HTTP status and body on a transport success.
  Status Post(const std::string& path, const std::string& form, long* status, std::string* body) const;

  PromClientOptions o_;
  std::string token_;
  mutable size_t requests_ = 0;
  mutable PromClientTimes times_;
  const CurlLibrary* curl_ = nullptr;  // fleet/curl_library.h: loaded by Create
};

}  // namespace bottleneckd
