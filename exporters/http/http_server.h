// HttpServer: the daemon's HTTP endpoint (civetweb), read-only:
//   GET /metrics  Prometheus text exposition of the latest snapshot
//   GET /         landing page (links, collector status)
//   GET /healthz  200 "ok" while samples are fresh, 503 with the reason otherwise
// Other paths are 404, other methods 405. Nothing here can change the daemon:
// control (runs) lives on a Unix socket only.
#pragma once

#include <memory>
#include <string>

#include "base/listen_address.h"
#include "base/status.h"
#include "daemon/snapshot.h"

class CivetServer;

namespace bottleneckd {

class HttpServer {
 public:
  ~HttpServer();

  // Starts serving on `address`. `store` must outlive the server.
  static Status Start(const ListenAddress& address, const SnapshotStore* store, std::unique_ptr<HttpServer>* out);

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
