// HttpServer: the daemon's HTTP endpoint (civetweb), read-only:
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
// Hostile clients (issue 17). civetweb 1.15 gives each connection one worker
// thread from reading its first byte to closing it, so a client that never
// finishes its request holds a worker. The limits that keep scrapes coming:
//   request headers must arrive within 1 s of the connection's first read
//     (request_timeout_ms, a total, not reset by each byte): a slowloris is
//     closed after about 1.2 s, an idle connection after 2 s (civetweb checks
//     the time when its poll, at most 2 s, returns); no 408 is sent;
//   256 workers (about 17 kB of stack each idle, 55 kB once it has served):
//     up to 256 such connections at once cost a scrape nothing; beyond
//     that a scrape queues behind those ahead of it (1000 slowloris: 52 of
//     133 scrapes over 10 s on a loaded machine, docs/performance.md);
//   256 accepted connections wait in civetweb's queue, then the kernel's
//     backlog (512, capped by net.core.somaxconn) holds the rest;
//   no keep-alive; request headers at most 8 KiB.
// A write to a client that stops reading gives up after the same 1 s.
#pragma once

#include <memory>
#include <string>

#include "analysis/loss_tolerance.h"
#include "base/listen_address.h"
#include "base/status.h"
#include "daemon/snapshot.h"

class CivetServer;

namespace bottleneckd {

// civetweb's "listening_ports" value for `address`: "+9858" (IPv4 and IPv6 on
// every address), "127.0.0.1:9858", "[::1]:9858".
std::string CivetPorts(const ListenAddress& address);

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
  // address cannot be bound the error says why (ProbeBind: permission denied,
  // address in use).
  static Status Start(const ListenAddress& address, const SnapshotStore* store, std::unique_ptr<HttpServer>* out,
                      const RunReportSource& runs = {});

  // The address actually bound, with the kernel-chosen port when 0 was asked
  // ("127.0.0.1:40123").
  std::string BoundAddress() const;

 private:
  HttpServer() = default;
  struct Handlers;
  std::unique_ptr<Handlers> handlers_;
  std::unique_ptr<CivetServer> server_;
  ListenAddress address_;
};

}  // namespace bottleneckd
