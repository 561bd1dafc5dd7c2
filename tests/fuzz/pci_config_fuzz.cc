// Fuzzes DecodePciConfig with arbitrary bytes as a `config` file (whole and
// cut in half) and ParsePcieSpeedAttribute with them as attribute text, and
// checks the decode's shape: every capability it lists lies inside the buffer
// and past the header, none twice, at most 48 standard ones; extended ones lie
// in 0x100.. with their header inside the buffer; a device that is gone lists
// nothing; a parsed speed code has a name.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "collectors/pci_config.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckDecode(std::string_view bytes) {
  bottleneckd::PciConfig c = bottleneckd::DecodePciConfig(bytes);
  Check(c.length == bytes.size());
  Check(c.capabilities.size() <= 48);
  std::set<uint16_t> seen;
  for (const bottleneckd::PciCapability& cap : c.capabilities) {
    Check(cap.offset >= 0x40 && cap.offset + 2u <= bytes.size() && cap.offset % 4 == 0);
    Check(seen.insert(cap.offset).second);
    Check(static_cast<uint8_t>(bytes[cap.offset]) == cap.id);
  }
  seen.clear();
  for (const bottleneckd::PciExtCapability& cap : c.ext_capabilities) {
    Check(cap.offset >= 0x100 && cap.offset + 4u <= bytes.size() && cap.offset % 4 == 0);
    Check(seen.insert(cap.offset).second);
  }
  if (c.device_gone) Check(c.capabilities.empty() && !c.pcie && !c.pcix && !c.msi && !c.msix);
  if (c.pcie && c.pcie->has_link) Check(c.pcie->link_width <= 63 && c.pcie->link_max_width <= 63);
  if (c.msix) Check(c.msix->vectors >= 1 && c.msix->vectors <= 2048);
  for (uint8_t id = 0; id < 0x20; ++id) (void)c.HasCapability(id);
  if (c.pcix) Check(c.pcix->SecondaryClockMhz() >= 0 && c.pcix->SecondaryTransfersPerClock() <= 4);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  CheckDecode(bytes);
  CheckDecode(bytes.substr(0, size / 2));
  int code = bottleneckd::ParsePcieSpeedAttribute(bytes);
  Check(code >= 0 && code <= 6);
  if (code != 0) Check(!bottleneckd::PcieSpeedName(code).empty() && bottleneckd::PcieSpeedGts(code) > 0);
  return 0;
}
