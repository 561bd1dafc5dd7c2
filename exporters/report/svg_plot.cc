#include "exporters/report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>

#include "base/number_text.h"
#include "exporters/report/html_escape.h"

namespace bottleneckd {

PlotSeries MakeSeries(std::string name, std::string color, SeriesKind kind, bool right_axis) {
  PlotSeries s;
  s.name = std::move(name);
  s.color = std::move(color);
  s.kind = kind;
  s.right_axis = right_axis;
  return s;
}

PlotSpec MakePlot(std::string id, std::string title, std::string x_label, std::string y_label) {
  PlotSpec p;
  p.id = std::move(id);
  p.title = std::move(title);
  p.x_label = std::move(x_label);
  p.y_label = std::move(y_label);
  return p;
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    double half = lo == 0 ? 0.5 : std::fabs(lo) * 0.5;
    lo -= half;
    hi += half;
  }
  target = std::max(target, 2);
  double raw = (hi - lo) / (target - 1);
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / mag;
  double step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
  if (!(step > 0) || !std::isfinite(step)) return {};
  double first = std::floor(lo / step + 1e-9), last = std::ceil(hi / step - 1e-9);
  std::vector<double> ticks;
  for (double k = first; k <= last && ticks.size() < 1000; k += 1) {
    double v = k * step;
    if (std::fabs(v) < step * 1e-9) v = 0;  // no "-0"
    ticks.push_back(v);
  }
  if (ticks.size() < 2) ticks.push_back(ticks.empty() ? lo : ticks.back() + step);
  return ticks;
}

std::string TickLabel(double v, double step, double largest) {
  if (!std::isfinite(v)) return "";
  if (v == 0) return "0";
  double unit = 1;
  const char* suffix = "";
  double a = std::fabs(largest);
  if (a >= 1e9) {
    unit = 1e9, suffix = "G";
  } else if (a >= 1e6) {
    unit = 1e6, suffix = "M";
  } else if (a >= 1e3) {
    unit = 1e3, suffix = "k";
  }
  double s = std::fabs(step) / unit;
  int decimals = 0;
  if (s > 0 && std::isfinite(s)) decimals = std::clamp(static_cast<int>(-std::floor(std::log10(s) + 1e-9)), 0, 6);
  double x = v / unit;
  if (std::fabs(x) < 1e-12) x = 0;
  char b[48];
  std::snprintf(b, sizeof b, "%.*f%s", decimals, x, suffix);
  return b;
}

namespace {

std::string C(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// Exact for integers up to 2^53 (a capture's packet counts), so tests can compare totals.
std::string Total(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

struct Axis {
  double lo = 0, hi = 1;
  std::vector<double> ticks;
  bool used = false;
  double Step() const { return ticks.size() >= 2 ? ticks[1] - ticks[0] : 1; }
  double Largest() const { return std::max(std::fabs(lo), std::fabs(hi)); }
  std::string Label(double t) const { return HtmlEscape(TickLabel(t, Step(), Largest())); }
};

using Points = std::vector<std::pair<double, double>>;

Points FinitePoints(const PlotSeries& s) {
  Points p;
  size_t n = std::min(s.x.size(), s.y.size());
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) p.emplace_back(s.x[i], s.y[i]);
  if (s.kind != SeriesKind::kBars && s.sort_by_x)
    std::stable_sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return p;
}

// The axis over `values` (and 0 when asked), widened to its ticks.
Axis MakeAxis(const std::vector<double>& values, bool from_zero, int target) {
  Axis a;
  if (values.empty()) return a;
  a.used = true;
  double lo = *std::min_element(values.begin(), values.end());
  double hi = *std::max_element(values.begin(), values.end());
  if (from_zero) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
  // All zero: 0 at the bottom (or left), not the middle: nothing the report
  // plots (rates, shares) is negative.
  if (lo == 0 && hi == 0) hi = 1;
  a.ticks = NiceTicks(lo, hi, target);
  if (a.ticks.size() >= 2) a.lo = a.ticks.front(), a.hi = a.ticks.back();
  return a;
}

struct Frame {
  double left, right, top, bottom;  // pixel edges of the plot area
  Axis x, y, y2;
  bool x_categories_empty = true;
  double X(double v) const { return left + (v - x.lo) / (x.hi - x.lo) * (right - left); }
  double Y(const Axis& a, double v) const { return bottom - (v - a.lo) / (a.hi - a.lo) * (bottom - top); }
};

// Smallest gap between distinct x values, for bar widths.
double MinGap(const Points& p, double fallback) {
  std::vector<double> xs;
  for (const auto& [x, y] : p) xs.push_back(x);
  std::sort(xs.begin(), xs.end());
  double gap = fallback;
  for (size_t i = 1; i < xs.size(); ++i)
    if (xs[i] > xs[i - 1]) gap = std::min(gap, xs[i] - xs[i - 1]);
  return gap;
}

// For each point, how many points before it have its x.
std::vector<size_t> Occurrences(const Points& p) {
  std::map<double, size_t> seen;
  std::vector<size_t> out;
  for (const auto& pt : p) out.push_back(seen[pt.first]++);
  return out;
}

// `bases`: where each of p's bars starts (stacked bars), else 0.
// p's lines or areas, split where neighbours are more than `over` apart in x
// (never when `over` is 0, or for points not in x order).
std::vector<Points> Pieces(const Points& p, double over) {
  std::vector<Points> out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (out.empty() || (over > 0 && p[i].first - p[i - 1].first > over)) out.emplace_back();
    out.back().push_back(p[i]);
  }
  return out;
}

void DrawSeries(const PlotSeries& s, const Points& p, const std::vector<double>& bases, const Frame& f,
                double break_x_over, std::string* o) {
  const std::vector<Points> pieces =
      s.kind == SeriesKind::kBars ? std::vector<Points>{} : Pieces(p, s.sort_by_x ? break_x_over : 0);
  const Axis& a = s.right_axis ? f.y2 : f.y;
  std::string color = HtmlEscape(s.color.empty() ? "#555" : s.color);
  double total = 0;
  for (const auto& pt : p) total += pt.second;
  const char* kind = s.kind == SeriesKind::kBars ? "bars" : s.kind == SeriesKind::kArea ? "area" : "line";
  *o += "<g class=\"series\" data-series=\"" + HtmlEscape(s.name) + "\" data-kind=\"" + kind + "\" data-points=\"" +
        std::to_string(p.size()) + "\" data-total=\"" + Total(total) + "\" data-pieces=\"" +
        std::to_string(pieces.size()) + "\"" + (s.emphasis ? " data-emphasis=\"1\"" : "") + ">";
  double base = f.Y(a, std::clamp(0.0, a.lo, a.hi));
  const std::string stroke_width = s.emphasis ? "3" : "1.5";
  if (s.kind == SeriesKind::kBars) {
    // Categories are one apart; else the narrower of the closest gap and a 25th of the axis.
    double w = f.x_categories_empty ? std::min(MinGap(p, f.x.hi - f.x.lo), (f.x.hi - f.x.lo) / 25) * 0.8 : 0.8;
    const std::string outline = s.emphasis ? "\" stroke=\"#222\" stroke-width=\"1.5" : "";
    std::vector<size_t> nth = Occurrences(p);  // bars at one x share its width, side by side
    std::map<double, size_t> at_x;
    for (const auto& pt : p) ++at_x[pt.first];
    for (size_t i = 0; i < p.size(); ++i) {
      const auto& [x, y] = p[i];
      double from = i < bases.size() ? f.Y(a, std::clamp(bases[i], a.lo, a.hi)) : base;
      double share = w / static_cast<double>(at_x[x]), left = x - w / 2 + share * static_cast<double>(nth[i]);
      double x0 = std::max(f.X(left), f.left), x1 = std::min(f.X(left + share), f.right);
      double yy = f.Y(a, i < bases.size() ? bases[i] + y : y);
      *o += "<rect x=\"" + C(x0) + "\" y=\"" + C(std::min(yy, from)) + "\" width=\"" + C(std::max(x1 - x0, 1.0)) +
            "\" height=\"" + C(std::fabs(from - yy)) + "\" fill=\"" + color + outline + "\"><title>" +
            HtmlEscape(s.name) + ": " + RoundedText(y) + "</title></rect>";
    }
  } else {
    for (const Points& q : pieces) {
      std::string d;
      for (size_t i = 0; i < q.size(); ++i) d += (i ? " L" : "M") + C(f.X(q[i].first)) + " " + C(f.Y(a, q[i].second));
      if (s.kind == SeriesKind::kArea) {
        std::string area =
            d + " L" + C(f.X(q.back().first)) + " " + C(base) + " L" + C(f.X(q.front().first)) + " " + C(base) + " Z";
        *o += "<path d=\"" + area + "\" fill=\"" + color + "\" fill-opacity=\"0.25\" stroke=\"none\"/>";
      }
      *o += "<path d=\"" + d + "\" fill=\"none\" stroke=\"" + color + "\" stroke-width=\"" + stroke_width + "\"/>";
      // A lone point (a piece of one) gets its dot, or it would not show.
      if (s.markers || q.size() == 1)
        for (const auto& [x, y] : q)
          *o += "<circle cx=\"" + C(f.X(x)) + "\" cy=\"" + C(f.Y(a, y)) + "\" r=\"3\" fill=\"" + color + "\"><title>" +
                HtmlEscape(s.name) + ": " + RoundedText(x) + ", " + RoundedText(y) + "</title></circle>";
    }
  }
  *o += "</g>\n";
}

void DrawAxes(const PlotSpec& spec, const Frame& f, std::string* o) {
  const std::string grid = "stroke=\"#ddd\" stroke-width=\"1\"";
  // y ticks (left), grid lines across
  if (f.y.ticks.size() >= 2) {
    for (double t : f.y.ticks) {
      double y = f.Y(f.y, t);
      *o += "<line x1=\"" + C(f.left) + "\" x2=\"" + C(f.right) + "\" y1=\"" + C(y) + "\" y2=\"" + C(y) + "\" " + grid +
            "/><text class=\"tick\" x=\"" + C(f.left - 4) + "\" y=\"" + C(y + 4) + "\" text-anchor=\"end\">" +
            f.y.Label(t) + "</text>";
    }
  }
  if (f.y2.used && f.y2.ticks.size() >= 2) {
    for (double t : f.y2.ticks)
      *o += "<text class=\"tick\" x=\"" + C(f.right + 4) + "\" y=\"" + C(f.Y(f.y2, t) + 4) + "\">" + f.y2.Label(t) +
            "</text>";
  }
  if (!spec.x_categories.empty()) {
    for (size_t i = 0; i < spec.x_categories.size(); ++i)
      *o += "<text class=\"tick\" x=\"" + C(f.X(static_cast<double>(i))) + "\" y=\"" + C(f.bottom + 14) +
            "\" text-anchor=\"middle\">" + HtmlEscape(spec.x_categories[i]) + "</text>";
  } else if (f.x.ticks.size() >= 2) {
    for (double t : f.x.ticks)
      *o += "<text class=\"tick\" x=\"" + C(f.X(t)) + "\" y=\"" + C(f.bottom + 14) + "\" text-anchor=\"middle\">" +
            f.x.Label(t) + "</text>";
  }
  *o += "<rect x=\"" + C(f.left) + "\" y=\"" + C(f.top) + "\" width=\"" + C(f.right - f.left) + "\" height=\"" +
        C(f.bottom - f.top) + "\" fill=\"none\" stroke=\"#888\"/>";
  *o += "<text class=\"label\" x=\"" + C((f.left + f.right) / 2) + "\" y=\"" + C(f.bottom + 30) +
        "\" text-anchor=\"middle\">" + HtmlEscape(spec.x_label) + "</text>";
  *o += "<text class=\"label\" x=\"12\" y=\"" + C((f.top + f.bottom) / 2) + "\" text-anchor=\"middle\" " +
        "transform=\"rotate(-90 12 " + C((f.top + f.bottom) / 2) + ")\">" + HtmlEscape(spec.y_label) + "</text>";
  if (f.y2.used) {
    double x = spec.width - 10.0;
    *o += "<text class=\"label\" x=\"" + C(x) + "\" y=\"" + C((f.top + f.bottom) / 2) +
          "\" text-anchor=\"middle\" transform=\"rotate(90 " + C(x) + " " + C((f.top + f.bottom) / 2) + ")\">" +
          HtmlEscape(spec.y2_label) + "</text>";
  }
}

// The legend's entry widths (estimated from the name) and the rows they wrap into.
double LegendWidth(const PlotSeries& s) {
  return 30 +
         6.5 * static_cast<double>(s.name.size() + (s.right_axis ? 8 : 0) + (s.note.empty() ? 0 : s.note.size() + 1));
}

int LegendRows(const PlotSpec& spec) {
  int rows = 1;
  double x = 60;
  for (const PlotSeries& s : spec.series) {
    if (x + LegendWidth(s) > spec.width && x > 60) ++rows, x = 60;
    x += LegendWidth(s);
  }
  return rows;
}

void DrawLegend(const PlotSpec& spec, double y, std::string* o) {
  double x = 60;
  for (const PlotSeries& s : spec.series) {
    if (x + LegendWidth(s) > spec.width && x > 60) y += 14, x = 60;
    *o += "<rect x=\"" + C(x) + "\" y=\"" + C(y - 9) + "\" width=\"12\" height=\"10\" fill=\"" +
          HtmlEscape(s.color.empty() ? "#555" : s.color) + "\"/><text class=\"legend\" x=\"" + C(x + 16) + "\" y=\"" +
          C(y) + "\"" + (s.emphasis ? " font-weight=\"bold\"" : "") + ">" + HtmlEscape(s.name) +
          (s.right_axis ? " (right)" : "") + (s.note.empty() ? "" : " " + HtmlEscape(s.note)) + "</text>";
    x += LegendWidth(s);
  }
}

}  // namespace

std::string RenderPlot(const PlotSpec& spec) {
  std::vector<Points> points;
  std::vector<std::vector<double>> bases(spec.series.size());  // stacked bars' starts
  std::map<std::tuple<bool, double, size_t>, double> stacked;  // (right axis, x, nth at x) -> the stack's top
  std::vector<double> xs, ys, y2s;
  size_t drawn = 0;
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const PlotSeries& s = spec.series[i];
    points.push_back(FinitePoints(s));
    bool stack = spec.stack_bars && s.kind == SeriesKind::kBars;
    std::vector<size_t> nth = Occurrences(points.back());
    for (size_t k = 0; k < points.back().size(); ++k) {
      const auto& [x, y] = points.back()[k];
      xs.push_back(x);
      double top = y;
      if (stack) {
        double& height = stacked[{s.right_axis, x, nth[k]}];
        bases[i].push_back(height);
        top = height += y;
      }
      (s.right_axis ? y2s : ys).push_back(top);
    }
    drawn += points.back().size();
  }
  std::string o = "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" data-plot=\"" + HtmlEscape(spec.id) +
                  "\" data-series=\"" + std::to_string(spec.series.size()) + "\"" + (drawn ? "" : " data-empty=\"1\"") +
                  " width=\"" + std::to_string(spec.width) + "\" height=\"" + std::to_string(spec.height) +
                  "\" viewBox=\"0 0 " + std::to_string(spec.width) + " " + std::to_string(spec.height) +
                  "\" role=\"img\">\n";
  o += "<text class=\"title\" x=\"60\" y=\"16\">" + HtmlEscape(spec.title) + "</text>\n";
  Frame f;
  f.left = 60;
  f.right = spec.width - (y2s.empty() ? 20.0 : 60.0);
  f.top = 26;
  const int legend_rows = LegendRows(spec);
  f.bottom = spec.height - 56.0 - 14.0 * (legend_rows - 1);
  if (!drawn) {
    o += "<text class=\"nodata\" x=\"" + C(spec.width / 2.0) + "\" y=\"" + C(spec.height / 2.0) +
         "\" text-anchor=\"middle\">no data</text>\n";
    for (size_t i = 0; i < spec.series.size(); ++i)
      DrawSeries(spec.series[i], points[i], bases[i], f, spec.break_x_over, &o);
    return o + "</svg>\n";
  }
  for (const PlotMark& m : spec.marks)
    if (std::isfinite(m.x)) xs.push_back(m.x);
  for (const PlotBand& b : spec.bands)
    if (std::isfinite(b.x0) && std::isfinite(b.x1)) xs.push_back(b.x0), xs.push_back(b.x1);
  if (!spec.x_categories.empty()) {
    f.x.used = true;
    f.x.lo = -0.5;
    f.x.hi = static_cast<double>(spec.x_categories.size()) - 0.5;
  } else {
    f.x = MakeAxis(xs, false, 8);
  }
  f.y = MakeAxis(ys, spec.y_from_zero, 6);
  f.y2 = MakeAxis(y2s, spec.y_from_zero, 6);
  f.x_categories_empty = spec.x_categories.empty();
  for (const PlotBand& b : spec.bands) {
    if (!std::isfinite(b.x0) || !std::isfinite(b.x1)) continue;
    double x0 = std::clamp(f.X(std::min(b.x0, b.x1)), f.left, f.right);
    double x1 = std::clamp(f.X(std::max(b.x0, b.x1)), f.left, f.right);
    o += "<g class=\"band\" data-band=\"" + HtmlEscape(b.name) + "\"><rect x=\"" + C(x0) + "\" y=\"" + C(f.top) +
         "\" width=\"" + C(std::max(x1 - x0, 2.0)) + "\" height=\"" + C(f.bottom - f.top) +
         "\" fill=\"#f3d27a\" fill-opacity=\"0.35\"/><text class=\"band-label\" x=\"" + C(x0 + 2) + "\" y=\"" +
         C(f.top + 11) + "\">" + HtmlEscape(b.label) + "</text></g>\n";
  }
  DrawAxes(spec, f, &o);
  o += "\n";
  for (size_t i = 0; i < spec.series.size(); ++i)
    DrawSeries(spec.series[i], points[i], bases[i], f, spec.break_x_over, &o);
  for (size_t i = 0; i < spec.marks.size(); ++i) {
    const PlotMark& m = spec.marks[i];
    if (!std::isfinite(m.x)) continue;
    double x = f.X(m.x);
    double label_y = i % 2 ? f.top + 24 : f.bottom - 4;  // two marks at one x stay readable
    o += "<g class=\"mark\" data-mark=\"" + HtmlEscape(m.name) + "\" data-x=\"" + RoundedText(m.x) + "\"><line x1=\"" +
         C(x) + "\" x2=\"" + C(x) + "\" y1=\"" + C(f.top) + "\" y2=\"" + C(f.bottom) +
         "\" stroke=\"#c0392b\" stroke-dasharray=\"4 3\"/><text class=\"mark-label\" x=\"" + C(x + 3) + "\" y=\"" +
         C(label_y) + "\">" + HtmlEscape(m.label) + "</text></g>\n";
  }
  DrawLegend(spec, spec.height - 6.0 - 14.0 * (legend_rows - 1), &o);
  return o + "\n</svg>\n";
}

}  // namespace bottleneckd
