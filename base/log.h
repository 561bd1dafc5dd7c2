// Logging: logfmt lines on stderr, one per event, with a level filter.
//   ts=2026-11-30T08:20:01.123Z level=warn collector=netdev msg="read failed" err="..."
// Thread-safe; a line is written with one write(2).
#pragma once

#include <cstdint>
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

// Keeps a failure retried every tick from writing a line every tick: a
// message is said the first time, a changed message at once, the same one
// again at most every `every_seconds` (with how many were held back).
// Not thread-safe: one per retrying loop.
class RepeatLimiter {
 public:
  explicit RepeatLimiter(double every_seconds) : every_(every_seconds) {}
  // True when `message` at `now` (seconds, any monotonic origin) should be
  // logged; *held_back is then how many identical ones were not since.
  bool Admit(const std::string& message, double now, uint64_t* held_back);
  // The failure is over: the next one is said at once.
  void Reset() { last_.clear(), held_back_ = 0, said_ = false; }

 private:
  double every_;
  std::string last_;
  double last_said_ = 0;
  uint64_t held_back_ = 0;
  bool said_ = false;
};

}  // namespace bottleneckd
