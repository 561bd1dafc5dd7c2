#include "base/pattern.h"

#include <re2/re2.h>

namespace bottleneckd {
namespace {

// A pattern, or RE2's error quoting one, in an error: its first 64 bytes.
std::string Shown(std::string_view pattern) {
  constexpr size_t kShown = 64;
  if (pattern.size() <= kShown) return std::string(pattern);
  return std::string(pattern.substr(0, kShown)) + "...";
}

}  // namespace

Pattern::Pattern(std::unique_ptr<re2::RE2> re) : re_(std::move(re)) {}
Pattern::~Pattern() = default;

Status Pattern::Compile(std::string_view pattern, std::unique_ptr<Pattern>* out) {
  if (pattern.size() > kMaxPatternBytes)
    return Status::InvalidArgument("pattern is " + std::to_string(pattern.size()) + " bytes, over the " +
                                   std::to_string(kMaxPatternBytes) + "-byte limit");
  re2::RE2::Options o;
  o.set_max_mem(kPatternMaxMem);
  o.set_log_errors(false);
  o.set_never_capture(true);
  auto re = std::make_unique<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), o);
  if (!re->ok()) return Status::InvalidArgument("invalid pattern '" + Shown(pattern) + "': " + Shown(re->error()));
  out->reset(new Pattern(std::move(re)));
  return Status::OK();
}

bool Pattern::Search(std::string_view text) const {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

const std::string& Pattern::pattern() const { return re_->pattern(); }

}  // namespace bottleneckd
