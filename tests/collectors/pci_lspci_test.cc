// Checks DecodePciConfig against pciutils: every `config` file under
// tests/fixtures/*/sys/devices is written as an `lspci -x`-style dump, decoded
// by `lspci -F DUMP -vv -D -n`, and lspci's reading of each function (IDs,
// status bits, bridge buses, capability list, PCIe link and MPS/MRRS, PCI-X
// device and bridge status, MSI/MSI-X) is compared with the decoder's.
// lspci (Debian package pciutils, 3.9.0 when written) must be installed: the
// test fails, not skips, without it. Like is compared with like: lspci prints
// Link Capabilities' own speed field and Link Capabilities 2 separately, and
// flags "(downgraded)" only on non-port functions.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectors/host_fs.h"
#include "collectors/pci_config.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::pci_lspci_test {
namespace {

namespace fs = std::filesystem;

std::string FindLspci() {
  std::string dirs = std::getenv("PATH") ? std::getenv("PATH") : "";
  dirs += ":/usr/bin:/bin:/usr/sbin:/sbin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = std::min(dirs.find(':', start), dirs.size());
    std::string path = dirs.substr(start, end - start) + "/lspci";
    if (end > start && ::access(path.c_str(), X_OK) == 0) return path;
    start = end + 1;
  }
  return "";
}

// One function's config space: "large-host 0000:3b:00.0" and its bytes.
struct ConfigFile {
  std::string label, address, bytes;
};

bool IsPciAddress(std::string_view s) {  // "0000:02:01.0"
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11}) {
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// Every scenario's config files, grouped by scenario (addresses are unique
// within one sysfs tree, so one lspci dump per scenario).
std::map<std::string, std::vector<ConfigFile>> FindConfigFiles() {
  std::map<std::string, std::vector<ConfigFile>> found;
  for (const fs::directory_entry& scenario : fs::directory_iterator(BOTTLENECKD_FIXTURES)) {
    fs::path devices = scenario.path() / "sys" / "devices";
    if (!fs::is_directory(devices)) continue;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(devices)) {
      std::string parent = e.path().parent_path().filename().string();
      if (e.path().filename() != "config" || !e.is_regular_file() || !IsPciAddress(parent)) continue;
      std::string name = scenario.path().filename().string();
      found[name].push_back({name + " " + parent, parent, testing::ReadFileOrDie(e.path().string())});
    }
  }
  return found;
}

std::string LspciDump(const std::vector<ConfigFile>& files) {
  std::string out;
  char buf[24];
  for (const ConfigFile& f : files) {
    out += f.address + " fixture\n";
    for (size_t off = 0; off < f.bytes.size(); off += 16) {
      std::snprintf(buf, sizeof buf, "%02zx:", off);
      out += buf;
      for (size_t i = off; i < off + 16 && i < f.bytes.size(); ++i) {
        std::snprintf(buf, sizeof buf, " %02x", static_cast<unsigned char>(f.bytes[i]));
        out += buf;
      }
      out += "\n";
    }
    out += "\n";
  }
  return out;
}

// Runs `lspci -F <dump> -vv -D -n`; false (with a message) when it fails.
// An empty dump runs lspci on this machine's own devices instead.
bool RunLspci(const std::string& dump, std::string* out, std::string* why) {
  static const std::string lspci = FindLspci();
  if (lspci.empty()) {
    *why = "lspci not found in PATH or /usr/bin: install the Debian package pciutils";
    return false;
  }
  testing::TempDir dir;
  dir.Write("dump.txt", dump);
  std::string source = dump.empty() ? "" : " -F " + dir.path() + "/dump.txt";
  std::string cmd = lspci + source + " -vv -D -n 2>" + dir.path() + "/err.txt";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) {
    *why = "cannot run " + cmd;
    return false;
  }
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  int st = ::pclose(p);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    *why = cmd + " failed: " + testing::ReadFileOrDie(dir.path() + "/err.txt");
    return false;
  }
  return true;
}

// lspci's text for one capability: "[e4] PCI-X non-bridge device" with its
// "Label: text" lines (continuation lines joined to their label's text).
struct LspciCap {
  int offset = 0;
  int ext_version = -1;  // "[100 v2]"; -1 for a standard capability
  std::string text;
  std::vector<std::pair<std::string, std::string>> fields;

  std::optional<std::string> Field(std::string_view label) const {
    for (const auto& [l, t] : fields) {
      if (l == label) return t;
    }
    return std::nullopt;
  }
};

struct LspciDevice {
  std::string header;                                       // "0000:02:01.0 0200: 8086:1079 (rev 03)"
  std::vector<std::pair<std::string, std::string>> fields;  // "Status", "Bus", "Secondary status"
  std::vector<LspciCap> caps;
  bool access_denied = false, chain_looped = false, chain_broken = false;

  std::optional<std::string> Field(std::string_view label) const {
    for (const auto& [l, t] : fields) {
      if (l == label) return t;
    }
    return std::nullopt;
  }
  std::vector<int> Offsets(bool extended) const {
    std::vector<int> v;
    for (const LspciCap& c : caps) {
      if ((c.ext_version >= 0) == extended) v.push_back(c.offset);
    }
    return v;
  }
  const LspciCap* Cap(std::string_view prefix) const {
    for (const LspciCap& c : caps) {
      if (c.text.compare(0, prefix.size(), prefix) == 0) return &c;
    }
    return nullptr;
  }
};

std::pair<std::string, std::string> SplitLabel(std::string_view line) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return {"", std::string(line)};
  std::string_view text = line.substr(colon + 1);
  while (!text.empty() && (text[0] == ' ' || text[0] == '\t')) text.remove_prefix(1);
  return {std::string(line.substr(0, colon)), std::string(text)};
}

std::map<std::string, LspciDevice> ParseLspci(std::string_view out) {
  std::map<std::string, LspciDevice> devs;
  LspciDevice* dev = nullptr;
  while (!out.empty()) {
    size_t nl = out.find('\n');
    std::string_view line = out.substr(0, nl);
    out.remove_prefix(nl == std::string_view::npos ? out.size() : nl + 1);
    if (line.empty()) continue;
    if (line[0] != '\t') {
      dev = &devs[std::string(line.substr(0, 12))];
      dev->header = std::string(line);
      continue;
    }
    if (dev == nullptr) continue;
    if (line.compare(0, 3, "\t\t\t") == 0) {
      if (!dev->caps.empty() && !dev->caps.back().fields.empty()) {
        dev->caps.back().fields.back().second += " " + std::string(line.substr(3));
      }
    } else if (line.compare(0, 2, "\t\t") == 0) {
      if (!dev->caps.empty()) dev->caps.back().fields.push_back(SplitLabel(line.substr(2)));
    } else if (line.compare(0, 15, "\tCapabilities: ") == 0) {
      std::string_view rest = line.substr(15);
      size_t close = rest.find(']');
      std::string_view text = close == std::string_view::npos ? rest : rest.substr(close + 2);
      if (rest == "<access denied>") {
        dev->access_denied = true;
      } else if (text == "<chain looped>") {
        dev->chain_looped = true;
      } else if (text == "<chain broken>") {
        dev->chain_broken = true;
      } else if (rest[0] == '[' && close != std::string_view::npos) {
        LspciCap cap;
        std::string inside(rest.substr(1, close - 1));  // "e4" or "100 v2"
        cap.offset = static_cast<int>(std::strtol(inside.c_str(), nullptr, 16));
        if (size_t v = inside.find(" v"); v != std::string::npos) cap.ext_version = std::atoi(inside.c_str() + v + 2);
        cap.text = std::string(text);
        dev->caps.push_back(std::move(cap));
      }
    } else {
      dev->fields.push_back(SplitLabel(line.substr(1)));
    }
  }
  return devs;
}

// "64bit+" in `text` (a whole word): true/false; nullopt when absent.
std::optional<bool> Flag(std::string_view text, std::string_view name) {
  for (size_t pos = text.find(name); pos != std::string_view::npos; pos = text.find(name, pos + 1)) {
    size_t end = pos + name.size();
    bool word_start = pos == 0 || text[pos - 1] == ' ' || text[pos - 1] == '\t';
    if (word_start && end < text.size() && (text[end] == '+' || text[end] == '-')) return text[end] == '+';
  }
  return std::nullopt;
}

// The token after `key` ("RBC=" -> "512"), up to a blank or comma.
std::string After(std::string_view text, std::string_view key) {
  size_t pos = text.find(key);
  if (pos == std::string_view::npos) return "";
  std::string_view rest = text.substr(pos + key.size());
  return std::string(rest.substr(0, rest.find_first_of(" ,\t")));
}

int Int(const std::string& s, int base = 10) {
  return s.empty() ? -1 : static_cast<int>(std::strtol(s.c_str(), nullptr, base));
}

// lspci's speed names (ls-caps.c link_speed), independent of PcieSpeedName.
int LspciSpeed(std::string_view s) {
  static const std::pair<std::string_view, int> kNames[] = {{"2.5GT/s", 1}, {"5GT/s", 2},  {"8GT/s", 3},
                                                            {"16GT/s", 4},  {"32GT/s", 5}, {"64GT/s", 6}};
  for (const auto& [name, code] : kNames) {
    if (s == name) return code;
  }
  return 0;
}

std::vector<int> Offsets(const PciConfig& c, bool extended) {
  std::vector<int> v;
  if (extended) {
    for (const PciExtCapability& e : c.ext_capabilities) v.push_back(e.offset);
  } else {
    for (const PciCapability& e : c.capabilities) v.push_back(e.offset);
  }
  return v;
}

// How many facts were compared, so the test cannot pass on an empty run.
struct Tally {
  int devices = 0, bridges = 0, cap_lists = 0, ext_lists = 0, pcie = 0, links = 0;
  int pcix_devices = 0, pcix_bridges = 0, msi = 0, msix = 0;
};

void CompareHeader(const PciConfig& c, const LspciDevice& l, Tally* t) {
  // "0000:02:01.0 0200: 8086:1079 (rev 03)"
  std::string ids = After(l.header, ": ");
  ASSERT_EQ(ids.size(), 9u) << l.header;
  EXPECT_EQ(c.vendor, Int(ids.substr(0, 4), 16));
  EXPECT_EQ(c.device, Int(ids.substr(5, 4), 16));
  EXPECT_EQ(c.class_code >> 8, static_cast<uint32_t>(Int(l.header.substr(13, 4), 16)));
  std::string rev = After(l.header, "(rev ");
  EXPECT_EQ(c.revision, rev.empty() ? 0 : Int(rev, 16));
  std::optional<std::string> status = l.Field("Status");
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(Flag(*status, "Cap"), (c.status & 0x10) != 0) << *status;
  EXPECT_EQ(Flag(*status, "66MHz"), c.capable_66mhz) << *status;
  std::optional<std::string> bus = l.Field("Bus");
  ASSERT_EQ(bus.has_value(), c.bridge.has_value());
  if (bus) {
    EXPECT_EQ(c.bridge->primary_bus, Int(After(*bus, "primary="), 16)) << *bus;
    EXPECT_EQ(c.bridge->secondary_bus, Int(After(*bus, "secondary="), 16)) << *bus;
    EXPECT_EQ(c.bridge->subordinate_bus, Int(After(*bus, "subordinate="), 16)) << *bus;
    std::optional<std::string> sec = l.Field("Secondary status");
    ASSERT_TRUE(sec.has_value());
    EXPECT_EQ(Flag(*sec, "66MHz"), c.bridge->secondary_66mhz) << *sec;
    ++t->bridges;
  }
}

void CompareCapabilityLists(const PciConfig& c, const LspciDevice& l, Tally* t) {
  EXPECT_EQ(Offsets(c, false), l.Offsets(false));
  if (l.access_denied || l.chain_looped || l.chain_broken) {
    EXPECT_FALSE(c.problems.empty());
  }
  ++t->cap_lists;
  // lspci walks extended capabilities only for PCIe functions.
  if (c.pcie && c.length >= 0x104) {
    EXPECT_EQ(Offsets(c, true), l.Offsets(true));
    for (const PciExtCapability& e : c.ext_capabilities) {
      for (const LspciCap& lc : l.caps) {
        if (lc.ext_version >= 0 && lc.offset == e.offset) {
          EXPECT_EQ(e.version, lc.ext_version);
        }
      }
    }
    ++t->ext_lists;
  }
}

int LspciPcieType(std::string_view text) {  // after "Express (v2) "
  static const std::pair<std::string_view, int> kTypes[] = {{"Endpoint", 0},
                                                            {"Legacy Endpoint", 1},
                                                            {"Root Port", 4},
                                                            {"Upstream Port", 5},
                                                            {"Downstream Port", 6},
                                                            {"PCI-Express to PCI/PCI-X Bridge", 7},
                                                            {"PCI/PCI-X to PCI-Express Bridge", 8},
                                                            {"Root Complex Integrated Endpoint", 9},
                                                            {"Root Complex Event Collector", 10}};
  for (const auto& [name, code] : kTypes) {
    if (text.compare(0, name.size(), name) == 0) return code;
  }
  return -1;
}

void ComparePcie(const std::string& address, const PciConfig& c, const LspciDevice& l, Tally* t) {
  const LspciCap* cap = l.Cap("Express (v");
  ASSERT_EQ(cap != nullptr, c.pcie.has_value());
  if (cap == nullptr) return;
  const PcieInfo& e = *c.pcie;
  ++t->pcie;
  EXPECT_EQ(e.version, cap->text[10] - '0') << cap->text;
  EXPECT_EQ(e.type_code, LspciPcieType(std::string_view(cap->text).substr(13))) << cap->text;
  std::string devcap = cap->Field("DevCap").value_or(""), devctl = cap->Field("DevCtl").value_or("");
  EXPECT_EQ(e.max_payload_supported, Int(After(devcap, "MaxPayload "))) << devcap;
  EXPECT_EQ(e.max_payload, Int(After(devctl, "MaxPayload "))) << devctl;
  EXPECT_EQ(e.max_read_request, Int(After(devctl, "MaxReadReq "))) << devctl;
  std::optional<std::string> lnkcap = cap->Field("LnkCap"), lnksta = cap->Field("LnkSta");
  ASSERT_EQ(lnksta.has_value(), e.has_link) << cap->text;
  if (!lnksta) return;
  ASSERT_TRUE(lnkcap.has_value());
  ++t->links;
  int cap_speed = LspciSpeed(After(*lnkcap, "Speed "));
  EXPECT_EQ(e.link_max_width, Int(After(*lnkcap, "Width x"))) << *lnkcap;
  EXPECT_EQ(e.link_speed, LspciSpeed(After(*lnksta, "Speed "))) << *lnksta;
  EXPECT_EQ(e.link_width, Int(After(*lnksta, "Width x"))) << *lnksta;
  EXPECT_EQ(Flag(*lnksta, "DLActive"), e.dll_link_active) << *lnksta;
  // Maximum speed: LnkCap2's top speed when it is non-zero (Linux's rule),
  // else LnkCap's field. lspci prints LnkCap2 when it is non-zero, except on
  // endpoints other than device 0 function 0 (where it was reserved before
  // PCIe 3.0).
  std::optional<std::string> lnkcap2 = cap->Field("LnkCap2");
  bool lspci_reads_lnkcap2 = !((e.type_code == 0 || e.type_code == 1) && address.substr(8) != "00.0");
  if (lspci_reads_lnkcap2) {
    EXPECT_EQ(lnkcap2.has_value(), e.supported_speeds != 0);
  }
  if (lnkcap2) {
    std::string range = After(*lnkcap2, "Speeds: ");  // "2.5-16GT/s"
    EXPECT_EQ(e.link_max_speed, LspciSpeed(range.substr(range.find('-') + 1))) << *lnkcap2;
  } else if (e.supported_speeds == 0) {
    EXPECT_EQ(e.link_max_speed, cap_speed) << *lnkcap;
  }
  // lspci marks "(downgraded)" against LnkCap, on functions other than root
  // and downstream ports and PCI/PCI-X-to-PCIe bridges.
  if (e.type_code == 4 || e.type_code == 6 || e.type_code == 8) return;
  size_t width_at = lnksta->find("Width");
  bool speed_down = lnksta->substr(0, width_at).find("(downgraded)") != std::string::npos;
  bool width_down = lnksta->find("(downgraded)", width_at) != std::string::npos;
  EXPECT_EQ(width_down, e.link_width < e.link_max_width) << *lnksta;
  if (cap_speed == e.link_max_speed) {
    EXPECT_EQ(speed_down, e.link_speed < e.link_max_speed) << *lnksta;
    if (e.link_speed > 0 && e.link_width > 0) {
      EXPECT_EQ(e.Downtrained(), speed_down || width_down) << *lnksta;
    }
  }
}

// "Dev=02:01.0" against the captured bus/device/function.
void CompareDev(const PciXInfo& x, const std::string& status) {
  std::string dev = After(status, "Dev=");
  ASSERT_EQ(dev.size(), 7u) << status;
  EXPECT_EQ(x.bus, Int(dev.substr(0, 2), 16)) << status;
  EXPECT_EQ(x.dev, Int(dev.substr(3, 2), 16)) << status;
  EXPECT_EQ(x.fn, Int(dev.substr(6, 1))) << status;
  EXPECT_EQ(Flag(status, "64bit"), x.is_64bit) << status;
  EXPECT_EQ(Flag(status, "133MHz"), x.capable_133mhz) << status;
}

void ComparePcix(const PciConfig& c, const LspciDevice& l, Tally* t) {
  const LspciCap* dev = l.Cap("PCI-X non-bridge device");
  const LspciCap* bridge = l.Cap("PCI-X bridge device");
  ASSERT_EQ(dev != nullptr || bridge != nullptr, c.pcix.has_value());
  if (!c.pcix) return;
  const PciXInfo& x = *c.pcix;
  EXPECT_EQ(x.bridge, bridge != nullptr);
  if (dev != nullptr) {
    std::string cmd = dev->Field("Command").value_or(""), status = dev->Field("Status").value_or("");
    EXPECT_EQ(x.max_read_byte_count, Int(After(cmd, "RBC="))) << cmd;
    EXPECT_EQ(x.max_outstanding_splits, Int(After(cmd, "OST="))) << cmd;
    CompareDev(x, status);
    EXPECT_EQ(x.designed_max_read_byte_count, Int(After(status, "DMMRBC="))) << status;
    EXPECT_EQ(Flag(status, "266MHz"), x.capable_266mhz) << status;
    EXPECT_EQ(Flag(status, "533MHz"), x.capable_533mhz) << status;
    ++t->pcix_devices;
  }
  if (bridge != nullptr) {
    std::string sec = bridge->Field("Secondary Status").value_or("");
    EXPECT_EQ(Flag(sec, "64bit"), x.secondary_64bit) << sec;
    EXPECT_EQ(Flag(sec, "133MHz"), x.secondary_133mhz) << sec;
    // lspci reads three bits of the frequency field: "conv", "66MHz", ... "?7".
    std::string freq = After(sec, "Freq=");
    if (freq == "conv") {
      EXPECT_EQ(x.secondary_freq_code & 7, 0) << sec;
    } else if (freq[0] == '?') {
      EXPECT_EQ(x.secondary_freq_code & 7, Int(freq.substr(1))) << sec;
    } else {
      EXPECT_EQ(x.SecondaryClockMhz(), Int(freq)) << sec;
    }
    CompareDev(x, bridge->Field("Status").value_or(""));
    ++t->pcix_bridges;
  }
}

void CompareMsi(const PciConfig& c, const LspciDevice& l, Tally* t) {
  const LspciCap* msi = l.Cap("MSI:");
  ASSERT_EQ(msi != nullptr, c.msi.has_value());
  if (msi) {
    EXPECT_EQ(Flag(msi->text, "Enable"), c.msi->enabled) << msi->text;
    EXPECT_EQ(Flag(msi->text, "64bit"), c.msi->is_64bit) << msi->text;
    std::string count = After(msi->text, "Count=");  // "enabled/capable"
    EXPECT_EQ(c.msi->vectors, Int(count.substr(0, count.find('/')))) << msi->text;
    ++t->msi;
  }
  const LspciCap* msix = l.Cap("MSI-X:");
  ASSERT_EQ(msix != nullptr, c.msix.has_value());
  if (msix) {
    EXPECT_EQ(Flag(msix->text, "Enable"), c.msix->enabled) << msix->text;
    EXPECT_EQ(c.msix->vectors, Int(After(msix->text, "Count="))) << msix->text;
    ++t->msix;
  }
}

void CompareAll(const std::vector<ConfigFile>& files, const std::map<std::string, LspciDevice>& devs, Tally* t) {
  for (const ConfigFile& f : files) {
    SCOPED_TRACE(f.label);
    auto it = devs.find(f.address);
    ASSERT_NE(it, devs.end()) << "lspci printed nothing for " << f.label;
    PciConfig c = DecodePciConfig(f.bytes);
    ++t->devices;
    CompareHeader(c, it->second, t);
    CompareCapabilityLists(c, it->second, t);
    ComparePcie(f.address, c, it->second, t);
    ComparePcix(c, it->second, t);
    CompareMsi(c, it->second, t);
  }
}

TEST(PciLspciTest, FixtureConfigSpacesMatchLspci) {
  std::map<std::string, std::vector<ConfigFile>> scenarios = FindConfigFiles();
  Tally t;
  size_t files = 0;
  for (const auto& [name, list] : scenarios) {
    SCOPED_TRACE(name);
    std::string out, why;
    ASSERT_TRUE(RunLspci(LspciDump(list), &out, &why)) << why;
    CompareAll(list, ParseLspci(out), &t);
    files += list.size();
  }
  std::printf(
      "compared %d functions: %d bridges, %d capability lists, %d extended lists, %d PCIe (%d links), "
      "%d PCI-X devices, %d PCI-X bridges, %d MSI, %d MSI-X\n",
      t.devices, t.bridges, t.cap_lists, t.ext_lists, t.pcie, t.links, t.pcix_devices, t.pcix_bridges, t.msi, t.msix);
  EXPECT_EQ(static_cast<size_t>(t.devices), files);
  // What the fixture READMEs list: seed-box 8 functions (3 bridges, P64H2
  // PCI-X bridge, two 82546 PCI-X functions with MSI), vm 6 (virtio-net with
  // MSI-X), large-host 23 (20 PCIe functions with links: 10 root ports, 8 NVMe,
  // mlx5, ixgbe; MSI-X on 10, MSI on the root ports and the xHCI).
  EXPECT_GE(t.devices, 37);
  EXPECT_GE(t.bridges, 13);
  EXPECT_GE(t.links, 20);
  EXPECT_GE(t.pcix_devices, 2);
  EXPECT_GE(t.pcix_bridges, 1);
  EXPECT_GE(t.msi, 13);
  EXPECT_GE(t.msix, 11);
}

// This machine: bottleneckd's decode of every function's config file, read
// through the pci collector's own HostFs path, against lspci reading the same
// devices from the running kernel (no dump). CI runs on the same kind of VM
// (virtio devices, kernel noted in tests/fixtures/vm/README.md).
TEST(PciLspciTest, ThisMachineMatchesLspci) {
  HostFs host{HostRoots()};
  std::vector<std::string> names;
  ASSERT_TRUE(host.ListSys("bus/pci/devices", &names).ok()) << "no /sys/bus/pci on this machine";
  std::vector<ConfigFile> files;
  for (const std::string& name : names) {
    std::string bytes;
    // 256 bytes as the collector reads a function on a NIC path (as root;
    // 64 otherwise, which lspci then shows the same way).
    if (host.ReadSysPrefix("bus/pci/devices/" + name + "/config", &bytes, 256).ok())
      files.push_back({"live " + name, name, bytes});
  }
  ASSERT_FALSE(files.empty()) << "no readable PCI config space on this machine";
  std::string out, why;
  ASSERT_TRUE(RunLspci("", &out, &why)) << why;
  Tally t;
  CompareAll(files, ParseLspci(out), &t);
  std::printf("compared %d functions of this machine: %d PCIe links, %d MSI-X\n", t.devices, t.links, t.msix);
  EXPECT_EQ(static_cast<size_t>(t.devices), files.size());
}

// A config space of `size` zero bytes with little-endian registers written:
// {offset, value, width}.
struct Reg {
  size_t off;
  uint32_t value;
  int width;
};
std::string Synthetic(size_t size, std::vector<Reg> regs) {
  std::string b(std::max<size_t>(size, 0x100), '\0');
  // 8086:1234, status: capability list; 0x40 MSI -> 0x80 MSI-X (enabled, 3).
  std::vector<Reg> base = {{0x00, 0x12348086, 4}, {0x06, 0x0010, 2}, {0x34, 0x40, 1},
                           {0x40, 0x8005, 2},     {0x80, 0x0011, 2}, {0x82, 0x8002, 2}};
  regs.insert(regs.begin(), base.begin(), base.end());
  for (const Reg& r : regs) {
    for (int i = 0; i < r.width; ++i) b[r.off + i] = static_cast<char>((r.value >> (8 * i)) & 0xff);
  }
  return b.substr(0, size);
}

TEST(PciLspciTest, MalformedCapabilityChainsMatchLspci) {
  // Chains both tools cut the same way. (Not here: a pointer below 0x40, which
  // the kernel and this decoder refuse but lspci follows.)
  const Reg kPcieAt40 = {0x40, 0x00028010, 4};  // PCIe v2 endpoint, next 0x80
  std::vector<ConfigFile> files = {
      {"loop", "0000:01:00.0", Synthetic(256, {{0x81, 0x40, 1}})},
      {"self_loop", "0000:02:00.0", Synthetic(256, {{0x41, 0x40, 1}})},
      {"id_ff", "0000:03:00.0", Synthetic(256, {{0x80, 0xff, 1}})},
      {"unknown_id", "0000:04:00.0", Synthetic(256, {{0x80, 0x99, 1}})},
      {"low_bits", "0000:05:00.0", Synthetic(256, {{0x34, 0x43, 1}})},
      {"beyond", "0000:06:00.0", Synthetic(0x80, {})},
      {"64_bytes", "0000:07:00.0", Synthetic(64, {})},
      {"ext_loop", "0000:08:00.0", Synthetic(4096, {kPcieAt40, {0x100, 0x14020001, 4}, {0x140, 0x1001000e, 4}})},
      {"ext_unknown", "0000:09:00.0", Synthetic(4096, {kPcieAt40, {0x100, 0x14810099, 4}, {0x148, 0x00010001, 4}})},
      {"pcix_bridge_freq5", "0000:0a:00.0",
       Synthetic(256, {{0x0e, 0x01, 1}, {0x40, 0x8007, 2}, {0x42, 0x4341, 2}, {0x44, 0x000300a9, 4}})},
  };
  std::string out, why;
  ASSERT_TRUE(RunLspci(LspciDump(files), &out, &why)) << why;
  Tally t;
  CompareAll(files, ParseLspci(out), &t);
  EXPECT_EQ(t.devices, static_cast<int>(files.size()));
  EXPECT_EQ(t.ext_lists, 2);
  EXPECT_EQ(t.pcix_bridges, 1);
}

}  // namespace
}  // namespace bottleneckd::pci_lspci_test
