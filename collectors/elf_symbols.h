// The function symbols of one ELF file (an executable or a shared library),
// read with elfutils' libelf, to name the user-space frames the on-CPU
// profiler samples: proc_maps.h turns a frame's address into an offset in
// the mapped file, NameAtFileOffset turns that into a function name.
//   $ nm -D /usr/lib/x86_64-linux-gnu/libc.so.6 | grep getpid
//   00000000000d54e0 T __getpid@@GLIBC_2.2.5
//   00000000000d54e0 W getpid@@GLIBC_2.2.5
// Names are kept as the file spells them (C++ names mangled: a caller may
// demangle); versions ("@@GLIBC_2.2.5") are not part of them. An installed
// package's files usually keep only .dynsym (the exported names); Debian's
// -dbgsym packages ship the full .symtab in a separate file found by the
// file's GNU build ID, which Load follows.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace bottleneckd {

// Not thread-safe while loading; the const lookups may run concurrently.
class ElfSymbols {
 public:
  // Where Debian installs separate debug files: ROOT/.build-id/NN/REST.debug,
  // NN the build ID's first byte in hexadecimal and REST the others.
  static constexpr const char* kDebugRoot = "/usr/lib/debug";

  // Replaces the table with the function symbols (STT_FUNC and
  // STT_GNU_IFUNC, defined, at a nonzero address) of the ELF file at `path`:
  // its .symtab if it has one, else its .dynsym. A file without .symtab
  // whose debug file under `debug_root` exists, is an ELF file and carries
  // the same build ID gives that file's .symtab instead (from_debug_file());
  // a debug file that fails any of these is passed over, not an error.
  // NotFound / PermissionDenied / IOError when the file cannot be opened,
  // InvalidArgument when it is not a regular file, NotSupported when it is
  // over 1 GiB or an ELF variant this cannot read (see LoadImage),
  // Corruption (saying why) when it is not a valid ELF file. The table is
  // left empty on error. The file is read with pread, not mapped: a file
  // truncated while it is read is an error, not a SIGBUS.
  Status Load(const std::string& path, const std::string& debug_root = kDebugRoot);

  // The same over a whole file's bytes in memory (no debug file is looked
  // for). `image` is copied while it is read and not kept. NotSupported for
  // an ELF class, byte order or version libelf does not know, an object
  // without load addresses (ET_REL, ET_CORE) or PowerPC64 ELFv1 (whose
  // function symbols name descriptors, not code).
  Status LoadImage(std::string_view image);

  // The function containing virtual address `vaddr` (as linked, before the
  // loader's bias): st_value <= vaddr < st_value + st_size, a size-0 symbol
  // covering up to the next symbol or the end of its section. Of aliases at
  // one address the GLOBAL one wins over WEAK over LOCAL, then the shorter
  // name, then the lexicographically first, so the answer does not depend on
  // the order of the table. Of nested functions (a second entry point
  // inside a larger one) the innermost one. "" when no function contains
  // it. Valid until the next Load.
  std::string_view NameAtAddress(uint64_t vaddr) const;

  // The function at file offset `off` (what a /proc/PID/maps range gives:
  // FileOffsetOf), through the PT_LOAD program header whose file bytes
  // (p_offset .. p_offset + p_filesz) hold it; "" outside every PT_LOAD.
  std::string_view NameAtFileOffset(uint64_t off) const;

  // The GNU build ID (the NT_GNU_BUILD_ID note) in lowercase hexadecimal;
  // "" when the file has none.
  const std::string& build_id() const { return build_id_; }
  // Whether the names come from a .symtab (every function) rather than a
  // .dynsym (the exported ones only).
  bool from_symtab() const { return from_symtab_; }
  // Whether that .symtab came from the separate debug file.
  bool from_debug_file() const { return from_debug_file_; }
  // Functions kept, one per distinct address.
  size_t size() const { return addrs_.size(); }

 private:
  class File;       // one open ELF file (elf_symbols.cc)
  struct Segment {  // a PT_LOAD: file bytes [offset, offset + filesz) at vaddr
    uint64_t offset, filesz, vaddr;
  };
  void Clear();

  std::vector<uint64_t> addrs_;       // sorted, distinct
  std::vector<uint64_t> ends_;        // parallel: one past each function's last byte
  std::vector<uint32_t> enclosing_;   // parallel: the function this one lies inside, or ~0u
  std::vector<uint32_t> name_start_;  // parallel: into names_
  std::string names_;                 // each name followed by '\0'
  std::vector<Segment> segments_;     // in program header order
  std::string build_id_;
  bool from_symtab_ = false, from_debug_file_ = false;
};

}  // namespace bottleneckd
