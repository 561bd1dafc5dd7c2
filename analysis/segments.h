// Segments: the steady load phases of a sweep, found from the offered load of
// consecutive windows, so a sweep recorded as one run (or a live host) is
// reported step by step like the seeds' table. A segment is a span of at
// least min_windows windows whose offered rate stays within `tolerance` of
// the segment's level; the windows between phases (the step itself) and idle
// windows (offered below floor) belong to no segment. One window outside the
// band inside a phase (a blip) does not end it; `break_windows` in a row do.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace bottleneckd {

struct SegmentOptions {
  // Relative half-width of the band around the level. 0.07 lies between
  // +-5 % noise on a steady rate (kept in band) and the seeds' 9.1 % step
  // (550 -> 600 Mbit/s, split); see docs/segments.md.
  double tolerance = 0.07;
  double floor_packets_per_second = 100;  // below this a window is idle
  size_t min_windows = 5;                 // a shorter phase is not a segment
  size_t break_windows = 2;               // consecutive out-of-band windows that end a phase
};

struct Segment {
  size_t first = 0, last = 0;  // window indices (inclusive), in the order Add saw them
  double level = 0;            // mean offered rate of its in-band windows (blips excluded)
};

// Online: feed every window's offered rate; Add returns a segment when the
// phase it belongs to has ended (so a live daemon stores it at once), Flush
// ends the last one (end of a run or recording).
//
// The rule (docs/segments.md): a window is idle when its rate is below the
// floor, NaN or infinite; an idle window ends the phase at once. A phase's
// level is settled on its first min(3, min_windows) windows: their median
// is the level they are judged by, and leading windows outside its band
// (a step's straddling window) are dropped. After that the level is the mean
// of the in-band windows and a window is in band when |rate - level| <=
// tolerance x level. Fewer than break_windows out-of-band windows in a row
// are a blip (in the segment only when in-band windows follow, never in the
// level); break_windows in a row end the phase at its last in-band window
// and start the next phase, unless they lie on both sides of the level with
// their mean in band (a stall and its catch-up across a window's edge: they
// count as in band, in the level too). Add returns the ended phase at the window that
// ends it (the idle one or the break_windows-th out-of-band one), at most
// one per call; Flush returns the phase in progress and forgets trailing
// blips and unsettled windows (indices go on counting). A phase with fewer
// than min_windows in-band windows is no segment. Not thread-safe.
class SegmentTracker {
 public:
  explicit SegmentTracker(const SegmentOptions& o = {}) : o_(o) {}
  std::optional<Segment> Add(double offered_packets_per_second);
  std::optional<Segment> Flush();
  // The phase being followed, when it is already long enough to be a segment.
  std::optional<Segment> Current() const;

 private:
  struct Sample {
    size_t index;
    double rate;
  };
  std::optional<Segment> Step(const Sample& w);
  std::optional<Segment> Judge(const Sample& w, double level);
  void Settle();
  std::optional<Segment> EndPhase();
  bool InBand(double rate, double level) const;
  bool CatchesUp(const std::vector<Sample>& run, double level) const;
  double Level() const;
  size_t MinWindows() const;
  size_t BreakWindows() const;
  size_t SettleWindows() const;

  SegmentOptions o_;
  size_t index_ = 0;            // index the next Add gives its window
  std::vector<Sample> warmup_;  // windows of a phase whose level is not settled yet
  bool in_phase_ = false;       // a settled phase is being followed
  size_t first_ = 0, last_in_band_ = 0, in_band_ = 0;
  double sum_ = 0;               // of the phase's in-band windows
  std::vector<Sample> pending_;  // out-of-band windows after the last in-band one
};

// Offline: every segment of a sequence.
std::vector<Segment> FindSegments(const std::vector<double>& offered_packets_per_second, const SegmentOptions& o = {});

}  // namespace bottleneckd
