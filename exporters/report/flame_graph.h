// A run's on-CPU profile (sources/profile_fold.h), or its off-CPU stacks
// weighted by time (FlameGraphOptions::unit), as an inline SVG flame
// graph for the HTML report (report_html.cc): one box per frame, as wide as
// its share of the samples, no script, so it reads the same offline and in
// a mail. Its tooltips are SVG <title>s; there is no zoom or search.
//
// Layout: Brendan Gregg's flame graph, root at the bottom, callees stacked
// on their callers, not the icicle (root at the top). It is what
// flamegraph.pl draws from the same `--format folded` text, so a reader
// who knows that picture, or who draws it from the folded stacks, sees the
// same shape here. The bottom row is "all" (every sample), the row above it
// the threads (a folded stack's first frame), then their outermost
// functions; a box's width is its samples (the stacks through it), and the
// part of it nothing is stacked on is its self time.
//
// Frames of one name under one parent are one box (a tree merged from the
// folded stacks); siblings are ordered by name, as flamegraph.pl orders
// them, so the x axis means nothing but "same caller". Colours are fixed by
// the frame's kind, the shade by a hash of its name (flamegraph.pl's
// --hash), so one function keeps its colour from run to run: threads
// violet, user-space functions warm (red to yellow), kernel functions
// (" [kernel]") aqua, the profiler's markers ("[truncated]", "[unknown]",
// "[lost]", "[other stacks]", any "[...]") and "all" grey.
//
// Bounded: a frame narrower than `min_share` of the width is not drawn (nor
// anything on it), and frames deeper than `max_depth` are cut; the caption
// under the graph says how many samples each hides.
//
// For tests and scripts:
//   <svg class="flame" data-samples="N" data-frames="F" data-hidden-samples="H"
//        data-hidden-frames="K" data-cut-samples="C" data-max-depth="D">
// and per frame drawn
//   <g class="frame" data-name="NAME" data-samples="N" data-depth="D" data-kind="KIND">
//     <title>NAME (N samples, P %)</title><rect .../><text>NAME, cut to fit</text></g>
// where H counts the samples of the frames left out as too narrow and K those
// frames (each with its callees, which are not counted again), and C the
// samples of stacks cut at depth D.
#pragma once

#include <string>

#include "sources/profile_fold.h"

namespace bottleneckd {

struct FlameGraphOptions {
  int width = 1100;          // the <svg>'s width in px; the frames span it less kFlameMargin each side
  int max_depth = 64;        // frames drawn above "all"; the thread is depth 1
  double min_share = 0.001;  // of the samples: narrower frames are dropped (0.1 % of the width)
  // What the graph is and what its counts are, in its title, tooltips and
  // caption: "on-CPU" and "samples", or "off-CPU" and "us" (a run's off-CPU
  // stacks, window/offcpu_stacks.h: microseconds off the CPU).
  std::string what = "on-CPU";
  std::string unit = "samples";
};

// Pixels left empty on each side of the frames.
inline constexpr double kFlameMargin = 10;

// The <svg> element, its title and caption; "" when `p` has no samples.
// Names, tooltips and attributes are HTML-escaped (html_escape.h).
std::string FlameGraphSvg(const FoldedProfile& p, const FlameGraphOptions& options = {});

}  // namespace bottleneckd
