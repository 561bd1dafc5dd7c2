// The HTTP listener's web config at work: TLS handshakes that failed, basic
// auth's password checks and refusals by reason, and the reloads of the web
// config's files (exporters/http/web_security.h, docs/web-config.md). The
// server counts; this writes what it counted.
#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics.h"

namespace bottleneckd {

void AppendListenerMetrics(const ListenerSecurity& s, std::string* text) {
  using prometheus::MetricType;
  MetricsOut out(text);
  if (s.tls)
    FamilyBuilder(&out, metric::kHttpTlsHandshakeFailuresTotal,
                  "TLS handshakes the listener refused or that broke (a wrong version, no or an untrusted client "
                  "certificate, garbage, plain HTTP to the TLS port, a client that closed or reset mid-handshake) "
                  "since start.",
                  MetricType::Counter)
        .Add(static_cast<double>(s.tls_failed));
  if (s.auth) {
    FamilyBuilder(&out, metric::kHttpAuthChecksTotal,
                  "Basic-auth passwords checked with bcrypt since start (credentials not in the cache of verified "
                  "ones).",
                  MetricType::Counter)
        .Add(static_cast<double>(s.auth_checks));
    FamilyBuilder failed(&out, metric::kHttpAuthFailuresTotal,
                         "Requests answered 401 since start, by reason: missing, malformed, unknown_user, "
                         "wrong_password (never by the user name sent).",
                         MetricType::Counter);
    for (const auto& [reason, n] : s.auth_failed) failed.Add(static_cast<double>(n), {{"reason", reason}});
  }
  FamilyBuilder reloads(&out, metric::kWebConfigReloadsTotal,
                        "Changes of the web config's files since start: result=\"taken\" (serving the next "
                        "connection) or \"refused\" (the previous configuration stayed; the log says why).",
                        MetricType::Counter);
  reloads.Add(static_cast<double>(s.reloads), {{"result", "taken"}});
  reloads.Add(static_cast<double>(s.failed_reloads), {{"result", "refused"}});
}

}  // namespace bottleneckd
