#include "collectors/interrupts.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sources/sample.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::interrupts_test {
namespace {

using testing::TempDir;

// /proc/interrupts of the development VM (6.18, 2 vCPUs, virtio devices).
constexpr char kVmInterrupts[] =
    "           CPU0       CPU1       \n"
    " 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
    " 25:          0          1  IO-APIC   6-edge      ACPI:Ged\n"
    " 26:          0         11  IO-APIC   4-edge      ttyS0\n"
    " 28:          0          0 PCI-MSIX-0000:00:01.0   0-edge      virtio0-config\n"
    " 29:          0          0 PCI-MSIX-0000:00:01.0   1-edge      virtio0-inflate\n"
    " 30:          0          0 PCI-MSIX-0000:00:01.0   2-edge      virtio0-deflate\n"
    " 31:          0         55 PCI-MSIX-0000:00:01.0   3-edge      virtio0-stats\n"
    " 32:         36          0 PCI-MSIX-0000:00:01.0   4-edge      virtio0-reporting_vq\n"
    " 33:          0          0 PCI-MSIX-0000:00:05.0   0-edge      virtio4-config\n"
    " 34:         17          0 PCI-MSIX-0000:00:05.0   1-edge      virtio4-input\n"
    " 35:          0          1 PCI-MSIX-0000:00:02.0   0-edge      virtio1-config\n"
    " 36:          0      33172 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
    " 37:          0          0 PCI-MSIX-0000:00:03.0   0-edge      virtio2-config\n"
    " 38:          0        810 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
    " 39:        821          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n"
    " 40:          0          0 PCI-MSIX-0000:00:04.0   0-edge      virtio3-config\n"
    " 41:       1572          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx\n"
    " 42:          0       3035 PCI-MSIX-0000:00:04.0   2-edge      virtio3-tx\n"
    " 43:          1          0 PCI-MSIX-0000:00:04.0   3-edge      virtio3-event\n"
    "NMI:          0          0   Non-maskable interrupts\n"
    "LOC:      20150      21418   Local timer interrupts\n"
    "SPU:          0          0   Spurious interrupts\n"
    "PMI:          0          0   Performance monitoring interrupts\n"
    "IWI:          1          0   IRQ work interrupts\n"
    "RTR:          0          0   APIC ICR read retries\n"
    "RES:       5169       4200   Rescheduling interrupts\n"
    "CAL:      22562      21594   Function call interrupts\n"
    "TLB:          0          0   TLB shootdowns\n"
    "TRM:          0          0   Thermal event interrupts\n"
    "ERR:          0\n"
    "MIS:          0\n"
    "PIN:          0          0   Posted-interrupt notification event\n"
    "NPI:          0          0   Nested posted-interrupt event\n"
    "PIW:          0          0   Posted-interrupt wakeup event\n";

// ixgbe (4 queues + link vector) on a host with CPU1 offline.
constexpr char kIxgbeInterrupts[] =
    "           CPU0       CPU2       CPU3\n"
    "  0:         44          0          0   IO-APIC   2-edge      timer\n"
    " 65:    1234567          0          0  IR-PCI-MSI 1572864-edge      eth0-TxRx-0\n"
    " 66:          0    2345678          0  IR-PCI-MSI 1572865-edge      eth0-TxRx-1\n"
    " 67:          0          0    4294967295  IR-PCI-MSI 1572866-edge      eth0-TxRx-2\n"
    " 68:          7          0          0  IR-PCI-MSI 1572867-edge      eth0\n"
    "LOC:     100000     200000     300000   Local timer interrupts\n";

const IrqLine* FindLine(const Interrupts& irqs, const std::string& name) {
  for (const IrqLine& l : irqs.lines) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

TEST(ParseProcInterruptsTest, ThisVm) {
  Interrupts irqs;
  ASSERT_OK(ParseProcInterrupts(kVmInterrupts, &irqs));
  EXPECT_EQ(irqs.cpus, (std::vector<int>{0, 1}));
  ASSERT_EQ(irqs.lines.size(), 34u);  // 19 numbered + 15 named

  const IrqLine& first = irqs.lines.front();
  EXPECT_EQ(first.name, "24");
  EXPECT_EQ(first.irq, 24u);
  EXPECT_EQ(first.per_cpu, (std::vector<uint64_t>{1, 0}));
  EXPECT_EQ(first.chip, "IO-APIC");
  EXPECT_EQ(first.hwirq, "5-edge");
  EXPECT_EQ(first.actions, (std::vector<std::string>{"ACPI:Ged"}));

  const IrqLine* rx = FindLine(irqs, "38");
  ASSERT_NE(rx, nullptr);
  EXPECT_EQ(rx->per_cpu, (std::vector<uint64_t>{0, 810}));
  EXPECT_EQ(rx->chip, "PCI-MSIX-0000:00:03.0");
  EXPECT_EQ(rx->hwirq, "1-edge");
  EXPECT_EQ(rx->actions, (std::vector<std::string>{"virtio2-input.0"}));
  EXPECT_TRUE(rx->description.empty());

  const IrqLine* loc = FindLine(irqs, "LOC");
  ASSERT_NE(loc, nullptr);
  EXPECT_FALSE(loc->irq.has_value());
  EXPECT_EQ(loc->per_cpu, (std::vector<uint64_t>{20150, 21418}));
  EXPECT_EQ(loc->description, "Local timer interrupts");
  EXPECT_TRUE(loc->chip.empty());
  EXPECT_TRUE(loc->actions.empty());

  const IrqLine* err = FindLine(irqs, "ERR");
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(err->per_cpu, (std::vector<uint64_t>{0}));
  EXPECT_EQ(err->description, "");

  EXPECT_EQ(irqs.lines.back().name, "PIW");
  EXPECT_EQ(irqs.lines.back().description, "Posted-interrupt wakeup event");
}

TEST(ParseProcInterruptsTest, IxgbeWithOfflineCpu) {
  Interrupts irqs;
  ASSERT_OK(ParseProcInterrupts(kIxgbeInterrupts, &irqs));
  EXPECT_EQ(irqs.cpus, (std::vector<int>{0, 2, 3}));
  ASSERT_EQ(irqs.lines.size(), 6u);
  EXPECT_EQ(irqs.lines[0].irq, 0u);
  EXPECT_EQ(irqs.lines[0].actions, (std::vector<std::string>{"timer"}));
  EXPECT_EQ(irqs.lines[1].per_cpu, (std::vector<uint64_t>{1234567, 0, 0}));
  EXPECT_EQ(irqs.lines[1].chip, "IR-PCI-MSI");
  EXPECT_EQ(irqs.lines[1].hwirq, "1572864-edge");
  EXPECT_EQ(irqs.lines[1].actions, (std::vector<std::string>{"eth0-TxRx-0"}));
  EXPECT_EQ(irqs.lines[3].per_cpu, (std::vector<uint64_t>{0, 0, 4294967295u}));
  EXPECT_EQ(irqs.lines[4].actions, (std::vector<std::string>{"eth0"}));
  EXPECT_EQ(irqs.lines[5].per_cpu, (std::vector<uint64_t>{100000, 200000, 300000}));
}

// One numbered line after a one-CPU header, field by field.
struct LineCase {
  const char* what;
  const char* line;
  std::vector<uint64_t> per_cpu;
  const char* chip;
  const char* hwirq;
  std::vector<std::string> actions;
};

TEST(ParseProcInterruptsTest, LineShapes) {
  const LineCase kCases[] = {
      {"mlx5 MSI-X on 6.x",
       " 98:   12345678   IR-PCI-MSIX-0000:01:00.0    5-edge      mlx5_comp4@pci:0000:01:00.0",
       {12345678},
       "IR-PCI-MSIX-0000:01:00.0",
       "5-edge",
       {"mlx5_comp4@pci:0000:01:00.0"}},
      {"shared line, action with a space",
       "122:  3  PCI-MSI 458752-edge      PCIe PME, pciehp",
       {3},
       "PCI-MSI",
       "458752-edge",
       {"PCIe PME", "pciehp"}},
      {"three shared handlers",
       " 16:  9  IO-APIC  16-fasteoi   ehci_hcd:usb1, uhci_hcd:usb2, eth0",
       {9},
       "IO-APIC",
       "16-fasteoi",
       {"ehci_hcd:usb1", "uhci_hcd:usb2", "eth0"}},
      {"2.6-era chip-type", "  1:  8  IO-APIC-edge  i8042", {8}, "IO-APIC-edge", "", {"i8042"}},
      {"arm level column", " 11:  64027  GICv3  30 Level     arch_timer", {64027}, "GICv3", "30 Level", {"arch_timer"}},
      {"no irq domain", " 60:  5  xen-percpu    -virq      timer0", {5}, "xen-percpu", "-virq", {"timer0"}},
      {"no handler", " 27:  0  IO-APIC   9-fasteoi", {0}, "IO-APIC", "9-fasteoi", {}},
      {"u64 max", "  7:  18446744073709551615  XT-PIC  parport0", {18446744073709551615u}, "XT-PIC", "", {"parport0"}},
      {"past 2^32 kept", "  7:  4294967296  XT-PIC  parport0", {4294967296u}, "XT-PIC", "", {"parport0"}},
      {"truncated after the counts", " 38:  810", {810}, "", "", {}},
      {"seed box em0", " 18:  75212  IO-APIC  18-fasteoi   em0", {75212}, "IO-APIC", "18-fasteoi", {"em0"}},
  };
  for (const LineCase& c : kCases) {
    SCOPED_TRACE(c.what);
    Interrupts irqs;
    ASSERT_OK(ParseProcInterrupts(std::string("   CPU0\n") + c.line + "\n", &irqs));
    ASSERT_EQ(irqs.lines.size(), 1u);
    const IrqLine& l = irqs.lines[0];
    EXPECT_TRUE(l.irq.has_value());
    EXPECT_EQ(l.per_cpu, c.per_cpu);
    EXPECT_EQ(l.chip, c.chip);
    EXPECT_EQ(l.hwirq, c.hwirq);
    EXPECT_EQ(l.actions, c.actions);
  }
}

struct StatusCase {
  const char* what;
  const char* text;
  bool ok;
  size_t lines;  // when ok
};

TEST(ParseProcInterruptsTest, StatusTable) {
  const StatusCase kCases[] = {
      {"empty", "", false, 0},
      {"blank lines only", "\n   \n", false, 0},
      {"header only", "           CPU0       CPU1\n", true, 0},
      {"leading blank line", "\n   CPU0\n 1:  5  XT-PIC  timer\n", true, 1},
      {"truncated header", "      CP", false, 0},
      {"header junk column", "   CPU0   CPUx\n", false, 0},
      {"no header", " 24:  1  0  IO-APIC  5-edge  ACPI:Ged\n", false, 0},
      {"count with junk", "   CPU0  CPU1\n 24:  12x   0  IO-APIC  5-edge  ACPI:Ged\n", false, 0},
      {"count overflows u64", "   CPU0\n 24:  18446744073709551616  IO-APIC  5-edge  x\n", false, 0},
      {"named count overflows", "   CPU0\nLOC:  99999999999999999999  Local timer interrupts\n", false, 0},
      {"irq number past u32", "   CPU0\n4294967296:  1  PCI-MSI  1-edge  x\n", false, 0},
      {"irq number junk", "   CPU0\n12a:  1  PCI-MSI  1-edge  x\n", false, 0},
      {"largest irq number", "   CPU0\n4294967295:  1  PCI-MSI  1-edge  x\n", true, 1},
      {"line without colon skipped", "   CPU0\nsomething new\n 1:  5  XT-PIC  timer\n", true, 1},
      {"more counts than CPUs", "   CPU0\n 9:  1  2  IO-APIC  9-fasteoi  acpi\n", false, 0},
      {"truncated mid-line", "   CPU0  CPU1\n 1:  5  0  XT-PIC  timer\n 38:          0        8", true, 2},
      {"no trailing newline", "   CPU0\nERR:  3", true, 1},
  };
  for (const StatusCase& c : kCases) {
    SCOPED_TRACE(c.what);
    Interrupts irqs;
    Status s = ParseProcInterrupts(c.text, &irqs);
    EXPECT_EQ(s.ok(), c.ok) << s.ToString();
    if (c.ok) {
      EXPECT_EQ(irqs.lines.size(), c.lines);
    } else {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_TRUE(irqs.lines.empty());
    }
  }
}

TEST(ParseProcInterruptsTest, TruncatedLineKeepsItsCounts) {
  Interrupts irqs;
  ASSERT_OK(ParseProcInterrupts("   CPU0  CPU1\n 38:          0        8", &irqs));
  ASSERT_EQ(irqs.lines.size(), 1u);
  EXPECT_EQ(irqs.lines[0].per_cpu, (std::vector<uint64_t>{0, 8}));
}

TEST(ParseProcInterruptsTest, ReusedOutputHoldsOnlyTheLatestText) {
  Interrupts irqs;
  ASSERT_OK(ParseProcInterrupts(kVmInterrupts, &irqs));
  ASSERT_OK(ParseProcInterrupts("  CPU3\n 5:  9  IO-APIC  5-edge  a, b\nLOC:  4  Local\n", &irqs));
  EXPECT_EQ(irqs.cpus, (std::vector<int>{3}));
  ASSERT_EQ(irqs.lines.size(), 2u);
  EXPECT_EQ(irqs.lines[0].name, "5");
  EXPECT_EQ(irqs.lines[0].per_cpu, (std::vector<uint64_t>{9}));
  EXPECT_EQ(irqs.lines[0].actions, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(irqs.lines[0].description.empty());
  EXPECT_EQ(irqs.lines[1].name, "LOC");
  EXPECT_FALSE(irqs.lines[1].irq.has_value());
  EXPECT_TRUE(irqs.lines[1].actions.empty());
  EXPECT_TRUE(irqs.lines[1].chip.empty());
  EXPECT_EQ(irqs.lines[1].description, "Local");
}

// A sysfs tree under a TempDir, laid out as the kernel does: class/net/IF is a
// link to DEV/net/IF, whose "device" link points back up to DEV.
class SysTree {
 public:
  HostRoots roots() const {
    HostRoots r;
    r.procfs = dir_.path() + "/proc";
    r.sysfs = dir_.path() + "/sys";
    return r;
  }
  void Link(const std::string& rel, const std::string& target) const {
    std::filesystem::path p = std::filesystem::path(dir_.path()) / "sys" / rel;
    std::filesystem::create_directories(p.parent_path());
    std::filesystem::create_symlink(target, p);
  }
  void Netdev(const std::string& ifname, const std::string& dev) const {
    Link("class/net/" + ifname, "../../" + dev + "/net/" + ifname);
    std::string base = dev.substr(dev.rfind('/') + 1);
    Link(dev + "/net/" + ifname + "/device", "../../../" + base);
  }
  void Virtual(const std::string& ifname) const {
    Link("class/net/" + ifname, "../../devices/virtual/net/" + ifname);
    Sys("devices/virtual/net/" + ifname + "/ifindex", "1\n");
  }
  void Msi(const std::string& pci_dir, const std::vector<int>& irqs) const {
    for (int irq : irqs) Sys(pci_dir + "/msi_irqs/" + std::to_string(irq), "msix\n");
  }
  void Sys(const std::string& rel, const std::string& content) const { dir_.Write("sys/" + rel, content); }
  void Proc(const std::string& rel, const std::string& content) const { dir_.Write("proc/" + rel, content); }

 private:
  TempDir dir_;
};

std::vector<std::string> Describe(const std::vector<NicIrq>& nics) {
  std::vector<std::string> out;
  for (const NicIrq& n : nics) {
    out.push_back(std::to_string(n.irq) + " " + n.interface + " '" + n.queue + "' " + n.device);
  }
  return out;
}

std::vector<std::string> Map(const SysTree& t, const std::string& text, const std::vector<std::string>& interfaces) {
  Interrupts irqs;
  EXPECT_OK(ParseProcInterrupts(text, &irqs));
  HostFs fs(t.roots());
  std::vector<NicIrq> nics;
  EXPECT_OK(MapNicIrqs(fs, irqs, interfaces, &nics));
  return Describe(nics);
}

constexpr char kVirtioPci[] = "devices/pci0000:00/0000:00:03.0";

void AddVmNic(const SysTree& t) {
  t.Netdev("eth0", std::string(kVirtioPci) + "/virtio2");
  t.Msi(kVirtioPci, {37, 38, 39});
  t.Sys(std::string(kVirtioPci) + "/irq", "0\n");
  t.Virtual("lo");
}

TEST(MapNicIrqsTest, VirtioLikeThisVm) {
  SysTree t;
  AddVmNic(t);
  EXPECT_EQ(Map(t, kVmInterrupts, {"eth0", "lo"}),
            (std::vector<std::string>{"37 eth0 'config' 0000:00:03.0", "38 eth0 'input.0' 0000:00:03.0",
                                      "39 eth0 'output.0' 0000:00:03.0"}));
}

TEST(MapNicIrqsTest, IxgbeQueuesAndLinkVector) {
  SysTree t;
  t.Netdev("eth0", "devices/pci0000:00/0000:00:01.0/0000:02:00.0");
  t.Msi("devices/pci0000:00/0000:00:01.0/0000:02:00.0", {65, 66, 67, 68});
  EXPECT_EQ(Map(t, kIxgbeInterrupts, {"eth0"}),
            (std::vector<std::string>{"65 eth0 'TxRx-0' 0000:02:00.0", "66 eth0 'TxRx-1' 0000:02:00.0",
                                      "67 eth0 'TxRx-2' 0000:02:00.0", "68 eth0 'config' 0000:02:00.0"}));
}

TEST(MapNicIrqsTest, Mlx5ByPciSuffix) {
  SysTree t;
  t.Netdev("enp1s0f0np0", "devices/pci0000:00/0000:00:02.0/0000:01:00.0");
  t.Msi("devices/pci0000:00/0000:00:02.0/0000:01:00.0", {90, 91, 95});
  t.Netdev("enp1s0f1np1", "devices/pci0000:00/0000:00:02.0/0000:01:00.1");
  t.Msi("devices/pci0000:00/0000:00:02.0/0000:01:00.1", {96});
  const char* text =
      "   CPU0  CPU1\n"
      " 90:  1  0  IR-PCI-MSIX-0000:01:00.0  0-edge  mlx5_async0@pci:0000:01:00.0\n"
      " 91:  2  0  IR-PCI-MSIX-0000:01:00.0  1-edge  mlx5_comp0@pci:0000:01:00.0\n"
      " 95:  3  0  IR-PCI-MSIX-0000:01:00.0  5-edge  mlx5_comp4@pci:0000:01:00.0\n"
      " 96:  4  0  IR-PCI-MSIX-0000:01:00.1  0-edge  mlx5_comp0@pci:0000:01:00.1\n";
  EXPECT_EQ(Map(t, text, {"enp1s0f0np0", "enp1s0f1np1"}),
            (std::vector<std::string>{"90 enp1s0f0np0 'async0' 0000:01:00.0", "91 enp1s0f0np0 'comp0' 0000:01:00.0",
                                      "95 enp1s0f0np0 'comp4' 0000:01:00.0", "96 enp1s0f1np1 'comp0' 0000:01:00.1"}));
}

TEST(MapNicIrqsTest, LegacyIntxAndSharedLine) {
  SysTree t;
  t.Netdev("em0", "devices/pci0000:00/0000:00:1e.0/0000:02:01.0");
  t.Sys("devices/pci0000:00/0000:00:1e.0/0000:02:01.0/irq", "18\n");
  t.Netdev("em1", "devices/pci0000:00/0000:00:1e.0/0000:02:02.0");
  t.Sys("devices/pci0000:00/0000:00:1e.0/0000:02:02.0/irq", "19\n");
  const char* text =
      "   CPU0\n"
      " 18:  75212  IO-APIC  18-fasteoi   em0\n"
      " 19:   1234  IO-APIC  19-fasteoi   uhci_hcd:usb1, em1\n"
      " 20:      5  IO-APIC  20-fasteoi   uhci_hcd:usb2\n";
  EXPECT_EQ(Map(t, text, {"em0", "em1"}),
            (std::vector<std::string>{"18 em0 '' 0000:02:01.0", "19 em1 '' 0000:02:02.0"}));
}

TEST(MapNicIrqsTest, NameMatchNeedsABoundaryWhenTheDeviceSaysNothing) {
  SysTree t;  // no msi_irqs, irq 0: only the handler names tell
  t.Netdev("eth1", "devices/pci0000:00/0000:00:1c.0/0000:06:00.0");
  t.Sys("devices/pci0000:00/0000:00:1c.0/0000:06:00.0/irq", "0\n");
  const char* text =
      "   CPU0\n"
      " 70:  1  PCI-MSI 3145728-edge  eth1-rx-0\n"
      " 71:  2  PCI-MSI 3145729-edge  eth1-tx-0\n"
      " 72:  3  PCI-MSI 3145730-edge  eth10-TxRx-0\n"
      " 73:  4  PCI-MSI 3145731-edge  veth1-x\n"
      " 74:  5  PCI-MSI 3145732-edge  eth1\n";
  EXPECT_EQ(Map(t, text, {"eth1"}),
            (std::vector<std::string>{"70 eth1 'rx-0' 0000:06:00.0", "71 eth1 'tx-0' 0000:06:00.0",
                                      "74 eth1 'config' 0000:06:00.0"}));
}

TEST(MapNicIrqsTest, I40eStyleNames) {
  SysTree t;
  t.Netdev("eth3", "devices/pci0000:00/0000:00:03.0/0000:03:00.0");
  t.Msi("devices/pci0000:00/0000:00:03.0/0000:03:00.0", {80, 81, 82});
  const char* text =
      "   CPU0\n"
      " 80:  1  IR-PCI-MSI 1048576-edge  i40e-0000:03:00.0:misc\n"
      " 81:  2  IR-PCI-MSI 1048577-edge  i40e-eth3-TxRx-0\n"
      " 82:  3  IR-PCI-MSI 1048578-edge  i40e-eth3-TxRx-1\n";
  EXPECT_EQ(Map(t, text, {"eth3"}),
            (std::vector<std::string>{"80 eth3 'misc' 0000:03:00.0", "81 eth3 'TxRx-0' 0000:03:00.0",
                                      "82 eth3 'TxRx-1' 0000:03:00.0"}));
}

TEST(MapNicIrqsTest, SysfsVectorListIsTheAuthority) {
  SysTree t;
  const std::string pci = "devices/pci0000:00/0000:00:04.0/0000:04:00.0";
  t.Netdev("eth4", pci);
  t.Msi(pci, {84, 85});
  t.Sys(pci + "/irq", "11\n");  // the INTx pin, unused while MSI-X is on
  const char* text =
      "   CPU0\n"
      " 11:  9  IO-APIC  11-fasteoi  uhci_hcd:usb3\n"
      " 84:  1  PCI-MSI 2097152-edge  eth4-TxRx-0\n"
      " 85:  2  PCI-MSI 2097153-edge  fwstat\n"
      " 86:  3  PCI-MSI 2097154-edge  eth4-TxRx-9\n";
  EXPECT_EQ(Map(t, text, {"eth4"}),
            (std::vector<std::string>{"84 eth4 'TxRx-0' 0000:04:00.0", "85 eth4 'fwstat' 0000:04:00.0"}));
}

TEST(MapNicIrqsTest, DeviceVectorsOfADualPortFunctionGoToItsFirstInterface) {
  SysTree t;
  const std::string pci = "devices/pci0000:00/0000:00:05.0/0000:05:00.0";
  t.Netdev("eth0", pci);
  t.Netdev("eth1", pci);
  t.Msi(pci, {100, 101, 102});
  const char* text =
      "   CPU0\n"
      "100:  1  PCI-MSI 1-edge  mlx4-async@pci:0000:05:00.0\n"
      "101:  2  PCI-MSI 2-edge  eth1-rx-0\n"
      "102:  3  PCI-MSI 3-edge  eth0-rx-0\n";
  EXPECT_EQ(Map(t, text, {"eth0", "eth1"}),
            (std::vector<std::string>{"100 eth0 'async' 0000:05:00.0", "102 eth0 'rx-0' 0000:05:00.0",
                                      "101 eth1 'rx-0' 0000:05:00.0"}));
}

TEST(MapNicIrqsTest, PlatformNicHasNoPciDevice) {
  SysTree t;
  t.Netdev("eth0", "devices/platform/soc/ff0e0000.ethernet");
  const char* text =
      "   CPU0  CPU1\n"
      " 47:  12  0  GICv2  95 Level  eth0\n"
      " 48:   3  0  GICv2  96 Level  mmc0\n";
  EXPECT_EQ(Map(t, text, {"eth0"}), (std::vector<std::string>{"47 eth0 '' "}));
}

TEST(MapNicIrqsTest, HandMadeTreeWithClassDirectories) {
  SysTree t;  // class/net/em0 a directory, as in old sysfs and hand-built trees
  t.Link("class/net/em0/device", "../../../devices/pci0000:00/0000:00:1e.0/0000:02:01.0");
  t.Sys("devices/pci0000:00/0000:00:1e.0/0000:02:01.0/irq", "18\n");
  EXPECT_EQ(Map(t, "  CPU0\n 18:  5  IO-APIC  18-fasteoi  em0\n", {"em0"}),
            (std::vector<std::string>{"18 em0 '' 0000:02:01.0"}));
}

TEST(MapNicIrqsTest, WhatCannotBeReadIsSaid) {
  SysTree t;
  const std::string em0 = "devices/pci0000:00/0000:00:1e.0/0000:02:01.0";
  const std::string em1 = "devices/pci0000:00/0000:00:1e.0/0000:02:02.0";
  t.Netdev("em0", em0);
  t.Sys(em0 + "/irq", "garbage\n");  // no MSI: the legacy line is all there is
  t.Netdev("em1", em1);
  t.Msi(em1, {65});
  t.Sys(em1 + "/msi_irqs/bogus", "msix\n");
  Interrupts irqs;
  ASSERT_OK(ParseProcInterrupts("  CPU0\n 65:  1  PCI-MSI  1-edge  em1-TxRx-0\n", &irqs));
  HostFs fs(t.roots());
  std::vector<NicIrq> nics;
  std::vector<ReadIssue> issues;
  ASSERT_OK(MapNicIrqs(fs, irqs, {"em0", "em1"}, &nics, &issues));
  EXPECT_EQ(Describe(nics), (std::vector<std::string>{"65 em1 'TxRx-0' 0000:02:02.0"}));
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].file, fs.SysPath(em0 + "/irq"));
  EXPECT_NE(issues[0].reason.find("not an IRQ number: 'garbage'"), std::string::npos) << issues[0].reason;
  EXPECT_EQ(issues[1].file, fs.SysPath(em1 + "/msi_irqs/bogus"));
  // An interface with nothing wrong (a missing msi_irqs is not an issue) says nothing.
  SysTree ok;
  ok.Netdev("em0", em0);
  ok.Sys(em0 + "/irq", "18\n");
  HostFs ok_fs(ok.roots());
  issues.clear();
  ASSERT_OK(MapNicIrqs(ok_fs, irqs, {"em0"}, &nics, &issues));
  EXPECT_TRUE(issues.empty()) << issues[0].file << ": " << issues[0].reason;
}

TEST(MapNicIrqsTest, OneBrokenInterfaceDoesNotStopTheOthers) {
  SysTree t;
  t.Link("class/net/eth0", "../../devices/pci0000:00/0000:00:09.0/net/eth0");
  t.Link("devices/pci0000:00/0000:00:09.0/net/eth0/device", "../../../../../../../../../elsewhere");
  t.Link("class/net/eth2", "/absolute/path/eth2");
  t.Netdev("eth1", "devices/pci0000:00/0000:00:01.0/0000:02:00.0");
  t.Msi("devices/pci0000:00/0000:00:01.0/0000:02:00.0", {65});
  EXPECT_EQ(Map(t, "  CPU0\n 65:  1  PCI-MSI  1-edge  eth1-TxRx-0\n 66:  1  PCI-MSI  2-edge  eth0-TxRx-0\n",
                {"eth0", "eth1", "eth2", "ghost"}),
            (std::vector<std::string>{"65 eth1 'TxRx-0' 0000:02:00.0"}));
}

TEST(MapNicIrqsTest, VectorWithAStaleNameStaysWithItsDevice) {
  SysTree t;  // eth0 renamed to eth1 after its vectors were requested
  t.Netdev("eth1", "devices/pci0000:00/0000:00:01.0/0000:02:00.0");
  t.Msi("devices/pci0000:00/0000:00:01.0/0000:02:00.0", {65});
  EXPECT_EQ(Map(t, kIxgbeInterrupts, {"eth1"}), (std::vector<std::string>{"65 eth1 'eth0-TxRx-0' 0000:02:00.0"}));
}

// Counts device-link reads, i.e. NIC mapping rebuilds.
TEST(InterruptsCollectorTest, RemapsOnlyWhenHandlersOrInterfacesChange) {
  SysTree t;
  AddVmNic(t);
  t.Proc("interrupts", kVmInterrupts);
  testing::FakeFs fs(t.roots());
  InterruptsCollector c;
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  ASSERT_TRUE(s.interrupts.has_value());
  EXPECT_EQ(s.interrupts->lines.size(), 34u);
  EXPECT_EQ(Describe(s.nic_irqs),
            (std::vector<std::string>{"37 eth0 'config' 0000:00:03.0", "38 eth0 'input.0' 0000:00:03.0",
                                      "39 eth0 'output.0' 0000:00:03.0"}));
  int after_first = fs.calls.read_link_sys;
  EXPECT_GT(after_first, 0);

  // Counts move: no remap, new counts.
  std::string moved = kVmInterrupts;
  moved.replace(moved.find("810"), 3, "999");
  t.Proc("interrupts", moved);
  Sample s2;
  ASSERT_OK(c.Collect(fs, &s2));
  EXPECT_EQ(fs.calls.read_link_sys, after_first);
  EXPECT_EQ(s2.interrupts->lines[13].per_cpu, (std::vector<uint64_t>{0, 999}));
  EXPECT_EQ(s2.nic_irqs.size(), 3u);

  // A new queue vector: remap.
  t.Msi(kVirtioPci, {44});
  t.Proc("interrupts", moved + " 44:  0  5  PCI-MSIX-0000:00:03.0   3-edge      virtio2-input.1\n");
  Sample s3;
  ASSERT_OK(c.Collect(fs, &s3));
  EXPECT_GT(fs.calls.read_link_sys, after_first);
  ASSERT_EQ(s3.nic_irqs.size(), 4u);
  EXPECT_EQ(Describe(s3.nic_irqs).back(), "44 eth0 'input.1' 0000:00:03.0");

  // A new interface: remap.
  int before = fs.calls.read_link_sys;
  t.Virtual("dummy0");
  Sample s4;
  ASSERT_OK(c.Collect(fs, &s4));
  EXPECT_GT(fs.calls.read_link_sys, before);
  EXPECT_EQ(s4.nic_irqs.size(), 4u);
}

TEST(InterruptsCollectorTest, AGarbledIrqAttributeIsAReadIssueNotASilentGap) {
  SysTree t;
  const std::string em0 = "devices/pci0000:00/0000:00:1e.0/0000:02:01.0";
  t.Netdev("em0", em0);
  t.Sys(em0 + "/irq", "1x8\n");
  t.Proc("interrupts", "   CPU0\n 18:  75212  IO-APIC  18-fasteoi   em0\n");
  HostFs fs(t.roots());
  InterruptsCollector c;
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  ASSERT_EQ(c.read_issues()->size(), 1u);
  EXPECT_EQ((*c.read_issues())[0].file, fs.SysPath(em0 + "/irq"));
  // The /proc/interrupts line is still counted; only the NIC's mapping is unknown.
  ASSERT_TRUE(s.interrupts.has_value());
  EXPECT_EQ(s.interrupts->lines.size(), 1u);
}

// Every Linux kernel has /proc/interrupts: its absence is a wrong root, an
// error naming the path (it was "not supported", a success, before).
TEST(InterruptsCollectorTest, MissingFileIsAnErrorNamingThePath) {
  SysTree t;
  t.Virtual("lo");
  HostFs fs(t.roots());
  InterruptsCollector c;
  Sample s;
  Status st = c.Collect(fs, &s);
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find(fs.ProcPath("interrupts") + " absent: every Linux kernel has it"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("--path.procfs"), std::string::npos) << st.message();
  EXPECT_FALSE(s.interrupts.has_value());
}

TEST(InterruptsCollectorTest, CorruptFileLeavesThePartUnset) {
  SysTree t;
  t.Proc("interrupts", "   CPU0\n 24:  12x  IO-APIC  5-edge  ACPI:Ged\n");
  HostFs fs(t.roots());
  InterruptsCollector c;
  Sample s;
  Status st = c.Collect(fs, &s);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_FALSE(s.interrupts.has_value());
}

TEST(InterruptsCollectorTest, NoSysfsMeansNoNicMapping) {
  SysTree t;
  t.Proc("interrupts", kIxgbeInterrupts);
  HostFs fs(t.roots());  // sys/ does not exist
  InterruptsCollector c;
  Sample s;
  ASSERT_OK(c.Collect(fs, &s));
  ASSERT_TRUE(s.interrupts.has_value());
  EXPECT_EQ(s.interrupts->cpus, (std::vector<int>{0, 2, 3}));
  EXPECT_TRUE(s.nic_irqs.empty());
}

// Fixture trees through the real Collect path. Expected values are read from
// the fixture files and the scenario READMEs.
Sample CollectFixture(const std::string& scenario) {
  HostFs fs(testing::FixtureRoots(scenario));
  InterruptsCollector c;
  Sample s;
  Status st = c.Collect(fs, &s);
  EXPECT_OK(st);
  return s;
}

TEST(InterruptsFixtureTest, Vm) {
  Sample s = CollectFixture("vm");
  ASSERT_TRUE(s.interrupts.has_value());
  EXPECT_EQ(s.interrupts->cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(s.interrupts->lines.size(), 34u);
  const IrqLine* rx = FindLine(*s.interrupts, "38");
  ASSERT_NE(rx, nullptr);
  EXPECT_EQ(rx->per_cpu, (std::vector<uint64_t>{0, 829}));
  EXPECT_EQ(rx->actions, (std::vector<std::string>{"virtio2-input.0"}));
  EXPECT_EQ(Describe(s.nic_irqs),
            (std::vector<std::string>{"37 eth0 'config' 0000:00:03.0", "38 eth0 'input.0' 0000:00:03.0",
                                      "39 eth0 'output.0' 0000:00:03.0"}));
}

TEST(InterruptsFixtureTest, SeedBox) {
  Sample s = CollectFixture("seed-box");
  ASSERT_TRUE(s.interrupts.has_value());
  EXPECT_EQ(s.interrupts->cpus, (std::vector<int>{0}));
  EXPECT_EQ(s.interrupts->lines.size(), 30u);  // 11 numbered + 19 named
  const IrqLine* em0 = FindLine(*s.interrupts, "24");
  ASSERT_NE(em0, nullptr);
  EXPECT_EQ(em0->per_cpu, (std::vector<uint64_t>{9543711}));
  EXPECT_EQ(em0->chip, "IO-APIC");
  EXPECT_EQ(em0->hwirq, "0-fasteoi");
  EXPECT_EQ(em0->actions, (std::vector<std::string>{"em0"}));
  const IrqLine* mcp = FindLine(*s.interrupts, "MCP");
  ASSERT_NE(mcp, nullptr);
  EXPECT_EQ(mcp->per_cpu, (std::vector<uint64_t>{6}));
  EXPECT_EQ(mcp->description, "Machine check polls");
  EXPECT_EQ(Describe(s.nic_irqs), (std::vector<std::string>{"24 em0 '' 0000:02:01.0", "25 em1 '' 0000:02:01.1",
                                                            "18 em2 '' 0000:03:01.0", "19 fxp0 '' 0000:03:02.0"}));
}

TEST(InterruptsFixtureTest, LargeHost) {
  Sample s = CollectFixture("large-host");
  ASSERT_TRUE(s.interrupts.has_value());
  ASSERT_EQ(s.interrupts->cpus.size(), 128u);
  EXPECT_EQ(s.interrupts->cpus.back(), 127);
  EXPECT_EQ(s.interrupts->lines.size(), 1109u);  // 1090 numbered + 19 named
  auto total = [](const IrqLine& l) {
    uint64_t sum = 0;
    for (uint64_t v : l.per_cpu) sum += v;
    return sum;
  };
  const IrqLine* comp0 = FindLine(*s.interrupts, "1076");
  ASSERT_NE(comp0, nullptr);
  ASSERT_EQ(comp0->per_cpu.size(), 128u);
  EXPECT_EQ(comp0->per_cpu[0], 299362188u);
  EXPECT_EQ(total(*comp0), 299362188u);
  EXPECT_EQ(comp0->chip, "IR-PCI-MSIX-0000:3b:00.0");
  EXPECT_EQ(comp0->hwirq, "1-edge");
  const IrqLine* txrx0 = FindLine(*s.interrupts, "1092");
  ASSERT_NE(txrx0, nullptr);
  EXPECT_EQ(txrx0->per_cpu[32], 107682040u);
  EXPECT_EQ(total(*txrx0), 107682040u);

  std::vector<std::string> want = {"1075 eth0 'async0' 0000:3b:00.0"};
  for (int i = 0; i < 16; ++i) {
    want.push_back(std::to_string(1076 + i) + " eth0 'comp" + std::to_string(i) + "' 0000:3b:00.0");
  }
  for (int i = 0; i < 16; ++i) {
    want.push_back(std::to_string(1092 + i) + " eth1 'TxRx-" + std::to_string(i) + "' 0000:af:00.0");
  }
  want.push_back("1108 eth1 'config' 0000:af:00.0");
  EXPECT_EQ(Describe(s.nic_irqs), want);
}

}  // namespace
}  // namespace bottleneckd::interrupts_test
