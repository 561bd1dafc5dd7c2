#include "analysis/segments.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace bottleneckd {
namespace {

// Windows whose median settles a new phase's level (fewer when min_windows
// is smaller, so a phase long enough to report is always settled).
constexpr size_t kSettleWindows = 3;

}  // namespace

size_t SegmentTracker::MinWindows() const { return std::max<size_t>(1, o_.min_windows); }
size_t SegmentTracker::BreakWindows() const { return std::max<size_t>(1, o_.break_windows); }
size_t SegmentTracker::SettleWindows() const { return std::min(kSettleWindows, MinWindows()); }

double SegmentTracker::Level() const { return sum_ / static_cast<double>(in_band_); }

bool SegmentTracker::InBand(double rate, double level) const { return std::fabs(rate - level) <= o_.tolerance * level; }

std::optional<Segment> SegmentTracker::Add(double offered_packets_per_second) {
  Sample w{index_++, offered_packets_per_second};
  if (!std::isfinite(w.rate) || w.rate < o_.floor_packets_per_second) {
    warmup_.clear();
    return EndPhase();
  }
  return Step(w);
}

std::optional<Segment> SegmentTracker::Flush() {
  warmup_.clear();
  return EndPhase();
}

std::optional<Segment> SegmentTracker::Current() const {
  if (!in_phase_ || in_band_ < MinWindows()) return std::nullopt;
  return Segment{first_, last_in_band_, Level()};
}

// A non-idle window: warms up a new phase or is judged against the level of
// the phase in progress.
std::optional<Segment> SegmentTracker::Step(const Sample& w) {
  if (in_phase_) return Judge(w, Level());
  warmup_.push_back(w);
  if (warmup_.size() >= SettleWindows()) Settle();
  // Settling ends no reportable phase: a phase that breaks inside the
  // warm-up has fewer in-band windows than SettleWindows() <= MinWindows().
  return std::nullopt;
}

std::optional<Segment> SegmentTracker::Judge(const Sample& w, double level) {
  if (InBand(w.rate, level)) {
    last_in_band_ = w.index;
    ++in_band_;
    sum_ += w.rate;
    pending_.clear();
    return std::nullopt;
  }
  pending_.push_back(w);
  if (pending_.size() < BreakWindows()) return std::nullopt;
  if (CatchesUp(pending_, level)) {
    // A stall and its catch-up: the pair carries the phase's packets, so
    // it counts as in band (docs/segments.md rule 5).
    for (const Sample& p : pending_) sum_ += p.rate;
    in_band_ += pending_.size();
    last_in_band_ = pending_.back().index;
    pending_.clear();
    return std::nullopt;
  }
  // The phase has ended at its last in-band window; the out-of-band run
  // starts the next one. Replaying it ends no phase: that takes an in-band
  // window plus BreakWindows() out-of-band ones, more than the run holds.
  std::vector<Sample> run = std::move(pending_);
  std::optional<Segment> ended = EndPhase();
  for (const Sample& p : run) Step(p);
  return ended;
}

// Out-of-band windows on both sides of the level whose mean is in its band:
// a sender (or a host) that stalled across a window's edge and sent what it
// owed in the next window. A step's windows all lie on one side.
bool SegmentTracker::CatchesUp(const std::vector<Sample>& run, double level) const {
  bool below = false, above = false;
  double sum = 0;
  for (const Sample& p : run) {
    below = below || p.rate < level;
    above = above || p.rate > level;
    sum += p.rate;
  }
  return below && above && InBand(sum / static_cast<double>(run.size()), level);
}

void SegmentTracker::Settle() {
  std::vector<Sample> windows = std::move(warmup_);
  warmup_.clear();
  std::vector<double> rates;
  for (const Sample& w : windows) rates.push_back(w.rate);
  std::sort(rates.begin(), rates.end());
  double median = rates[(rates.size() - 1) / 2];  // the lower one of an even count: a real window
  size_t k = 0;
  while (k < windows.size() && !InBand(windows[k].rate, median)) ++k;  // a step's straddling windows
  if (k == windows.size()) return;                                     // only with a negative or NaN tolerance
  in_phase_ = true;
  first_ = last_in_band_ = windows[k].index;
  in_band_ = 1;
  sum_ = windows[k].rate;
  for (size_t j = k + 1; j < windows.size(); ++j) {
    if (in_phase_)
      Judge(windows[j], median);
    else
      Step(windows[j]);  // the phase broke inside the warm-up: the rest warms up the next
  }
}

std::optional<Segment> SegmentTracker::EndPhase() {
  std::optional<Segment> s;
  if (in_phase_ && in_band_ >= MinWindows()) s = Segment{first_, last_in_band_, Level()};
  in_phase_ = false;
  first_ = last_in_band_ = in_band_ = 0;
  sum_ = 0;
  pending_.clear();
  return s;
}

std::vector<Segment> FindSegments(const std::vector<double>& offered_packets_per_second, const SegmentOptions& o) {
  std::vector<Segment> out;
  SegmentTracker t(o);
  for (double r : offered_packets_per_second)
    if (auto s = t.Add(r)) out.push_back(*s);
  if (auto s = t.Flush()) out.push_back(*s);
  return out;
}

}  // namespace bottleneckd
