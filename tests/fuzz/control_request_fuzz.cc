// libFuzzer target: arbitrary bytes as a control socket request line and as
// an answer (runs/control_protocol.cc). Whatever parses must format back to
// text that parses to the same value, and a parsed request must respect the
// documented limits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "runs/control_socket.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bottleneckd;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  ControlRequest req;
  if (ParseControlRequest(text, &req).ok()) {
    if (req.verb != "start" && req.verb != "stop" && req.verb != "status") __builtin_trap();
    if (req.verb == "status" && !req.args.empty()) __builtin_trap();
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
