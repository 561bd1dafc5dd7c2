// The SVG renderer of the HTML report (exporters/report/svg_plot.h): nice
// ticks for ordinary, degenerate and non-finite ranges, tick labels with
// their k/M/G suffixes, points mapped onto the plot frame, NaN and inf
// skipped (counted out of data-points, never written), one point and no
// point, stacked bars and an emphasised series, and every string escaped.
#include "exporters/report/svg_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <string>
#include <vector>

namespace bottleneckd::svg_plot_test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(NiceTicks, RoundStepsCoverTheRange) {
  EXPECT_EQ(NiceTicks(0, 97, 6), (std::vector<double>{0, 20, 40, 60, 80, 100}));
  EXPECT_EQ(NiceTicks(0, 1, 6), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  std::vector<double> t = NiceTicks(1234, 56789, 8);
  ASSERT_GE(t.size(), 2u);
  EXPECT_LE(t.front(), 1234);
  EXPECT_GE(t.back(), 56789);
  EXPECT_LE(t.size(), 10u);
  double step = t[1] - t[0];
  EXPECT_EQ(step, 10000);  // (56789 - 1234) / 7 = 7936: the next 1-2-5 step
  for (double v : t) EXPECT_EQ(std::fmod(v, step), 0) << v;
}

TEST(NiceTicks, DegenerateAndNonFiniteRanges) {
  std::vector<double> one = NiceTicks(5, 5, 6);  // widened around the value
  ASSERT_GE(one.size(), 2u);
  EXPECT_LT(one.front(), 5);
  EXPECT_GT(one.back(), 5);
  std::vector<double> zero = NiceTicks(0, 0, 6);
  ASSERT_GE(zero.size(), 2u);
  EXPECT_LE(zero.front(), 0);
  EXPECT_GT(zero.back(), 0);
  EXPECT_EQ(NiceTicks(10, 0, 3), NiceTicks(0, 10, 3));  // reversed bounds
  EXPECT_TRUE(NiceTicks(kNaN, 1, 6).empty());
  EXPECT_TRUE(NiceTicks(0, kInf, 6).empty());
}

TEST(TickLabel, SuffixesAndDecimalsFromTheStep) {
  EXPECT_EQ(TickLabel(1500, 500, 2000), "1.5k");
  EXPECT_EQ(TickLabel(500, 500, 2000), "0.5k");  // the axis's suffix, not its own
  EXPECT_EQ(TickLabel(2000, 1000, 2000), "2k");
  EXPECT_EQ(TickLabel(250, 50, 300), "250");
  EXPECT_EQ(TickLabel(0.25, 0.05, 1), "0.25");
  EXPECT_EQ(TickLabel(2e6, 1e6, 3e6), "2M");
  EXPECT_EQ(TickLabel(2.5e6, 5e5, 3e6), "2.5M");
  EXPECT_EQ(TickLabel(3e9, 1e9, 3e9), "3G");
  EXPECT_EQ(TickLabel(0, 1000, 5000), "0");
  EXPECT_EQ(TickLabel(kNaN, 1, 1), "");
}

// The value of `attr` on the series element named `name`.
std::string SeriesAttr(const std::string& svg, const std::string& name, const std::string& attr) {
  std::smatch m;
  std::regex re("<g class=\"series\" data-series=\"" + name + "\"[^>]* " + attr + "=\"([^\"]*)\"");
  return std::regex_search(svg, m, re) ? m[1].str() : "(none)";
}

TEST(RenderPlot, PointsLandOnTheFrameAndNonFiniteOnesAreSkipped) {
  PlotSpec p;
  p.id = "t";
  PlotSeries s;
  s.name = "y";
  s.x = {0, 1, 2, 3, 4, 10};
  s.y = {0, kNaN, 50, kInf, -kInf, 100};
  p.series = {s};
  std::string svg = RenderPlot(p);
  EXPECT_EQ(SeriesAttr(svg, "y", "data-points"), "3");
  EXPECT_EQ(SeriesAttr(svg, "y", "data-total"), "150");
  EXPECT_EQ(svg.find("nan"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("inf"), std::string::npos) << svg;
  // The frame (x 0..10, y 0..100 are tick values already): the first point
  // at its bottom-left corner, the last at its top-right.
  std::smatch frame;
  ASSERT_TRUE(std::regex_search(
      svg, frame,
      std::regex("<rect x=\"([0-9.]+)\" y=\"([0-9.]+)\" width=\"([0-9.]+)\" height=\"([0-9.]+)\" fill=\"none\"")));
  double left = std::stod(frame[1]), top = std::stod(frame[2]);
  double right = left + std::stod(frame[3]), bottom = top + std::stod(frame[4]);
  std::smatch path;
  ASSERT_TRUE(std::regex_search(
      svg, path, std::regex("<path d=\"M([0-9.]+) ([0-9.]+) L([0-9.]+) ([0-9.]+) L([0-9.]+) ([0-9.]+)\"")));
  EXPECT_NEAR(std::stod(path[1]), left, 0.06);
  EXPECT_NEAR(std::stod(path[2]), bottom, 0.06);
  EXPECT_NEAR(std::stod(path[3]), left + (right - left) * 0.2, 0.06);  // x 2 of 0..10
  EXPECT_NEAR(std::stod(path[4]), (top + bottom) / 2, 0.06);           // y 50 of 0..100
  EXPECT_NEAR(std::stod(path[5]), right, 0.06);
  EXPECT_NEAR(std::stod(path[6]), top, 0.06);
}

TEST(RenderPlot, OnePointIsAMarkerAndNoPointSaysNoData) {
  PlotSpec p;
  p.id = "one";
  PlotSeries s;
  s.name = "y";
  s.x = {1000};
  s.y = {7};
  p.series = {s};
  std::string svg = RenderPlot(p);
  EXPECT_EQ(SeriesAttr(svg, "y", "data-points"), "1");
  EXPECT_NE(svg.find("<circle"), std::string::npos);
  EXPECT_EQ(svg.find("no data"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);

  p.id = "none";
  p.series[0].x = {1, 2};
  p.series[0].y = {kNaN, kNaN};
  p.marks = {{"m", 1.5, "mark"}};
  svg = RenderPlot(p);
  EXPECT_NE(svg.find("data-empty=\"1\""), std::string::npos);
  EXPECT_NE(svg.find(">no data<"), std::string::npos);
  EXPECT_EQ(SeriesAttr(svg, "y", "data-points"), "0");
  EXPECT_EQ(svg.find("<path"), std::string::npos);
  EXPECT_EQ(svg.find("data-mark"), std::string::npos);  // nothing to mark on

  p.series.clear();
  svg = RenderPlot(p);
  EXPECT_NE(svg.find("data-series=\"0\""), std::string::npos);
  EXPECT_NE(svg.find(">no data<"), std::string::npos);
}

TEST(RenderPlot, AllZeroSitsOnTheBottom) {
  PlotSpec p;
  p.id = "zero";
  PlotSeries s;
  s.name = "drops";
  s.x = {0, 1, 2};
  s.y = {0, 0, 0};
  p.series = {s};
  std::string svg = RenderPlot(p);
  EXPECT_EQ(svg.find(">-"), std::string::npos) << svg;  // no negative tick
  std::smatch frame, path;
  ASSERT_TRUE(std::regex_search(
      svg, frame,
      std::regex("<rect x=\"[0-9.]+\" y=\"([0-9.]+)\" width=\"[0-9.]+\" height=\"([0-9.]+)\" fill=\"none\"")));
  ASSERT_TRUE(std::regex_search(svg, path, std::regex("<path d=\"M[0-9.]+ ([0-9.]+)")));
  EXPECT_NEAR(std::stod(path[1]), std::stod(frame[1]) + std::stod(frame[2]), 0.06);
}

// A sweep whose every run was offered 0 packets/s (a benchmark over lo with
// lo off the packet path) drew an x axis from -0.6 to 0.6 packets/s: an
// all-zero x starts at 0 too.
TEST(RenderPlot, AllZeroXStartsAtZero) {
  PlotSpec p;
  p.id = "sweep";
  PlotSeries s;
  s.name = "delivered";
  s.x = {0, 0};
  s.y = {0, 5};
  p.series = {s};
  std::string svg = RenderPlot(p);
  EXPECT_EQ(svg.find(">-"), std::string::npos) << svg;  // no negative tick
  EXPECT_NE(svg.find(">0<"), std::string::npos) << svg;
}

TEST(RenderPlot, BarsCategoriesMarksAndBands) {
  PlotSpec p;
  p.id = "bars";
  p.x_categories = {"<=64", ">64"};
  PlotSeries s;
  s.name = "frames";
  s.kind = SeriesKind::kBars;
  s.x = {0, 1};
  s.y = {3, 4};
  p.series = {s};
  p.marks = {{"knee", 0.5, "knee"}};
  p.bands = {{"plateau", 0, 1, "plateau"}};
  std::string svg = RenderPlot(p);
  EXPECT_EQ(SeriesAttr(svg, "frames", "data-kind"), "bars");
  EXPECT_EQ(SeriesAttr(svg, "frames", "data-total"), "7");
  p.series[0].y = {123456789, 1};  // a capture's packet count: exact, not rounded to 6 digits
  EXPECT_EQ(SeriesAttr(RenderPlot(p), "frames", "data-total"), "123456790");
  size_t rects = 0;
  for (size_t at = svg.find("<rect", svg.find("data-series=\"frames\""));
       at != std::string::npos && at < svg.find("</g>", svg.find("data-series=\"frames\""));
       at = svg.find("<rect", at + 1))
    ++rects;
  EXPECT_EQ(rects, 2u);
  EXPECT_NE(svg.find(">&lt;=64<"), std::string::npos);  // the category escaped
  EXPECT_NE(svg.find("data-mark=\"knee\" data-x=\"0.5\""), std::string::npos);
  EXPECT_NE(svg.find("data-band=\"plateau\""), std::string::npos);
}

// The <rect> bars of series `name`, in order.
struct Bar {
  double x, y, width, height;
  double Top() const { return y; }
  double Bottom() const { return y + height; }
};
std::vector<Bar> Bars(const std::string& svg, const std::string& name) {
  size_t begin = svg.find("data-series=\"" + name + "\""), end = svg.find("</g>", begin);
  std::string g = svg.substr(begin, end - begin);
  std::vector<Bar> out;
  std::regex re("<rect x=\"([0-9.]+)\" y=\"([0-9.]+)\" width=\"([0-9.]+)\" height=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(g.begin(), g.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back({std::stod((*it)[1]), std::stod((*it)[2]), std::stod((*it)[3]), std::stod((*it)[4])});
  return out;
}

TEST(RenderPlot, StackedBarsSitOnTheBarsBeforeThem) {
  PlotSpec p;
  p.id = "stack";
  p.stack_bars = true;
  PlotSeries a = MakeSeries("a", "#111", SeriesKind::kBars), b = MakeSeries("b", "#222", SeriesKind::kBars);
  a.x = {10, 20};
  a.y = {30, 10};
  b.x = {10, 20};
  b.y = {70, kNaN};  // no bar at 20: nothing stacks there
  b.emphasis = true;
  b.note = "(first to lose)";
  p.series = {a, b};
  std::string svg = RenderPlot(p);
  // Totals are each series' own heights, not the stacks' tops.
  EXPECT_EQ(SeriesAttr(svg, "a", "data-total"), "40");
  EXPECT_EQ(SeriesAttr(svg, "b", "data-total"), "70");
  EXPECT_EQ(SeriesAttr(svg, "b", "data-points"), "1");
  EXPECT_EQ(SeriesAttr(svg, "b", "data-emphasis"), "1");
  EXPECT_EQ(SeriesAttr(svg, "a", "data-emphasis"), "(none)");
  EXPECT_NE(svg.find("b (first to lose)</text>"), std::string::npos);
  std::vector<Bar> under = Bars(svg, "a"), over = Bars(svg, "b");
  ASSERT_EQ(under.size(), 2u);
  ASSERT_EQ(over.size(), 1u);
  // b's bar at x 10 starts where a's ends, and is 70/30 as tall; the axis
  // reaches the stack's top (100), so it ends on the frame's top edge.
  EXPECT_NEAR(over[0].Bottom(), under[0].Top(), 0.11);
  EXPECT_NEAR(over[0].height / under[0].height, 70.0 / 30.0, 0.01);
  EXPECT_NEAR(under[1].height / under[0].height, 10.0 / 30.0, 0.01);
  std::smatch frame;
  ASSERT_TRUE(std::regex_search(svg, frame,
                                std::regex("<rect x=\"[0-9.]+\" y=\"([0-9.]+)\" width=\"[0-9.]+\" "
                                           "height=\"[0-9.]+\" fill=\"none\"")));
  EXPECT_NEAR(over[0].Top(), std::stod(frame[1]), 0.06);

  // Without stacking both start at 0.
  p.stack_bars = false;
  svg = RenderPlot(p);
  EXPECT_NEAR(Bars(svg, "a")[0].Bottom(), Bars(svg, "b")[0].Bottom(), 0.11);
}

TEST(RenderPlot, BarsAtOneXSitSideBySideAndStackInTheirOrder) {
  // Two runs at one offered load (a sweep repeated), then one run at another.
  PlotSpec p;
  p.id = "repeat";
  p.stack_bars = true;
  PlotSeries a = MakeSeries("a", "#111", SeriesKind::kBars), b = MakeSeries("b", "#222", SeriesKind::kBars);
  a.x = b.x = {20, 20, 30};
  a.y = {10, 40, 5};
  b.y = {20, 50, 5};
  p.series = {a, b};
  p.marks = {{"lo", 0, ""}, {"hi", 50, ""}};  // the bars inside the frame, not clipped at its edges
  std::string svg = RenderPlot(p);
  std::vector<Bar> under = Bars(svg, "a");
  ASSERT_EQ(under.size(), 3u);
  EXPECT_NEAR(under[0].x + under[0].width, under[1].x, 0.11);  // the second beside the first
  EXPECT_NEAR(under[0].width, under[2].width / 2, 0.11);       // each half a lone bar's width
  // b's second bar at 20 sits on a's second (40), not on a's first (10) nor on both (50).
  std::vector<Bar> over = Bars(svg, "b");
  ASSERT_EQ(over.size(), 3u);
  EXPECT_NEAR(over[1].Bottom(), under[1].Top(), 0.11);
  EXPECT_NEAR(over[0].Bottom(), under[0].Top(), 0.11);
  EXPECT_EQ(over[1].x, under[1].x);
}

TEST(RenderPlot, EveryStringIsEscaped) {
  PlotSpec p;
  p.id = "a\"b";
  p.title = "<script>x</script>";
  p.x_label = "x & y";
  PlotSeries s;
  s.name = "it's <b>";
  s.color = "red\" onload=\"x";
  s.x = {1, 2};
  s.y = {1, 2};
  s.markers = true;
  p.series = {s};
  p.marks = {{"<m>", 1, "<label>"}};
  std::string svg = RenderPlot(p);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_EQ(svg.find("<label>"), std::string::npos);
  EXPECT_EQ(svg.find("onload=\""), std::string::npos);
  EXPECT_NE(svg.find("data-plot=\"a&quot;b\""), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;x&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("x &amp; y"), std::string::npos);
  EXPECT_NE(svg.find("it&#39;s &lt;b&gt;"), std::string::npos);
}

}  // namespace
}  // namespace bottleneckd::svg_plot_test
