// base/verdict_labels: the one list of verdict labels and what follows from
// it outside C++: the alert and recording rules and the Grafana dashboards
// select the limit labels with exactly LimitBoundNames's regex, and the
// glossary names every label (issue 48: a label added to the list and
// forgotten in a rule would have left its hosts out of the alert, silently).
#include "base/verdict_labels.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "tests/support/test_util.h"

namespace bottleneckd::verdict_labels_test {
namespace {

TEST(VerdictLabels, NamesParseBackAndLimitsComeFirst) {
  std::set<std::string> seen;
  bool past_limits = false;
  for (Bound b : kAllBounds) {
    Bound parsed;
    ASSERT_TRUE(ParseBound(BoundName(b), &parsed)) << BoundName(b);
    EXPECT_EQ(parsed, b);
    EXPECT_TRUE(seen.insert(BoundName(b)).second) << "a name twice: " << BoundName(b);
    EXPECT_NE(std::string(BoundMeaning(b)), "");
    // The limits lead, so "the scores of the limits" is a prefix of every
    // per-label array and of the run store's columns.
    if (!IsLimit(b)) past_limits = true;
    EXPECT_FALSE(past_limits && IsLimit(b)) << BoundName(b) << " is a limit after a label that is not";
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kBoundCount));
  Bound keep = Bound::kCpu;
  EXPECT_FALSE(ParseBound("CPU", &keep));
  EXPECT_FALSE(ParseBound("", &keep));
  EXPECT_EQ(keep, Bound::kCpu);
  EXPECT_EQ(BoundNames(", "), "cpu, interrupt, bus, wait, none, undetermined");
  EXPECT_EQ(LimitBoundNames("|"), "cpu|interrupt|bus|wait");
}

// Every `bound=~"..."` selector in the shipped rules and dashboards is the
// limit labels' regex; every `bound="x"` names a label.
TEST(VerdictLabels, RulesSelectTheLimitLabels) {
  const std::string src = BOTTLENECKD_SOURCE_DIR;
  const std::regex selector(R"re(bound\s*(=~|!~|=|!=)\s*\\?"([^"\\]*)\\?")re");
  int regexes = 0;
  for (const char* file : {"etc/prometheus/bottleneckd-alerts.yml", "etc/prometheus/bottleneckd-recording.yml",
                           "etc/grafana/bottleneckd-host.json", "etc/grafana/bottleneckd-fleet.json"}) {
    const std::string text = testing::ReadFileOrDie(src + "/" + file);
    for (std::sregex_iterator it(text.begin(), text.end(), selector), end; it != end; ++it) {
      const std::string op = (*it)[1], value = (*it)[2];
      if (op == "=~" || op == "!~") {
        ++regexes;
        EXPECT_EQ(value, LimitBoundNames("|")) << file << ": " << it->str();
      } else {
        Bound b;
        EXPECT_TRUE(ParseBound(value, &b)) << file << ": " << it->str();
      }
    }
  }
  EXPECT_GE(regexes, 2) << "the alert and the recording rule select the limits";
}

TEST(VerdictLabels, TheGlossaryNamesEveryLabel) {
  const std::string glossary = testing::ReadFileOrDie(std::string(BOTTLENECKD_SOURCE_DIR) + "/docs/glossary.md");
  for (Bound b : kAllBounds)
    EXPECT_NE(glossary.find(std::string("`") + BoundName(b) + "`"), std::string::npos) << BoundName(b);
}

}  // namespace
}  // namespace bottleneckd::verdict_labels_test
