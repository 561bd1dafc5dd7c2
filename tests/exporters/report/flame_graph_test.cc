// The flame graph of the HTML report (exporters/report/flame_graph.h) over
// hand-built folded profiles: each box's width and place worked out by hand
// from its samples, equal frames under one parent merged into one box and
// under different parents kept apart, names escaped everywhere they are
// written, frames too narrow to draw and stacks too deep counted in the
// caption, labels cut to fit their box, colours by kind and stable, and
// nothing for a profile with no samples.
#include "exporters/report/flame_graph.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace bottleneckd::flame_graph_test {
namespace {

// One drawn frame, as written (the name still escaped).
struct Drawn {
  std::string name, kind, fill, label;
  int samples = 0, depth = 0;
  double x = 0, y = 0, width = 0;
};

std::vector<Drawn> Frames(const std::string& svg) {
  std::vector<Drawn> out;
  std::regex re(
      "<g class=\"frame\" data-name=\"([^\"]*)\" data-samples=\"([0-9]+)\" data-depth=\"([0-9]+)\" "
      "data-kind=\"([a-z]+)\"><title>[^<]*</title><rect x=\"([0-9.]+)\" y=\"([0-9.]+)\" width=\"([0-9.]+)\" "
      "height=\"[0-9.]+\" rx=\"2\" fill=\"(#[0-9a-f]{6})\"/>(?:<text [^>]*>([^<]*)</text>)?</g>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    out.push_back(
        {m[1], m[4], m[8], m[9], std::stoi(m[2]), std::stoi(m[3]), std::stod(m[5]), std::stod(m[6]), std::stod(m[7])});
  }
  return out;
}

// The frames named `name` (escaped), in drawing order.
std::vector<Drawn> Named(const std::vector<Drawn>& frames, const std::string& name) {
  std::vector<Drawn> out;
  for (const Drawn& f : frames)
    if (f.name == name) out.push_back(f);
  return out;
}

std::string Attr(const std::string& svg, const std::string& attr) {
  std::smatch m;
  return std::regex_search(svg, m, std::regex("<svg class=\"flame\"[^>]* " + attr + "=\"([^\"]*)\"")) ? m[1].str()
                                                                                                      : "(none)";
}

FoldedProfile Profile(const std::vector<std::pair<std::string, uint64_t>>& stacks) {
  FoldedProfile p;
  for (const auto& [stack, samples] : stacks) AddFolded(stack, samples, &p);
  return p;
}

// 1000 samples over 1000 px (width 1020 less the 10 px margins): a sample a pixel.
FlameGraphOptions Px1000() {
  FlameGraphOptions o;
  o.width = 1020;
  return o;
}

TEST(FlameGraphSvg, WidthsAreProportionalToSamples) {
  FoldedProfile p = Profile({{"t1;main;b", 200}, {"t1;main;a", 300}, {"t1;main", 100}, {"t2;softirq [kernel]", 400}});
  std::string svg = FlameGraphSvg(p, Px1000());
  std::vector<Drawn> f = Frames(svg);
  ASSERT_EQ(f.size(), 7u) << svg;
  EXPECT_EQ(Attr(svg, "data-frames"), "7");
  EXPECT_EQ(Attr(svg, "data-samples"), "1000");
  // name, samples, depth, x, width: callers first, siblings by name, each
  // child from its parent's left edge; main's 100 self samples are the
  // 100 px right of a and b.
  struct Want {
    const char* name;
    int samples, depth;
    double x, width;
  };
  const Want want[] = {{"all", 1000, 0, 10, 1000},
                       {"t1", 600, 1, 10, 600},
                       {"main", 600, 2, 10, 600},
                       {"a", 300, 3, 10, 300},
                       {"b", 200, 3, 310, 200},
                       {"t2", 400, 1, 610, 400},
                       {"softirq [kernel]", 400, 2, 610, 400}};
  for (size_t i = 0; i < std::size(want); ++i) {
    EXPECT_EQ(f[i].name, want[i].name) << i;
    EXPECT_EQ(f[i].samples, want[i].samples) << want[i].name;
    EXPECT_EQ(f[i].depth, want[i].depth) << want[i].name;
    EXPECT_DOUBLE_EQ(f[i].x, want[i].x) << want[i].name;
    EXPECT_DOUBLE_EQ(f[i].width, want[i].width) << want[i].name;
    // Root at the bottom: 3 levels above "all", 16 px a level under the 26 px title band.
    EXPECT_DOUBLE_EQ(f[i].y, 26 + 16.0 * (3 - want[i].depth)) << want[i].name;
  }
  EXPECT_NE(svg.find("<title>a (300 samples, 30.00 %)</title>"), std::string::npos);
  // The default width: 1080 px of frames, 0.4 of them t2.
  f = Frames(FlameGraphSvg(p));
  ASSERT_EQ(Named(f, "t2").size(), 1u);
  EXPECT_DOUBLE_EQ(Named(f, "t2")[0].width, 432);
  EXPECT_DOUBLE_EQ(Named(f, "t2")[0].x, 10 + 648);
}

TEST(FlameGraphSvg, EqualFramesUnderOneParentMerge) {
  FoldedProfile p = Profile({{"t;main;f", 5}, {"t;main;f;h", 2}, {"t;main;g;f", 3}, {"u;main;f", 4}});
  std::vector<Drawn> f = Frames(FlameGraphSvg(p, Px1000()));
  // main;f once under t (5 + 2), apart from the f that g calls and from u's.
  std::vector<Drawn> fs = Named(f, "f");
  ASSERT_EQ(fs.size(), 3u);
  EXPECT_EQ(fs[0].samples, 7);
  EXPECT_EQ(fs[1].samples, 3);
  EXPECT_EQ(fs[1].depth, 4);
  EXPECT_EQ(fs[2].samples, 4);
  std::vector<Drawn> mains = Named(f, "main");
  ASSERT_EQ(mains.size(), 2u);
  EXPECT_EQ(mains[0].samples, 10);
  EXPECT_EQ(Named(f, "h").size(), 1u);
  // f sorts before g under t;main: f from main's left edge, g after f's 7 samples.
  ASSERT_EQ(Named(f, "g").size(), 1u);
  EXPECT_DOUBLE_EQ(fs[0].x, mains[0].x);
  EXPECT_DOUBLE_EQ(Named(f, "g")[0].x, mains[0].x + 7 * 1000.0 / 14);
}

TEST(FlameGraphSvg, NamesAreEscaped) {
  FoldedProfile p = Profile({{"<script>;a<b>&\"c'd (x)", 8}, {"<script>;ok", 2}});
  std::string svg = FlameGraphSvg(p);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("a<b>"), std::string::npos);
  const std::string escaped = "a&lt;b&gt;&amp;&quot;c&#39;d (x)";
  std::vector<Drawn> f = Frames(svg);
  ASSERT_EQ(Named(f, escaped).size(), 1u) << svg;
  EXPECT_EQ(Named(f, escaped)[0].label, escaped);
  EXPECT_EQ(Named(f, "&lt;script&gt;").size(), 1u);
  EXPECT_NE(svg.find("<title>" + escaped + " (8 samples, 80.00 %)</title>"), std::string::npos);
}

TEST(FlameGraphSvg, NarrowFramesAreDroppedAndCounted) {
  // 10000 samples: 0.1 % is 10. "ten" stays; small (9) and mid (5, with its
  // callee) go: 14 samples in 2 frames.
  FoldedProfile p = Profile({{"t;big", 9976}, {"t;small", 9}, {"t;mid;callee", 5}, {"t;ten", 10}});
  std::string svg = FlameGraphSvg(p);
  std::vector<Drawn> f = Frames(svg);
  EXPECT_EQ(f.size(), 4u);
  EXPECT_EQ(Named(f, "ten").size(), 1u);
  for (const char* gone : {"small", "mid", "callee"}) EXPECT_TRUE(Named(f, gone).empty()) << gone;
  EXPECT_EQ(Attr(svg, "data-hidden-samples"), "14");
  EXPECT_EQ(Attr(svg, "data-hidden-frames"), "2");
  EXPECT_NE(svg.find("14 samples in 2 frames narrower than 0.1 % of the width are not drawn"), std::string::npos)
      << svg;
  // The hidden samples still count in their parent's width: t is all 10000.
  EXPECT_EQ(Named(f, "t")[0].samples, 10000);
}

TEST(FlameGraphSvg, DeepStacksAreCutAtTheCap) {
  FlameGraphOptions o = Px1000();
  o.max_depth = 3;
  FoldedProfile p = Profile({{"t;a;b;c;d", 4}, {"t;a", 6}});
  std::string svg = FlameGraphSvg(p, o);
  std::vector<Drawn> f = Frames(svg);
  EXPECT_EQ(Named(f, "b").size(), 1u);
  EXPECT_EQ(Named(f, "b")[0].depth, 3);
  EXPECT_TRUE(Named(f, "c").empty());
  EXPECT_EQ(Named(f, "a")[0].samples, 10);
  EXPECT_EQ(Attr(svg, "data-cut-samples"), "4");
  EXPECT_EQ(Attr(svg, "data-max-depth"), "3");
  EXPECT_NE(svg.find("stacks are drawn up to 3 frames deep, and 4 samples were in deeper stacks"), std::string::npos);
  // The default cap: 64.
  std::string deep = "t";
  for (int i = 0; i < 80; ++i) deep += ";f" + std::to_string(i);
  svg = FlameGraphSvg(Profile({{deep, 3}}));
  EXPECT_EQ(Attr(svg, "data-cut-samples"), "3");
  EXPECT_EQ(Frames(svg).size(), 65u);  // all and 64 levels
}

TEST(FlameGraphSvg, LabelsAreCutToFitTheirBox) {
  // 100 px hold 14 characters of 6.7 px inside 3 px of padding each side;
  // 20 px hold two, too few to cut a name to, enough for a short one.
  FoldedProfile p = Profile({{"t;abcdefghijklmnopqrst", 100}, {"t;xyzxyzxyz", 20}, {"t;ab", 20}, {"t;rest", 860}});
  std::vector<Drawn> f = Frames(FlameGraphSvg(p, Px1000()));
  EXPECT_EQ(Named(f, "abcdefghijklmnopqrst")[0].label, "abcdefghijklm\u2026");
  EXPECT_EQ(Named(f, "xyzxyzxyz")[0].label, "");
  EXPECT_EQ(Named(f, "ab")[0].label, "ab");
  EXPECT_EQ(Named(f, "rest")[0].label, "rest");
}

TEST(FlameGraphSvg, ColoursByKindAndStable) {
  FoldedProfile p = Profile({{"t;main (x);[truncated]", 5},
                             {"t;main (x);read [kernel]", 5},
                             {"[other stacks]", 5},
                             {"u;[unknown];main (x)", 5}});
  std::vector<Drawn> f = Frames(FlameGraphSvg(p));
  EXPECT_EQ(Named(f, "all")[0].kind, "root");
  EXPECT_EQ(Named(f, "t")[0].kind, "thread");
  EXPECT_EQ(Named(f, "read [kernel]")[0].kind, "kernel");
  for (const char* marker : {"[truncated]", "[other stacks]", "[unknown]"}) {
    ASSERT_EQ(Named(f, marker).size(), 1u) << marker;
    const Drawn m = Named(f, marker)[0];  // a copy: Named returns its vector by value
    EXPECT_EQ(m.kind, "marker") << marker;
    EXPECT_TRUE(m.fill.substr(1, 2) == m.fill.substr(3, 2) && m.fill.substr(3, 2) == m.fill.substr(5, 2)) << m.fill;
  }
  std::vector<Drawn> mains = Named(f, "main (x)");
  ASSERT_EQ(mains.size(), 2u);
  EXPECT_EQ(mains[0].kind, "user");
  EXPECT_EQ(mains[0].fill, mains[1].fill);  // one name, one colour, wherever it is
  EXPECT_NE(Named(f, "read [kernel]")[0].fill, mains[0].fill);
  EXPECT_EQ(FlameGraphSvg(p), FlameGraphSvg(p));
}

TEST(FlameGraphSvg, NoSamplesIsNothing) {
  EXPECT_EQ(FlameGraphSvg(FoldedProfile{}), "");
  FoldedProfile zero;
  zero.stacks["t;f"] = 0;
  EXPECT_EQ(FlameGraphSvg(zero), "");
}

}  // namespace
}  // namespace bottleneckd::flame_graph_test
