// Files of a recording, read and written without leaving it: the helpers
// shared by recording.cc (OpenRecording, ReplayFs), recording_fs.cc
// (RecordingFs) and recording_irqtime.cc (the irqtime file). A recording may
// come from anyone, so nothing here follows a symlink out of it, opens a FIFO
// or a device, or reads without a size cap.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sources/reading_file.h"  // Quoted

namespace bottleneckd {

struct DirEntry {
  enum Type { kDir, kFile, kLink, kOther };
  std::string name;
  Type type = kOther;
};

// Reads the regular file `path` (not a symlink, FIFO or device) whole.
// NotFound when absent; InvalidArgument when it is not a regular file or
// holds more than max_bytes.
Status ReadRecordingFile(const std::string& path, size_t max_bytes, std::string* out);

// The entries of directory `path` (not followed if a symlink), sorted by
// name, without "." and "..".
Status ListRecordingDir(const std::string& path, std::vector<DirEntry>* out);

// Walks the tree under `root` and refuses (InvalidArgument naming the entry)
// anything a replay must not open: a FIFO, socket or device, or a symlink
// whose target is absolute or climbs out of root (see ResolveLinkTarget).
// NotFound when root is absent.
Status CheckRecordingTree(const std::string& root);

// True when `rel` (a path relative to a root) has no ".." component.
bool SafeRel(std::string_view rel);

// "a//b/./c/" -> "a/b/c"; false when rel has a ".." component.
bool CleanRel(std::string_view rel, std::string* out);

// Where the symlink target `target` of a link in directory `link_dir` (a
// clean path relative to the root, without symlinks) points, relative to the
// root. False when the target is absolute, has a ".." after a name (only
// leading ".." are accepted, as sysfs writes them), or climbs above the root.
bool ResolveLinkTarget(std::string_view link_dir, std::string_view target, std::string* out);

}  // namespace bottleneckd
