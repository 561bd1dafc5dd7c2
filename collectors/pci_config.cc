#include "collectors/pci_config.h"

#include <algorithm>
#include <bitset>
#include <cstdio>
#include <string>

#include "base/parse_util.h"

namespace bottleneckd {
namespace {

// Offsets and fields of the standard header (PCI_* in pci_regs.h).
constexpr size_t kHeaderSize = 0x40;
constexpr size_t kConventionalSize = 0x100;
constexpr size_t kExtendedSize = 0x1000;
constexpr uint16_t kStatusCapList = 0x10, kStatus66Mhz = 0x20;
constexpr size_t kCapListType01 = 0x34, kCapListCardbus = 0x14;
constexpr int kMaxStandardCaps = 48;

// Little-endian reads that never pass the end of the buffer: callers check
// Has() first; an unchecked read past the end yields 0 instead of UB.
class Bytes {
 public:
  explicit Bytes(std::string_view b) : b_(b) {}
  size_t size() const { return b_.size(); }
  bool Has(size_t off, size_t n) const { return off <= b_.size() && n <= b_.size() - off; }
  uint32_t Get(size_t off, size_t n) const {
    if (!Has(off, n)) return 0;
    uint32_t v = 0;
    for (size_t i = n; i-- > 0;) v = (v << 8) | static_cast<uint8_t>(b_[off + i]);
    return v;
  }
  uint8_t U8(size_t off) const { return static_cast<uint8_t>(Get(off, 1)); }
  uint16_t U16(size_t off) const { return static_cast<uint16_t>(Get(off, 2)); }
  uint32_t U32(size_t off) const { return Get(off, 4); }
  bool AllOnes() const {
    return std::all_of(b_.begin(), b_.end(), [](char c) { return c == '\xff'; });
  }

 private:
  std::string_view b_;
};

std::string Hex(size_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*zx", digits, v);
  return buf;
}

std::string CutShort(const char* what, size_t off) {
  return std::string(what) + " capability cut short at " + Hex(off, 2);
}

// MSI (ID 5): Message Control at +2: enable bit 0, Multiple Message Enable
// bits 6:4 (1 << n vectors), 64-bit address bit 7.
void DecodeMsi(const Bytes& b, size_t pos, PciConfig* c) {
  if (!b.Has(pos + 2, 2)) {
    c->problems.push_back(CutShort("MSI", pos));
    return;
  }
  uint16_t ctl = b.U16(pos + 2);
  PciMsiInfo m;
  m.enabled = ctl & 0x1;
  m.is_64bit = ctl & 0x80;
  m.vectors = 1 << ((ctl >> 4) & 0x7);
  c->msi = m;
}

// MSI-X (ID 0x11): Message Control at +2: table size bits 10:0 (N-1), enable
// bit 15. MSI-X table entries always carry a 64-bit message address.
void DecodeMsix(const Bytes& b, size_t pos, PciConfig* c) {
  if (!b.Has(pos + 2, 2)) {
    c->problems.push_back(CutShort("MSI-X", pos));
    return;
  }
  uint16_t ctl = b.U16(pos + 2);
  PciMsiInfo m;
  m.enabled = ctl & 0x8000;
  m.is_64bit = true;
  m.vectors = (ctl & 0x7ff) + 1;
  c->msix = m;
}

// The status register shared by PCI-X devices (PCI_X_STATUS) and bridges
// (PCI_X_BRIDGE_STATUS): captured function 2:0, device 7:3, bus 15:8, 64-bit
// bit 16, 133 MHz bit 17, 266 MHz bit 30, 533 MHz bit 31.
void DecodePcixStatus(uint32_t st, PciXInfo* x) {
  x->fn = st & 0x7;
  x->dev = (st >> 3) & 0x1f;
  x->bus = (st >> 8) & 0xff;
  x->is_64bit = st & (1u << 16);
  x->capable_133mhz = st & (1u << 17);
  x->capable_266mhz = st & (1u << 30);
  x->capable_533mhz = st & (1u << 31);
}

// PCI-X (ID 7). Device: command at +2 (16 bits), status at +4 (32 bits).
// Bridge (header type 1): secondary status at +2 (16 bits), bridge status at +4.
void DecodePcix(const Bytes& b, size_t pos, bool bridge, PciConfig* c) {
  if (!b.Has(pos + 2, 6)) {
    c->problems.push_back(CutShort("PCI-X", pos));
    return;
  }
  static constexpr int kSplits[8] = {1, 2, 3, 4, 8, 12, 16, 32};
  PciXInfo x;
  x.bridge = bridge;
  uint32_t st = b.U32(pos + 4);
  DecodePcixStatus(st, &x);
  if (bridge) {
    uint16_t ss = b.U16(pos + 2);
    x.secondary_64bit = ss & 0x1;
    x.secondary_133mhz = ss & 0x2;
    x.secondary_freq_code = (ss & 0x03c0) >> 6;
    x.secondary_266mhz = ss & 0x4000;
    x.secondary_533mhz = ss & 0x8000;
  } else {
    uint16_t cmd = b.U16(pos + 2);
    x.max_read_byte_count = 512 << ((cmd >> 2) & 0x3);
    x.max_outstanding_splits = kSplits[(cmd >> 4) & 0x7];
    x.designed_max_read_byte_count = 512 << ((st >> 21) & 0x3);
  }
  c->pcix = x;
}

// Highest set bit of a non-zero byte.
int HighestBit(uint8_t v) {
  int n = -1;
  for (; v != 0; v >>= 1) ++n;
  return n;
}

// The port's maximum link speed code from LNKCAP's Max Link Speed field (3:0)
// and LNKCAP2's Supported Link Speeds vector (`vector`, bits 7:1; bit n =
// speed code n). The field is the maximum, as the spec, lspci and Linux 6.13+
// ("PCI: Honor Max Link Speed when determining supported speeds") take it: a
// vector may list speeds the port is capped below (Thunderbolt 3 ports: LNKCAP
// 2.5 GT/s, LNKCAP2 2.5-8 GT/s). With a vector the field indexes it (value n =
// vector bit n-1 of LNKCAP2[7:1], i.e. speed code n); a field whose bit is not
// in the vector keeps its legacy (PCIe 2.0) meaning, which is the same code.
// Only a reserved field (0, or past the known codes) falls back to the
// vector's highest speed.
int MaxLinkSpeed(int field, uint8_t vector) {
  if (field >= 1 && field <= 7 && (vector & (1u << field)) != 0) return field;  // indexed by the field
  if (!PcieSpeedName(field).empty()) return field;                              // legacy meaning
  return vector != 0 ? HighestBit(vector) : field;
}

// PCI Express (ID 0x10): PCI_EXP_FLAGS at +2 (version 3:0, type 7:4), DEVCAP
// +4 (MPS supported 2:0), DEVCTL +8 (MPS 7:5, MRRS 14:12; 128 << n bytes),
// LNKCAP +0xc and LNKSTA +0x12 (speed 3:0, width 9:4; LNKSTA DLLLA bit 13),
// LNKCAP2 +0x2c (supported speeds vector 7:1; version 2 only; it never raises
// the maximum above LNKCAP's field, see MaxLinkSpeed). Root Complex
// integrated endpoints and event collectors have no link registers.
void DecodePcie(const Bytes& b, size_t pos, PciConfig* c) {
  if (!b.Has(pos + 2, 2)) {
    c->problems.push_back(CutShort("PCIe", pos));
    return;
  }
  PcieInfo e;
  uint16_t flags = b.U16(pos + 2);
  e.version = flags & 0xf;
  e.type_code = (flags >> 4) & 0xf;
  if (b.Has(pos + 4, 4)) e.max_payload_supported = 128 << (b.U32(pos + 4) & 0x7);
  if (b.Has(pos + 8, 2)) {
    uint16_t ctl = b.U16(pos + 8);
    e.max_payload = 128 << ((ctl >> 5) & 0x7);
    e.max_read_request = 128 << ((ctl >> 12) & 0x7);
  }
  const bool link_regs = e.type() != PcieType::kRcIntegratedEndpoint && e.type() != PcieType::kRcEventCollector;
  if (!b.Has(pos + 0xc, 8)) {
    c->problems.push_back(CutShort("PCIe", pos));
  } else if (link_regs) {
    uint32_t cap = b.U32(pos + 0xc);
    uint16_t sta = b.U16(pos + 0x12);
    e.has_link = true;
    e.link_max_speed = cap & 0xf;
    e.link_max_width = (cap >> 4) & 0x3f;
    e.link_speed = sta & 0xf;
    e.link_width = (sta >> 4) & 0x3f;
    e.dll_link_active = sta & 0x2000;
    if (e.version >= 2 && !b.Has(pos + 0x2c, 4)) {
      c->problems.push_back("PCIe Link Capabilities 2 at " + Hex(pos + 0x2c, 2) + " beyond the " +
                            std::to_string(b.size()) + " bytes read");
    } else if (e.version >= 2) {
      e.supported_speeds = b.U32(pos + 0x2c) & 0xfe;
      e.link_max_speed = MaxLinkSpeed(cap & 0xf, e.supported_speeds);
    }
  }
  c->pcie = e;
}

void DecodeCapability(const Bytes& b, uint8_t id, size_t pos, PciConfig* c) {
  // The first instance of a capability counts, as with pci_find_capability().
  switch (id) {
    case kPciCapMsi:
      if (!c->msi) DecodeMsi(b, pos, c);
      break;
    case kPciCapMsix:
      if (!c->msix) DecodeMsix(b, pos, c);
      break;
    case kPciCapPcix:
      if (!c->pcix) DecodePcix(b, pos, c->header_type == 1, c);
      break;
    case kPciCapPcie:
      if (!c->pcie) DecodePcie(b, pos, c);
      break;
    default: break;  // listed only
  }
}

std::string BeyondBuffer(const char* what, size_t pos, int digits, size_t size) {
  return std::string(what) + " pointer " + Hex(pos, digits) + " beyond the " + std::to_string(size) + " bytes read";
}

// Walks the standard list from the pointer at `list_reg` (bottom two bits
// masked, as the kernel does), listing and decoding each capability. Returns
// why the walk stopped early, or "" when the list ended normally.
std::string WalkCapabilities(const Bytes& b, size_t list_reg, PciConfig* c) {
  std::bitset<kConventionalSize> visited;
  size_t pos = b.U8(list_reg) & ~3u;
  for (int n = 0; pos != 0; ++n) {
    if (pos < kHeaderSize) return "capability pointer " + Hex(pos, 2) + " inside the header";
    if (!b.Has(pos, 2)) {
      if (b.size() <= kHeaderSize) {
        return "truncated at " + std::to_string(b.size()) + " bytes: no capabilities";
      }
      return BeyondBuffer("capability", pos, 2, b.size());
    }
    if (visited[pos]) return "capability loop at " + Hex(pos, 2);
    // 48 distinct dword-aligned slots fit in 0x40-0xff, so with the visited set
    // this cap is a second guard, as the kernel's TTL is.
    if (n >= kMaxStandardCaps) return "capability list longer than 48 entries";
    visited[pos] = true;
    uint8_t id = b.U8(pos);
    if (id == 0xff) return "capability list broken at " + Hex(pos, 2) + " (ID 0xff)";
    c->capabilities.push_back({id, static_cast<uint16_t>(pos)});
    DecodeCapability(b, id, pos, c);
    pos = b.U8(pos + 1) & ~3u;
  }
  return "";
}

// Extended capabilities: a 32-bit header at 0x100 (ID 15:0, version 19:16, next
// 31:20); 0 or all ones there means none; next 0 ends the list. Returns why the
// walk stopped early, or "".
std::string WalkExtendedCapabilities(const Bytes& b, PciConfig* c) {
  const size_t max_caps = (b.size() - kConventionalSize) / 4;
  std::bitset<(kExtendedSize - kConventionalSize) / 4> visited;
  size_t pos = kConventionalSize;
  for (size_t n = 0;; ++n) {
    if (!b.Has(pos, 4)) return BeyondBuffer("extended capability", pos, 3, b.size());
    uint32_t header = b.U32(pos);
    if (header == 0 || header == 0xffffffffu) return "";
    size_t slot = (pos - kConventionalSize) / 4;
    if (visited[slot]) return "extended capability loop at " + Hex(pos, 3);
    if (n >= max_caps) return "extended capability list longer than " + std::to_string(max_caps) + " entries";
    visited[slot] = true;
    c->ext_capabilities.push_back({static_cast<uint16_t>(header & 0xffff), static_cast<uint8_t>((header >> 16) & 0xf),
                                   static_cast<uint16_t>(pos)});
    size_t next = (header >> 20) & 0xffc;
    if (next == 0) return "";
    if (next < kConventionalSize) {
      return "extended capability pointer " + Hex(next, 3) + " inside conventional space";
    }
    pos = next;
  }
}

void DecodeHeader(const Bytes& b, PciConfig* c) {
  c->device = b.U16(0x02);
  c->command = b.U16(0x04);
  c->status = b.U16(0x06);
  c->revision = b.U8(0x08);
  c->class_code = b.Get(0x09, 3);
  // The register counts 32-bit words; sizes past 255 bytes (register >= 0x40)
  // saturate the 8-bit field.
  c->cache_line_bytes = static_cast<uint8_t>(std::min<unsigned>(b.U8(0x0c) * 4u, 255u));
  c->latency_timer = b.U8(0x0d);
  c->header_type = b.U8(0x0e) & 0x7f;
  c->multifunction = b.U8(0x0e) & 0x80;
  c->capable_66mhz = c->status & kStatus66Mhz;
  if (c->header_type == 1 && b.Has(0x18, 8)) {
    PciBridgeInfo br;
    br.primary_bus = b.U8(0x18);
    br.secondary_bus = b.U8(0x19);
    br.subordinate_bus = b.U8(0x1a);
    br.secondary_status = b.U16(0x1e);
    br.secondary_66mhz = br.secondary_status & kStatus66Mhz;
    c->bridge = br;
  }
}

}  // namespace

int PciXInfo::SecondaryClockMhz() const {
  static constexpr int kClock[4] = {0, 66, 100, 133};
  return kClock[secondary_freq_code & 0x3];
}

int PciXInfo::SecondaryTransfersPerClock() const {
  if ((secondary_freq_code & 0x3) == 0) return secondary_freq_code == 0 ? 1 : 0;  // conventional / reserved
  static constexpr int kTransfers[4] = {1, 1, 2, 4};                              // parity, ECC (mode 1), 266, 533
  return kTransfers[(secondary_freq_code >> 2) & 0x3];
}

bool PciConfig::HasCapability(uint8_t id) const {
  return std::any_of(capabilities.begin(), capabilities.end(), [id](const PciCapability& c) { return c.id == id; });
}

PciConfig DecodePciConfig(std::string_view bytes) {
  Bytes b(bytes);
  PciConfig c;
  c.length = bytes.size();
  if (!b.Has(0, 2)) {
    c.problems.push_back("truncated at " + std::to_string(b.size()) + " bytes: no vendor ID");
    return c;
  }
  c.vendor = b.U16(0);
  if (c.vendor == 0xffff) {
    c.device_gone = true;
    c.problems.push_back(b.AllOnes() ? "device gone: config space reads all ones"
                                     : "device gone: vendor ID reads 0xffff");
    return c;
  }
  DecodeHeader(b, &c);
  if (c.vendor == 0) c.problems.push_back("vendor ID 0x0000 is invalid");
  if (b.size() < kHeaderSize) {
    c.problems.push_back("truncated at " + std::to_string(b.size()) + " bytes: header cut short, no capabilities");
    return c;
  }
  std::string stop;
  if (c.status & kStatusCapList) {
    if (c.header_type == 0 || c.header_type == 1) {
      stop = WalkCapabilities(b, kCapListType01, &c);
    } else if (c.header_type == 2) {
      stop = WalkCapabilities(b, kCapListCardbus, &c);
    } else {
      stop = "header type " + Hex(c.header_type, 2) + ": capabilities not decoded";
    }
    if (!stop.empty()) c.problems.push_back(stop);
  }
  if (b.size() >= kConventionalSize + 4) {
    stop = WalkExtendedCapabilities(b, &c);
    if (!stop.empty()) c.problems.push_back(stop);
  }
  return c;
}

namespace {

struct SpeedRow {
  int code;
  double gts;
  const char* name;
};
constexpr SpeedRow kSpeeds[] = {{1, 2.5, "2.5 GT/s"},   {2, 5.0, "5.0 GT/s"},   {3, 8.0, "8.0 GT/s"},
                                {4, 16.0, "16.0 GT/s"}, {5, 32.0, "32.0 GT/s"}, {6, 64.0, "64.0 GT/s"}};

const SpeedRow* FindSpeed(int code) {
  for (const SpeedRow& r : kSpeeds) {
    if (r.code == code) return &r;
  }
  return nullptr;
}

}  // namespace

std::string PcieSpeedName(int code) {
  const SpeedRow* r = FindSpeed(code);
  return r ? r->name : "";
}

double PcieSpeedGts(int code) {
  const SpeedRow* r = FindSpeed(code);
  return r ? r->gts : 0.0;
}

// Accepts "<rate> GT/s" with an optional " PCIe" suffix (kernels before 5.x
// print "5 GT/s", later ones "5.0 GT/s PCIe"), surrounding blanks and newline.
int ParsePcieSpeedAttribute(std::string_view text) {
  std::string_view s = Trim(text);
  size_t unit = s.find("GT/s");
  if (unit == std::string_view::npos) return 0;
  std::string_view rest = Trim(s.substr(unit + 4));
  if (!rest.empty() && rest != "PCIe") return 0;
  double gts = 0;
  if (!ParseDouble(Trim(s.substr(0, unit)), &gts)) return 0;
  for (const SpeedRow& r : kSpeeds) {
    if (r.gts == gts) return r.code;
  }
  return 0;
}

}  // namespace bottleneckd
