// Small files of the daemon's state directory (the soaker's calibration, the
// learned interrupt delivery cost): read whole with a size cap, written
// whole by a rename so a crash leaves the old file or the new one, never half.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace bottleneckd {

// Reads `path` into *text; Corruption past max_bytes, the errno otherwise.
Status ReadStateFile(const std::string& path, size_t max_bytes, std::string* text);

// Creates `dir` when missing and replaces dir/name with `text` (written to a
// temporary file, fsynced, renamed over it).
Status WriteStateFile(const std::string& dir, const std::string& name, const std::string& text);

// "line N: what": an error in line N of a state file.
Status StateLineError(size_t n, const std::string& what);

// Reads a state file's text: blank lines and '#' comments skipped, the first
// line "format <format>" (another version is an error), then each
// "key value" line to on_line(n, key, value), whose error stops the read.
// A text without the format line is Corruption("empty <what>: no format line").
Status ForEachStateLine(std::string_view text, int format, const char* what,
                        const std::function<Status(size_t n, std::string_view key, std::string_view value)>& on_line);

}  // namespace bottleneckd
