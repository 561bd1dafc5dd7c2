#include "base/log.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace bottleneckd {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};

const char* LevelName(LogLevel l) {
  switch (l) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kError: return "error";
  }
  return "info";
}

// Control bytes (below 0x20, and DEL) can never be written raw: a NUL or an
// escape sequence would cut or forge a line on a terminal or in a collector.
bool IsControl(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

void AppendValue(std::string* out, std::string_view v) {
  bool quote = v.empty() || std::any_of(v.begin(), v.end(), [](char c) {
                 return c == ' ' || c == '"' || c == '=' || c == '\\' || IsControl(c);
               });
  if (!quote) {
    out->append(v);
    return;
  }
  out->push_back('"');
  for (char c : v) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (c == '\n') {
      out->append("\\n");
    } else if (c == '\r') {
      out->append("\\r");
    } else if (c == '\t') {
      out->append("\\t");
    } else if (IsControl(c)) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\u%04x", static_cast<unsigned char>(c));
      out->append(hex);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void AppendField(std::string* out, std::string_view key, std::string_view value) {
  if (!out->empty()) out->push_back(' ');
  out->append(key);
  out->push_back('=');
  AppendValue(out, value);
}

}  // namespace

bool ParseLogLevel(std::string_view s, LogLevel* out) {
  for (LogLevel l : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError}) {
    if (s == LevelName(l)) {
      *out = l;
      return true;
    }
  }
  return false;
}

void SetLogLevel(LogLevel level) { g_level.store(static_cast<int>(level)); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load()); }

std::string FormatLogFields(std::initializer_list<LogField> fields) {
  std::string out;
  for (const auto& [k, v] : fields) AppendField(&out, k, v);
  return out;
}

void Log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields) {
  if (static_cast<int>(level) < g_level.load()) return;
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char ts[64];
  std::snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  std::string line;
  AppendField(&line, "ts", ts);
  AppendField(&line, "level", LevelName(level));
  AppendField(&line, "msg", msg);
  for (const auto& [k, v] : fields) AppendField(&line, k, v);
  line.push_back('\n');
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

bool RepeatLimiter::Admit(const std::string& message, double now, uint64_t* held_back) {
  if (said_ && message == last_ && now - last_said_ < every_) {
    ++held_back_;
    return false;
  }
  *held_back = message == last_ ? held_back_ : 0;
  last_ = message;
  last_said_ = now;
  held_back_ = 0;
  said_ = true;
  return true;
}

}  // namespace bottleneckd
