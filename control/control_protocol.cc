// The control socket's wire format (pure functions): request and answer
// lines, and the peer credential check. docs/control-socket.md is the spec.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "base/parse_util.h"
#include "base/utf8.h"
#include "control/control_socket.h"

namespace bottleneckd {
namespace {

constexpr char kSep = '\t';

// "0x1b" for a C0 control or DEL, "U+0085" for a C1 control.
std::string ControlName(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), cp < 0x80 ? "0x%02x" : "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

// Valid UTF-8 with no control character (C0, DEL, C1) but TAB.
Status CheckText(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t n = Utf8SequenceLength(s.substr(i), &cp);
    if (n == 0)
      return Status::InvalidArgument("invalid UTF-8 at byte " + std::to_string(i) +
                                     " of the request: names and commands must be UTF-8");
    if ((cp < 0x20 && cp != static_cast<uint32_t>(kSep)) || (cp >= 0x7f && cp <= 0x9f)) {
      std::string what = cp == '\n'   ? "a newline"
                         : cp == '\r' ? "a carriage return"
                                      : "control character " + ControlName(cp);
      return Status::InvalidArgument(what + " at byte " + std::to_string(i) +
                                     " of the request: fields are separated by TAB and the request "
                                     "is one line ended by a single newline");
    }
    i += n;
  }
  return Status::OK();
}

// At most `max` bytes of valid UTF-8 `s`, cut at a character boundary.
std::string_view Clip(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) --n;
  return s.substr(0, n);
}

std::vector<std::string_view> SplitFields(std::string_view s) {
  std::vector<std::string_view> f;
  size_t start = 0;
  for (;;) {
    size_t tab = s.find(kSep, start);
    if (tab == std::string_view::npos) {
      f.push_back(s.substr(start));
      return f;
    }
    f.push_back(s.substr(start, tab - start));
    start = tab + 1;
  }
}

Status CheckFieldCount(std::string_view verb, size_t n, size_t min, size_t max, std::string_view usage) {
  if (n < min) return Status::InvalidArgument("'" + std::string(verb) + "' needs a run name: " + std::string(usage));
  if (n > max)
    return Status::InvalidArgument("too many fields for '" + std::string(verb) + "' (" + std::to_string(n) +
                                   "): expected " + std::string(usage));
  return Status::OK();
}

Status CheckName(std::string_view name) {
  if (name.empty()) return Status::InvalidArgument("empty run name");
  if (name.size() > kControlMaxName)
    return Status::InvalidArgument("run name is " + std::to_string(name.size()) + " bytes; at most " +
                                   std::to_string(kControlMaxName) + " are allowed");
  return Status::OK();
}

Status CheckExitCode(std::string_view code) {
  uint64_t v = 0;
  if (!ParseU64(code, &v) || v > 255)
    return Status::InvalidArgument("exit code '" + std::string(Clip(code, 32)) + "' is not an integer from 0 to 255");
  return Status::OK();
}

// Linux's pid_max is at most 2^22.
Status CheckPid(std::string_view pid) {
  uint64_t v = 0;
  if (!ParseU64(pid, &v) || v == 0 || v > (uint64_t{1} << 22))
    return Status::InvalidArgument("pid '" + std::string(Clip(pid, 32)) + "' is not an integer from 1 to 4194304");
  return Status::OK();
}

}  // namespace

RequestFrame FrameControlRequest(std::string_view buffered, size_t* line_len) {
  size_t newline = buffered.substr(0, kControlMaxRequest + 1).find('\n');
  if (newline != std::string_view::npos) {
    if (newline + 1 > kControlMaxRequest) return RequestFrame::kOversize;
    *line_len = newline + 1;
    return RequestFrame::kLine;
  }
  return buffered.size() > kControlMaxRequest ? RequestFrame::kOversize : RequestFrame::kPartial;
}

Status ParseControlRequest(std::string_view line, ControlRequest* out) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (line.size() + 1 > kControlMaxRequest)
    return Status::InvalidArgument("request is " + std::to_string(line.size() + 1) +
                                   " bytes with its newline; at most " + std::to_string(kControlMaxRequest) +
                                   " are allowed");
  BN_RETURN_IF_ERROR(CheckText(line));
  std::vector<std::string_view> f = SplitFields(line);
  std::string_view verb = f[0];
  if (verb.empty()) return Status::InvalidArgument("empty request: expected start, follow, stop, discard or status");
  if (verb == "status") {
    if (f.size() != 1)
      return Status::InvalidArgument("'status' takes no arguments (got " + std::to_string(f.size() - 1) + ")");
  } else if (verb == "start") {
    BN_RETURN_IF_ERROR(CheckFieldCount(verb, f.size(), 2, 3, "start<TAB>NAME[<TAB>COMMAND]"));
    BN_RETURN_IF_ERROR(CheckName(f[1]));
    if (f.size() == 3 && f[2].empty())
      return Status::InvalidArgument("empty command field: leave it out when the run has no command");
  } else if (verb == "follow") {
    if (f.size() == 2) return Status::InvalidArgument("'follow' needs a pid: follow<TAB>NAME<TAB>PID");
    BN_RETURN_IF_ERROR(CheckFieldCount(verb, f.size(), 3, 3, "follow<TAB>NAME<TAB>PID"));
    BN_RETURN_IF_ERROR(CheckName(f[1]));
    BN_RETURN_IF_ERROR(CheckPid(f[2]));
  } else if (verb == "stop") {
    BN_RETURN_IF_ERROR(CheckFieldCount(verb, f.size(), 2, 3, "stop<TAB>NAME[<TAB>EXIT_CODE]"));
    BN_RETURN_IF_ERROR(CheckName(f[1]));
    if (f.size() == 3) BN_RETURN_IF_ERROR(CheckExitCode(f[2]));
  } else if (verb == "discard") {
    BN_RETURN_IF_ERROR(CheckFieldCount(verb, f.size(), 2, 2, "discard<TAB>NAME"));
    BN_RETURN_IF_ERROR(CheckName(f[1]));
  } else {
    return Status::InvalidArgument("unknown request '" + std::string(Clip(verb, 40)) +
                                   "': expected start, follow, stop, discard or status");
  }
  ControlRequest r;
  r.verb = std::string(verb);
  for (size_t i = 1; i < f.size(); ++i) r.args.emplace_back(f[i]);
  *out = std::move(r);
  return Status::OK();
}

std::string FormatControlRequest(const ControlRequest& r) {
  std::string s = r.verb;
  for (const std::string& a : r.args) {
    s += kSep;
    s += a;
  }
  s += '\n';
  return s;
}

std::string FormatControlResponse(const ControlResponse& r) {
  if (r.ok) return "ok\n" + r.body;
  std::string msg = r.error.empty() ? "unspecified error" : r.error;
  for (char& c : msg) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != kSep) || u == 0x7f) c = ' ';
  }
  return "error\t" + msg + "\n" + r.body;
}

Status ParseControlResponse(std::string_view text, ControlResponse* out) {
  if (text.empty()) return Status::Corruption("empty answer: the daemon closed the connection without answering");
  size_t nl = text.find('\n');
  std::string_view first = text.substr(0, nl);
  std::string_view body = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  ControlResponse r;
  if (first == "ok") {
    r.ok = true;
  } else if (StartsWith(first, "error\t") && first.size() > 6) {
    r.error = std::string(first.substr(6));
    bool clean = std::none_of(r.error.begin(), r.error.end(), [](char c) {
      unsigned char u = static_cast<unsigned char>(c);
      return (u < 0x20 && c != kSep) || u == 0x7f;
    });
    if (!clean) return Status::Corruption("malformed answer: control character in the error message");
  } else {
    std::string shown(first.substr(0, 40));
    for (char& c : shown)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    return Status::Corruption("malformed answer: first line '" + shown + "' is neither 'ok' nor 'error<TAB>MESSAGE'");
  }
  r.body = std::string(body);
  *out = std::move(r);
  return Status::OK();
}

bool PeerAllowed(uid_t uid, gid_t gid, const std::vector<gid_t>& groups, uid_t daemon_uid, gid_t group) {
  if (uid == 0 || uid == daemon_uid || gid == group) return true;
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

}  // namespace bottleneckd
