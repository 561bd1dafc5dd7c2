// Prometheus text exposition format 0.0.4 for prometheus::MetricFamily
// vectors, appended to a caller-owned std::string so a scrape reuses one
// buffer (prometheus::TextSerializer goes through std::ostream and printf-style
// double formatting, ~20 % of a small scrape). Example output line:
//   bottleneckd_cpu_seconds_total{cpu="0",mode="user"} 1234.56
// Numbers: a double that is an integer in [-2^63, 2^63) is written as an
// integer ("1", "9007199254740994", -0 as "0"); any other finite value in std::to_chars'
// shortest round-trip form ("0.1", "1e-09", "1.5e+300"); NaN, +Inf, -Inf as
// "NaN", "+Inf", "-Inf". HELP text escapes backslash and newline; label values
// escape backslash, double quote and newline. A family with an empty help gets
// no HELP line; every family gets a TYPE line, even with no metrics.
// Counters, gauges and untyped metrics are what the exporter emits; summaries
// and histograms are written too (quantile/bucket lines, then _sum, _count; a
// "+Inf" bucket is added when the last bound is finite). A non-zero
// timestamp_ms is appended after the value. Nothing here throws except
// std::bad_alloc from the string.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <string_view>
#include <vector>

namespace bottleneckd {

// Appends `families` to *out (nothing is cleared: clear() it first to reuse
// its capacity).
void AppendTextFormat(const std::vector<prometheus::MetricFamily>& families, std::string* out);

// One family (as AppendTextFormat writes each), appended to *out.
void AppendTextFamily(const prometheus::MetricFamily& family, std::string* out);

// One sample value as the format writes it (see above), appended to *out.
void AppendTextValue(double value, std::string* out);

// The pieces the family builders write the text from (family_builder.h):
// a family's HELP (none when help is empty) and TYPE lines, and one label
// pair, name="value" with the value escaped.
void AppendFamilyHeader(std::string_view name, std::string_view help, prometheus::MetricType type, std::string* out);
void AppendLabel(std::string_view name, std::string_view value, std::string* out);

}  // namespace bottleneckd
