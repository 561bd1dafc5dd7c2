// The HTML landing page served at "/": what this daemon is, links to /metrics
// and /healthz (and /report, the HTML report of the last runs, with a run
// store), the verdict history of the last hour (the window runs), the live verdict with its evidence (and a plateau
// when one is detected), each collector's state in the latest sample, and each NIC's bus path with its links' capacity
// and modelled utilisation.
#pragma once

#include <string>
#include <vector>

#include "analysis/snapshot.h"
#include "exporters/prometheus/metrics.h"
#include "exporters/report/html_escape.h"
#include "runs/run_summary.h"

namespace bottleneckd {

// The run store's part of the page: the window runs (source "window", one
// per runs.window) that ended in the last hour, oldest first, or why they
// could not be read.
struct VerdictHistory {
  std::vector<RunReport> windows;
  std::string error;  // "" when the store was read
};

// `snap` may be null (no sample yet); `history` null without a run store
// (then no /report link either). Every dynamic string is HTML-escaped.
std::string RenderLandingPage(const Snapshot* snap, const BuildInfo& build, const VerdictHistory* history = nullptr);

}  // namespace bottleneckd
