// AppendTextFormat: the exposition format 0.0.4 written by hand (escaping,
// number formatting, empty families, summaries and histograms), and the
// fixture scenarios' families serialized by both AppendTextFormat and
// prometheus::TextSerializer, parsed back to the same (series, value) set and
// accepted by `promtool check metrics`.
#include "exporters/prometheus/text_format.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "daemon/daemon.h"
#include "exporters/prometheus/metrics.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::text_format_test {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

std::string Value(double v) {
  std::string s;
  AppendTextValue(v, &s);
  return s;
}

TEST(TextFormatValue, Table) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const struct {
    double in;
    const char* want;
  } cases[] = {
      {0.0, "0"},
      {-0.0, "0"},
      {1.0, "1"},
      {-1.0, "-1"},
      {9007199254740992.0, "9007199254740992"},  // 2^53
      {9007199254740994.0, "9007199254740994"},  // 2^53 + 2
      {123456789012.0, "123456789012"},
      // Beyond int64, std::to_chars picks fixed notation when it is the
      // shorter form: still exact.
      {18446744073709551616.0, "18446744073709551616"},  // 2^64
      {9223372036854775808.0, "9223372036854775808"},    // 2^63: just past int64
      {-9223372036854775808.0, "-9223372036854775808"},  // -2^63: int64 min
      {1e21, "1e+21"},
      {0.1, "0.1"},
      {0.5, "0.5"},
      {-2.25, "-2.25"},
      {123.456, "123.456"},
      {6.1508e-05, "6.1508e-05"},
      {1e-9, "1e-09"},
      {1.5e300, "1.5e+300"},
      {1.0 / 3.0, "0.3333333333333333"},
      {std::numeric_limits<double>::max(), "1.7976931348623157e+308"},
      {std::numeric_limits<double>::denorm_min(), "5e-324"},
      {std::numeric_limits<double>::quiet_NaN(), "NaN"},
      {kInf, "+Inf"},
      {-kInf, "-Inf"},
  };
  for (const auto& c : cases) EXPECT_EQ(Value(c.in), c.want) << "input " << c.in;
}

MetricFamily Family(const char* name, const char* help, MetricType type) {
  MetricFamily f;
  f.name = name;
  if (help != nullptr) f.help = help;
  f.type = type;
  return f;
}

ClientMetric Gauge(double v, std::vector<ClientMetric::Label> labels = {}) {
  ClientMetric m;
  m.gauge.value = v;
  m.label = std::move(labels);
  return m;
}

TEST(TextFormat, HelpAndLabelValueEscaping) {
  MetricFamily f = Family("x_ratio", "a \\ back\"slash\nand a newline", MetricType::Gauge);
  f.metric.push_back(Gauge(0.5, {{"irq", "IO-APIC 2-edge timer"}, {"path", "C:\\dir \"q\"\nnext"}}));
  std::string out;
  AppendTextFormat({f}, &out);
  EXPECT_EQ(out,
            "# HELP x_ratio a \\\\ back\"slash\\nand a newline\n"
            "# TYPE x_ratio gauge\n"
            "x_ratio{irq=\"IO-APIC 2-edge timer\",path=\"C:\\\\dir \\\"q\\\"\\nnext\"} 0.5\n");
}

// The escaping skips 8 clean bytes at a time: each character that needs a
// look, at every offset of a long value (in the first, middle and last word,
// and across a word's edge).
TEST(TextFormat, EscapesAtEveryOffsetOfALongValue) {
  const struct {
    const char* in;
    const char* label;  // as a label value
    const char* help;   // in HELP text (the double quote stays)
  } kinds[] = {
      {"\\", "\\\\", "\\\\"},
      {"\"", "\\\"", "\""},
      {"\n", "\\n", "\\n"},
      {"\xc3\xa9", "\xc3\xa9", "\xc3\xa9"},              // é: well-formed, kept
      {"\xe2\x82\xac", "\xe2\x82\xac", "\xe2\x82\xac"},  // €
      {"\xff", "\xef\xbf\xbd", "\xef\xbf\xbd"},          // never UTF-8: U+FFFD
  };
  for (const auto& k : kinds) {
    for (size_t pos = 0; pos < 24; ++pos) {
      const std::string before(pos, 'a'), after(23 - pos, 'b');
      MetricFamily f = Family("x", nullptr, MetricType::Gauge);
      f.help = before + k.in + after;
      f.metric.push_back(Gauge(1, {{"v", before + k.in + after}}));
      std::string out;
      AppendTextFormat({f}, &out);
      EXPECT_EQ(out, "# HELP x " + before + k.help + after + "\n# TYPE x gauge\nx{v=\"" + before + k.label + after +
                         "\"} 1\n")
          << "offset " << pos;
    }
  }
}

TEST(TextFormat, LabelValuesAreValidUtf8) {
  // The kernel cuts thread names at 15 bytes: "udpecho-caf\xc3\xa9" fits, but
  // a name ending in a 3-byte character can lose its last byte(s). Each
  // ill-formed byte becomes U+FFFD; well-formed characters stay.
  MetricFamily f = Family("x_ratio", "h\xff", MetricType::Gauge);
  f.metric.push_back(Gauge(1, {{"thread", "udpecho-\xe2\x82"}, {"iface", "caf\xc3\xa9"}, {"lone", "\x80x\xc0\xaf"}}));
  std::string out;
  AppendTextFormat({f}, &out);
  EXPECT_EQ(out,
            "# HELP x_ratio h\xef\xbf\xbd\n"
            "# TYPE x_ratio gauge\n"
            "x_ratio{thread=\"udpecho-\xef\xbf\xbd\xef\xbf\xbd\",iface=\"caf\xc3\xa9\",lone=\"\xef\xbf\xbdx\xef\xbf\xbd"
            "\xef\xbf\xbd\"} 1\n");
  std::string promtool_out;
  EXPECT_EQ(testing::RunPromtoolCheckMetrics(out, &promtool_out), 0) << promtool_out;
}

TEST(TextFormat, CounterUntypedAndNoHelp) {
  MetricFamily c = Family("a_total", "Things.", MetricType::Counter);
  ClientMetric m;
  m.counter.value = 42;
  m.label = {{"cpu", "0"}};
  c.metric.push_back(m);
  MetricFamily u = Family("b", "", MetricType::Untyped);
  ClientMetric n;
  n.untyped.value = -1.5;
  u.metric.push_back(n);
  std::string out = "kept\n";  // appended to, not replaced
  AppendTextFormat({c, u}, &out);
  EXPECT_EQ(out,
            "kept\n"
            "# HELP a_total Things.\n"
            "# TYPE a_total counter\n"
            "a_total{cpu=\"0\"} 42\n"
            "# TYPE b untyped\n"
            "b -1.5\n");
}

TEST(TextFormat, FamilyWithNoMetricsAndNoFamilies) {
  std::string out;
  AppendTextFormat({}, &out);
  EXPECT_EQ(out, "");
  AppendTextFormat({Family("empty", "Nothing here.", MetricType::Gauge)}, &out);
  EXPECT_EQ(out, "# HELP empty Nothing here.\n# TYPE empty gauge\n");
}

TEST(TextFormat, TimestampWhenSet) {
  MetricFamily f = Family("g", "", MetricType::Gauge);
  f.metric.push_back(Gauge(1));
  f.metric.back().timestamp_ms = 1700000000123;
  std::string out;
  AppendTextFormat({f}, &out);
  EXPECT_EQ(out, "# TYPE g gauge\ng 1 1700000000123\n");
}

TEST(TextFormat, SummaryAndHistogram) {
  MetricFamily s = Family("lat_seconds", "", MetricType::Summary);
  ClientMetric sm;
  sm.label = {{"op", "r"}};
  sm.summary.sample_count = 7;
  sm.summary.sample_sum = 0.25;
  sm.summary.quantile = {{0.5, 0.01}, {0.99, 0.2}};
  s.metric.push_back(sm);
  MetricFamily h = Family("size_bytes", "", MetricType::Histogram);
  ClientMetric hm;
  hm.histogram.sample_count = 5;
  hm.histogram.sample_sum = 1000;
  hm.histogram.bucket = {{2, 64}, {4, 1024}};
  h.metric.push_back(hm);
  std::string out;
  AppendTextFormat({s, h}, &out);
  EXPECT_EQ(out,
            "# TYPE lat_seconds summary\n"
            "lat_seconds{op=\"r\",quantile=\"0.5\"} 0.01\n"
            "lat_seconds{op=\"r\",quantile=\"0.99\"} 0.2\n"
            "lat_seconds_sum{op=\"r\"} 0.25\n"
            "lat_seconds_count{op=\"r\"} 7\n"
            "# TYPE size_bytes histogram\n"
            "size_bytes_bucket{le=\"64\"} 2\n"
            "size_bytes_bucket{le=\"1024\"} 4\n"
            "size_bytes_bucket{le=\"+Inf\"} 5\n"
            "size_bytes_sum 1000\n"
            "size_bytes_count 5\n");
  // A last bucket already at +Inf is not repeated.
  h.metric[0].histogram.bucket.push_back({5, std::numeric_limits<double>::infinity()});
  out.clear();
  AppendTextFormat({h}, &out);
  EXPECT_EQ(out,
            "# TYPE size_bytes histogram\n"
            "size_bytes_bucket{le=\"64\"} 2\n"
            "size_bytes_bucket{le=\"1024\"} 4\n"
            "size_bytes_bucket{le=\"+Inf\"} 5\n"
            "size_bytes_sum 1000\n"
            "size_bytes_count 5\n");
}

// --- Fixture scenarios against prometheus::TextSerializer ----------------------

std::shared_ptr<const Snapshot> ScenarioSnapshot(const std::string& scenario) {
  SnapshotStore store;
  Config c;
  c.roots = testing::FixtureRoots(scenario);
  c.collectors.threads.targets.push_back(ThreadTarget{"udpecho", std::nullopt});
  Daemon d(c, &store);
  d.Tick();
  d.Tick();
  return store.Latest();
}

std::vector<MetricFamily> ScenarioFamilies(const std::string& scenario) {
  return BuildMetricFamilies(ScenarioSnapshot(scenario).get(), GetBuildInfo());
}

struct Parsed {
  std::vector<std::string> comments;      // # HELP / # TYPE lines, in order
  std::map<std::string, double> samples;  // series -> value
  size_t sample_lines = 0;
};

// Splits each sample line at its last space (no timestamps are written).
Parsed Parse(const std::string& text) {
  Parsed p;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      p.comments.push_back(line);
      continue;
    }
    size_t sp = line.rfind(' ');
    if (sp == std::string::npos) {
      ADD_FAILURE() << "no value: " << line;
      continue;
    }
    std::string value = line.substr(sp + 1);
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    EXPECT_EQ(*end, '\0') << "bad value: " << line;
    p.samples[line.substr(0, sp)] = v;
    ++p.sample_lines;
  }
  return p;
}

class TextFormatScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(TextFormatScenario, SameSamplesAsTextSerializerAndPassesPromtool) {
  const std::vector<MetricFamily> families = ScenarioFamilies(GetParam());
  size_t series = 0;
  for (const auto& f : families) series += f.metric.size();
  ASSERT_GT(series, 100u);

  std::string ours;
  AppendTextFormat(families, &ours);
  std::ostringstream theirs;
  prometheus::TextSerializer().Serialize(theirs, families);

  Parsed a = Parse(ours), b = Parse(theirs.str());
  EXPECT_EQ(a.sample_lines, series);
  EXPECT_EQ(a.samples.size(), series) << "duplicate series";
  EXPECT_EQ(a.comments, b.comments);
  ASSERT_EQ(a.samples.size(), b.samples.size());
  // TextSerializer writes 16 significant digits, which does not round-trip
  // every double (e.g. a Unix time with sub-microsecond digits): compare with
  // ours exactly where 16 digits are exact, else with ours rounded to 16.
  size_t rounded = 0;
  for (const auto& [name, v] : a.samples) {
    auto it = b.samples.find(name);
    ASSERT_NE(it, b.samples.end()) << name;
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(it->second)) << name;
      continue;
    }
    char g16[40];
    std::snprintf(g16, sizeof(g16), "%.16g", v);
    double v16 = std::strtod(g16, nullptr);
    // Bus figures are built on real PCI clocks (33.333... MHz): thirds.
    if (v16 != v && name.rfind("bottleneckd_bus_", 0) != 0) ++rounded;
    EXPECT_EQ(it->second, v16) << name << ": ours " << Value(v);
  }
  EXPECT_LE(rounded, 3u) << "values not exact in 16 digits (timestamps and bus figures are expected)";
  // Ours round-trips every value exactly (shortest round-trip form).
  for (const auto& f : families)
    for (const auto& m : f.metric) {
      double v = f.type == MetricType::Counter ? m.counter.value
                 : f.type == MetricType::Gauge ? m.gauge.value
                                               : m.untyped.value;
      std::string s = Value(v);
      double back = std::strtod(s.c_str(), nullptr);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(back)) << f.name;
      } else {
        EXPECT_EQ(back, v) << f.name << " " << s;
      }
    }

  std::string promtool_out;
  EXPECT_EQ(testing::RunPromtoolCheckMetrics(ours, &promtool_out), 0) << promtool_out;
}

// What /metrics serves (the text written by the family builders) is the
// model above serialized, byte for byte.
TEST_P(TextFormatScenario, TextWrittenDirectlyIsTheModelSerialized) {
  auto snap = ScenarioSnapshot(GetParam());
  std::string from_model, direct = "kept\n";
  AppendTextFormat(BuildMetricFamilies(snap.get(), GetBuildInfo()), &from_model);
  AppendMetricsText(snap.get(), GetBuildInfo(), &direct);
  ASSERT_GT(from_model.size(), 1000u);
  EXPECT_EQ(direct, "kept\n" + from_model);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TextFormatScenario, ::testing::Values("seed-box", "vm", "large-host"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace bottleneckd::text_format_test
