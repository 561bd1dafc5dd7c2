// JSON text helpers shared by the reports (report.cc, pcap_report_json.cc):
// strings escaped per RFC 8259 (quotes, backslash, control characters as
// \uXXXX), numbers that are never NaN or infinite (null instead).
#pragma once

#include <string>
#include <string_view>

namespace bottleneckd {

std::string JsonString(std::string_view s);
// %.<digits>g, "null" when not finite.
std::string JsonNumber(double v, int digits = 6);

}  // namespace bottleneckd
