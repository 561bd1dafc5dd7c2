// The fields of /proc/PID/stat and /proc/PID/task/TID/stat (proc(5)) that the
// collectors read, indexed as their parsers count them: after "(comm)", from
// 0 = field 3 (state), so that a comm holding blanks or ')' cannot shift them.
#pragma once

#include <cstddef>

namespace bottleneckd::pid_stat {

constexpr size_t kState = 0;       // field 3
constexpr size_t kUtime = 11;      // field 14, USER_HZ ticks
constexpr size_t kStime = 12;      // field 15, USER_HZ ticks
constexpr size_t kStarttime = 19;  // field 22, USER_HZ ticks after boot
constexpr size_t kVsize = 20;      // field 23, bytes
constexpr size_t kRss = 21;        // field 24, pages
constexpr size_t kProcessor = 36;  // field 39 (Linux 2.5.x on)

}  // namespace bottleneckd::pid_stat
