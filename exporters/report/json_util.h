// JSON text helpers shared by the reports (report.cc, pcap_report_json.cc):
// strings escaped per RFC 8259 (quotes, backslash, control characters as
// \uXXXX) and valid UTF-8 whatever bytes they are given (ill-formed bytes
// become U+FFFD), numbers in the shortest form that reads back as the same
// double and never NaN or infinite (null instead).
#pragma once

#include <string>
#include <string_view>

namespace bottleneckd {

std::string JsonString(std::string_view s);
// Shortest round-trip ("1796110000.123456", "0.1", "1e-07"); "null" when not
// finite; "0" for both zeros.
std::string JsonNumber(double v);

}  // namespace bottleneckd
