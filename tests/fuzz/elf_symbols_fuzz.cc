// Fuzzes ElfSymbols::LoadImage with arbitrary bytes as an ELF file (libelf
// and the table built over it) and checks what a success promises: no more
// functions than the image has symbol entries, a build ID of hexadecimal
// digits from its notes, names that fit in the image, and lookups that never
// read past the table. An error must leave the table empty.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "collectors/elf_symbols.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view image(reinterpret_cast<const char*>(data), size);
  bottleneckd::ElfSymbols syms;
  if (!syms.LoadImage(image).ok()) {
    if (syms.size() != 0 || !syms.build_id().empty()) std::abort();
    return 0;
  }
  // An ELF32 symbol entry is 16 bytes, and entry 0 is never a function.
  if (syms.size() > size / 16) std::abort();
  const std::string& id = syms.build_id();
  if (id.size() % 2 != 0 || id.size() > 2 * size) std::abort();
  if (id.find_first_not_of("0123456789abcdef") != std::string::npos) std::abort();
  // The image's first bytes as addresses and offsets; the first 64 offsets
  // and the first 64 addresses after each.
  uint64_t probes[8] = {};
  std::memcpy(probes, data, size < sizeof probes ? size : sizeof probes);
  for (uint64_t p : probes) {
    for (uint64_t d = 0; d < 64; d += 7) {
      if (syms.NameAtAddress(p + d).size() > size || syms.NameAtFileOffset(p + d).size() > size) std::abort();
      if (syms.NameAtFileOffset(d).size() > size) std::abort();
    }
  }
  return 0;
}
