// Numbers as text, one way per purpose (docs/glossary.md "Number text"):
// what a machine reads back (JSON, recording.yaml, error messages that quote
// a stored value) is ExactText; what a person reads (plot labels and
// tooltips) is RoundedText. Every output that writes a double uses one of
// the two.
#pragma once

#include <string>

namespace bottleneckd {

// The shortest text that reads back as the same double (std::to_chars
// without a precision): fixed from 1e-5 to 1e16, else scientific, so a Unix
// timestamp keeps its microseconds, 0.1 stays 0.1 and 0.0002 is not 2e-04.
// 0 and -0 are "0". Non-finite values are "nan", "inf" or "-inf" (JSON writes
// null for them before it asks).
std::string ExactText(double v);

// At most `digits` significant digits, trailing zeros dropped (printf's
// %.*g): "1.5e+06", "0.25", "12345.7" for 6.
std::string RoundedText(double v, int digits = 6);

}  // namespace bottleneckd
