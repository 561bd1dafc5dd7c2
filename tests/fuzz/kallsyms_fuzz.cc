// Fuzzes KernelSymbols::Parse with arbitrary bytes as /proc/kallsyms and
// checks what a success promises: at most one symbol per line, and lookups
// and wait sites over the table that never read past it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "collectors/kallsyms.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::KernelSymbols table;
  if (!table.Parse(text).ok()) {
    if (table.size() != 0) std::abort();  // an error leaves the table empty
    return 0;
  }
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  if (table.size() > lines) std::abort();
  // The input's first bytes as a stack of addresses.
  uint64_t ips[8] = {};
  std::memcpy(ips, data, size < sizeof ips ? size : sizeof ips);
  for (uint64_t ip : ips)
    if (table.Name(ip).size() > size) std::abort();
  (void)bottleneckd::WaitSiteOf(table, ips, 8);
  return 0;
}
