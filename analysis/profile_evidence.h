// The on-CPU profile as a verdict's evidence: for a `cpu` or `interrupt`
// verdict, the functions the named CPU or thread ran in the window's samples
// (sources/profile.h), with their share:
//   "thread udpecho on-CPU: 71 % in copy_loop (udpecho), 9 % in
//    __udp4_lib_rcv [kernel] (49 samples at 49 Hz)"
// A share is of the samples whose stacks were walked; where only some of the
// CPU's samples were (it was named this window, so only the rest of it was
// walked), the sentence says how many.
#pragma once

#include <string>

#include "analysis/signals.h"
#include "analysis/verdict.h"
#include "sources/profile.h"

namespace bottleneckd {

// Functions listed at most, and the least share listed.
inline constexpr size_t kProfileEvidenceFunctions = 3;
inline constexpr double kProfileEvidenceMinShare = 0.05;

// The sentence for verdict `v` over the window's profile, or "" when the
// label is not cpu or interrupt, the resource is no CPU or target thread, or
// no walked sample is of it.
std::string ProfileEvidence(const Verdict& v, const ProfileReading& profile, const Signals& s);

}  // namespace bottleneckd
