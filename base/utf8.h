// UTF-8 validity for text bottleneckd copies from the kernel and hands on:
// thread names (cut at 15 bytes, possibly inside a character), interface
// names and driver strings become Prometheus label values and JSON strings,
// and both formats must be valid UTF-8 (promtool rejects a scrape with one
// bad byte; a strict JSON parser rejects the document).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bottleneckd {

// The length of the well-formed UTF-8 sequence at the start of s (1-4), or 0
// when s starts with an ill-formed one: a stray continuation byte, a
// truncated sequence, an overlong form, a surrogate (U+D800..DFFF) or a code
// point past U+10FFFF (RFC 3629). s must not be empty. When given, *code_point
// is set to the sequence's code point (when the length is not 0).
size_t Utf8SequenceLength(std::string_view s, uint32_t* code_point = nullptr);

// Appends s with every ill-formed byte replaced by U+FFFD (the replacement
// character, EF BF BD), one per byte; well-formed text is appended as it is.
void AppendValidUtf8(std::string_view s, std::string* out);

}  // namespace bottleneckd
