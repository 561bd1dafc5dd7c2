// Checked text helpers shared by every kernel-file parser: line and token
// iteration over string_views (no allocation) and strict integer conversion
// through std::from_chars. A number with a sign, trailing junk, or a value past
// the type's range is rejected, never wrapped.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace bottleneckd {

// Pops the next line (without '\n') from *text. False when *text is exhausted.
bool NextLine(std::string_view* text, std::string_view* line);

// Pops the next run of non-blank characters (blanks: space, tab). Empty at end.
std::string_view NextToken(std::string_view* s);

// Strips leading and trailing blanks and newlines.
std::string_view Trim(std::string_view s);

// Decimal unsigned 64-bit; false on empty, sign, junk or overflow.
bool ParseU64(std::string_view s, uint64_t* out);
// Decimal signed 64-bit; false on empty, junk or overflow.
bool ParseI64(std::string_view s, int64_t* out);
// Hexadecimal (no 0x prefix) unsigned 64-bit; false on empty, junk or overflow.
bool ParseHexU64(std::string_view s, uint64_t* out);
// Decimal double ("0.00", "12.5"); false on empty or junk.
bool ParseDouble(std::string_view s, double* out);

// A duration: "500ms", "1s", "1.5s", "2m", "6h", "7d" (the forms of the
// config and the flags); false on anything else or a value not above 0.
bool ParseDuration(std::string_view s, double* seconds);
// A duration as ParseDuration reads it, in the largest unit that holds it
// whole: 0.01 -> "10ms", 3600 -> "1h", 315360000 -> "3650d"; else "%g s".
std::string DurationText(double seconds);

std::optional<uint64_t> ToU64(std::string_view s);

bool StartsWith(std::string_view s, std::string_view prefix);

}  // namespace bottleneckd
