// The verdict labels (cpu, interrupt, bus, wait, none, undetermined) as one
// enum built from one list, base/verdict_labels.def, with their names and
// which of them name a limit. Below every stage that names a label: analysis/
// judges, recording/ checks a recording's expected label, fleet/ and the
// exporters print and query them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace bottleneckd {

enum class Bound : uint8_t {
#define BN_VERDICT_LABEL(id, name, limit, meaning) id,
#include "base/verdict_labels.def"
#undef BN_VERDICT_LABEL
};

inline constexpr int kBoundCount = 0
#define BN_VERDICT_LABEL(id, name, limit, meaning) +1
#include "base/verdict_labels.def"
#undef BN_VERDICT_LABEL
    ;

// Every label, in enum order.
inline constexpr std::array<Bound, kBoundCount> kAllBounds = {
#define BN_VERDICT_LABEL(id, name, limit, meaning) Bound::id,
#include "base/verdict_labels.def"
#undef BN_VERDICT_LABEL
};

// "cpu", "interrupt", ...: the `bound` label value.
const char* BoundName(Bound b);
bool ParseBound(std::string_view s, Bound* out);
// True for the labels that name what limits the host (cpu, interrupt, bus,
// wait); false for none and undetermined.
bool IsLimit(Bound b);
// One sentence: what the label says.
const char* BoundMeaning(Bound b);
// Every label's name, or only the limits', joined with `sep`:
// BoundNames(", ") is "cpu, interrupt, bus, wait, none, undetermined";
// LimitBoundNames("|") is the rules' regex "cpu|interrupt|bus|wait".
std::string BoundNames(std::string_view sep);
std::string LimitBoundNames(std::string_view sep);

}  // namespace bottleneckd
