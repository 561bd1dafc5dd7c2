#include "exporters/http/http_server.h"

#include <CivetServer.h>

#include <algorithm>
#include <ctime>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/mutex.h"
#include "exporters/http/gzip_body.h"
#include "exporters/http/landing_page.h"
#include "exporters/prometheus/metrics.h"
#include "exporters/prometheus/text_format.h"
#include "exporters/report/report.h"
#include "exporters/report/report_html.h"

namespace bottleneckd {
namespace {

// `extra`: more header lines, each ending in "\r\n".
void Send(mg_connection* conn, int code, const char* reason, const char* type, const std::string& body, bool head,
          const char* extra = "") {
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-store\r\n"
            "%sConnection: close\r\n\r\n",
            code, reason, type, body.size(), extra);
  if (!head) mg_write(conn, body.data(), body.size());
}

// Every Accept-Encoding header of the request, joined with ", " (a list
// header may be sent as several lines, RFC 9110 5.3).
std::string AcceptEncoding(const mg_connection* conn) {
  std::string all;
  const mg_request_info* ri = mg_get_request_info(conn);
  for (int i = 0; ri != nullptr && i < ri->num_headers; ++i) {
    if (ri->http_headers[i].name == nullptr || ri->http_headers[i].value == nullptr ||
        mg_strcasecmp(ri->http_headers[i].name, "Accept-Encoding") != 0)
      continue;
    if (!all.empty()) all += ", ";
    all += ri->http_headers[i].value;
  }
  return all;
}

// Serves GET and HEAD of exactly one path (civetweb's handlers match prefixes:
// anything longer is 404 here) and answers 405 to every other method.
class ReadOnlyHandler : public CivetHandler {
 public:
  explicit ReadOnlyHandler(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }

  bool handleGet(CivetServer*, mg_connection* conn) override { return Route(conn, false); }
  bool handleHead(CivetServer*, mg_connection* conn) override { return Route(conn, true); }
  bool handlePost(CivetServer*, mg_connection* conn) override { return NotAllowed(conn); }
  bool handlePut(CivetServer*, mg_connection* conn) override { return NotAllowed(conn); }
  bool handleDelete(CivetServer*, mg_connection* conn) override { return NotAllowed(conn); }
  bool handlePatch(CivetServer*, mg_connection* conn) override { return NotAllowed(conn); }
  bool handleOptions(CivetServer*, mg_connection* conn) override { return NotAllowed(conn); }

 protected:
  virtual bool Serve(mg_connection* conn, bool head) = 0;

 private:
  bool Route(mg_connection* conn, bool head) {
    const mg_request_info* ri = mg_get_request_info(conn);
    if (ri == nullptr || ri->local_uri == nullptr || path_ != ri->local_uri) {
      Send(conn, 404, "Not Found", "text/plain", "not found: try /metrics\n", head);
      return true;
    }
    return Serve(conn, head);
  }

  static bool NotAllowed(mg_connection* conn) {
    // Marked for closing, civetweb skips reading (discarding) the unread body
    // after the handler: a POST announcing 1 GB is answered and closed at once.
    mg_disable_connection_keep_alive(conn);
    mg_printf(conn,
              "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\nContent-Type: text/plain\r\n"
              "Content-Length: 19\r\nConnection: close\r\n\r\nmethod not allowed\n");
    return true;
  }

  std::string path_;
};

// /metrics body buffers reused from scrape to scrape, capacity kept (a fresh
// buffer's page faults were a good part of a small scrape). At most kKept are
// kept, not one per worker: 256 workers would each end up holding a body.
class BodyPool {
 public:
  std::string Take() LOCKS_EXCLUDED(mu_) {
    MutexLock l(&mu_);
    if (free_.empty()) return {};
    std::string s = std::move(free_.back());
    free_.pop_back();
    return s;
  }
  void Give(std::string s) LOCKS_EXCLUDED(mu_) {
    s.clear();
    MutexLock l(&mu_);
    if (free_.size() < kKept) free_.push_back(std::move(s));
  }

 private:
  static constexpr size_t kKept = 4;
  Mutex mu_;
  std::vector<std::string> free_ GUARDED_BY(mu_);
};

// zlib level of gzip-coded scrapes: 1 (fastest), not zlib's default 6.
// Measured by bench/scrape_compare.sh on the fixture trees (docs/performance.md,
// "gzip on /metrics"): level 6 makes the body only 10-16 % smaller than level
// 1 (seed-box 8973 -> 7847 B of 61007) for 2.1-3.1x the compression CPU
// (seed-box: 0.33-0.44 -> 0.81-1.05 ms a scrape; building the exposition takes
// ~0.3 ms). A scrape's bytes are cheap on any network Prometheus scrapes
// over; the CPU is taken from the host this daemon exists to measure.
constexpr int kMetricsGzipLevel = kGzipFastest;

// Both answers of /metrics name Accept-Encoding in Vary: a cache must not hand
// a gzip body to a client that did not ask for one, or the other way round.
constexpr const char* kVaryHeader = "Vary: Accept-Encoding\r\n";
constexpr const char* kGzipHeaders = "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n";

class MetricsHandler : public ReadOnlyHandler {
 public:
  explicit MetricsHandler(const SnapshotStore* store) : ReadOnlyHandler("/metrics"), collectable_(store) {}

 protected:
  // HEAD does the work of GET, so its Content-Length and Content-Encoding are
  // those GET would send.
  bool Serve(mg_connection* conn, bool head) override {
    constexpr const char* kType = "text/plain; version=0.0.4; charset=utf-8";
    std::string body = bodies_.Take();
    AppendTextFormat(collectable_.Collect(), &body);
    if (AcceptsGzip(AcceptEncoding(conn))) {
      std::string gzipped = gzipped_.Take();
      Status s = GzipEncode(body, kMetricsGzipLevel, &gzipped);
      if (s.ok()) {
        Send(conn, 200, "OK", kType, gzipped, head, kGzipHeaders);
      } else {
        Log(LogLevel::kWarn, "gzip failed: /metrics answered uncompressed", {{"err", s.message()}});
        Send(conn, 200, "OK", kType, body, head, kVaryHeader);
      }
      gzipped_.Give(std::move(gzipped));
    } else {
      Send(conn, 200, "OK", kType, body, head, kVaryHeader);
    }
    bodies_.Give(std::move(body));
    return true;
  }

 private:
  SnapshotCollectable collectable_;
  BodyPool bodies_;
  BodyPool gzipped_;  // apart from bodies_: a gzip body is a tenth the size
};

class HealthHandler : public ReadOnlyHandler {
 public:
  explicit HealthHandler(const SnapshotStore* store) : ReadOnlyHandler("/healthz"), store_(store) {}

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

// The window runs that ended in the last hour, oldest first.
VerdictHistory ReadHistory(const RunReportSource& src) {
  VerdictHistory h;
  std::unique_ptr<RunStore> store;
  Status s = RunStore::Open(src.runs_db, true, &store);
  std::vector<RunReport> runs;
  if (s.ok()) {
    RunQuery q;
    q.include_windows = true;
    q.parent_id = 0;
    q.limit = 240;  // an hour of 15 s windows
    s = store->ListRuns(q, &runs);
  }
  if (!s.ok()) {
    h.error = s.message();
    return h;
  }
  double since = static_cast<double>(std::time(nullptr)) - 3600;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it)
    if (it->source == "window" && it->end >= since) h.windows.push_back(*it);
  return h;
}

class RootHandler : public ReadOnlyHandler {
 public:
  RootHandler(const SnapshotStore* store, const RunReportSource& runs)
      : ReadOnlyHandler("/"), store_(store), runs_(runs), build_(GetBuildInfo()) {}

 protected:
  bool Serve(mg_connection* conn, bool head) override {
    auto s = store_->Latest();
    std::optional<VerdictHistory> history;
    if (!runs_.runs_db.empty()) history = ReadHistory(runs_);
    Send(conn, 200, "OK", "text/html; charset=utf-8", RenderLandingPage(s.get(), build_, history ? &*history : nullptr),
         head);
    return true;
  }

 private:
  const SnapshotStore* store_;
  RunReportSource runs_;
  BuildInfo build_;
};

// `bottleneckd --report --format html` of the run store, served.
class ReportHandler : public ReadOnlyHandler {
 public:
  explicit ReportHandler(const RunReportSource& runs) : ReadOnlyHandler("/report"), runs_(runs) {}

 protected:
  bool Serve(mg_connection* conn, bool head) override {
    if (runs_.runs_db.empty()) {
      Send(conn, 404, "Not Found", "text/plain", "no run store\n", head);
      return true;
    }
    std::unique_ptr<RunStore> store;
    Report report;
    Status s = RunStore::Open(runs_.runs_db, true, &store);
    if (s.ok()) s = BuildStoreReport(store.get(), "", runs_.last, runs_.loss, &report);
    if (!s.ok()) {
      Send(conn, 503, "Service Unavailable", "text/plain", "report: " + s.message() + "\n", head);
      return true;
    }
    Send(conn, 200, "OK", "text/html; charset=utf-8", ReportHtml(report), head);
    return true;
  }

 private:
  RunReportSource runs_;
};

// civetweb options: the limits in the header's "Hostile clients" note. The
// path is not percent-decoded: every path served is plain ASCII, and a decoded
// %00 ended civetweb's copy of the path early, so /metrics%00/../../etc/passwd
// was served as /metrics (it is 404 now, like any path not served).
constexpr const char* kLimits[] = {
    "num_threads",      "256",  "request_timeout_ms", "1000", "connection_queue", "256", "listen_backlog", "512",
    "max_request_size", "8192", "enable_keep_alive",  "no",   "decode_url",       "no",
};

}  // namespace

struct HttpServer::Handlers {
  Handlers(const SnapshotStore* store, const RunReportSource& runs)
      : metrics(store), health(store), root(store, runs), report(runs) {}
  MetricsHandler metrics;
  HealthHandler health;
  RootHandler root;
  ReportHandler report;
  std::vector<ReadOnlyHandler*> All() { return {&metrics, &health, &root, &report}; }
};

std::string CivetPorts(const ListenAddress& address) {
  return address.host.empty() ? "+" + std::to_string(address.port) : address.ToString();
}

HttpServer::~HttpServer() {
  if (server_) server_->close();
}

Status HttpServer::Start(const ListenAddress& address, const SnapshotStore* store, std::unique_ptr<HttpServer>* out,
                         const RunReportSource& runs) {
  std::unique_ptr<HttpServer> s(new HttpServer());
  s->address_ = address;
  s->handlers_ = std::make_unique<Handlers>(store, runs);
  std::vector<std::string> options = {"listening_ports", CivetPorts(address)};
  options.insert(options.end(), std::begin(kLimits), std::end(kLimits));
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
    if (!s->server_) {
      Status why = ProbeBind(address);
      if (!why.ok()) return why;
      return Status::IOError("cannot listen on " + address.ToString() + ": " + e.what());
    }
  }
  for (ReadOnlyHandler* h : s->handlers_->All()) s->server_->addHandler(h->path(), h);
  *out = std::move(s);
  return Status::OK();
}

std::string HttpServer::BoundAddress() const {
  std::vector<int> ports = server_ ? server_->getListeningPorts() : std::vector<int>{};
  ListenAddress bound = address_;
  if (!ports.empty()) bound.port = ports.front();
  return bound.ToString();
}

}  // namespace bottleneckd
