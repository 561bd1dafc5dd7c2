// Tests of the PCI configuration space decoder (collectors/pci_config.h) on
// hand-assembled config spaces (every expected value follows from the bytes
// written, by the register layouts of pci_regs.h), on malformed input, and on
// the recorded and generated fixture `config` files (expected values from the
// fixture READMEs and from reading the bytes with xxd).
#include "collectors/pci_config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/support/test_util.h"

namespace bottleneckd::pci_config_test {
namespace {

// A zero-filled config space written register by register, little-endian.
class ConfigBytes {
 public:
  explicit ConfigBytes(size_t size = 256) : bytes_(size, '\0') {}

  ConfigBytes& Put(size_t off, uint32_t value, int width) {
    for (int i = 0; i < width; ++i) bytes_.at(off + i) = static_cast<char>((value >> (8 * i)) & 0xff);
    return *this;
  }
  ConfigBytes& U8(size_t off, uint32_t v) { return Put(off, v, 1); }
  ConfigBytes& U16(size_t off, uint32_t v) { return Put(off, v, 2); }
  ConfigBytes& U32(size_t off, uint32_t v) { return Put(off, v, 4); }

  // Vendor, device, class code (24 bits) and header type byte.
  ConfigBytes& Header(uint16_t vendor, uint16_t device, uint32_t class_code, uint8_t header_type) {
    return U16(0x00, vendor).U16(0x02, device).Put(0x09, class_code, 3).U8(0x0e, header_type);
  }
  // Appends a capability at `off`: 0x34 (first) or the previous capability's
  // next pointer is set to it, and the status register's capability bit.
  ConfigBytes& Cap(size_t off, uint8_t id) {
    U8(last_cap_ == 0 ? 0x34 : last_cap_ + 1, off).U8(off, id).U8(0x06, bytes_[0x06] | 0x10);
    last_cap_ = off;
    return *this;
  }
  std::string Bytes(size_t len = std::string::npos) const { return bytes_.substr(0, len); }

 private:
  std::string bytes_;
  size_t last_cap_ = 0;
};

std::vector<uint16_t> CapOffsets(const PciConfig& c) {
  std::vector<uint16_t> v;
  for (const PciCapability& cap : c.capabilities) v.push_back(cap.offset);
  return v;
}

std::string Problems(const PciConfig& c) {
  std::string s;
  for (const std::string& p : c.problems) s += p + "; ";
  return s;
}

TEST(PciConfigTest, Type0Header) {
  // 8086:1079 rev 3, Ethernet, command 0x0117, status 0x0220 (66 MHz, no
  // capability list), cache line register 0x10 (16 dwords), latency 0x40,
  // header type 0x80 (type 0, multi-function).
  std::string b = ConfigBytes()
                      .Header(0x8086, 0x1079, 0x020000, 0x80)
                      .U16(0x04, 0x0117)
                      .U16(0x06, 0x0220)
                      .U8(0x08, 0x03)
                      .U8(0x0c, 0x10)
                      .U8(0x0d, 0x40)
                      .U8(0x34, 0x40)  // ignored: status bit 4 is clear
                      .U8(0x40, kPciCapMsi)
                      .Bytes();
  PciConfig c = DecodePciConfig(b);
  EXPECT_EQ(c.length, 256u);
  EXPECT_FALSE(c.device_gone);
  EXPECT_EQ(c.vendor, 0x8086);
  EXPECT_EQ(c.device, 0x1079);
  EXPECT_EQ(c.command, 0x0117);
  EXPECT_EQ(c.status, 0x0220);
  EXPECT_EQ(c.revision, 3);
  EXPECT_EQ(c.class_code, 0x020000u);
  EXPECT_EQ(c.header_type, 0);
  EXPECT_TRUE(c.multifunction);
  EXPECT_EQ(c.cache_line_bytes, 64);
  EXPECT_EQ(c.latency_timer, 0x40);
  EXPECT_TRUE(c.capable_66mhz);
  EXPECT_FALSE(c.bridge.has_value());
  EXPECT_TRUE(c.capabilities.empty());
  EXPECT_FALSE(c.msi.has_value());
  EXPECT_TRUE(c.problems.empty()) << Problems(c);
}

TEST(PciConfigTest, Type1HeaderBridgeFields) {
  for (uint16_t sec_status : {0x02a0, 0x0280}) {
    std::string b = ConfigBytes()
                        .Header(0x8086, 0x244e, 0x060401, 0x01)
                        .U8(0x18, 0x00)
                        .U8(0x19, 0x03)
                        .U8(0x1a, 0x05)
                        .U16(0x1e, sec_status)
                        .Bytes();
    PciConfig c = DecodePciConfig(b);
    EXPECT_EQ(c.header_type, 1);
    EXPECT_FALSE(c.multifunction);
    EXPECT_FALSE(c.capable_66mhz);
    ASSERT_TRUE(c.bridge.has_value());
    EXPECT_EQ(c.bridge->primary_bus, 0);
    EXPECT_EQ(c.bridge->secondary_bus, 3);
    EXPECT_EQ(c.bridge->subordinate_bus, 5);
    EXPECT_EQ(c.bridge->secondary_status, sec_status);
    EXPECT_EQ(c.bridge->secondary_66mhz, sec_status == 0x02a0);  // bit 5 = 0x20
  }
}

TEST(PciConfigTest, PcixDevice) {
  // Command 0x0026: RBC bits 3:2 = 01 -> 1024, OST bits 6:4 = 010 -> 3.
  // Status 0x40610519: fn 1, dev 3 (0x18 >> 3), bus 5, 64-bit (bit 16),
  // DMMRBC bits 22:21 = 11 -> 4096, 266 MHz (bit 30); 133 MHz and 533 clear.
  std::string b = ConfigBytes()
                      .Header(0x8086, 0x1010, 0x020000, 0x00)
                      .Cap(0x60, kPciCapPcix)
                      .U16(0x62, 0x0026)
                      .U32(0x64, 0x40610519)
                      .Bytes();
  PciConfig c = DecodePciConfig(b);
  ASSERT_TRUE(c.pcix.has_value()) << Problems(c);
  const PciXInfo& x = *c.pcix;
  EXPECT_FALSE(x.bridge);
  EXPECT_EQ(x.max_read_byte_count, 1024);
  EXPECT_EQ(x.max_outstanding_splits, 3);
  EXPECT_EQ(x.bus, 5);
  EXPECT_EQ(x.dev, 3);
  EXPECT_EQ(x.fn, 1);
  EXPECT_TRUE(x.is_64bit);
  EXPECT_FALSE(x.capable_133mhz);
  EXPECT_EQ(x.designed_max_read_byte_count, 4096);
  EXPECT_TRUE(x.capable_266mhz);
  EXPECT_FALSE(x.capable_533mhz);
  EXPECT_TRUE(c.HasCapability(kPciCapPcix));
  EXPECT_FALSE(c.HasCapability(kPciCapPcie));
}

TEST(PciConfigTest, PcixOutstandingSplitTable) {
  const int expected[8] = {1, 2, 3, 4, 8, 12, 16, 32};  // PCI-X 2.0 command bits 6:4
  for (int n = 0; n < 8; ++n) {
    std::string b = ConfigBytes().Header(1, 2, 0x020000, 0).Cap(0x40, kPciCapPcix).U16(0x42, n << 4).Bytes();
    PciConfig c = DecodePciConfig(b);
    ASSERT_TRUE(c.pcix.has_value());
    EXPECT_EQ(c.pcix->max_outstanding_splits, expected[n]) << n;
    EXPECT_EQ(c.pcix->max_read_byte_count, 512);
  }
}

TEST(PciConfigTest, PcixBridge) {
  // Secondary status 0x4281: 64-bit (bit 0), freq (bits 9:6) = 0xa (266 mode at
  // 100 MHz), 266 capable (bit 14). Bridge status 0x000200ff: fn 7, dev 31,
  // bus 0, 133 MHz (bit 17).
  std::string b = ConfigBytes()
                      .Header(0x8086, 0x1460, 0x060400, 0x01)
                      .Cap(0x50, kPciCapPcix)
                      .U16(0x52, 0x4281)
                      .U32(0x54, 0x000200ff)
                      .Bytes();
  PciConfig c = DecodePciConfig(b);
  ASSERT_TRUE(c.pcix.has_value()) << Problems(c);
  const PciXInfo& x = *c.pcix;
  EXPECT_TRUE(x.bridge);
  EXPECT_TRUE(x.secondary_64bit);
  EXPECT_FALSE(x.secondary_133mhz);
  EXPECT_TRUE(x.secondary_266mhz);
  EXPECT_FALSE(x.secondary_533mhz);
  EXPECT_EQ(x.secondary_freq_code, 0xa);
  EXPECT_EQ(x.SecondaryClockMhz(), 100);
  EXPECT_EQ(x.SecondaryTransfersPerClock(), 2);
  EXPECT_EQ(x.fn, 7);
  EXPECT_EQ(x.dev, 31);
  EXPECT_EQ(x.bus, 0);
  EXPECT_FALSE(x.is_64bit);
  EXPECT_TRUE(x.capable_133mhz);
  EXPECT_EQ(x.max_read_byte_count, 0);  // device-only fields
}

TEST(PciConfigTest, PcixSecondaryFrequencyCodes) {
  // Linux pci_set_bus_speed's table: low two bits 66/100/133 MHz (0 =
  // conventional for code 0, reserved otherwise), high two bits parity/ECC
  // mode 1, 266, 533.
  struct Row {
    int code, mhz, transfers;
  };
  const Row rows[] = {{0, 0, 1},    {1, 66, 1},  {2, 100, 1}, {3, 133, 1},  {4, 0, 0},
                      {5, 66, 1},   {6, 100, 1}, {7, 133, 1}, {8, 0, 0},    {9, 66, 2},
                      {11, 133, 2}, {12, 0, 0},  {13, 66, 4}, {14, 100, 4}, {15, 133, 4}};
  for (const Row& r : rows) {
    PciXInfo x;
    x.secondary_freq_code = r.code;
    EXPECT_EQ(x.SecondaryClockMhz(), r.mhz) << r.code;
    EXPECT_EQ(x.SecondaryTransfersPerClock(), r.transfers) << r.code;
  }
}

struct LinkCase {
  const char* name;
  uint16_t flags;  // PCI_EXP_FLAGS: version 3:0, type 7:4
  uint32_t lnkcap, lnkcap2;
  uint16_t lnksta;
  int max_speed, max_width, speed, width;
  uint8_t supported;
  bool downtrained, dll_active;
};

const LinkCase kLinkCases[] = {
    // Gen3 x8 (speed 3, width 8 << 4) trained at x4; LNKCAP2 bits 1-3.
    {"gen3_x8_at_x4", 0x0002, 0x00000083, 0x0000000e, 0x2043, 3, 8, 3, 4, 0x0e, true, true},
    // Gen4 x16 (0x104), LNKCAP2 bits 1-4, trained at full speed and width.
    {"gen4_x16", 0x0002, 0x00000104, 0x0000001e, 0x3104, 4, 16, 4, 16, 0x1e, false, true},
    // LNKCAP's Max Link Speed field is the maximum even when LNKCAP2 lists
    // more (the spec, lspci, Linux 6.13+): LNKCAP says 5 GT/s, LNKCAP2 2.5-8.
    // Trained at 5 GT/s x8 is full speed, not downtrained.
    {"lnkcap_field_caps_lnkcap2", 0x0002, 0x00000082, 0x0000000e, 0x0082, 2, 8, 2, 8, 0x0e, false, false},
    // Thunderbolt 3 downstream port (Intel JHL6540 Alpine Ridge, 8086:15d3;
    // lspci -vv: "LnkCap: Port #1, Speed 2.5GT/s, Width x4", "LnkCap2:
    // Supported Link Speeds: 2.5-8GT/s", "LnkSta: Speed 2.5GT/s, Width x4"):
    // max 2.5 GT/s, trained at it, not downtrained.
    {"thunderbolt3_port", 0x0062, 0x01000041, 0x0000000e, 0x7041, 1, 4, 1, 4, 0x0e, false, true},
    // Field 3 (8 GT/s) not in a vector of 2.5-5: the field's legacy meaning.
    {"field_not_in_vector", 0x0002, 0x00000083, 0x00000006, 0x0082, 3, 8, 2, 8, 0x06, true, false},
    // Field 0 (reserved) with a vector: the vector's highest speed.
    {"reserved_field_uses_vector", 0x0002, 0x00000080, 0x0000000e, 0x0083, 3, 8, 3, 8, 0x0e, false, false},
    // Gen1 x1 with LNKCAP2 = 0 (PCIe 2.0 device): max from LNKCAP.
    {"gen1_no_lnkcap2", 0x0002, 0x00000011, 0x00000000, 0x0011, 1, 1, 1, 1, 0, false, false},
    // Version 1 capability: the dword at +0x2c is not LNKCAP2 and is ignored.
    {"v1_ignores_2c", 0x0001, 0x00000022, 0x0000003e, 0x0012, 2, 2, 2, 1, 0, true, false},
    // Root port (type 4) at Gen2 x4 trained at 2.5 GT/s.
    {"root_port_gen1", 0x0042, 0x00000042, 0x00000006, 0x2041, 2, 4, 1, 4, 0x06, true, true},
    // x32 (width 0x20 << 4) at 8 GT/s.
    {"x32", 0x0002, 0x00000203, 0x0000000e, 0x0203, 3, 32, 3, 32, 0x0e, false, false},
    // Link down: LNKSTA 0: not counted as downtrained.
    {"link_down", 0x0002, 0x00000083, 0x0000000e, 0x0000, 3, 8, 0, 0, 0x0e, false, false},
};

TEST(PciConfigTest, PcieLinkTable) {
  for (const LinkCase& t : kLinkCases) {
    std::string b = ConfigBytes()
                        .Header(0x15b3, 0x1017, 0x020000, 0)
                        .Cap(0x70, kPciCapPcie)
                        .U16(0x72, t.flags)
                        .U32(0x7c, t.lnkcap)
                        .U16(0x82, t.lnksta)
                        .U32(0x9c, t.lnkcap2)
                        .Bytes();
    PciConfig c = DecodePciConfig(b);
    ASSERT_TRUE(c.pcie.has_value()) << t.name;
    const PcieInfo& e = *c.pcie;
    EXPECT_TRUE(e.has_link) << t.name;
    EXPECT_EQ(e.version, t.flags & 0xf) << t.name;
    EXPECT_EQ(e.type_code, (t.flags >> 4) & 0xf) << t.name;
    EXPECT_EQ(e.link_max_speed, t.max_speed) << t.name;
    EXPECT_EQ(e.link_max_width, t.max_width) << t.name;
    EXPECT_EQ(e.link_speed, t.speed) << t.name;
    EXPECT_EQ(e.link_width, t.width) << t.name;
    EXPECT_EQ(e.supported_speeds, t.supported) << t.name;
    EXPECT_EQ(e.Downtrained(), t.downtrained) << t.name;
    EXPECT_EQ(e.dll_link_active, t.dll_active) << t.name;
    EXPECT_TRUE(c.problems.empty()) << t.name << ": " << Problems(c);
  }
}

TEST(PciConfigTest, PcieTypeAndRcIntegratedEndpointHasNoLink) {
  // Type 9 (RC integrated endpoint): no link registers even if bytes exist.
  std::string b =
      ConfigBytes().Header(1, 2, 0x088000, 0).Cap(0x40, kPciCapPcie).U16(0x42, 0x0092).U32(0x4c, 0x83).Bytes();
  PciConfig c = DecodePciConfig(b);
  ASSERT_TRUE(c.pcie.has_value());
  EXPECT_EQ(c.pcie->type(), PcieType::kRcIntegratedEndpoint);
  EXPECT_FALSE(c.pcie->has_link);
  EXPECT_EQ(c.pcie->link_max_speed, 0);
  EXPECT_FALSE(c.pcie->Downtrained());
}

TEST(PciConfigTest, MaxPayloadAndReadRequest) {
  struct Row {
    uint32_t devcap;
    uint16_t devctl;  // MPS bits 7:5, MRRS bits 14:12
    int mps_supported, mps, mrrs;
  };
  const Row rows[] = {{0, 0x0000, 128, 128, 128},
                      {2, 0x5020, 512, 256, 4096},
                      {5, 0x2040, 4096, 512, 512},
                      {1, 0x10a0, 256, 4096, 256},
                      {0x10008022, 0x593f, 512, 256, 4096}};  // the large-host mlx5's registers
  for (const Row& r : rows) {
    std::string b = ConfigBytes()
                        .Header(1, 2, 0x020000, 0)
                        .Cap(0x40, kPciCapPcie)
                        .U16(0x42, 0x0002)
                        .U32(0x44, r.devcap)
                        .U16(0x48, r.devctl)
                        .Bytes();
    PciConfig c = DecodePciConfig(b);
    ASSERT_TRUE(c.pcie.has_value());
    EXPECT_EQ(c.pcie->max_payload_supported, r.mps_supported) << r.devctl;
    EXPECT_EQ(c.pcie->max_payload, r.mps) << r.devctl;
    EXPECT_EQ(c.pcie->max_read_request, r.mrrs) << r.devctl;
  }
}

TEST(PciConfigTest, MsiAndMsix) {
  // MSI control 0x00a7: enable, MMC (3:1) 3 (8 capable), MME (6:4) 2 -> 4
  // vectors enabled, 64-bit.
  // MSI-X control 0x803f: enable, table size 63 + 1.
  std::string b = ConfigBytes()
                      .Header(1, 2, 0x020000, 0)
                      .Cap(0x50, kPciCapMsi)
                      .U16(0x52, 0x00a7)
                      .Cap(0x70, kPciCapMsix)
                      .U16(0x72, 0x803f)
                      .Bytes();
  PciConfig c = DecodePciConfig(b);
  ASSERT_TRUE(c.msi.has_value());
  EXPECT_TRUE(c.msi->enabled);
  EXPECT_TRUE(c.msi->is_64bit);
  EXPECT_EQ(c.msi->vectors, 4);
  ASSERT_TRUE(c.msix.has_value());
  EXPECT_TRUE(c.msix->enabled);
  EXPECT_EQ(c.msix->vectors, 64);

  // MSI 0x0000: disabled, 32-bit, 1 vector; MSI-X 0x07ff: disabled, 2048.
  b = ConfigBytes().Header(1, 2, 0, 0).Cap(0x50, kPciCapMsi).Cap(0x70, kPciCapMsix).U16(0x72, 0x07ff).Bytes();
  c = DecodePciConfig(b);
  ASSERT_TRUE(c.msi.has_value() && c.msix.has_value());
  EXPECT_FALSE(c.msi->enabled);
  EXPECT_FALSE(c.msi->is_64bit);
  EXPECT_EQ(c.msi->vectors, 1);
  EXPECT_FALSE(c.msix->enabled);
  EXPECT_EQ(c.msix->vectors, 2048);
}

// A valid header with the PCIe capability at 0x40 and MSI-X at 0x80.
ConfigBytes TwoCaps(size_t size = 256) {
  return ConfigBytes(size)
      .Header(0x8086, 0x10fb, 0x020000, 0)
      .Cap(0x40, kPciCapPcie)
      .U16(0x42, 0x0002)
      .Cap(0x80, kPciCapMsix)
      .U16(0x82, 0x8002);
}

struct MalformedCase {
  const char* name;
  std::function<std::string()> bytes;
  std::vector<uint16_t> caps;  // offsets listed
  std::string problem;         // a substring of some problem; "" = none expected
  bool device_gone = false;
};

const MalformedCase kMalformed[] = {
    {"empty", [] { return std::string(); }, {}, "truncated at 0 bytes"},
    {"one_byte", [] { return std::string("\x86", 1); }, {}, "truncated at 1 bytes"},
    {"63_bytes", [] { return TwoCaps().Bytes(63); }, {}, "truncated at 63 bytes"},
    {"64_bytes_no_caps", [] { return TwoCaps().Bytes(64); }, {}, "truncated at 64 bytes: no capabilities"},
    // MSI-X header at 0x80 readable, its control register at 0x82 is not.
    {"cut_mid_msix", [] { return TwoCaps().Bytes(0x82); }, {0x40, 0x80}, "MSI-X capability cut short at 0x80"},
    // PCIe at 0x40 needs up to 0x54 for Link Status.
    {"cut_mid_pcie", [] { return TwoCaps().Bytes(0x50); }, {0x40}, "PCIe capability cut short at 0x40"},
    {"all_ff", [] { return std::string(256, '\xff'); }, {}, "device gone", true},
    {"all_ff_4k", [] { return std::string(4096, '\xff'); }, {}, "device gone", true},
    {"vendor_ffff_only", [] { return std::string(2, '\xff'); }, {}, "device gone", true},
    {"all_zero", [] { return std::string(256, '\0'); }, {}, "vendor ID 0x0000"},
    {"loop_a_b_a", [] { return TwoCaps().U8(0x81, 0x40).Bytes(); }, {0x40, 0x80}, "capability loop at 0x40"},
    {"self_loop", [] { return TwoCaps().U8(0x41, 0x40).Bytes(); }, {0x40}, "capability loop at 0x40"},
    {"pointer_into_header",
     [] { return TwoCaps().U8(0x34, 0x1c).Bytes(); },
     {},
     "capability pointer 0x1c inside the header"},
    {"next_into_header", [] { return TwoCaps().U8(0x81, 0x10).Bytes(); }, {0x40, 0x80}, "pointer 0x10 inside"},
    {"pointer_beyond", [] { return TwoCaps().U8(0x34, 0xc0).Bytes(0x80); }, {}, "0xc0 beyond the 128 bytes"},
    // Bottom two bits of a pointer are reserved and masked: 0x43 -> 0x40.
    {"pointer_low_bits", [] { return TwoCaps().U8(0x34, 0x43).Bytes(); }, {0x40, 0x80}, ""},
    {"cap_id_ff", [] { return TwoCaps().U8(0x80, 0xff).Bytes(); }, {0x40}, "broken at 0x80"},
    // Unknown IDs (0x0d bridge subsystem, 0x99 undefined) are listed, then skipped.
    {"unknown_ids",
     [] { return ConfigBytes().Header(1, 2, 0, 0).Cap(0x48, 0x0d).Cap(0x40, 0x99).Cap(0xf8, kPciCapMsix).Bytes(); },
     {0x48, 0x40, 0xf8},
     ""},
    {"ext_loop",
     [] { return TwoCaps(4096).U32(0x100, 0x14020001).U32(0x140, 0x1001000e).Bytes(); },
     {0x40, 0x80},
     "extended capability loop at 0x100"},
    {"ext_self_loop", [] { return TwoCaps(4096).U32(0x100, 0x10010001).Bytes(); }, {0x40, 0x80}, "loop at 0x100"},
    {"ext_into_conventional",
     [] { return TwoCaps(4096).U32(0x100, 0x04010001).Bytes(); },
     {0x40, 0x80},
     "0x040 inside conventional space"},
    {"ext_beyond", [] { return TwoCaps(4096).U32(0x100, 0x20010001).Bytes(0x104); }, {0x40, 0x80}, "0x200 beyond"},
    {"ext_all_ones", [] { return TwoCaps(4096).U32(0x100, 0xffffffff).Bytes(); }, {0x40, 0x80}, ""},
};

TEST(PciConfigTest, MalformedInputDecodesAsFarAsValid) {
  for (const MalformedCase& t : kMalformed) {
    std::string bytes = t.bytes();
    PciConfig c = DecodePciConfig(bytes);
    EXPECT_EQ(c.length, bytes.size()) << t.name;
    EXPECT_EQ(CapOffsets(c), t.caps) << t.name;
    EXPECT_EQ(c.device_gone, t.device_gone) << t.name;
    if (t.problem.empty()) {
      EXPECT_TRUE(c.problems.empty()) << t.name << ": " << Problems(c);
    } else {
      EXPECT_NE(Problems(c).find(t.problem), std::string::npos) << t.name << ": " << Problems(c);
    }
    if (t.device_gone) {
      EXPECT_FALSE(c.pcie.has_value()) << t.name;
      EXPECT_TRUE(c.ext_capabilities.empty()) << t.name;
    }
  }
}

TEST(PciConfigTest, TruncatedHeaderKeepsWhatItCovers) {
  PciConfig c = DecodePciConfig(TwoCaps().Bytes(63));
  EXPECT_EQ(c.vendor, 0x8086);
  EXPECT_EQ(c.device, 0x10fb);
  EXPECT_EQ(c.class_code, 0x020000u);
  EXPECT_EQ(c.status, 0x0010);
  c = DecodePciConfig(TwoCaps().Bytes(0x50));  // PCIe cut after DEVCTL
  ASSERT_TRUE(c.pcie.has_value());
  EXPECT_EQ(c.pcie->version, 2);
  EXPECT_EQ(c.pcie->max_payload, 128);
  EXPECT_FALSE(c.pcie->has_link);
}

TEST(PciConfigTest, ExtendedCapabilities) {
  // 0x100: AER (1) v2 next 0x148; 0x148: ARI (0x0e) v1 next 0.
  std::string b = TwoCaps(4096).U32(0x100, 0x14820001).U32(0x148, 0x0001000e).Bytes();
  PciConfig c = DecodePciConfig(b);
  ASSERT_EQ(c.ext_capabilities.size(), 2u) << Problems(c);
  EXPECT_EQ(c.ext_capabilities[0].id, kPciExtCapAer);
  EXPECT_EQ(c.ext_capabilities[0].version, 2);
  EXPECT_EQ(c.ext_capabilities[0].offset, 0x100);
  EXPECT_EQ(c.ext_capabilities[1].id, 0x0e);
  EXPECT_EQ(c.ext_capabilities[1].version, 1);
  EXPECT_EQ(c.ext_capabilities[1].offset, 0x148);
  EXPECT_TRUE(c.problems.empty()) << Problems(c);
  // All ones at 0x100 (a function gone from extended space): no list.
  c = DecodePciConfig(TwoCaps(4096).U32(0x100, 0xffffffff).U32(0xffc, 0x00000001).Bytes());
  EXPECT_TRUE(c.ext_capabilities.empty());
  // 0x103 bytes: too short for an extended header, not walked, not a problem.
  c = DecodePciConfig(b.substr(0, 0x103));
  EXPECT_TRUE(c.ext_capabilities.empty());
  EXPECT_TRUE(c.problems.empty()) << Problems(c);
}

TEST(PciConfigTest, FirstInstanceOfACapabilityCounts) {
  // Two MSI-X capabilities (3 then 8 vectors) and two PCIe ones (MPS 256,
  // then 512): the first of each is decoded, as pci_find_capability() finds it.
  std::string b = ConfigBytes()
                      .Header(1, 2, 0x020000, 0)
                      .Cap(0x40, kPciCapMsix)
                      .U16(0x42, 0x8002)
                      .Cap(0x50, kPciCapPcie)
                      .U16(0x58, 0x0020)
                      .Cap(0x90, kPciCapMsix)
                      .U16(0x92, 0x0007)
                      .Cap(0xa0, kPciCapPcie)
                      .U16(0xa8, 0x0040)
                      .Bytes();
  PciConfig c = DecodePciConfig(b);
  EXPECT_EQ(CapOffsets(c), (std::vector<uint16_t>{0x40, 0x50, 0x90, 0xa0}));
  ASSERT_TRUE(c.msix.has_value() && c.pcie.has_value());
  EXPECT_EQ(c.msix->vectors, 3);
  EXPECT_TRUE(c.msix->enabled);
  EXPECT_EQ(c.pcie->max_payload, 256);
}

std::string SeedConfig(const std::string& rel) {
  return testing::ReadFileOrDie(testing::FixtureDir("seed-box") + "/sys/devices/pci0000:00/0000:00:02.0/0000:01:1d.0/" +
                                rel);
}

TEST(PciConfigFixtureTest, SeedBoxP64h2Bridge) {
  // xxd: 8086:1460 rev 04 class 060400, status 0x0230, header 01, buses
  // 01/02/02, secondary status 0x02a0, cap 0x50 = PCI-X, sstatus 0x00c3,
  // bridge status 0x000301e8 (bus 1, dev 0x1d, 64-bit, 133 MHz).
  PciConfig c = DecodePciConfig(SeedConfig("config"));
  EXPECT_EQ(c.vendor, 0x8086);
  EXPECT_EQ(c.device, 0x1460);
  EXPECT_EQ(c.class_code, 0x060400u);
  EXPECT_TRUE(c.capable_66mhz);
  ASSERT_TRUE(c.bridge.has_value());
  EXPECT_EQ(c.bridge->primary_bus, 1);
  EXPECT_EQ(c.bridge->secondary_bus, 2);
  EXPECT_EQ(c.bridge->subordinate_bus, 2);
  EXPECT_TRUE(c.bridge->secondary_66mhz);
  ASSERT_TRUE(c.pcix.has_value()) << Problems(c);
  EXPECT_TRUE(c.pcix->bridge);
  EXPECT_TRUE(c.pcix->secondary_64bit);
  EXPECT_TRUE(c.pcix->secondary_133mhz);
  EXPECT_EQ(c.pcix->secondary_freq_code, 3);
  EXPECT_EQ(c.pcix->SecondaryClockMhz(), 133);
  EXPECT_EQ(c.pcix->SecondaryTransfersPerClock(), 1);
  EXPECT_EQ(c.pcix->bus, 1);
  EXPECT_EQ(c.pcix->dev, 0x1d);
  EXPECT_TRUE(c.pcix->is_64bit);
  EXPECT_TRUE(c.pcix->capable_133mhz);
  EXPECT_TRUE(c.problems.empty()) << Problems(c);
}

TEST(PciConfigFixtureTest, SeedBox82546Functions) {
  // PM at 0xdc -> PCI-X at 0xe4 (command 0x0002, status 0x0dc30208 / 0x0dc30209)
  // -> MSI at 0xf0 (control 0x0080).
  for (int fn : {0, 1}) {
    PciConfig c = DecodePciConfig(SeedConfig("0000:02:01." + std::to_string(fn) + "/config"));
    EXPECT_EQ(c.vendor, 0x8086);
    EXPECT_EQ(c.device, 0x1079);
    EXPECT_EQ(c.revision, 3);
    EXPECT_EQ(CapOffsets(c), (std::vector<uint16_t>{0xdc, 0xe4, 0xf0}));
    EXPECT_TRUE(c.HasCapability(kPciCapPm));
    ASSERT_TRUE(c.pcix.has_value()) << Problems(c);
    EXPECT_FALSE(c.pcix->bridge);
    EXPECT_EQ(c.pcix->max_read_byte_count, 512);
    EXPECT_EQ(c.pcix->max_outstanding_splits, 1);
    EXPECT_EQ(c.pcix->designed_max_read_byte_count, 2048);
    EXPECT_TRUE(c.pcix->is_64bit);
    EXPECT_TRUE(c.pcix->capable_133mhz);
    EXPECT_FALSE(c.pcix->capable_266mhz);
    EXPECT_EQ(c.pcix->bus, 2);
    EXPECT_EQ(c.pcix->dev, 1);
    EXPECT_EQ(c.pcix->fn, fn);
    ASSERT_TRUE(c.msi.has_value());
    EXPECT_FALSE(c.msi->enabled);
    EXPECT_TRUE(c.msi->is_64bit);
    EXPECT_EQ(c.msi->vectors, 1);
    EXPECT_FALSE(c.pcie.has_value());
    EXPECT_TRUE(c.problems.empty()) << Problems(c);
  }
}

TEST(PciConfigFixtureTest, VmVirtioNet) {
  // Vendor-specific caps at 0x40, 0x50, 0x60, 0x70, 0x84, then MSI-X at 0x98
  // with control 0x8002 (enabled, 3 vectors).
  PciConfig c = DecodePciConfig(
      testing::ReadFileOrDie(testing::FixtureDir("vm") + "/sys/devices/pci0000:00/0000:00:03.0/config"));
  EXPECT_EQ(c.vendor, 0x1af4);
  EXPECT_EQ(c.device, 0x1041);
  EXPECT_EQ(c.class_code, 0x020000u);
  EXPECT_EQ(CapOffsets(c), (std::vector<uint16_t>{0x40, 0x50, 0x60, 0x70, 0x84, 0x98}));
  for (size_t i = 0; i < 5 && i < c.capabilities.size(); ++i) EXPECT_EQ(c.capabilities[i].id, kPciCapVendor);
  ASSERT_TRUE(c.msix.has_value());
  EXPECT_TRUE(c.msix->enabled);
  EXPECT_EQ(c.msix->vectors, 3);
  EXPECT_FALSE(c.pcie.has_value());
  EXPECT_FALSE(c.pcix.has_value());
  EXPECT_TRUE(c.problems.empty()) << Problems(c);
}

struct LargeHostCase {
  const char* path;  // under large-host/sys/devices
  uint8_t type_code;
  int max_speed, max_width, speed, width, mps, mrrs;
  bool downtrained;
};

TEST(PciConfigFixtureTest, LargeHostPcieLinks) {
  // From the README's table and MPS/MRRS line; the root port's 16 GT/s maximum
  // comes from LNKCAP2 0x1e (and LNKCAP 0x00100d04), the ixgbe's from LNKCAP
  // 0x00000c82 since its LNKCAP2 is 0.
  const LargeHostCase cases[] = {
      {"pci0000:3a/0000:3a:02.0/0000:3b:00.0", 0, 3, 16, 3, 16, 256, 4096, false},
      {"pci0000:ae/0000:ae:02.0/0000:af:00.0", 0, 2, 8, 2, 8, 256, 512, false},
      {"pci0000:3a/0000:3a:02.0", 4, 4, 16, 3, 16, 256, 512, true},
      {"pci0000:17/0000:17:02.0/0000:18:00.0", 0, 4, 4, 4, 4, 256, 512, false},
  };
  for (const LargeHostCase& t : cases) {
    PciConfig c = DecodePciConfig(
        testing::ReadFileOrDie(testing::FixtureDir("large-host") + "/sys/devices/" + t.path + "/config"));
    EXPECT_EQ(c.length, 4096u) << t.path;
    ASSERT_TRUE(c.pcie.has_value()) << t.path;
    EXPECT_EQ(c.pcie->type_code, t.type_code) << t.path;
    EXPECT_EQ(c.pcie->link_max_speed, t.max_speed) << t.path;
    EXPECT_EQ(c.pcie->link_max_width, t.max_width) << t.path;
    EXPECT_EQ(c.pcie->link_speed, t.speed) << t.path;
    EXPECT_EQ(c.pcie->link_width, t.width) << t.path;
    EXPECT_EQ(c.pcie->max_payload, t.mps) << t.path;
    EXPECT_EQ(c.pcie->max_read_request, t.mrrs) << t.path;
    EXPECT_EQ(c.pcie->Downtrained(), t.downtrained) << t.path;
    EXPECT_TRUE(c.ext_capabilities.empty()) << t.path;  // README: none
    EXPECT_TRUE(c.problems.empty()) << t.path << ": " << Problems(c);
  }
}

TEST(PcieSpeedTest, NamesAndRates) {
  EXPECT_EQ(PcieSpeedName(1), "2.5 GT/s");
  EXPECT_EQ(PcieSpeedName(2), "5.0 GT/s");
  EXPECT_EQ(PcieSpeedName(4), "16.0 GT/s");
  EXPECT_EQ(PcieSpeedName(6), "64.0 GT/s");
  EXPECT_EQ(PcieSpeedName(0), "");
  EXPECT_EQ(PcieSpeedName(7), "");
  EXPECT_EQ(PcieSpeedGts(1), 2.5);
  EXPECT_EQ(PcieSpeedGts(3), 8.0);
  EXPECT_EQ(PcieSpeedGts(5), 32.0);
  EXPECT_EQ(PcieSpeedGts(0), 0.0);
  EXPECT_EQ(PcieSpeedGts(15), 0.0);
}

TEST(PcieSpeedTest, ParseAttribute) {
  struct Row {
    const char* text;
    int code;
  };
  const Row rows[] = {{"2.5 GT/s PCIe", 1},
                      {"8.0 GT/s PCIe\n", 3},
                      {"16.0 GT/s PCIe", 4},
                      {"32.0 GT/s PCIe\n", 5},
                      {"64.0 GT/s PCIe", 6},
                      {"5 GT/s", 2},
                      {"8 GT/s\n", 3},
                      {"2.5 GT/s", 1},
                      {"5.0 GT/s PCIe", 2},
                      {"Unknown", 0},
                      {"Unknown speed", 0},
                      {"", 0},
                      {"\n", 0},
                      {"3.0 GT/s PCIe", 0},
                      {"GT/s", 0},
                      {"8.0 GT/s PCIe x", 0},
                      {"-8.0 GT/s PCIe", 0},
                      {"8.0 Gb/s", 0},
                      {"nan GT/s", 0},
                      {"2.5", 0}};
  for (const Row& r : rows) EXPECT_EQ(ParsePcieSpeedAttribute(r.text), r.code) << '"' << r.text << '"';
}

}  // namespace
}  // namespace bottleneckd::pci_config_test
