#include "exporters/prometheus/text_format.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>

#include "base/utf8.h"

namespace bottleneckd {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// Escapes backslash and newline (and the double quote when `quote`), and
// replaces ill-formed UTF-8 with U+FFFD: label values come from thread,
// interface and driver names, which the kernel may have cut inside a
// character, and one bad byte makes the whole scrape unparseable.
// Whether any of the 8 bytes of `w` needs a look: a byte >= 0x80 (UTF-8 to
// check), a backslash, a newline, or (quote) a double quote. Help texts and
// label values are plain ASCII nearly always, and a byte at a time this was a
// quarter of a small scrape's CPU (perf, seed-box, 2026-12-04).
bool NeedsLook(uint64_t w, bool quote) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  auto zero_byte = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  uint64_t hit = (w & kHigh) | zero_byte(w ^ (kOnes * '\\')) | zero_byte(w ^ (kOnes * '\n'));
  if (quote) hit |= zero_byte(w ^ (kOnes * '"'));
  return hit != 0;
}

void AppendEscaped(std::string_view s, bool quote, std::string* out) {
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i + 8 <= s.size()) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, sizeof(w));
      if (!NeedsLook(w, quote)) {
        i += 7;  // and the loop's ++i
        continue;
      }
    }
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const size_t n = Utf8SequenceLength(s.substr(i));
      if (n > 0) {
        i += n - 1;
        continue;
      }
      out->append(s.data() + start, i - start);
      out->append("\xEF\xBF\xBD");
      start = i + 1;
      continue;
    }
    if (c != '\\' && c != '\n' && !(quote && c == '"')) continue;
    out->append(s.data() + start, i - start);
    out->push_back('\\');
    out->push_back(c == '\n' ? 'n' : c);
    start = i + 1;
  }
  out->append(s.data() + start, s.size() - start);
}

void AppendHelp(std::string_view s, std::string* out) { AppendEscaped(s, false, out); }

void AppendLabelValue(std::string_view s, std::string* out) { AppendEscaped(s, true, out); }

void AppendU64(std::uint64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

const char* TypeName(MetricType t) {
  switch (t) {
    case MetricType::Counter: return "counter";
    case MetricType::Gauge: return "gauge";
    case MetricType::Summary: return "summary";
    case MetricType::Histogram: return "histogram";
    case MetricType::Untyped: break;
  }
  return "untyped";
}

// name + suffix + {labels[,extra_name="extra_value"]} + ' '.
void AppendHead(const MetricFamily& f, const ClientMetric& m, std::string_view suffix, std::string* out,
                std::string_view extra_name = {}, double extra_value = 0) {
  out->append(f.name);
  out->append(suffix);
  if (!m.label.empty() || !extra_name.empty()) {
    out->push_back('{');
    bool first = true;
    for (const auto& l : m.label) {
      if (!first) out->push_back(',');
      first = false;
      AppendLabel(l.name, l.value, out);
    }
    if (!extra_name.empty()) {
      if (!first) out->push_back(',');
      out->append(extra_name);
      out->append("=\"");
      AppendTextValue(extra_value, out);
      out->push_back('"');
    }
    out->push_back('}');
  }
  out->push_back(' ');
}

void AppendTail(const ClientMetric& m, std::string* out) {
  if (m.timestamp_ms != 0) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof(buf), m.timestamp_ms);
    out->push_back(' ');
    out->append(buf, r.ptr);
  }
  out->push_back('\n');
}

void AppendSample(const MetricFamily& f, const ClientMetric& m, double v, std::string* out) {
  AppendHead(f, m, {}, out);
  AppendTextValue(v, out);
  AppendTail(m, out);
}

void AppendSumCount(const MetricFamily& f, const ClientMetric& m, double sum, std::uint64_t count, std::string* out) {
  AppendHead(f, m, "_sum", out);
  AppendTextValue(sum, out);
  AppendTail(m, out);
  AppendHead(f, m, "_count", out);
  AppendU64(count, out);
  AppendTail(m, out);
}

}  // namespace

void AppendFamilyHeader(std::string_view name, std::string_view help, MetricType type, std::string* out) {
  if (!help.empty()) {
    out->append("# HELP ");
    out->append(name);
    out->push_back(' ');
    AppendHelp(help, out);
    out->push_back('\n');
  }
  out->append("# TYPE ");
  out->append(name);
  out->push_back(' ');
  out->append(TypeName(type));
  out->push_back('\n');
}

void AppendLabel(std::string_view name, std::string_view value, std::string* out) {
  out->append(name);
  out->append("=\"");
  AppendLabelValue(value, out);
  out->push_back('"');
}

void AppendTextFamily(const MetricFamily& f, std::string* out) {
  AppendFamilyHeader(f.name, f.help, f.type, out);
  for (const ClientMetric& m : f.metric) {
    switch (f.type) {
      case MetricType::Counter: AppendSample(f, m, m.counter.value, out); break;
      case MetricType::Gauge: AppendSample(f, m, m.gauge.value, out); break;
      case MetricType::Untyped: AppendSample(f, m, m.untyped.value, out); break;
      case MetricType::Summary:
        for (const auto& q : m.summary.quantile) {
          AppendHead(f, m, {}, out, "quantile", q.quantile);
          AppendTextValue(q.value, out);
          AppendTail(m, out);
        }
        AppendSumCount(f, m, m.summary.sample_sum, m.summary.sample_count, out);
        break;
      case MetricType::Histogram: {
        bool has_inf = false;
        for (const auto& b : m.histogram.bucket) {
          AppendHead(f, m, "_bucket", out, "le", b.upper_bound);
          AppendU64(b.cumulative_count, out);
          AppendTail(m, out);
          has_inf = std::isinf(b.upper_bound) && b.upper_bound > 0;
        }
        if (!has_inf) {
          AppendHead(f, m, "_bucket", out, "le", INFINITY);
          AppendU64(m.histogram.sample_count, out);
          AppendTail(m, out);
        }
        AppendSumCount(f, m, m.histogram.sample_sum, m.histogram.sample_count, out);
        break;
      }
    }
  }
}

void AppendTextValue(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "+Inf" : "-Inf");
    return;
  }
  char buf[32];
  std::to_chars_result r;
  // -2^63 and 2^63 are exact doubles; the half-open range keeps the cast defined.
  if (v >= -9223372036854775808.0 && v < 9223372036854775808.0 &&
      static_cast<double>(static_cast<std::int64_t>(v)) == v) {
    r = std::to_chars(buf, buf + sizeof(buf), static_cast<std::int64_t>(v));
  } else {
    r = std::to_chars(buf, buf + sizeof(buf), v);
  }
  out->append(buf, r.ptr);
}

void AppendTextFormat(const std::vector<prometheus::MetricFamily>& families, std::string* out) {
  for (const MetricFamily& f : families) AppendTextFamily(f, out);
}

}  // namespace bottleneckd
