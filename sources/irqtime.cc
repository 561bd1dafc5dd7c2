// irqtime's loader and reader (sources/irqtime.h): the libbpf skeleton of
// sources/bpf/irqtime.bpf.c, built and embedded at build time.
#include "sources/irqtime.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/clock.h"
#include "sources/bpf/irqtime.skel.h"
#include "sources/bpf/irqtime_maps.h"
#include "sources/bpf_load.h"
#include "sources/sample.h"

namespace bottleneckd {
namespace {

constexpr const char* kKernelBtf = "/sys/kernel/btf/vmlinux";

static_assert(kSoftirqVectors == IRQTIME_SOFTIRQ_VECTORS);
static_assert(kSoftirqNetRx == IRQTIME_NET_RX && kSoftirqNetTx == IRQTIME_NET_TX);
static_assert(kIrqTimeMaxIrqs == IRQTIME_MAX_IRQS);

// A load or attach failure, naming the tracepoints this program needs.
Status LoadError(std::string_view what, int err, const std::string& libbpf_text) {
  return BpfLoadError(what, err, libbpf_text, "irq/irq_handler_*, irq/softirq_*");
}

// Enables the handlers of one attach type ("btf_" or "raw_" prefixed).
void SelectPrograms(bpf_object* obj, bool btf) {
  bpf_program* p = nullptr;
  bpf_object__for_each_program(p, obj) {
    const bool is_btf = std::strncmp(bpf_program__name(p), "btf_", 4) == 0;
    bpf_program__set_autoload(p, is_btf == btf);
  }
}

}  // namespace

Status CheckIrqTimePrivileges() { return CheckBpfPrivileges(); }

struct IrqTimeSource::Bpf {
  irqtime_bpf* skel = nullptr;
  int cpus = 0;  // libbpf_num_possible_cpus()
  uint64_t generation = 0;
  std::string attach;
  std::vector<irqtime_cpu_slot> cpu_values;
  std::vector<irqtime_irq> irq_values;
  ~Bpf() {
    if (skel != nullptr) irqtime_bpf::destroy(skel);
  }
};

IrqTimeSource::IrqTimeSource(IrqTimeOptions options) : options_(std::move(options)) { InstallLibbpfPrint(); }

IrqTimeSource::~IrqTimeSource() { Stop(); }

bool IrqTimeSource::running() const { return bpf_ != nullptr; }

namespace {

// Opens, loads and attaches one attach type into *skel.
Status LoadAs(bool btf, const std::string& btf_custom_path, irqtime_bpf** skel) {
  std::string text;
  CaptureLibbpf capture(&text);
  LIBBPF_OPTS(bpf_object_open_opts, opts);
  if (btf && !btf_custom_path.empty()) opts.btf_custom_path = btf_custom_path.c_str();
  irqtime_bpf* s = irqtime_bpf::open(&opts);
  if (s == nullptr) return LoadError("opening the BPF object", errno, text);
  SelectPrograms(s->obj, btf);
  if (int err = irqtime_bpf::load(s); err != 0) {
    irqtime_bpf::destroy(s);
    return LoadError("loading the BPF program", err, text);
  }
  if (int err = irqtime_bpf::attach(s); err != 0) {
    irqtime_bpf::destroy(s);
    return LoadError("attaching to the irq tracepoints", err, text);
  }
  *skel = s;
  return Status::OK();
}

}  // namespace

Status IrqTimeSource::Start() {
  if (bpf_) return Status::OK();
  BN_RETURN_IF_ERROR(CheckIrqTimePrivileges());
  const std::string btf_path = options_.btf_path.empty() ? kKernelBtf : options_.btf_path;
  const bool have_btf = access(btf_path.c_str(), R_OK) == 0;
  auto b = std::make_unique<Bpf>();
  Status s;
  if (have_btf) {
    s = LoadAs(true, options_.btf_path, &b->skel);
    if (s.ok()) {
      attach_note_ = "tp_btf";
    } else {
      // BTF present but not usable for these tracepoints (a stripped or
      // mismatched vmlinux BTF): the raw tracepoints need none.
      Status raw = LoadAs(false, "", &b->skel);
      if (!raw.ok()) return s;
      attach_note_ = "raw_tp (tp_btf refused: " + s.message() + ")";
    }
  } else {
    BN_RETURN_IF_ERROR(LoadAs(false, "", &b->skel));
    attach_note_ = "raw_tp (no kernel BTF at " + btf_path + ")";
  }
  b->attach = attach_note_.substr(0, attach_note_.find(' '));
  b->cpus = libbpf_num_possible_cpus();
  if (b->cpus <= 0) return Status::FromErrno(-b->cpus, "counting possible CPUs");
  // The first enabled program's id names this load.
  bpf_program* p = nullptr;
  bpf_object__for_each_program(p, b->skel->obj) {
    if (!bpf_program__autoload(p)) continue;
    bpf_prog_info info{};
    uint32_t len = sizeof info;
    if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) == 0) b->generation = info.id;
    break;
  }
  b->cpu_values.resize(b->cpus);
  b->irq_values.resize(b->cpus);
  bpf_ = std::move(b);
  return Status::OK();
}

void IrqTimeSource::Stop() { bpf_.reset(); }

Status IrqTimeSource::Read(IrqTimeReading* out) {
  if (!bpf_) return Status::NotSupported("irqtime is not loaded");
  Bpf& b = *bpf_;
  out->mono_ns = MonotonicNanos();
  out->generation = b.generation;
  out->attach = b.attach;
  out->cpus.clear();
  out->irqs.clear();
  const uint32_t zero = 0;
  if (bpf_map__lookup_elem(b.skel->maps.cpu_times, &zero, sizeof zero, b.cpu_values.data(),
                           b.cpu_values.size() * sizeof(irqtime_cpu_slot), 0) != 0)
    return Status::FromErrno(errno, "reading the irqtime cpu_times map");
  for (int c = 0; c < b.cpus; ++c) {
    const irqtime_cpu& v = b.cpu_values[c].times;
    IrqTimeCpu cpu;
    cpu.cpu = c;
    cpu.hardirq_ns = v.hardirq_ns;
    cpu.hardirq_count = v.hardirq_count;
    for (int i = 0; i < kSoftirqVectors; ++i) {
      cpu.softirq_ns[i] = v.softirq_ns[i];
      cpu.softirq_count[i] = v.softirq_count[i];
    }
    cpu.net_unattributed_ns = v.net_unattributed_ns;
    cpu.irq_overflow_count = v.irq_overflow_count;
    // Possible but never-online CPUs have nothing; an online CPU always has
    // timer softirqs.
    if (cpu.hardirq_count != 0 || cpu.softirq_total_ns() != 0) out->cpus.push_back(cpu);
  }
  uint32_t key = 0, next = 0;
  const uint32_t* prev = nullptr;
  int keys = 0;
  while (bpf_map__get_next_key(b.skel->maps.irq_times, prev, &next, sizeof next) == 0 && keys++ < kIrqTimeMaxIrqs) {
    key = next;
    prev = &key;
    // A key deleted between the two calls cannot happen (nothing deletes);
    // a failed lookup is a real error.
    if (bpf_map__lookup_elem(b.skel->maps.irq_times, &key, sizeof key, b.irq_values.data(),
                             b.irq_values.size() * sizeof(irqtime_irq), 0) != 0)
      return Status::FromErrno(errno, "reading the irqtime irq_times map");
    for (int c = 0; c < b.cpus; ++c) {
      const irqtime_irq& v = b.irq_values[c];
      if (v.hardirq_count == 0 && v.net_softirq_count == 0) continue;
      out->irqs.push_back({key, c, v.hardirq_ns, v.hardirq_count, v.net_softirq_ns, v.net_softirq_count});
    }
  }
  std::sort(out->irqs.begin(), out->irqs.end(),
            [](const IrqTimeIrq& x, const IrqTimeIrq& y) { return x.irq != y.irq ? x.irq < y.irq : x.cpu < y.cpu; });
  return Status::OK();
}

Status IrqTimeSource::Read(Sample* out) {
  IrqTimeReading r;
  if (out->irqtime) r = std::move(*out->irqtime);  // reuse its capacity
  Status s = Read(&r);
  if (s.ok()) {
    out->irqtime = std::move(r);
  } else {
    out->irqtime.reset();
  }
  return s;
}

}  // namespace bottleneckd
