// Folded stacks: the profiler's samples (sources/profile.h) merged by stack,
// one line per stack as flame graph tools read them (Brendan Gregg's
// stackcollapse output, which flamegraph.pl, speedscope and inferno import):
//   udpecho;main (udpecho);copy_loop (udpecho) 71
//   ksoftirqd/1;ret_from_fork [kernel];...;__udp4_lib_rcv [kernel] 9
// The thread's name is the root frame; frames run outermost first. A window's
// evidence, a run's merged profile (runs/) and the report's top functions and
// flame graph (exporters/report/) are all made from this.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sources/profile.h"

namespace bottleneckd {

// Distinct stacks a merged profile keeps; samples of further stacks are
// added to one "[other stacks]" line, so a run's profile stays bounded.
inline constexpr size_t kFoldedMaxStacks = 20000;
inline constexpr std::string_view kOtherStacks = "[other stacks]";

struct FoldedProfile {
  std::map<std::string, uint64_t> stacks;  // folded stack -> samples
  uint64_t samples = 0;                    // their sum
  bool operator==(const FoldedProfile&) const = default;
};

// "comm;frame;...;frame": the names with ';' and control characters replaced
// by '?' (they would split a frame or a line).
std::string FoldedStack(const ProfileStack& s);
// "frame;...;frame" likewise, with no root (offcpu's stacks: sources/offcpu.h).
std::string FoldedFrames(const std::vector<std::string>& frames);
// `name` with ';' and control characters replaced by '?': one frame.
std::string FoldedFrame(std::string_view name);

// Adds samples of one folded stack (kOtherStacks once full).
void AddFolded(std::string_view stack, uint64_t samples, FoldedProfile* out);
// Adds every stack of a reading.
void AddReading(const ProfileReading& r, FoldedProfile* out);
// Adds every stack of another profile.
void AddProfile(const FoldedProfile& p, FoldedProfile* out);

// "stack count\n" per stack, in the map's (lexical) order.
std::string WriteFolded(const FoldedProfile& p);
// Reads WriteFolded's text (and any stackcollapse output): Corruption naming
// the line when a line has no count after its last space or the count is not
// a whole number; *out left empty on error.
Status ParseFolded(std::string_view text, FoldedProfile* out);

// A function's samples where it was running: the innermost frame of each
// stack (its "self" samples).
struct FunctionSamples {
  std::string function;
  uint64_t samples = 0;
  bool operator==(const FunctionSamples&) const = default;
};
// The n functions with the most self samples, most first (ties by name).
std::vector<FunctionSamples> TopFunctions(const FoldedProfile& p, size_t n);

// Self samples of a reading's stacks that pass `keep`, most first (at most n).
template <typename Keep>
std::vector<FunctionSamples> TopFunctionsOf(const ProfileReading& r, size_t n, Keep keep) {
  FoldedProfile p;
  for (const ProfileStack& s : r.stacks)
    if (keep(s)) AddFolded(FoldedStack(s), s.samples, &p);
  return TopFunctions(p, n);
}

}  // namespace bottleneckd
