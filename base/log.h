// Logging: logfmt lines on stderr, one per event, with a level filter.
//   ts=2026-11-30T08:20:01.123Z level=warn collector=netdev msg="read failed" err="..."
// Thread-safe; a line is written with one write(2).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace bottleneckd {

enum class LogLevel { kDebug = 0, kInfo, kWarn, kError };

// Parses "debug", "info", "warn", "error"; false otherwise.
bool ParseLogLevel(std::string_view s, LogLevel* out);
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();

using LogField = std::pair<std::string_view, std::string>;

// Writes one line when `level` passes the filter. Values are quoted when they
// are empty or hold a space, '"', '=', '\\' or a control byte; inside quotes
// '"' and '\\' are backslash-escaped, newline, CR and tab are \n \r \t and
// every other control byte (NUL, ESC, DEL...) is \u00XX, as Go's logfmt does,
// so a value can never end or forge a line.
void Log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields = {});

// Formats one logfmt line (no timestamp) for tests.
std::string FormatLogFields(std::initializer_list<LogField> fields);

}  // namespace bottleneckd
