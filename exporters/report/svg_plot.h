// A small SVG plot renderer for the HTML report (report_html.cc,
// pcap_report_html.cc): axes with nice ticks, lines, filled areas and bars
// on a left and an optional right y axis, vertical marks and shaded x bands,
// as one inline <svg> element: no script, no font or stylesheet outside it.
//
// Tests count what is drawn through data attributes:
//   <svg class="plot" data-plot="ID" data-series="N">, and per series
//   <g class="series" data-series="NAME" data-kind="line|area|bars"
//      data-points="P" data-total="SUM" data-pieces="K">
// where P is the number of points drawn (finite x and y) and SUM their y
// total (a stacked bar's own height, not its top), K the separate lines or
// areas it was drawn as (PlotSpec::break_x_over; 0 for bars); an emphasised series
// has data-emphasis="1". Non-finite values (NaN, inf) are skipped, never written as
// coordinates. A plot with no finite point says "no data" (data-empty="1").
#pragma once

#include <string>
#include <vector>

namespace bottleneckd {

enum class SeriesKind { kLine, kArea, kBars };

struct PlotSeries {
  std::string name;  // data-series and the legend
  SeriesKind kind = SeriesKind::kLine;
  std::string color;  // CSS colour
  bool right_axis = false;
  bool markers = false;      // a dot at every point (lines)
  bool sort_by_x = true;     // lines and areas joined in x order, else in the given order
  bool emphasis = false;     // drawn thicker (bars outlined), `note` after its legend name
  std::string note;          // legend only ("first to lose")
  std::vector<double> x, y;  // same length; extra values of the longer one are ignored
};

// A vertical line at x with a label (the knee, the MLFRR).
struct PlotMark {
  std::string name;  // data-mark
  double x = 0;
  std::string label;
};

// A shaded x range with a label (the plateau, a run, a load step).
struct PlotBand {
  std::string name;  // data-band
  double x0 = 0, x1 = 0;
  std::string label;
};

struct PlotSpec {
  std::string id;     // data-plot
  std::string title;  // drawn above the plot
  std::string x_label, y_label, y2_label;
  // Categorical x: tick i labelled categories[i] (series x are indices).
  std::vector<std::string> x_categories;
  std::vector<PlotSeries> series;
  std::vector<PlotMark> marks;
  std::vector<PlotBand> bands;
  int width = 720, height = 280;
  bool y_from_zero = true;  // include 0 in the y range(s)
  // Bars of one series at one x are drawn side by side in their order (two
  // runs at the same offered load). With stack_bars, bars series stack in
  // series order: the n-th bar at an x sits on the n-th bars at that x of
  // the series before it (per axis); else each is drawn from 0.
  bool stack_bars = false;
  // Lines and areas break where neighbouring points (in x order) are more
  // than this apart: a stretch with no samples (between two runs of a run
  // store) is drawn empty, not bridged by a straight line. 0: never break.
  // Each series group says how many pieces it drew (data-pieces).
  double break_x_over = 0;
};

// A series or plot with its names set (the rest defaulted).
PlotSeries MakeSeries(std::string name, std::string color, SeriesKind kind = SeriesKind::kLine,
                      bool right_axis = false);
PlotSpec MakePlot(std::string id, std::string title, std::string x_label, std::string y_label);

// At most about `target` (>= 2) round tick values (1, 2, 5 x 10^k steps)
// covering [lo, hi], the first <= lo and the last >= hi. lo == hi is
// widened first; non-finite bounds give no ticks.
std::vector<double> NiceTicks(double lo, double hi, int target);

// A tick label of an axis whose largest tick is `largest` (in magnitude):
// the value in k, M or G when `largest` reaches a thousand, a million or a
// billion (so one axis has one suffix), with as many decimals as `step`
// needs ("1.5k", "250", "0.25"); 0 is "0".
std::string TickLabel(double v, double step, double largest);

// The <svg> element (with its title and legend) for `spec`.
std::string RenderPlot(const PlotSpec& spec);

}  // namespace bottleneckd
