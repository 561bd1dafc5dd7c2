#include "cmd/fleet_command.h"

#include <cstdio>
#include <memory>

#include "base/clock.h"
#include "fleet/fleet_render.h"
#include "fleet/fleet_report.h"
#include "fleet/prom_client.h"

namespace bottleneckd {

int RunFleetReport(const Flags& flags) {
  PromClientOptions co;
  co.url = flags.prometheus_url;
  co.timeout_seconds = flags.prometheus_timeout;
  co.bearer_token_file = flags.bearer_token_file;
  co.ca_file = flags.ca_file;
  std::unique_ptr<PromClient> client;
  Status s = PromClient::Create(co, &client);
  FleetOptions o;
  o.selector = flags.selector.empty() ? "{}" : flags.selector;
  o.run = flags.report_run;
  o.since_seconds = flags.since.value_or(o.run.empty() ? 3600 : 7 * 86400);
  o.now = WallSeconds();
  std::string matchers;
  if (s.ok()) s = SelectorMatchers(o.selector, &matchers);
  if (!s.ok()) {
    std::fprintf(stderr, "bottleneckd: report: %s\n", s.message().c_str());
    return kFleetExitUsage;
  }
  FleetData data;
  s = FetchFleet(*client, o, &data);
  if (!s.ok()) {
    std::fprintf(stderr, "bottleneckd: report: %s\n", s.message().c_str());
    return s.IsNotFound() ? kFleetExitNothing : kFleetExitUnreadable;
  }
  const int64_t analysed_from = MonotonicNanos();
  const FleetReport report = AnalyzeFleet(data, client->url());
  const double analysis_seconds = static_cast<double>(MonotonicNanos() - analysed_from) * 1e-9;
  for (const std::string& w : report.warnings)
    std::fprintf(stderr, "bottleneckd: report: warning: the store's answer may be partial: %s\n", w.c_str());
  const std::string text = flags.format == "json"   ? FleetJson(report)
                           : flags.format == "html" ? FleetHtml(report)
                                                    : FleetText(report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (flags.log_level && *flags.log_level == "debug") {
    // Where the time went (docs/fleet.md "At scale").
    const PromClientTimes& t = client->times();
    std::fprintf(stderr,
                 "bottleneckd: report: %zu queries: the store answered in %.3f s (%.1f MB), their JSON read in "
                 "%.3f s; the analysis took %.3f s\n",
                 client->requests(), t.http_seconds, static_cast<double>(t.bytes) / 1e6, t.parse_seconds,
                 analysis_seconds);
  }
  return 0;
}

}  // namespace bottleneckd
