// irqtime: measured CPU time in hard and soft interrupts (docs/irqtime.md "What it measures"),
// from an eBPF program on the irq tracepoints (irq_handler_entry/exit,
// softirq_entry/exit; sources/bpf/irqtime.bpf.c) that adds nanoseconds and
// counts into per-CPU maps; Read() copies the maps once a tick (no per-event
// trip to user space). What it measures, what it misses and what it costs:
// docs/irqtime.md.
//
// Why: without CONFIG_IRQ_TIME_ACCOUNTING /proc/stat's irq and softirq columns
// are tick samples, and softirq work done on exit from an interrupt is charged
// to the thread it interrupted. These counters are the time itself.
//
// Loading (Start): needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN, root). The
// program attaches as tp_btf (typed against the running kernel's BTF, so the
// verifier checks the tracepoints' arguments) when the kernel's BTF is there,
// else as raw tracepoints (untyped, only the first argument read: stable since
// 4.17). Every refusal is one Status naming the cause: privilege, tracepoint
// missing, verifier refusal (with the verifier's last line).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sources/source.h"

namespace bottleneckd {

// Softirq vectors, numbered as the kernel numbers them (HI_SOFTIRQ = 0 ..
// RCU_SOFTIRQ = 9, include/linux/interrupt.h).
inline constexpr int kSoftirqVectors = 10;
inline constexpr int kSoftirqNetTx = 2;
inline constexpr int kSoftirqNetRx = 3;
// The vector's name as /proc/softirqs prints it ("HI", "TIMER", "NET_TX",
// "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU");
// "" out of range.
std::string_view SoftirqVectorName(int vector);
// The inverse; -1 for an unknown name.
int SoftirqVectorIndex(std::string_view name);

// One CPU's cumulative counters since the program was loaded.
struct IrqTimeCpu {
  int cpu = -1;
  uint64_t hardirq_ns = 0, hardirq_count = 0;
  // Per vector; a hardirq that arrives during a softirq is counted only as
  // hardirq time, so hardirq_ns + the softirq sum never exceeds elapsed time.
  std::array<uint64_t, kSoftirqVectors> softirq_ns{}, softirq_count{};
  // NET_RX/NET_TX time with no device IRQ on this CPU since the previous
  // network softirq (RPS/RFS backlog work raised by an IPI, busy polling):
  // not charged to any IRQ.
  uint64_t net_unattributed_ns = 0;
  // Hardirqs whose IRQ found no slot in the per-IRQ map (more than
  // kIrqTimeMaxIrqs distinct IRQs): in hardirq_ns, not in any IrqTimeIrq.
  uint64_t irq_overflow_count = 0;

  uint64_t softirq_total_ns() const;
  bool operator==(const IrqTimeCpu&) const = default;
};

// One IRQ on one CPU, cumulative.
struct IrqTimeIrq {
  uint32_t irq = 0;
  int cpu = -1;
  uint64_t hardirq_ns = 0, hardirq_count = 0;
  // NET_RX/NET_TX softirq time charged to this IRQ: the network softirq that
  // followed it on this CPU (the queue interrupt raised it).
  uint64_t net_softirq_ns = 0, net_softirq_count = 0;
  bool operator==(const IrqTimeIrq&) const = default;
};

inline constexpr int kIrqTimeMaxIrqs = 4096;  // the per-IRQ map's size

struct IrqTimeReading {
  int64_t mono_ns = 0;  // CLOCK_MONOTONIC when the maps were read
  // Identifies one load of the program (its BPF program id): a change means
  // the counters restarted at 0.
  uint64_t generation = 0;
  std::string attach;            // "tp_btf" or "raw_tp"
  std::vector<IrqTimeCpu> cpus;  // every CPU with any count (the online ones), sorted by cpu
  std::vector<IrqTimeIrq> irqs;  // entries with any count, sorted by (irq, cpu)
  bool operator==(const IrqTimeReading&) const = default;
};

using IrqTimeMode = LoadMode;

struct IrqTimeOptions {
  // auto (default): load when the host allows it, else one log line and the
  // daemon runs as before; on: the daemon refuses to start without it; off.
  IrqTimeMode mode = IrqTimeMode::kAuto;
  // The kernel BTF that decides tp_btf or raw_tp; "" is the kernel's own
  // (/sys/kernel/btf/vmlinux). Tests point it at a missing file.
  std::string btf_path;
};

// The capability check Start() makes first: OK with CAP_SYS_ADMIN, or with
// both CAP_BPF and CAP_PERFMON, in the effective set; PermissionDenied naming
// what is missing otherwise.
Status CheckIrqTimePrivileges();

class IrqTimeSource : public Source {
 public:
  explicit IrqTimeSource(IrqTimeOptions options);
  ~IrqTimeSource() override;  // detaches and unloads
  IrqTimeSource(const IrqTimeSource&) = delete;
  IrqTimeSource& operator=(const IrqTimeSource&) = delete;

  std::string_view name() const override { return "irqtime"; }
  // Loads and attaches the program. Errors (one line each, for the log):
  // PermissionDenied (capabilities, or the kernel refusing BPF), NotFound (a
  // tracepoint is missing), NotSupported (the verifier refused it: its last
  // line), IOError (anything else libbpf reports). Idempotent.
  Status Start() override;
  void Stop() override;
  bool running() const;
  // What Start() chose and why, for the log: "tp_btf" or "raw_tp (no kernel
  // BTF at PATH)". "" before Start().
  const std::string& attach_note() const { return attach_note_; }

  // Copies the maps into *out (replaced; keeps capacity). NotSupported when
  // not running; IOError when a map read fails.
  Status Read(IrqTimeReading* out);
  // Source: sets out->irqtime.
  Status Read(Sample* out) override;

 private:
  struct Bpf;  // the skeleton, behind a pointer: only irqtime.cc sees it
  IrqTimeOptions options_;
  std::unique_ptr<Bpf> bpf_;
  std::string attach_note_;
};

// The recording's irqtime file (docs/recording-format.md, "irqtime";
// sources/irqtime_reading_file.cc):
//   format 1
//   mono_ns 123456789
//   generation 42
//   attach tp_btf
//   cpu 0 hardirq 22319 1 unattributed 0 overflow 0 HI 0 0 TIMER 300750 28 ...
//   irq 31 1 hardirq 14318 1 net 0 0
// A cpu line names every vector it has (NAME NS COUNT); vectors it leaves out
// are 0. Blank lines and '#' comments are skipped. Parse returns Corruption
// "line N: ..." on a malformed line, a duplicate cpu or (irq, cpu), an unknown
// vector or format; *out is unspecified on failure.
std::string IrqTimeFileText(const IrqTimeReading& r);
Status ParseIrqTimeFile(std::string_view text, IrqTimeReading* out);

}  // namespace bottleneckd
