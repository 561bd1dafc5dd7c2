// The Prometheus HTTP API's answers, as the fleet report reads them
// (https://prometheus.io/docs/prometheus/latest/querying/api/): a range
// query's matrix, with the warnings a store sends when its answer is partial.
// VictoriaMetrics answers the same API (its extra "isPartial" is read too).
// Pure functions of the body: the fuzz target and the tests call them with
// any bytes.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace bottleneckd {

struct PromSeries {
  std::map<std::string, std::string> labels;      // "__name__" absent for an expression
  std::vector<std::pair<double, double>> points;  // (Unix seconds, value), in time order
};

struct PromMatrix {
  std::vector<PromSeries> series;
  // What the store said of its answer besides the data: Prometheus's
  // "warnings" (a remote read that failed, a limit), VictoriaMetrics's
  // "isPartial". Shown to the user; the answer is still used.
  std::vector<std::string> warnings;
};

// Limits on what is read, so that a misbehaving store cannot make the report
// hold an unbounded answer: more series or points than this is an error
// naming the limit and how to narrow the question (--selector, --since).
inline constexpr size_t kPromMaxSeries = 200000;
inline constexpr size_t kPromMaxPoints = 20000000;

// Parses a query_range answer. `http_status` is the HTTP status it came with:
// an error answer (4xx/5xx) becomes a Status carrying the API's own
// errorType and error when the body has them, else the status and the
// body's first bytes. Malformed JSON, a non-matrix result, a value that is
// not a number ("NaN", "+Inf" are numbers) or points out of order: an error
// that says what was wrong and where.
Status ParseMatrixResponse(std::string_view body, long http_status, PromMatrix* out);

}  // namespace bottleneckd
