// libFuzzer target: arbitrary bytes as a control socket request line and as
// an answer (control/control_protocol.cc). Whatever parses must format back to
// text that parses to the same value, and a parsed request must respect the
// documented limits. The same bytes as a connection's stream, split into
// reads of the sizes the first byte picks, must be framed as the whole is:
// the first prefix that decides (kLine, kOversize) decides what every longer
// one does, and the line is the bytes up to the first newline, at most 4096.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "control/control_socket.h"

namespace {

using namespace bottleneckd;

// FrameControlRequest against its definition on the whole stream, and read
// by read (reads of 1 + seed % 61 bytes, capped as the server caps them).
void CheckFraming(std::string_view text, uint8_t seed) {
  size_t newline = text.find('\n');
  RequestFrame want = newline != std::string_view::npos && newline < kControlMaxRequest       ? RequestFrame::kLine
                      : newline != std::string_view::npos || text.size() > kControlMaxRequest ? RequestFrame::kOversize
                                                                                              : RequestFrame::kPartial;
  size_t want_len = 0;
  if (FrameControlRequest(text, &want_len) != want) __builtin_trap();
  if (want == RequestFrame::kLine && want_len != newline + 1) __builtin_trap();
  size_t step = 1 + seed % 61, got = 0;
  RequestFrame decided = RequestFrame::kPartial;
  for (size_t end = 0; end < text.size() && end <= kControlMaxRequest;) {
    end = std::min({end + step, text.size(), kControlMaxRequest + 1});
    size_t len = 0;
    RequestFrame f = FrameControlRequest(text.substr(0, end), &len);
    if (decided != RequestFrame::kPartial && (f != decided || len != got)) __builtin_trap();
    if (decided == RequestFrame::kPartial) decided = f, got = len;
  }
  if (decided != want || got != want_len) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);

  CheckFraming(text, size ? data[0] : 0);
  // The same near the cap, where the fuzzer would hardly get on its own.
  if (size) CheckFraming(std::string(kControlMaxRequest - data[0] % 8, 'x') + std::string(text), data[0] / 8);

  ControlRequest req;
  if (ParseControlRequest(text, &req).ok()) {
    if (req.verb != "start" && req.verb != "stop" && req.verb != "discard" && req.verb != "status") __builtin_trap();
    if (req.verb == "status" && !req.args.empty()) __builtin_trap();
    if (req.verb == "discard" && req.args.size() != 1) __builtin_trap();
    if (req.verb != "status" && (req.args.empty() || req.args.size() > 2)) __builtin_trap();
    if (!req.args.empty() && (req.args[0].empty() || req.args[0].size() > kControlMaxName)) __builtin_trap();
    std::string line = FormatControlRequest(req);
    if (line.size() > kControlMaxRequest) __builtin_trap();
    ControlRequest again;
    if (!ParseControlRequest(line, &again).ok()) __builtin_trap();
    if (again.verb != req.verb || again.args != req.args) __builtin_trap();
  }

  ControlResponse resp;
  if (ParseControlResponse(text, &resp).ok()) {
    if (resp.ok != resp.error.empty()) __builtin_trap();
    ControlResponse again;
    if (!ParseControlResponse(FormatControlResponse(resp), &again).ok()) __builtin_trap();
    if (again.ok != resp.ok || again.error != resp.error || again.body != resp.body) __builtin_trap();
  }
  return 0;
}
