// interrupts collector: per-IRQ, per-CPU interrupt counts, and for NICs the
// interface and queue each IRQ serves.
// Reads /proc/interrupts:
//              CPU0       CPU1
//    24:      12345          0  PCI-MSI 49152-edge      virtio0-input.0
//   LOC:    1234567    1234000  Local timer interrupts
// and, to map IRQs to NICs: /sys/class/net/IF/device -> the PCI device,
// /sys/bus/pci/devices/D/msi_irqs/ and /irq, and handler names
// ("eth0-TxRx-3", "virtio2-input.0", "mlx5_comp4@pci:0000:01:00.0").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector.h"

namespace bottleneckd {

// One line of /proc/interrupts. Per-CPU counts are the kernel's unsigned int
// (32-bit, they wrap); named lines (LOC, RES, ...) have a description only.
struct IrqLine {
  std::string name;                  // "24" or "LOC"
  std::optional<uint32_t> irq;       // set for numeric lines
  std::vector<uint64_t> per_cpu;     // aligned with Interrupts::cpus
  std::string chip;                  // "PCI-MSI", "IO-APIC", "IR-PCI-MSI" (numeric lines)
  std::string hwirq;                 // "49152-edge" (numeric lines; may be empty)
  std::vector<std::string> actions;  // handler names, split on ", "
  std::string description;           // named lines: "Local timer interrupts"
};

struct Interrupts {
  std::vector<int> cpus;  // CPU ids from the header ("CPU0 CPU2" -> 0, 2)
  std::vector<IrqLine> lines;
};

// Parses /proc/interrupts. Corruption when the header is missing or a line has
// a malformed count or more counts than the header has CPUs; lines with fewer
// counts than CPUs (ERR, MIS) are kept with the counts they have. Counts are
// taken as u64 (the kernel's wrap at 2^32; the window handles that). Lines
// without "NAME:" are skipped. *out's vectors and strings are reused; on error
// out->lines is empty.
Status ParseProcInterrupts(std::string_view text, Interrupts* out);

// Which NIC and queue an IRQ serves.
struct NicIrq {
  uint32_t irq = 0;
  std::string interface;  // "eth0"
  std::string queue;      // "TxRx-3", "input.0", "comp4", "config"; "" for the only vector
  std::string device;     // PCI address "0000:00:03.0"; "" for non-PCI
};

// Maps IRQs to NIC queues from sysfs and the handler names. `interfaces` are
// the names under /sys/class/net. Unmatched IRQs are absent. The device comes
// from class/net/IF/device (a PCI function, or a virtio device whose parent is
// one), resolved by path arithmetic on the sysfs-relative link; its IRQs from
// msi_irqs/ (else the legacy irq attribute). When the device's IRQ set is known
// only IRQs in it are considered. Queue: the handler name after "IF-" or
// "virtioN-" ("TxRx-3", "input.0", "config"), after "driver_" for
// "mlx5_comp4@pci:ADDR" ("comp4"), "" for a bare "IF" that is the interface's
// only vector and "config" for a bare "IF" next to queue vectors; an unnamed
// single-handler vector of the device keeps its handler name as queue. Vectors
// named by PCI address only go to the first interface of that function.
// Interfaces without a device link, or whose sysfs cannot be read, are skipped;
// output is grouped by interface (input order), IRQs ascending. Returns OK.
// What could not be read (a device link that cannot be resolved, an
// msi_irqs directory that cannot be listed or holds a non-number, an irq
// attribute that is garbage) goes to *issues when given.
Status MapNicIrqs(const HostFs& fs, const Interrupts& irqs, const std::vector<std::string>& interfaces,
                  std::vector<NicIrq>* out, std::vector<ReadIssue>* issues = nullptr);

class InterruptsCollector : public Collector {
 public:
  std::string_view name() const override { return "interrupts"; }
  // Fills out->interrupts and out->nic_irqs. NotSupported without /proc/interrupts;
  // a host without class/net gets no NIC mapping (not an error).
  Status Collect(const HostFs& fs, HostReadings* out) override;

 private:
  std::string buf_;
  UniqueFd fd_;  // /proc/interrupts, kept open between ticks (HostFs::ReadProcKept)
  std::vector<std::string> interfaces_;
  // NIC mapping is rebuilt only when the set of IRQ action names or interfaces changes.
  std::string mapping_key_;
  std::string key_scratch_;
  std::vector<NicIrq> nic_irqs_;
};

}  // namespace bottleneckd
