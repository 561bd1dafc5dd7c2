#include "base/verdict_labels.h"

namespace bottleneckd {
namespace {

struct LabelInfo {
  const char* name;
  bool limit;
  const char* meaning;
};

constexpr LabelInfo kLabels[kBoundCount] = {
#define BN_VERDICT_LABEL(id, name, limit, meaning) {name, limit, meaning},
#include "base/verdict_labels.def"
#undef BN_VERDICT_LABEL
};

const LabelInfo& Info(Bound b) {
  size_t i = static_cast<size_t>(b);
  return kLabels[i < kBoundCount ? i : static_cast<size_t>(Bound::kUndetermined)];
}

std::string Join(std::string_view sep, bool limits_only) {
  std::string out;
  for (Bound b : kAllBounds) {
    if (limits_only && !IsLimit(b)) continue;
    if (!out.empty()) out += sep;
    out += BoundName(b);
  }
  return out;
}

}  // namespace

const char* BoundName(Bound b) { return Info(b).name; }
bool IsLimit(Bound b) { return Info(b).limit; }
const char* BoundMeaning(Bound b) { return Info(b).meaning; }

bool ParseBound(std::string_view s, Bound* out) {
  for (Bound b : kAllBounds) {
    if (s == BoundName(b)) {
      *out = b;
      return true;
    }
  }
  return false;
}

std::string BoundNames(std::string_view sep) { return Join(sep, false); }
std::string LimitBoundNames(std::string_view sep) { return Join(sep, true); }

}  // namespace bottleneckd
