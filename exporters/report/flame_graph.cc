#include "exporters/report/flame_graph.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string_view>
#include <vector>

#include "base/number_text.h"
#include "exporters/report/html_escape.h"

namespace bottleneckd {

namespace {

constexpr double kFlameRow = 16;  // px per stack level; a box is a pixel less, so levels stay apart
// Monospace at 11 px: 0.6 em a character (DejaVu Sans Mono, Debian's, 0.602),
// rounded up so a long label stays inside its box.
constexpr double kFlameCharWidth = 6.7;
constexpr double kFlameTextPad = 3;  // px between a box's edge and its label
constexpr double kFlameTop = 26;     // the title's band
constexpr double kFlameBottom = 24;  // the caption's band

// The folded stacks merged into a tree: a node per frame name under its
// parent, nodes[0] being "all". Indices, not pointers: the vector grows.
struct FlameNode {
  uint64_t samples = 0;                    // of the stacks through this frame
  std::map<std::string, size_t> children;  // by name, flamegraph.pl's order
};

struct FlameTree {
  std::vector<FlameNode> nodes;
  uint64_t cut = 0;  // samples of stacks with more than max_depth frames
};

FlameTree BuildFlameTree(const FoldedProfile& p, int max_depth) {
  FlameTree t;
  t.nodes.emplace_back();
  for (const auto& [stack, samples] : p.stacks) {
    if (samples == 0) continue;
    t.nodes[0].samples += samples;
    size_t at = 0;
    int depth = 0;
    for (size_t begin = 0;;) {
      size_t end = stack.find(';', begin);
      if (++depth > max_depth) {
        t.cut += samples;
        break;
      }
      std::string name = stack.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
      auto [it, added] = t.nodes[at].children.try_emplace(std::move(name), t.nodes.size());
      size_t child = it->second;
      if (added) t.nodes.emplace_back();
      at = child;
      t.nodes[at].samples += samples;
      if (end == std::string::npos) break;
      begin = end + 1;
    }
  }
  return t;
}

// A box to draw, in samples from the left edge.
struct FlameBox {
  std::string_view name;
  uint64_t start = 0, samples = 0;
  int depth = 0;
};

struct FlameLayout {
  std::vector<FlameBox> boxes;
  uint64_t hidden_samples = 0, hidden_frames = 0;
  int depth = 0;  // the deepest drawn
};

// Depth first, callers before callees: the boxes of at least `min_share` of
// the samples (a share, not a count times min_share, so 10 of 10000 is
// exactly 0.001 and stays).
void LayOutFlame(const FlameTree& t, size_t node, std::string_view name, uint64_t start, int depth, double min_share,
                 FlameLayout* out) {
  out->boxes.push_back({name, start, t.nodes[node].samples, depth});
  out->depth = std::max(out->depth, depth);
  for (const auto& [child_name, child] : t.nodes[node].children) {
    uint64_t n = t.nodes[child].samples;
    if (static_cast<double>(n) / static_cast<double>(t.nodes[0].samples) < min_share) {
      out->hidden_samples += n;
      ++out->hidden_frames;
    } else {
      LayOutFlame(t, child, child_name, start, depth + 1, min_share, out);
    }
    start += n;
  }
}

const char* FlameKindOf(std::string_view name, int depth) {
  if (depth == 0) return "root";
  if (name.size() >= 2 && name.front() == '[' && name.back() == ']') return "marker";
  if (depth == 1) return "thread";
  constexpr std::string_view kKernel = " [kernel]";
  if (name.size() >= kKernel.size() && name.substr(name.size() - kKernel.size()) == kKernel) return "kernel";
  return "user";
}

// The kind's palette, shaded by the name's FNV-1a hash: the same name, the same colour.
std::string FlameColor(std::string_view name, std::string_view kind) {
  uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  const double v1 = static_cast<double>((h >> 8) & 0xff) / 255, v2 = static_cast<double>((h >> 16) & 0xff) / 255;
  double r, g, b;
  if (kind == "user") {  // flamegraph.pl's "hot"
    r = 205 + 50 * v2, g = 230 * v1, b = 55 * v2;
  } else if (kind == "kernel") {  // its "aqua"
    r = 50 + 60 * v1, g = 165 + 55 * v1, b = 165 + 55 * v2;
  } else if (kind == "thread") {  // its "purple"
    r = 190 + 65 * v1, g = 80 + 60 * v1, b = 190 + 65 * v1;
  } else if (kind == "marker") {
    r = g = b = 170 + 30 * v1;
  } else {
    r = g = b = 215;
  }
  char out[8];
  std::snprintf(out, sizeof out, "#%02x%02x%02x", static_cast<int>(r), static_cast<int>(g), static_cast<int>(b));
  return out;
}

// The name as much as fits `width` px: whole, or cut with an ellipsis at a
// UTF-8 character's start, or "" when not three characters fit.
std::string FlameLabel(std::string_view name, double width) {
  const double room = (width - 2 * kFlameTextPad) / kFlameCharWidth;
  const size_t fits = room > 0 ? static_cast<size_t>(room) : 0;
  size_t chars = 0;
  for (char c : name) chars += (static_cast<uint8_t>(c) & 0xc0) != 0x80;
  if (chars <= fits) return std::string(name);
  if (fits < 3) return "";
  size_t keep = 0, bytes = 0;
  while (bytes < name.size()) {
    if ((static_cast<uint8_t>(name[bytes]) & 0xc0) != 0x80 && keep++ == fits - 1) break;
    ++bytes;
  }
  return std::string(name.substr(0, bytes)) + "\u2026";
}

std::string Px(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

}  // namespace

std::string FlameGraphSvg(const FoldedProfile& p, const FlameGraphOptions& options) {
  const int max_depth = std::max(options.max_depth, 1);
  const FlameTree tree = BuildFlameTree(p, max_depth);
  const uint64_t total = tree.nodes[0].samples;
  if (p.samples == 0 || total == 0) return "";
  FlameLayout layout;
  LayOutFlame(tree, 0, "all", 0, 0, options.min_share, &layout);

  const double width = options.width, span = std::max(width - 2 * kFlameMargin, 1.0);
  const double height = kFlameTop + (layout.depth + 1) * kFlameRow + kFlameBottom;
  const double scale = span / static_cast<double>(total);
  const std::string n = std::to_string(total);
  std::string o = "<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" data-samples=\"" + n +
                  "\" data-frames=\"" + std::to_string(layout.boxes.size()) + "\" data-hidden-samples=\"" +
                  std::to_string(layout.hidden_samples) + "\" data-hidden-frames=\"" +
                  std::to_string(layout.hidden_frames) + "\" data-cut-samples=\"" + std::to_string(tree.cut) +
                  "\" data-max-depth=\"" + std::to_string(max_depth) + "\" width=\"" + Px(width) + "\" height=\"" +
                  Px(height) + "\" viewBox=\"0 0 " + Px(width) + " " + Px(height) +
                  "\" role=\"img\">\n<text class=\"title\" x=\"" + Px(kFlameMargin) + "\" y=\"16\">" +
                  HtmlEscape(options.what) + " flame graph: " + n + " " + HtmlEscape(options.unit) +
                  "; a box is a function on the stack, as wide as the " + HtmlEscape(options.unit) +
                  " through it, its callees on it</text>\n<g font-family=\"monospace\" font-size=\"11\">\n";
  for (const FlameBox& box : layout.boxes) {
    const std::string_view kind = FlameKindOf(box.name, box.depth);
    const double x = kFlameMargin + static_cast<double>(box.start) * scale;
    const double w = static_cast<double>(box.samples) * scale;
    const double y = kFlameTop + (layout.depth - box.depth) * kFlameRow;
    const std::string name = HtmlEscape(box.name), samples = std::to_string(box.samples);
    char share[32];
    std::snprintf(share, sizeof share, "%.2f %%",
                  100.0 * static_cast<double>(box.samples) / static_cast<double>(total));
    o += "<g class=\"frame\" data-name=\"" + name + "\" data-samples=\"" + samples + "\" data-depth=\"" +
         std::to_string(box.depth) + "\" data-kind=\"" + std::string(kind) + "\"><title>" + name + " (" + samples +
         " " + HtmlEscape(options.unit) + ", " + share + ")</title><rect x=\"" + Px(x) + "\" y=\"" + Px(y) +
         "\" width=\"" + Px(w) + "\" height=\"" + Px(kFlameRow - 1) + "\" rx=\"2\" fill=\"" +
         FlameColor(box.name, kind) + "\"/>";
    const std::string label = FlameLabel(box.name, w);
    if (!label.empty())
      o += "<text x=\"" + Px(x + kFlameTextPad) + "\" y=\"" + Px(y + kFlameRow - 4.5) + "\">" + HtmlEscape(label) +
           "</text>";
    o += "</g>\n";
  }
  o += "</g>\n<text class=\"caption\" x=\"" + Px(kFlameMargin) + "\" y=\"" + Px(height - 8) + "\">" +
       std::to_string(layout.hidden_samples) + " " + HtmlEscape(options.unit) + " in " +
       std::to_string(layout.hidden_frames) + " frames narrower than " + RoundedText(options.min_share * 100) +
       " % of the width are not drawn (nor their callees); stacks are drawn up to " + std::to_string(max_depth) +
       " frames deep, and " + std::to_string(tree.cut) + " " + HtmlEscape(options.unit) +
       " were in deeper stacks</text>\n</svg>\n";
  return o;
}

}  // namespace bottleneckd
