#include "sources/profile_fold.h"

#include <algorithm>

#include "base/parse_util.h"

namespace bottleneckd {
namespace {

void AppendFrame(std::string_view name, std::string* out) {
  for (char c : name) out->push_back(c == ';' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
}

}  // namespace

std::string FoldedFrames(const std::vector<std::string>& frames) {
  std::string out;
  for (const std::string& f : frames) {
    if (!out.empty()) out.push_back(';');
    AppendFrame(f, &out);
  }
  return out;
}

std::string FoldedFrame(std::string_view name) {
  std::string out;
  AppendFrame(name, &out);
  return out;
}

std::string FoldedStack(const ProfileStack& s) {
  std::string out;
  AppendFrame(s.comm.empty() ? "[unnamed]" : s.comm, &out);
  for (const std::string& f : s.frames) {
    out.push_back(';');
    AppendFrame(f, &out);
  }
  return out;
}

void AddFolded(std::string_view stack, uint64_t samples, FoldedProfile* out) {
  auto it = out->stacks.find(std::string(stack));
  if (it == out->stacks.end()) {
    const bool full = out->stacks.size() >= kFoldedMaxStacks;
    it = out->stacks.emplace(std::string(full ? kOtherStacks : stack), 0).first;
  }
  it->second += samples;
  out->samples += samples;
}

void AddReading(const ProfileReading& r, FoldedProfile* out) {
  for (const ProfileStack& s : r.stacks) AddFolded(FoldedStack(s), s.samples, out);
}

void AddProfile(const FoldedProfile& p, FoldedProfile* out) {
  for (const auto& [stack, n] : p.stacks) AddFolded(stack, n, out);
}

std::string WriteFolded(const FoldedProfile& p) {
  std::string out;
  for (const auto& [stack, n] : p.stacks) {
    out += stack;
    out.push_back(' ');
    out += std::to_string(n);
    out.push_back('\n');
  }
  return out;
}

Status ParseFolded(std::string_view text, FoldedProfile* out) {
  FoldedProfile p;
  size_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const size_t sp = line.rfind(' ');
    uint64_t n = 0;
    if (sp == std::string_view::npos || sp == 0 || !ParseU64(line.substr(sp + 1), &n)) {
      *out = FoldedProfile();
      return Status::Corruption("line " + std::to_string(line_no) + ": not \"stack count\"");
    }
    AddFolded(line.substr(0, sp), n, &p);
  }
  *out = std::move(p);
  return Status::OK();
}

std::vector<FunctionSamples> TopFunctions(const FoldedProfile& p, size_t n) {
  std::map<std::string_view, uint64_t> self;
  for (const auto& [stack, samples] : p.stacks) {
    const size_t semi = stack.rfind(';');
    // A stack of its thread's name alone (nothing walked) has no function.
    if (semi == std::string::npos) continue;
    self[std::string_view(stack).substr(semi + 1)] += samples;
  }
  std::vector<FunctionSamples> out;
  for (const auto& [f, samples] : self) out.push_back({std::string(f), samples});
  std::stable_sort(out.begin(), out.end(),
                   [](const FunctionSamples& a, const FunctionSamples& b) { return a.samples > b.samples; });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace bottleneckd
