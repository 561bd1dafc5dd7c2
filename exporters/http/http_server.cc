#include "exporters/http/http_server.h"

#include <CivetServer.h>

#include <algorithm>
#include <string>

#include "base/clock.h"
#include "exporters/http/landing_page.h"
#include "exporters/prometheus/metrics.h"
#include "exporters/prometheus/text_format.h"

namespace bottleneckd {
namespace {

void Send(mg_connection* conn, int code, const char* reason, const char* type, const std::string& body, bool head) {
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-store\r\n"
            "Connection: close\r\n\r\n",
            code, reason, type, body.size());
  if (!head) mg_write(conn, body.data(), body.size());
}

// Answers 405 to every method but GET and HEAD.
class ReadOnlyHandler : public CivetHandler {
 public:
  bool handleGet(CivetServer*, mg_connection* conn) override { return Serve(conn, false); }
  bool handleHead(CivetServer*, mg_connection* conn) override { return Serve(conn, true); }
  bool handlePost(CivetServer*, mg_connection* conn) override { return NotAllowed(conn); }
  bool handlePut(CivetServer*, mg_connection* conn) override { return NotAllowed(conn); }
  bool handleDelete(CivetServer*, mg_connection* conn) override { return NotAllowed(conn); }
  bool handlePatch(CivetServer*, mg_connection* conn) override { return NotAllowed(conn); }
  bool handleOptions(CivetServer*, mg_connection* conn) override { return NotAllowed(conn); }

 protected:
  virtual bool Serve(mg_connection* conn, bool head) = 0;

 private:
  static bool NotAllowed(mg_connection* conn) {
    mg_printf(conn,
              "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\nContent-Type: text/plain\r\n"
              "Content-Length: 19\r\nConnection: close\r\n\r\nmethod not allowed\n");
    return true;
  }
};

class MetricsHandler : public ReadOnlyHandler {
 public:
  explicit MetricsHandler(const SnapshotStore* store) : collectable_(store) {}

 protected:
  bool Serve(mg_connection* conn, bool head) override {
    // One body buffer per civetweb worker thread: cleared, capacity kept.
    thread_local std::string body;
    body.clear();
    AppendTextFormat(collectable_.Collect(), &body);
    Send(conn, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", body, head);
    return true;
  }

 private:
  SnapshotCollectable collectable_;
};

class HealthHandler : public ReadOnlyHandler {
 public:
  explicit HealthHandler(const SnapshotStore* store) : store_(store) {}

 protected:
  bool Serve(mg_connection* conn, bool head) override {
    auto s = store_->Latest();
    if (!s) {
      Send(conn, 503, "Service Unavailable", "text/plain", "no sample yet\n", head);
      return true;
    }
    double age = static_cast<double>(MonotonicNanos() - s->sample.mono_ns) / 1e9;
    double limit = std::max(3 * s->interval_seconds, 5.0);
    if (age > limit) {
      Send(conn, 503, "Service Unavailable", "text/plain",
           "sampling stalled: last sample " + std::to_string(age) + " s ago\n", head);
      return true;
    }
    Send(conn, 200, "OK", "text/plain", "ok\n", head);
    return true;
  }

 private:
  const SnapshotStore* store_;
};

class RootHandler : public ReadOnlyHandler {
 public:
  explicit RootHandler(const SnapshotStore* store) : store_(store), build_(GetBuildInfo()) {}

 protected:
  bool Serve(mg_connection* conn, bool head) override {
    const mg_request_info* ri = mg_get_request_info(conn);
    std::string uri = ri && ri->local_uri ? ri->local_uri : "/";
    if (uri != "/") {
      Send(conn, 404, "Not Found", "text/plain", "not found: try /metrics\n", head);
      return true;
    }
    auto s = store_->Latest();
    Send(conn, 200, "OK", "text/html; charset=utf-8", RenderLandingPage(s.get(), build_), head);
    return true;
  }

 private:
  const SnapshotStore* store_;
  BuildInfo build_;
};

}  // namespace

struct HttpServer::Handlers {
  explicit Handlers(const SnapshotStore* store) : metrics(store), health(store), root(store) {}
  MetricsHandler metrics;
  HealthHandler health;
  RootHandler root;
};

HttpServer::~HttpServer() {
  if (server_) server_->close();
}

Status HttpServer::Start(const ListenAddress& address, const SnapshotStore* store, std::unique_ptr<HttpServer>* out) {
  std::unique_ptr<HttpServer> s(new HttpServer());
  s->address_ = address;
  s->handlers_ = std::make_unique<Handlers>(store);
  std::vector<std::string> options = {"listening_ports", address.CivetPorts(), "num_threads", "4", "request_timeout_ms",
                                      "10000",           "enable_keep_alive",  "no"};
  try {
    s->server_ = std::make_unique<CivetServer>(options);
  } catch (const CivetException& e) {
    if (address.host.empty()) {  // no IPv6 here: every IPv4 address only
      options[1] = std::to_string(address.port);
      try {
        s->server_ = std::make_unique<CivetServer>(options);
      } catch (const CivetException&) {
      }
    }
    if (!s->server_)
      return Status::IOError("cannot listen on " + address.CivetPorts() + ": " + e.what() +
                             " (is the port in use? choose another with --web.listen-address)");
  }
  s->server_->addHandler("/metrics", s->handlers_->metrics);
  s->server_->addHandler("/healthz", s->handlers_->health);
  s->server_->addHandler("/", s->handlers_->root);
  *out = std::move(s);
  return Status::OK();
}

std::string HttpServer::BoundAddress() const {
  std::vector<int> ports = server_ ? server_->getListeningPorts() : std::vector<int>{};
  int port = ports.empty() ? address_.port : ports.front();
  if (address_.host.empty()) return std::string(":") + std::to_string(port);
  if (address_.ipv6) return "[" + address_.host + "]:" + std::to_string(port);
  return address_.host + ":" + std::to_string(port);
}

}  // namespace bottleneckd
