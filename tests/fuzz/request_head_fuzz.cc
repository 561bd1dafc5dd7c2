// Fuzz target: the HTTP request-head parser (exporters/http/request_head.h).
// Any bytes must parse without crashing, and the answer must be consistent
// with every prefix of them: a head found complete at S bytes is incomplete in
// every shorter prefix and complete with the same S in every longer one (the
// server parses after each read, so this is what a client dribbling the same
// bytes would see).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "exporters/http/request_head.h"

using bottleneckd::HeadParse;
using bottleneckd::ParseRequestHead;
using bottleneckd::RequestHead;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr size_t kMaxHead = 512;  // small, so the 431 path is reached too
  std::string_view in(reinterpret_cast<const char*>(data), size);
  RequestHead head;
  int status = 0;
  std::string error;
  HeadParse r = ParseRequestHead(in, kMaxHead, &head, &status, &error);
  if (r == HeadParse::kError && status != 400 && status != 431 && status != 505) std::abort();
  if (r == HeadParse::kError && error.empty()) std::abort();
  if (r != HeadParse::kComplete) return 0;
  if (head.size == 0 || head.size > in.size() || head.size > kMaxHead) std::abort();
  if (head.path.empty() || (head.path[0] != '/' && head.path != "*")) std::abort();
  if (head.method.empty() || head.minor_version < 0 || head.minor_version > 9) std::abort();
  for (size_t cut : {head.size - 1, head.size / 2, head.size, size}) {
    RequestHead again;
    HeadParse p = ParseRequestHead(in.substr(0, cut), kMaxHead, &again, &status, &error);
    if (cut < head.size && p != HeadParse::kIncomplete) std::abort();
    if (cut >= head.size && (p != HeadParse::kComplete || again.size != head.size || again.path != head.path))
      std::abort();
  }
  return 0;
}
