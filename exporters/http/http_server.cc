#include "exporters/http/http_server.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <ctime>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "exporters/http/gzip_body.h"
#include "exporters/http/landing_page.h"
#include "exporters/prometheus/metrics.h"
#include "exporters/prometheus/text_format.h"
#include "exporters/report/report.h"
#include "exporters/report/report_html.h"

namespace bottleneckd {
namespace {

HttpResponse Answer(int status, std::string content_type, std::string body, std::string headers = "") {
  HttpResponse r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.headers = std::move(headers);
  r.body = std::make_shared<const std::string>(std::move(body));
  return r;
}

// zlib level of gzip-coded scrapes: 1 (fastest), not zlib's default 6.
// Measured by bench/scrape_compare.sh on the fixture trees (docs/performance-history.md,
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
constexpr const char* kMetricsType = "text/plain; version=0.0.4; charset=utf-8";

// /metrics, on the loop thread only: the bodies of the latest snapshot, built
// when first asked for. BOTTLENECKD_BENCH_UNCACHED=1 in the environment builds
// every scrape afresh: bench/scrape_compare.sh measures both, since it scrapes
// many times a tick and a real Prometheus once.
class MetricsRoute {
 public:
  explicit MetricsRoute(const SnapshotStore* store)
      : store_(store), build_(GetBuildInfo()), cache_(std::getenv("BOTTLENECKD_BENCH_UNCACHED") == nullptr) {}

  // The web config whose counters follow the snapshot's families (counted
  // as of the tick's first scrape), before the server starts; the server
  // once it runs (a scrape may come first: then they follow from the next
  // tick).
  void SetSecurity(std::shared_ptr<WebSecurity> security) { security_ = std::move(security); }
  void SetServer(const EventServer* server) { server_.store(server); }

  HttpResponse Serve(const HttpRequest& req) {
    std::shared_ptr<const Snapshot> snap = store_->Latest();
    if (!cache_ || snap != key_ || !identity_) {
      key_ = snap;
      spare_gzip_ = Reuse(std::move(gzipped_));
      gzip_failed_ = false;
      std::shared_ptr<std::string> body = Reuse(std::move(identity_));
      body->reserve(last_size_);
      AppendMetricsText(snap.get(), build_, body.get());
      if (const EventServer* server = server_.load(); server != nullptr && security_)
        AppendListenerMetrics(Listener(*server), body.get());
      last_size_ = body->size();
      identity_ = std::move(body);
    }
    HttpResponse r;
    r.content_type = kMetricsType;
    if (AcceptsGzip(req.accept_encoding) && !gzip_failed_) {
      if (!gzipped_) {
        std::shared_ptr<std::string> gz = spare_gzip_ ? std::move(spare_gzip_) : std::make_shared<std::string>();
        Status s = GzipEncode(*identity_, kMetricsGzipLevel, gz.get());
        if (s.ok()) {
          gzipped_ = std::move(gz);
        } else {
          gzip_failed_ = true;
          Log(LogLevel::kWarn, "gzip failed: /metrics answered uncompressed", {{"err", s.message()}});
        }
      }
      if (gzipped_) {
        r.headers = kGzipHeaders;
        r.body = gzipped_;
        return r;
      }
    }
    r.headers = kVaryHeader;
    r.body = identity_;
    return r;
  }

 private:
  ListenerSecurity Listener(const EventServer& server) const {
    const EventServer::Stats st = server.GetStats();
    ListenerSecurity l;
    l.tls = security_->tls();
    l.auth = security_->Current()->auth();
    l.tls_failed = st.tls_failed;
    l.auth_checks = st.auth_checks;
    for (int i = 0; i < static_cast<int>(AuthFailure::kCount); ++i)
      l.auth_failed.emplace_back(AuthFailureName(static_cast<AuthFailure>(i)), st.auth_failed[i]);
    l.reloads = security_->reloads();
    l.failed_reloads = security_->failed_reloads();
    return l;
  }

  // The last tick's buffer, emptied, when no answer still being written holds
  // it: its capacity is kept (a fresh large body's page faults cost as much as
  // the rest of a scrape). Every holder lives on the loop thread, so the count
  // cannot grow behind this check.
  static std::shared_ptr<std::string> Reuse(std::shared_ptr<const std::string> old) {
    if (!old || old.use_count() != 1) return std::make_shared<std::string>();
    auto s = std::const_pointer_cast<std::string>(std::move(old));
    s->clear();
    return s;
  }

  const SnapshotStore* store_;
  std::atomic<const EventServer*> server_{nullptr};
  std::shared_ptr<WebSecurity> security_;
  BuildInfo build_;
  bool cache_;
  std::shared_ptr<std::string> spare_gzip_;
  std::shared_ptr<const Snapshot> key_;
  std::shared_ptr<const std::string> identity_;
  std::shared_ptr<const std::string> gzipped_;
  bool gzip_failed_ = false;
  size_t last_size_ = 0;
};

HttpResponse Health(const SnapshotStore* store) {
  auto s = store->Latest();
  if (!s) return Answer(503, "text/plain", "no sample yet\n");
  double age = static_cast<double>(MonotonicNanos() - s->sample.mono_ns) / 1e9;
  double limit = std::max(3 * s->interval_seconds, 5.0);
  if (age > limit)
    return Answer(503, "text/plain", "sampling stalled: last sample " + std::to_string(age) + " s ago\n");
  return Answer(200, "text/plain", "ok\n");
}

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

HttpResponse Landing(const SnapshotStore* store, const RunReportSource& runs, const BuildInfo& build) {
  auto s = store->Latest();
  std::optional<VerdictHistory> history;
  if (!runs.runs_db.empty()) history = ReadHistory(runs);
  return Answer(200, "text/html; charset=utf-8", RenderLandingPage(s.get(), build, history ? &*history : nullptr));
}

// `bottleneckd --report --format html` of the run store, served.
HttpResponse StoreReport(const RunReportSource& runs) {
  if (runs.runs_db.empty()) return Answer(404, "text/plain", "no run store\n");
  std::unique_ptr<RunStore> store;
  Report report;
  Status s = RunStore::Open(runs.runs_db, true, &store);
  if (s.ok()) s = BuildStoreReport(store.get(), "", runs.last, runs.loss, &report);
  if (!s.ok()) return Answer(503, "text/plain", "report: " + s.message() + "\n");
  return Answer(200, "text/html; charset=utf-8", ReportHtml(report));
}

}  // namespace

HttpServer::~HttpServer() = default;

Status HttpServer::Start(const ListenAddress& address, const SnapshotStore* store, std::unique_ptr<HttpServer>* out,
                         const RunReportSource& runs, std::shared_ptr<WebSecurity> security) {
  auto metrics = std::make_shared<MetricsRoute>(store);
  BuildInfo build = GetBuildInfo();
  std::vector<HttpRoute> routes = {
      {"/metrics", false, [metrics](const HttpRequest& r) { return metrics->Serve(r); }},
      {"/healthz", false, [store](const HttpRequest&) { return Health(store); }},
      {"/", true, [store, runs, build](const HttpRequest&) { return Landing(store, runs, build); }},
      {"/report", true, [runs](const HttpRequest&) { return StoreReport(runs); }},
  };
  std::unique_ptr<HttpServer> s(new HttpServer());
  metrics->SetSecurity(security);
  EventServerOptions options;
  options.security = std::move(security);
  Status st = EventServer::Start(address, std::move(routes), options, &s->server_);
  if (!st.ok()) return st;
  metrics->SetServer(s->server_.get());
  *out = std::move(s);
  return Status::OK();
}

std::string HttpServer::BoundAddress() const { return server_->BoundAddress(); }

}  // namespace bottleneckd
