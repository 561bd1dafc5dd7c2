// Small files of the daemon's state directory (the soaker's calibration, the
// learned interrupt delivery cost): read whole with a size cap, written
// whole by a rename so a crash leaves the old file or the new one, never half.
#pragma once

#include <cstddef>
#include <string>

#include "base/status.h"

namespace bottleneckd {

// Reads `path` into *text; Corruption past max_bytes, the errno otherwise.
Status ReadStateFile(const std::string& path, size_t max_bytes, std::string* text);

// Creates `dir` when missing and replaces dir/name with `text` (written to a
// temporary file, fsynced, renamed over it).
Status WriteStateFile(const std::string& dir, const std::string& name, const std::string& text);

}  // namespace bottleneckd
