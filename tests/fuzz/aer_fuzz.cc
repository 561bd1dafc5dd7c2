// Fuzzes the sysfs AER counter parser (aer_dev_correctable and friends).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/pci.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bottleneckd::NamedCounters out;
  (void)bottleneckd::ParseAerCounters(std::string_view(reinterpret_cast<const char*>(data), size), &out);
  return 0;
}
