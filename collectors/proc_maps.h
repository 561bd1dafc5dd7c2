// A process's memory map from /proc/PID/maps, to tell which file (and where
// in it) a sampled user-stack address lies, for the on-CPU profiler's
// symboliser (elf_symbols.h names the function at that file offset):
//   555e2856a000-555e2856f000 r-xp 00002000 fe:00 247134       /usr/bin/cat
//   7fd83f3f9000-7fd83f41b000 rw-p 00000000 00:00 0
//   7fd83f671000-7fd83f673000 r-xp 00000000 00:00 0            [vdso]
// Columns: range, permissions, file offset of the range's start, device
// (major:minor, hexadecimal), inode, then the path padded to a column. The
// path is the rest of the line and may contain spaces; the kernel appends
// " (deleted)" to a file unlinked since it was mapped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace bottleneckd {

struct MappedRange {
  uint64_t start = 0, end = 0;  // [start, end)
  uint64_t offset = 0;          // file offset of start
  uint64_t inode = 0;
  uint32_t dev_major = 0, dev_minor = 0;
  bool executable = false;  // 'x' in the permissions
  // "" for an anonymous range; pseudo-paths ("[vdso]", "[heap]") verbatim; a
  // file unlinked since it was mapped without its " (deleted)" suffix, and
  // `deleted` set.
  std::string path;
  bool deleted = false;
  bool operator==(const MappedRange&) const = default;
};

class ProcMaps {
 public:
  // Replaces the ranges with `text`'s lines, sorted by start. Corruption
  // naming the 1-based line ("maps line 3: ...") when a line is not
  // "START-END PERMS OFFSET MAJOR:MINOR INODE [PATH]" (hexadecimal numbers
  // of at most 16 digits, a decimal inode), when START is not below END, or
  // when two ranges overlap (a map read while it changed: read it again);
  // the table is left empty on error. Empty lines are skipped.
  Status Parse(std::string_view text);

  // The range containing `addr`, or nullptr. Valid until the next Parse.
  const MappedRange* Find(uint64_t addr) const;

  const std::vector<MappedRange>& ranges() const { return ranges_; }

 private:
  std::vector<MappedRange> ranges_;  // sorted by start, disjoint
};

// `addr`'s offset in the file `r` maps (addr - r.start + r.offset): what
// ElfSymbols::NameAtFileOffset takes. `addr` must lie in `r`.
uint64_t FileOffsetOf(const MappedRange& r, uint64_t addr);

}  // namespace bottleneckd
