// The HTML landing page served at "/": what this daemon is, links to /metrics
// and /healthz, the live verdict with its evidence (and a plateau when one is
// detected), each collector's state in the latest sample, and each NIC's bus
// path with its links' capacity and modelled utilisation.
#pragma once

#include <string>

#include "base/html_escape.h"
#include "daemon/snapshot.h"
#include "exporters/prometheus/metrics.h"

namespace bottleneckd {

// `snap` may be null (no sample yet). Every dynamic string is HTML-escaped.
std::string RenderLandingPage(const Snapshot* snap, const BuildInfo& build);

}  // namespace bottleneckd
