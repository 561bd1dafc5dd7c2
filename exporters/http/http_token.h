// RFC 9110's small lexical pieces, shared by the request-head parser
// (request_head.h) and Accept-Encoding negotiation (gzip_body.h). Pure.
#pragma once

#include <string_view>

namespace bottleneckd {

// A token (RFC 9110 section 5.6.2): one or more tchar.
bool IsHttpToken(std::string_view s);

// ASCII case-insensitive equality (header names, codings, Connection options).
bool EqualsIgnoringCase(std::string_view a, std::string_view b);

}  // namespace bottleneckd
