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
  const FleetReport report = AnalyzeFleet(data, client->url());
  for (const std::string& w : report.warnings)
    std::fprintf(stderr, "bottleneckd: report: warning: the store's answer may be partial: %s\n", w.c_str());
  const std::string text = flags.format == "json"   ? FleetJson(report)
                           : flags.format == "html" ? FleetHtml(report)
                                                    : FleetText(report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace bottleneckd
