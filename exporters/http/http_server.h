// HttpServer: the daemon's HTTP endpoint, read-only:
//   GET /metrics  Prometheus text exposition of the latest snapshot
//   GET /         landing page (links, collector status, the last hour's verdicts)
//   GET /report   the HTML report of the last runs (docs/report.md), from the run store
//   GET /healthz  200 "ok" while samples are fresh, 503 with the reason otherwise
// /metrics is gzip-coded (Content-Encoding: gzip, zlib level 1) when the
// request's Accept-Encoding accepts gzip (AcceptsGzip, gzip_body.h), identity
// otherwise; both answers carry "Vary: Accept-Encoding". HEAD gets GET's
// headers. A zlib failure logs a warning and sends the identity body. Other
// paths and every error answer are identity.
// Paths match exactly ("/metricsXYZ", "/metrics/x" are 404); other methods get
// 405 at once, the connection closed without reading the request body. Nothing
// here can change the daemon: control (runs) lives on a Unix socket only.
//
// The server is EventServer (event_server.h): one epoll loop, so idle and
// trickling clients cost a descriptor, not a thread; its deadlines, keep-alive,
// connection limit and refusals are documented there. /metrics and /healthz
// run on the loop; / and /report (they read the run store) on its worker.
//
// One /metrics body per snapshot: the exposition is a function of the latest
// snapshot alone, so it is built once per tick, on the first scrape that
// wants it, and shared by every scrape of the same tick (identity and gzip
// each built at most once); the cache holds one tick's bodies. A second
// scrape of the same tick costs the write alone.
#pragma once

#include <memory>
#include <string>

#include "analysis/loss_tolerance.h"
#include "analysis/snapshot.h"
#include "base/listen_address.h"
#include "base/status.h"
#include "exporters/http/event_server.h"
#include "exporters/http/web_security.h"

namespace bottleneckd {

// Where / and /report read the runs: runs.db, opened read-only for each
// request (the daemon writes it; WAL lets both). An empty path: no /report,
// no history on /.
struct RunReportSource {
  std::string runs_db;
  LossTolerance loss;
  size_t last = 10;  // runs in /report
};

class HttpServer {
 public:
  ~HttpServer();

  // Starts serving on `address`. `store` must outlive the server. When the
  // address cannot be bound the error says why (ListenOn: permission denied,
  // address in use).
  // `security`: the web config's TLS and basic auth (web_security.h); null
  // serves plain HTTP to anyone.
  static Status Start(const ListenAddress& address, const SnapshotStore* store, std::unique_ptr<HttpServer>* out,
                      const RunReportSource& runs = {}, std::shared_ptr<WebSecurity> security = nullptr);

  // The address actually bound, with the kernel-chosen port when 0 was asked
  // ("127.0.0.1:40123").
  std::string BoundAddress() const;

 private:
  HttpServer() = default;
  std::unique_ptr<EventServer> server_;
};

}  // namespace bottleneckd
