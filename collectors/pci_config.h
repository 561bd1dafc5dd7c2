// PCI configuration space decoder: the bus facts a NIC's path depends on, from
// the bytes of /sys/bus/pci/devices/D/config (256 bytes of conventional space,
// 4096 with PCIe extended space when read as root; only the first 64 bytes, the
// standard header, for other users). Example: the first line of
// `xxd config` of an 82546GB is "00000000: 8680 7910 1701 3002 0300 0002 1040 0000".
//
// Pure: no I/O. Decodes as far as the bytes are valid and never reads past
// them: a truncated read, an all-0xFF read (device gone), a capability pointer
// that loops or points outside the buffer or into the header, and unknown
// capability IDs all give a partial decode with `problems` saying what was cut
// short. Layouts follow the PCI Local Bus 3.0, PCI-X 2.0 and PCIe 6.0 specs and
// the field names of Linux's include/uapi/linux/pci_regs.h, so a decode can be
// compared line by line with `lspci -vv` (tests/collectors/pci_lspci_test.cc does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bottleneckd {

// Capability IDs (PCI_CAP_ID_*) and extended capability IDs (PCI_EXT_CAP_ID_*)
// the decoder understands; others are listed by ID and skipped.
inline constexpr uint8_t kPciCapPm = 0x01, kPciCapMsi = 0x05, kPciCapPcix = 0x07, kPciCapVendor = 0x09,
                         kPciCapPcie = 0x10, kPciCapMsix = 0x11;
inline constexpr uint16_t kPciExtCapAer = 0x0001;

struct PciCapability {
  uint8_t id = 0;
  uint16_t offset = 0;  // in config space
};

struct PciExtCapability {
  uint16_t id = 0;
  uint8_t version = 0;
  uint16_t offset = 0;  // >= 0x100
};

// PCI-X capability (ID 7). A device's status register, or a bridge's
// secondary status plus its own (primary side) status.
struct PciXInfo {
  bool bridge = false;
  // Device (header type 0) status, or the bridge's primary-side status.
  bool is_64bit = false;                                // "64bit+": 64-bit device / primary interface
  bool capable_133mhz = false;                          // "133MHz+"
  bool capable_266mhz = false, capable_533mhz = false;  // PCI-X 2.0 mode 2
  uint8_t bus = 0, dev = 0, fn = 0;                     // captured bus/device/function ("Dev=02:01.0")
  // Device only: command register's maximum memory read byte count (512 << n,
  // "RBC=512") and the status register's designed maximum ("DMMRBC=2048").
  int max_read_byte_count = 0;
  int designed_max_read_byte_count = 0;
  int max_outstanding_splits = 0;  // command "OST=" (1,2,3,4,8,12,16,32)
  // Bridge only: the secondary bus, as Linux's pci_set_bus_speed reads it
  // (PCI_X_BRIDGE_SSTATUS, 16 bits).
  bool secondary_64bit = false, secondary_133mhz = false;
  bool secondary_266mhz = false, secondary_533mhz = false;
  int secondary_freq_code = 0;  // (sstatus & 0x03c0) >> 6: 0 conventional PCI, 1/2/3 = PCI-X 66/100/133,
                                // 5/6/7 = the same with ECC (PCI-X 2.0 mode 1), 9-11 = 266, 13-15 = 533
  // The secondary bus clock in MHz from secondary_freq_code (66, 100, 133), 0
  // when it runs in conventional mode or the code is reserved.
  int SecondaryClockMhz() const;
  // The secondary bus's transfers per clock: 1 (mode 1), 2 (266), 4 (533).
  int SecondaryTransfersPerClock() const;
};

// PCI Express capability (ID 0x10).
enum class PcieType : uint8_t {
  kEndpoint = 0,
  kLegacyEndpoint = 1,
  kRcIntegratedEndpoint = 9,
  kRcEventCollector = 10,
  kRootPort = 4,
  kUpstreamPort = 5,
  kDownstreamPort = 6,
  kPcieToPciBridge = 7,
  kPciToPcieBridge = 8,
};

struct PcieInfo {
  uint8_t version = 0;    // capability version (1 or 2)
  uint8_t type_code = 0;  // raw device/port type field (PcieType values)
  // Device Capabilities: largest payload the function supports, bytes.
  int max_payload_supported = 0;
  // Device Control: Max_Payload_Size and Max_Read_Request_Size in force, bytes.
  int max_payload = 0;
  int max_read_request = 0;
  // Link Capabilities / Status. Speeds are the 4-bit codes of the spec: 1 = 2.5
  // GT/s, 2 = 5, 3 = 8, 4 = 16, 5 = 32, 6 = 64. link_max_speed is Link
  // Capabilities' Max Link Speed field, as the spec and lspci read it (and
  // Linux since 6.13): when Link Capabilities 2 is non-zero (PCIe 3.0+) the
  // field indexes its Supported Link Speeds vector, which may list speeds
  // above the port's maximum (Thunderbolt 3 ports: LnkCap 2.5 GT/s, LnkCap2
  // 2.5-8 GT/s); the vector's highest bit is used only when the field is
  // reserved. 0 = absent or reserved.
  bool has_link = false;  // the capability is long enough to hold the link registers
  int link_max_speed = 0;
  int link_max_width = 0;  // lanes, 1..32
  int link_speed = 0;      // negotiated (Link Status)
  int link_width = 0;      // negotiated
  bool dll_link_active = false;
  uint8_t supported_speeds = 0;  // Link Capabilities 2 bits 1-7 (bit n = speed code n)

  PcieType type() const { return static_cast<PcieType>(type_code); }
  // True for a link that trained below its capability ("downgraded" in lspci).
  bool Downtrained() const {
    return has_link && link_speed > 0 && link_width > 0 && (link_speed < link_max_speed || link_width < link_max_width);
  }
};

struct PciMsiInfo {
  bool enabled = false;
  bool is_64bit = false;
  int vectors = 0;  // MSI: 1 << multiple message enable; MSI-X: table size
};

// Header type 1 (PCI-to-PCI bridge) fields.
struct PciBridgeInfo {
  uint8_t primary_bus = 0, secondary_bus = 0, subordinate_bus = 0;
  uint16_t secondary_status = 0;
  bool secondary_66mhz = false;  // secondary status bit 5
};

struct PciConfig {
  size_t length = 0;         // bytes given to the decoder
  bool device_gone = false;  // vendor ID 0xffff (a removed device reads all ones)
  uint16_t vendor = 0, device = 0;
  uint16_t command = 0, status = 0;
  uint8_t revision = 0;
  uint32_t class_code = 0;  // 24 bits: base class, subclass, prog-if (0x020000 = Ethernet)
  uint8_t header_type = 0;  // without the multi-function bit
  bool multifunction = false;
  uint8_t cache_line_bytes = 0;  // cache line size register x 4
  uint8_t latency_timer = 0;
  bool capable_66mhz = false;               // status bit 5: the function can run its bus at 66 MHz
  std::optional<PciBridgeInfo> bridge;      // header type 1
  std::vector<PciCapability> capabilities;  // in list order
  std::vector<PciExtCapability> ext_capabilities;
  std::optional<PciXInfo> pcix;
  std::optional<PcieInfo> pcie;
  std::optional<PciMsiInfo> msi, msix;
  // What could not be decoded, one phrase each: "truncated at 64 bytes: no
  // capabilities", "capability loop at 0x40", "capability pointer 0x1c inside
  // the header", "PCIe capability cut short at 0x7c".
  std::vector<std::string> problems;

  bool HasCapability(uint8_t id) const;
};

// Decodes `bytes` (any length). Never fails: a buffer under 64 bytes yields
// only the fields it covers (with a problem), an all-0xFF buffer yields
// device_gone. Caps the capability walk at 48 entries (the most that fit in
// 192 bytes) and the extended walk at (length - 256) / 4.
PciConfig DecodePciConfig(std::string_view bytes);

// "2.5 GT/s" ... "64.0 GT/s" for a speed code; "" for 0 or unknown codes.
std::string PcieSpeedName(int code);
// Transfer rate in GT/s for a speed code (2.5 ... 64); 0 for unknown codes.
double PcieSpeedGts(int code);
// Parses Linux's current_link_speed / max_link_speed attribute text ("8.0 GT/s
// PCIe", "2.5 GT/s", "Unknown") to a speed code; 0 when not understood.
int ParsePcieSpeedAttribute(std::string_view text);

}  // namespace bottleneckd
