// base/config_fields.h: a section's FieldTable is both its key check and its
// parser, so a key is accepted exactly when it is read; errors name the
// value's file:line:column.
#include "base/config_fields.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_util.h"

namespace bottleneckd::config_fields_test {
namespace {

struct Inner {
  double tolerance = 0.5;
  size_t min_windows = 5;
};

struct Options {
  bool on = false;
  std::string path = "/default";
  double ratio = 0.25;
  int count = 3;
  uint32_t bytes = 64;
  double window = 60;
  std::vector<std::string> names;
  std::string mode = "auto";
  Inner inner;
};

const FieldTable<Options>& Table() {
  static const FieldTable<Options> kTable = [] {
    FieldTable<Options> t = {
        BoolField("on", &Options::on),
        LineField("path", &Options::path),
        NumberField("ratio", &Options::ratio, 0, 1),
        WholeField("count", &Options::count, 1, 100),
        WholeField("bytes", &Options::bytes, 64, 4096),
        DurationField("window", &Options::window, {"t.window", 1, 3600, "60s", true}),
        NamesField("names", &Options::names),
        CustomField<Options>("mode",
                             [](const ConfigReader& r, const YAML::Node& v, Options* o) {
                               if (!v.IsScalar() || (v.Scalar() != "auto" && v.Scalar() != "on"))
                                 return At(r.file(), v.Mark(), "mode must be auto or on");
                               o->mode = v.Scalar();
                               return Status::OK();
                             }),
    };
    FieldTable<Inner> inner = {
        NumberField("tolerance", &Inner::tolerance, 0.01, 1),
        WholeField("min_windows", &Inner::min_windows, 2, 10000),
    };
    t.Add(inner.Within(&Options::inner));
    return t;
  }();
  return kTable;
}

Status Parse(const std::string& yaml, Options* o, std::initializer_list<std::string_view> extra = {}) {
  YAML::Node root = YAML::Load(yaml);
  ConfigReader r("t.yaml", yaml);
  return Table().Parse(r, root["s"], "s", o, extra);
}

TEST(FieldTable, ReadsEveryKindOfField) {
  Options o;
  ASSERT_OK(Parse(R"(s:
  on: true
  path: /var/x
  ratio: 0.5
  count: 7
  bytes: 128
  window: 5m
  names: [eth0, lo]
  mode: "on"
  tolerance: 0.2
  min_windows: 9
)",
                  &o));
  EXPECT_TRUE(o.on);
  EXPECT_EQ(o.path, "/var/x");
  EXPECT_DOUBLE_EQ(o.ratio, 0.5);
  EXPECT_EQ(o.count, 7);
  EXPECT_EQ(o.bytes, 128u);
  EXPECT_DOUBLE_EQ(o.window, 300);
  EXPECT_EQ(o.names, (std::vector<std::string>{"eth0", "lo"}));
  EXPECT_EQ(o.mode, "on");
  EXPECT_DOUBLE_EQ(o.inner.tolerance, 0.2);
  EXPECT_EQ(o.inner.min_windows, 9u);
}

TEST(FieldTable, AbsentOrEmptySectionKeepsTheDefaults) {
  for (const char* yaml : {"other: 1\n", "s:\n", "s: {}\n"}) {
    Options o;
    ASSERT_TRUE(Parse(yaml, &o).ok()) << yaml;
    EXPECT_EQ(o.path, "/default") << yaml;
    EXPECT_EQ(o.count, 3) << yaml;
    EXPECT_DOUBLE_EQ(o.inner.tolerance, 0.5) << yaml;
  }
  Options o;
  ASSERT_OK(Parse("s:\n  window: off\n", &o));
  EXPECT_EQ(o.window, 0) << "the duration spec allows off";
}

TEST(FieldTable, KeysAreTheTableThenTheExtras) {
  EXPECT_EQ(Table().Keys({"enabled"}),
            (std::vector<std::string_view>{"on", "path", "ratio", "count", "bytes", "window", "names", "mode",
                                           "tolerance", "min_windows", "enabled"}));
}

TEST(FieldTable, UnknownKeyNamesItsPlaceAndTheKnownKeys) {
  Options o;
  Status s = Parse("s:\n  ratio: 0.5\n  ratoi: 0.7\n", &o);
  EXPECT_EQ(s.message(),
            "t.yaml:3:3: unknown key 'ratoi' in s (known: on, path, ratio, count, bytes, window, names, mode, "
            "tolerance, min_windows)");
  // An extra key is accepted, and read by nobody here.
  Options e;
  ASSERT_OK(Parse("s:\n  enabled: true\n  count: 4\n", &e, {"enabled"}));
  EXPECT_EQ(e.count, 4);
}

TEST(FieldTable, BadValuesErrAtTheValue) {
  struct Case {
    const char* yaml;
    const char* message;
  } cases[] = {
      {"s:\n  on: maybe\n", "t.yaml:2:7: on must be true or false, got 'maybe'"},
      {"s:\n  ratio: 2\n", "t.yaml:2:10: ratio must be a number from 0 to 1, got '2'"},
      {"s:\n  count: 2.5\n", "t.yaml:2:10: count must be a whole number from 1 to 100, got '2.5'"},
      {"s:\n  bytes: 70000\n", "t.yaml:2:10: bytes must be a whole number from 64 to 4096, got '70000'"},
      {"s:\n  mode: off\n", "t.yaml:2:9: mode must be auto or on"},
      {"s:\n  min_windows: 1\n", "t.yaml:2:16: min_windows must be a whole number from 2 to 10000, got '1'"},
      {"s: 5\n", "t.yaml:1:4: s must be a mapping"},
  };
  for (const Case& c : cases) {
    Options o;
    Status s = Parse(c.yaml, &o);
    EXPECT_EQ(s.message(), c.message) << c.yaml;
  }
}

}  // namespace
}  // namespace bottleneckd::config_fields_test
