// HTML escaping for every page bottleneckd writes (the landing page, the
// HTML report): the five characters HTML gives meaning to, in text and in
// quoted attribute values alike.
#pragma once

#include <string>
#include <string_view>

namespace bottleneckd {

// `s` with & < > " ' replaced by their entities; every other byte as is.
std::string HtmlEscape(std::string_view s);

}  // namespace bottleneckd
