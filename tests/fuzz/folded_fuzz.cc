// Fuzzes ParseFolded with arbitrary bytes as folded stacks (a run's profile
// as `--format folded` writes it, or any stackcollapse output) and checks
// what a success promises: WriteFolded's text parses back to the same
// profile, and the top functions never count more samples than there are.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sources/profile_fold.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::FoldedProfile p;
  if (!bottleneckd::ParseFolded(text, &p).ok()) {
    if (!(p == bottleneckd::FoldedProfile())) std::abort();  // an error leaves it empty
    return 0;
  }
  bottleneckd::FoldedProfile back;
  if (!bottleneckd::ParseFolded(bottleneckd::WriteFolded(p), &back).ok() || !(back == p)) std::abort();
  // Unless the counts' sum wrapped past 2^64, the profile's total is it and
  // the top functions count no more.
  uint64_t sum = 0, top = 0;
  bool wrapped = false;
  for (const auto& [stack, n] : p.stacks) wrapped |= __builtin_add_overflow(sum, n, &sum);
  for (const auto& f : bottleneckd::TopFunctions(p, 10)) wrapped |= __builtin_add_overflow(top, f.samples, &top);
  if (!wrapped && (sum != p.samples || top > sum)) std::abort();
  return 0;
}
