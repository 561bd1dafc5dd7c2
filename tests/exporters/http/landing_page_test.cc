// The landing page's live verdict: label, resource, confidence, evidence and
// reasons (HTML-escaped), the plateau when detected, and what it says before
// the first window.
#include "exporters/http/landing_page.h"

#include <gtest/gtest.h>

namespace bottleneckd::landing_page_test {
namespace {

BuildInfo Build() {
  BuildInfo b;
  b.version = "test";
  b.revision = "r";
  return b;
}

TEST(LandingPage, ShowsTheLiveVerdictWithItsEvidence) {
  Snapshot snap;
  Verdict v;
  v.label = Bound::kCpu;
  v.resource = "thread <udpecho>";
  v.confidence = 0.87;
  v.evidence = {"cpu1: 0.4 % delivered idle (soaker)", "losses at the socket rung: 31.2 k datagrams/s & more"};
  snap.verdict = v;
  Plateau p;
  p.detected = true;
  p.evidence = "offered 40000 -> 48000 packets/s while utilisation stayed at 81-83 %";
  snap.plateau = p;
  std::string h = RenderLandingPage(&snap, Build());
  EXPECT_NE(h.find("<h2>Verdict</h2>"), std::string::npos);
  EXPECT_NE(h.find("<b>cpu</b> thread &lt;udpecho&gt; (confidence 0.87)"), std::string::npos) << h;
  EXPECT_NE(h.find("<li>cpu1: 0.4 % delivered idle (soaker)</li>"), std::string::npos);
  EXPECT_NE(h.find("31.2 k datagrams/s &amp; more"), std::string::npos);
  EXPECT_NE(h.find("Utilisation plateau: offered 40000 -&gt; 48000 packets/s"), std::string::npos) << h;
}

TEST(LandingPage, UndeterminedShowsItsReasonsAndNoPlateau) {
  Snapshot snap;
  Verdict v;
  v.label = Bound::kUndetermined;
  v.reasons = {"weak evidence: the best rule, cpu, scores 0.27 (a verdict needs 0.50)"};
  snap.verdict = v;
  Plateau none;
  snap.plateau = none;
  std::string h = RenderLandingPage(&snap, Build());
  EXPECT_NE(h.find("<b>undetermined</b> (confidence 0.00)"), std::string::npos) << h;
  EXPECT_NE(h.find("<li>? weak evidence: the best rule, cpu, scores 0.27"), std::string::npos);
  EXPECT_EQ(h.find("Utilisation plateau"), std::string::npos);
}

TEST(LandingPage, BeforeTheFirstWindow) {
  Snapshot snap;  // one sample, no window yet
  std::string h = RenderLandingPage(&snap, Build());
  EXPECT_NE(h.find("No window yet"), std::string::npos);
  EXPECT_NE(RenderLandingPage(nullptr, Build()).find("No sample taken yet."), std::string::npos);
}

}  // namespace
}  // namespace bottleneckd::landing_page_test

namespace bottleneckd::landing_page_test {
namespace {

RunReport Window(double start, Bound label, const std::string& resource, double confidence) {
  RunReport r;
  r.source = "window";
  r.start = start;
  r.end = start + 60;
  r.verdict.label = label;
  r.verdict.resource = resource;
  r.verdict.confidence = confidence;
  return r;
}

TEST(LandingPage, VerdictHistoryAndReportLinkWithARunStore) {
  VerdictHistory history;
  // 2026-12-01 10:00:00 and 10:01:00 UTC.
  history.windows = {Window(1796119200, Bound::kCpu, "thread <udpecho>", 0.91),
                     Window(1796119260, Bound::kBus, "em0 (0000:02:01.0)", 0.7),
                     Window(1796119320, Bound::kUndetermined, "", 0.1)};
  history.windows[0].verdict.evidence = {"cpu: thread udpecho at 99.6 % of cpu1"};
  history.windows[2].verdict.evidence = {"none: no rung loses packets"};
  history.windows[2].verdict.reasons = {"weak evidence: no rule scored 0.50 or more", "cpu: no CPU saturated"};
  std::string h = RenderLandingPage(nullptr, Build(), &history);
  EXPECT_NE(h.find("<a href=\"/report\">"), std::string::npos);
  EXPECT_NE(h.find("<h2>Verdicts, the last hour</h2>"), std::string::npos);
  // Each row says why: its strongest evidence, or an undetermined one's
  // first reason (a row read "undetermined" and nothing more before).
  size_t first = h.find(
      "<tr data-label=\"cpu\"><td>10:00:00</td><td>10:01:00</td><td><b>cpu</b> thread "
      "&lt;udpecho&gt;</td><td>0.91</td><td>cpu: thread udpecho at 99.6 % of cpu1</td></tr>");
  size_t second = h.find(
      "<tr data-label=\"bus\"><td>10:01:00</td><td>10:02:00</td><td><b>bus</b> em0 "
      "(0000:02:01.0)</td><td>0.70</td><td>(no evidence stored)</td></tr>");
  size_t third = h.find(
      "<tr data-label=\"undetermined\"><td>10:02:00</td><td>10:03:00</td><td><b>undetermined</b></td>"
      "<td>0.10</td><td>weak evidence: no rule scored 0.50 or more</td></tr>");
  ASSERT_NE(first, std::string::npos) << h;
  ASSERT_NE(second, std::string::npos) << h;
  ASSERT_NE(third, std::string::npos) << h;
  EXPECT_LT(first, second);  // oldest first, as given
  EXPECT_LT(second, third);

  history.windows.clear();
  h = RenderLandingPage(nullptr, Build(), &history);
  EXPECT_NE(h.find("No window run ended in the last hour"), std::string::npos);
  history.error = "cannot open <runs.db>";
  h = RenderLandingPage(nullptr, Build(), &history);
  EXPECT_NE(h.find("Run store not read: cannot open &lt;runs.db&gt;"), std::string::npos);

  h = RenderLandingPage(nullptr, Build());  // no run store: neither
  EXPECT_EQ(h.find("/report"), std::string::npos);
  EXPECT_EQ(h.find("Verdicts, the last hour"), std::string::npos);
}

}  // namespace
}  // namespace bottleneckd::landing_page_test
