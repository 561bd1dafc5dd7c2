// Pattern: a user-supplied regular expression (collectors.netdev.include and
// exclude), compiled with RE2: matching takes time linear in the text and
// memory bounded by kPatternMaxMem, and no pattern can recurse on the stack,
// so a hostile config cannot hang or crash the daemon. The syntax is RE2's
// (https://github.com/google/re2/wiki/Syntax), as Go's regexp and so
// node_exporter's: no backreferences or lookaround.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace bottleneckd {

// Longest pattern accepted, in bytes.
inline constexpr size_t kMaxPatternBytes = 4096;
// RE2's memory budget for one compiled pattern (program and DFA cache).
inline constexpr int64_t kPatternMaxMem = 1 << 20;

class Pattern {
 public:
  // Compiles `pattern`. InvalidArgument, with RE2's error, for a pattern
  // longer than kMaxPatternBytes, one RE2 cannot parse, or one whose program
  // does not fit kPatternMaxMem; *out is left unset then.
  static Status Compile(std::string_view pattern, std::unique_ptr<Pattern>* out);
  ~Pattern();
  Pattern(const Pattern&) = delete;
  Pattern& operator=(const Pattern&) = delete;

  // True when the pattern matches somewhere in `text` (a search, as
  // node_exporter's: anchor with ^...$ to match a whole name). Thread-safe.
  bool Search(std::string_view text) const;
  const std::string& pattern() const;

 private:
  explicit Pattern(std::unique_ptr<re2::RE2> re);
  std::unique_ptr<re2::RE2> re_;
};

}  // namespace bottleneckd
