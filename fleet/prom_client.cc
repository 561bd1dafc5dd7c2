#include "fleet/prom_client.h"

#include <cmath>
#include <cstdio>
#include <fstream>

#include "base/clock.h"
#include "fleet/curl_library.h"

namespace bottleneckd {

namespace {

struct Sink {
  std::string* body;
  bool over = false;
};

size_t Write(char* data, size_t size, size_t n, void* user) {
  Sink* s = static_cast<Sink*>(user);
  if (s->body->size() + size * n > kPromMaxBody) {
    s->over = true;
    return 0;  // curl stops with CURLE_WRITE_ERROR
  }
  s->body->append(data, size * n);
  return size * n;
}

// "%.3f" without a locale: the API takes Unix seconds with decimals.
std::string Seconds(double t) {
  char b[64];
  std::snprintf(b, sizeof b, "%.3f", t);
  return b;
}

std::string Escape(const CurlLibrary* curl, CURL* c, const std::string& s) {
  char* e = curl->easy_escape(c, s.c_str(), static_cast<int>(s.size()));
  std::string out = e ? e : "";
  curl->free(e);
  return out;
}

}  // namespace

PromClient::PromClient(PromClientOptions o, std::string token) : o_(std::move(o)), token_(std::move(token)) {}
PromClient::~PromClient() = default;

Status PromClient::Create(const PromClientOptions& o, std::unique_ptr<PromClient>* out) {
  PromClientOptions opts = o;
  if (opts.url.rfind("http://", 0) != 0 && opts.url.rfind("https://", 0) != 0)
    return Status::InvalidArgument("--prometheus.url must be an http:// or https:// URL, got '" + opts.url + "'");
  while (opts.url.size() > 8 && opts.url.back() == '/') opts.url.pop_back();
  if (!(opts.timeout_seconds > 0)) return Status::InvalidArgument("--prometheus.timeout must be above 0");
  std::string token;
  if (!opts.bearer_token_file.empty()) {
    std::ifstream f(opts.bearer_token_file);
    if (!f) return Status::InvalidArgument("--prometheus.bearer-token-file: cannot read " + opts.bearer_token_file);
    std::getline(f, token);
    while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
    if (token.empty())
      return Status::InvalidArgument("--prometheus.bearer-token-file: " + opts.bearer_token_file +
                                     " has no token on its first line");
    for (char c : token)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return Status::InvalidArgument("--prometheus.bearer-token-file: the token in " + opts.bearer_token_file +
                                       " holds a control character");
  }
  if (!opts.ca_file.empty() && !std::ifstream(opts.ca_file))
    return Status::InvalidArgument("--prometheus.ca-file: cannot read " + opts.ca_file);
  const CurlLibrary* curl = nullptr;
  BN_RETURN_IF_ERROR(LoadCurl(&curl));
  out->reset(new PromClient(std::move(opts), std::move(token)));
  (*out)->curl_ = curl;
  return Status::OK();
}

Status PromClient::Post(const std::string& path, const std::string& form, long* status, std::string* body) const {
  ++requests_;
  std::unique_ptr<CURL, void (*)(CURL*)> c(curl_->easy_init(), curl_->easy_cleanup);
  if (!c) return Status::IOError("libcurl could not start a request");
  const std::string url = o_.url + path;
  Sink sink{body};
  char error[CURL_ERROR_SIZE] = {};
  curl_slist* headers = nullptr;
  headers = curl_->slist_append(headers, "Accept: application/json");
  if (!token_.empty()) headers = curl_->slist_append(headers, ("Authorization: Bearer " + token_).c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> header_list(headers, curl_->slist_free_all);
  const long timeout_ms = std::lround(o_.timeout_seconds * 1000);
  curl_->easy_setopt(c.get(), CURLOPT_URL, url.c_str());
  curl_->easy_setopt(c.get(), CURLOPT_POSTFIELDS, form.c_str());
  curl_->easy_setopt(c.get(), CURLOPT_HTTPHEADER, headers);
  curl_->easy_setopt(c.get(), CURLOPT_WRITEFUNCTION, Write);
  curl_->easy_setopt(c.get(), CURLOPT_WRITEDATA, &sink);
  curl_->easy_setopt(c.get(), CURLOPT_ERRORBUFFER, error);
  curl_->easy_setopt(c.get(), CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_->easy_setopt(c.get(), CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_->easy_setopt(c.get(), CURLOPT_NOSIGNAL, 1L);
  curl_->easy_setopt(c.get(), CURLOPT_ACCEPT_ENCODING, "");  // gzip when the store offers it
  curl_->easy_setopt(c.get(), CURLOPT_USERAGENT, "bottleneckd-fleet-report");
  curl_->easy_setopt(c.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  if (!o_.ca_file.empty()) curl_->easy_setopt(c.get(), CURLOPT_CAINFO, o_.ca_file.c_str());
  CURLcode rc = curl_->easy_perform(c.get());
  if (sink.over)
    return Status::IOError(url + " sent more than " + std::to_string(kPromMaxBody >> 20) +
                           " MiB: narrow --selector or --since");
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    char t[32];
    std::snprintf(t, sizeof t, "%g", o_.timeout_seconds);
    return Status::IOError(url + " did not answer within " + std::string(t) + "s (--prometheus.timeout)");
  }
  if (rc != CURLE_OK)
    return Status::IOError("cannot reach " + url + ": " + (error[0] ? std::string(error) : curl_->easy_strerror(rc)));
  curl_->easy_getinfo(c.get(), CURLINFO_RESPONSE_CODE, status);
  return Status::OK();
}

Status PromClient::QueryRange(const std::string& query, double start, double end, double step, PromMatrix* out) const {
  std::unique_ptr<CURL, void (*)(CURL*)> c(curl_->easy_init(), curl_->easy_cleanup);
  if (!c) return Status::IOError("libcurl could not start a request");
  const std::string form = "query=" + Escape(curl_, c.get(), query) + "&start=" + Seconds(start) +
                           "&end=" + Seconds(end) + "&step=" + Seconds(step);
  long status = 0;
  std::string body;
  const int64_t t0 = MonotonicNanos();
  BN_RETURN_IF_ERROR(Post("/api/v1/query_range", form, &status, &body));
  const int64_t t1 = MonotonicNanos();
  Status st = ParseMatrixResponse(body, status, out).WithContext(o_.url + " (query " + query + ")");
  times_.http_seconds += static_cast<double>(t1 - t0) * 1e-9;
  times_.parse_seconds += static_cast<double>(MonotonicNanos() - t1) * 1e-9;
  times_.bytes += body.size();
  return st;
}

}  // namespace bottleneckd
