#include "exporters/http/request_head.h"

#include <cstdint>

#include "exporters/http/http_token.h"

namespace bottleneckd {
namespace {

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The path of a request target, or false when the target is neither
// origin-form nor absolute-form nor "*".
bool TargetPath(std::string_view target, std::string* path) {
  for (unsigned char c : target)
    if (c <= 0x20 || c == 0x7f) return false;
  if (target == "*") {
    *path = "*";
    return true;
  }
  if (target.empty()) return false;
  if (target.front() != '/') {
    size_t scheme = target.find("://");
    if (scheme == std::string_view::npos) return false;
    std::string_view name = target.substr(0, scheme);
    if (!EqualsIgnoringCase(name, "http") && !EqualsIgnoringCase(name, "https")) return false;
    std::string_view rest = target.substr(scheme + 3);
    size_t slash = rest.find_first_of("/?#");
    if (slash == 0) return false;  // no authority
    target = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
    if (target.front() != '/') target = "/";
  }
  *path = std::string(target.substr(0, target.find_first_of("?#")));
  return true;
}

bool ParseVersion(std::string_view v, int* major, int* minor) {
  if (v.size() != 8 || v.substr(0, 5) != "HTTP/" || v[6] != '.') return false;
  if (v[5] < '0' || v[5] > '9' || v[7] < '0' || v[7] > '9') return false;
  *major = v[5] - '0';
  *minor = v[7] - '0';
  return true;
}

bool ParseContentLength(std::string_view v, uint64_t* out) {
  if (v.empty() || v.size() > 19) return false;  // 19 digits fit in 63 bits
  uint64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = n;
  return true;
}

HeadParse Fail(int code, std::string why, int* status, std::string* error) {
  *status = code;
  *error = std::move(why);
  return HeadParse::kError;
}

}  // namespace

HeadParse ParseRequestHead(std::string_view in, size_t max_head, RequestHead* out, int* status, std::string* error) {
  RequestHead h;
  size_t pos = 0;
  int leading_blank = 0;
  bool have_request_line = false;
  bool have_length = false;
  bool have_te = false;
  bool have_authorization = false;
  uint64_t length = 0;
  bool conn_close = false;
  bool conn_keep_alive = false;
  for (;;) {
    size_t nl = in.find('\n', pos);
    if (nl == std::string_view::npos ? in.size() >= max_head : nl + 1 > max_head)
      return Fail(431, "request head longer than " + std::to_string(max_head) + " bytes", status, error);
    if (nl == std::string_view::npos) return HeadParse::kIncomplete;
    std::string_view line = in.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!have_request_line) {
      if (line.empty()) {
        if (++leading_blank > 2) return Fail(400, "empty lines instead of a request line", status, error);
        continue;
      }
      size_t sp1 = line.find(' ');
      size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
      if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
        return Fail(400, "request line is not METHOD TARGET VERSION", status, error);
      std::string_view method = line.substr(0, sp1);
      std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
      int major = 0;
      int minor = 0;
      if (!IsHttpToken(method)) return Fail(400, "method is not a token", status, error);
      if (!ParseVersion(line.substr(sp2 + 1), &major, &minor))
        return Fail(400, "version is not HTTP/D.D", status, error);
      if (major != 1) return Fail(505, "only HTTP/1.0 and HTTP/1.1 are served", status, error);
      if (!TargetPath(target, &h.path)) return Fail(400, "request target is not a path", status, error);
      h.method = std::string(method);
      h.minor_version = minor;
      have_request_line = true;
      continue;
    }
    if (line.empty()) break;  // the end of the head
    if (line.front() == ' ' || line.front() == '\t')
      return Fail(400, "obsolete line folding in a header", status, error);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return Fail(400, "header line without ':'", status, error);
    std::string_view name = line.substr(0, colon);
    if (!IsHttpToken(name)) return Fail(400, "header name is not a token", status, error);
    std::string_view value = TrimOws(line.substr(colon + 1));
    for (unsigned char c : value)
      if ((c < 0x20 && c != '\t') || c == 0x7f) return Fail(400, "control byte in a header value", status, error);
    if (EqualsIgnoringCase(name, "Content-Length")) {
      uint64_t n = 0;
      if (!ParseContentLength(value, &n)) return Fail(400, "Content-Length is not a number", status, error);
      if (have_length && n != length) return Fail(400, "two different Content-Lengths", status, error);
      have_length = true;
      length = n;
    } else if (EqualsIgnoringCase(name, "Transfer-Encoding")) {
      have_te = true;
    } else if (EqualsIgnoringCase(name, "Connection")) {
      while (!value.empty()) {
        size_t comma = value.find(',');
        std::string_view token = TrimOws(value.substr(0, comma));
        if (EqualsIgnoringCase(token, "close")) conn_close = true;
        if (EqualsIgnoringCase(token, "keep-alive")) conn_keep_alive = true;
        value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
      }
    } else if (EqualsIgnoringCase(name, "Accept-Encoding")) {
      if (!h.accept_encoding.empty()) h.accept_encoding += ", ";
      h.accept_encoding += value;
    } else if (EqualsIgnoringCase(name, "Authorization")) {
      if (have_authorization) return Fail(400, "two Authorization lines", status, error);
      have_authorization = true;
      h.authorization = value;
    }
  }
  if (have_te && have_length) return Fail(400, "both Transfer-Encoding and Content-Length", status, error);
  h.has_body = have_te || length > 0;
  h.keep_alive = !conn_close && (h.minor_version >= 1 || conn_keep_alive);
  h.size = pos;
  *out = std::move(h);
  return HeadParse::kComplete;
}

}  // namespace bottleneckd
