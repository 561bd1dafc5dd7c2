// The landing page's live verdict: label, resource, confidence, evidence and
// reasons (HTML-escaped), the plateau when detected, and what it says before
// the first window.
#include "exporters/http/landing_page.h"

#include <gtest/gtest.h>

namespace bottleneckd {
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
}  // namespace bottleneckd
