#include "collectors/interrupts.h"

#include <algorithm>
#include <climits>
#include <string>

#include "base/parse_util.h"
#include "collectors/host_readings.h"
#include "collectors/sysfs_path.h"

namespace bottleneckd {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The next token of *s without consuming it.
std::string_view PeekToken(std::string_view s) { return NextToken(&s); }

// "CPU0 CPU1 CPU3" -> 0, 1, 3.
Status ParseHeader(std::string_view line, std::vector<int>* cpus) {
  cpus->clear();
  for (std::string_view tok = NextToken(&line); !tok.empty(); tok = NextToken(&line)) {
    uint64_t id = 0;
    if (!StartsWith(tok, "CPU") || !ParseU64(tok.substr(3), &id) || id > INT_MAX) {
      return Status::Corruption("bad header column '" + std::string(tok) + "'");
    }
    cpus->push_back(static_cast<int>(id));
  }
  if (cpus->empty()) return Status::Corruption("header without CPU columns");
  return Status::OK();
}

// The trigger column of kernels with GENERIC_IRQ_SHOW_LEVEL (arm): "Level", "Edge".
bool IsTrigger(std::string_view tok) {
  return tok == "Level" || tok == "Edge" || StartsWith(tok, "Level-") || StartsWith(tok, "Edge-");
}

// Splits "ehci_hcd:usb1, PCIe PME" on ", " into *out, reusing its strings.
void SplitActions(std::string_view s, std::vector<std::string>* out) {
  size_t n = 0;
  while (!s.empty()) {
    size_t comma = s.find(", ");
    std::string_view a = Trim(s.substr(0, comma));
    s.remove_prefix(comma == std::string_view::npos ? s.size() : comma + 2);
    if (a.empty()) continue;
    if (n < out->size()) {
      (*out)[n].assign(a);
    } else {
      out->emplace_back(a);
    }
    ++n;
  }
  out->resize(n);
}

// Fills *l from the text after "NAME:". Counts are the leading tokens that start
// with a digit: each must parse, and there may be no more than header CPUs (a
// CPU that came online after the header was printed breaks the alignment).
Status ParseIrqLine(std::string_view rest, size_t ncpus, IrqLine* l) {
  l->per_cpu.clear();
  l->per_cpu.reserve(ncpus);
  // One pass per count: skip blanks, accumulate digits with an overflow check.
  const char* p = rest.data();
  const char* const end = p + rest.size();
  for (;;) {
    const char* q = p;
    while (q < end && (*q == ' ' || *q == '\t')) ++q;
    if (q == end || !IsDigit(*q)) break;
    const char* t = q;
    uint64_t v = 0;
    while (t < end && IsDigit(*t)) v = v * 10 + static_cast<unsigned>(*t++ - '0');
    if (t - q > 19) {  // only a 20-digit count can overflow: check it exactly
      uint64_t x = 0;
      if (!ParseU64(std::string_view(q, static_cast<size_t>(t - q)), &x))
        return Status::Corruption(l->name + ": count overflows u64");
      v = x;
    }
    if (t < end && *t != ' ' && *t != '\t') {
      return Status::Corruption(l->name + ": bad count '" + std::string(q, t + 1) + "'");
    }
    if (l->per_cpu.size() == ncpus) {
      return Status::Corruption(l->name + ": more counts than the " + std::to_string(ncpus) + " CPUs in the header");
    }
    l->per_cpu.push_back(v);
    p = t;
  }
  rest.remove_prefix(static_cast<size_t>(p - rest.data()));
  // A count is never negative: "-5" where a count should be is not the start
  // of the description ("-virq" of a Xen line is: no digit after the dash).
  if (std::string_view t = Trim(rest); t.size() > 1 && t[0] == '-' && IsDigit(t[1]))
    return Status::Corruption(l->name + ": negative count '" + std::string(NextToken(&t)) + "'");
  l->chip.clear();
  l->hwirq.clear();
  l->description.clear();
  if (!l->irq) {
    l->actions.clear();
    l->description.assign(Trim(rest));
    return Status::OK();
  }
  // "PCI-MSI 49152-edge  eth0, eth1"; old kernels: "IO-APIC-edge  timer";
  // arm: "GICv3  30 Level  arch_timer"; no irq domain: "xen-percpu  -virq  timer0".
  l->chip.assign(NextToken(&rest));
  std::string_view tok = PeekToken(rest);
  if (!tok.empty() && (IsDigit(tok.front()) || tok.front() == '-')) {
    l->hwirq.assign(tok);
    NextToken(&rest);
    tok = PeekToken(rest);
  }
  if (IsTrigger(tok)) {
    if (!l->hwirq.empty()) l->hwirq += ' ';
    l->hwirq.append(tok);
    NextToken(&rest);
  }
  SplitActions(Trim(rest), &l->actions);
  return Status::OK();
}

}  // namespace

Status ParseProcInterrupts(std::string_view text, Interrupts* out) {
  std::string_view line;
  bool header = false;
  while (!header && NextLine(&text, &line)) {
    if (Trim(line).empty()) continue;
    BN_RETURN_IF_ERROR(ParseHeader(line, &out->cpus));
    header = true;
  }
  if (!header) return Status::Corruption("missing CPU header");
  size_t n = 0;
  while (NextLine(&text, &line)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = Trim(line.substr(0, colon));
    if (name.empty() || name.find_first_of(" \t") != std::string_view::npos) continue;
    std::optional<uint32_t> irq;
    if (IsDigit(name.front())) {
      uint64_t v = 0;
      if (!ParseU64(name, &v) || v > UINT32_MAX) {
        out->lines.clear();
        return Status::Corruption("bad irq number '" + std::string(name) + "'");
      }
      irq = static_cast<uint32_t>(v);
    }
    IrqLine& l = n < out->lines.size() ? out->lines[n] : out->lines.emplace_back();
    ++n;
    l.name.assign(name);
    l.irq = irq;
    Status s = ParseIrqLine(line.substr(colon + 1), out->cpus.size(), &l);
    if (!s.ok()) {
      out->lines.clear();
      return s;
    }
  }
  out->lines.resize(n);
  return Status::OK();
}

namespace {

// What sysfs says about one interface's hardware.
struct NicDevice {
  std::string name;            // "eth0"
  std::string virtio;          // "virtio2" when the netdev sits on a virtio device
  std::string pci;             // "0000:00:03.0"; "" when not on PCI
  std::vector<uint32_t> irqs;  // MSI/MSI-X vectors, else the INTx line; sorted
  bool owner = true;           // first interface of its PCI function
};

void ReadDeviceIrqs(const HostFs& fs, const std::string& pci_path, std::vector<uint32_t>* irqs,
                    std::vector<ReadIssue>* issues) {
  std::vector<std::string> names;
  const std::string msi = pci_path + "/msi_irqs";
  Status s = fs.ListSys(msi, &names);
  if (s.ok()) {
    for (const std::string& n : names) {
      uint64_t v = 0;
      if (ParseU64(n, &v) && v <= UINT32_MAX) {
        irqs->push_back(static_cast<uint32_t>(v));
      } else {
        AddReadIssue(issues, fs.SysPath(msi + "/" + n), Status::Corruption("not an IRQ number"));
      }
    }
  } else {
    AddReadIssue(issues, fs.SysPath(msi), s);
  }
  if (irqs->empty()) {  // legacy INTx; with MSI-X on, "irq" may name a shared pin
    std::string text;
    uint64_t v = 0;
    const std::string irq = pci_path + "/irq";
    s = fs.ReadSys(irq, &text, 64);
    if (!s.ok()) {
      AddReadIssue(issues, fs.SysPath(irq), s);
    } else if (!ParseU64(Trim(text), &v) || v > UINT32_MAX) {
      AddReadIssue(issues, fs.SysPath(irq), Status::Corruption("not an IRQ number: '" + std::string(Trim(text)) + "'"));
    } else if (v > 0) {  // 0: no legacy line
      irqs->push_back(static_cast<uint32_t>(v));
    }
  }
  std::sort(irqs->begin(), irqs->end());
}

// NotFound for a virtual interface (no device link).
Status DescribeInterface(const HostFs& fs, const std::string& ifname, NicDevice* d, std::vector<ReadIssue>* issues) {
  std::string iface = "class/net/" + ifname;
  std::string real, dev;
  Status s = ResolveSysLink(fs, iface, &real);
  if (s.IsNotFound()) return s;
  if (!s.ok()) real = iface;  // a directory, not a link (old sysfs, hand-made trees)
  s = ResolveSysLink(fs, real + "/device", &dev);
  if (!s.ok()) {
    AddReadIssue(issues, fs.SysPath(real + "/device"), s);
    return s;
  }
  d->name = ifname;
  std::string_view base = Basename(dev);
  if (StartsWith(base, "virtio")) d->virtio.assign(base);
  std::string function_dir;  // the device itself, or the virtio-pci function above virtio0
  d->pci = PciFunctionOf(dev, &function_dir);
  if (!function_dir.empty()) ReadDeviceIrqs(fs, function_dir, &d->irqs, issues);
  return Status::OK();
}

enum class MatchKind { kNone, kQueue, kBare, kDevice };

// Finds `name` at the start of `a` or after a '-', followed by '-': "eth0-TxRx-3",
// "i40e-eth0-TxRx-0" -> the text after it.
bool AfterName(std::string_view a, std::string_view name, std::string_view* rest) {
  if (name.empty()) return false;
  for (size_t pos = a.find(name); pos != std::string_view::npos; pos = a.find(name, pos + 1)) {
    size_t end = pos + name.size();
    if ((pos == 0 || a[pos - 1] == '-') && end + 1 < a.size() && a[end] == '-') {
      *rest = a.substr(end + 1);
      return true;
    }
  }
  return false;
}

// How handler name `a` relates to interface d; *queue gets the queue name.
MatchKind MatchAction(std::string_view a, const NicDevice& d, std::string_view* queue) {
  if (a == d.name || (!d.virtio.empty() && a == d.virtio)) return MatchKind::kBare;
  if (AfterName(a, d.name, queue) || AfterName(a, d.virtio, queue)) return MatchKind::kQueue;
  if (d.pci.empty()) return MatchKind::kNone;
  size_t at = a.rfind('@');
  if (at != std::string_view::npos) {  // "mlx5_comp4@pci:0000:01:00.0"
    std::string_view addr = a.substr(at + 1);
    if (StartsWith(addr, "pci:")) addr.remove_prefix(4);
    if (addr != d.pci) return MatchKind::kNone;
    std::string_view q = a.substr(0, at);
    size_t sep = q.find_first_of("_-");
    *queue = sep == std::string_view::npos ? q : q.substr(sep + 1);
    return MatchKind::kDevice;
  }
  size_t pos = a.find(d.pci);  // "i40e-0000:01:00.0:misc"
  if (pos == std::string_view::npos) return MatchKind::kNone;
  std::string_view rest = a.substr(pos + d.pci.size());
  while (!rest.empty() && (rest.front() == ':' || rest.front() == '-' || rest.front() == '_')) {
    rest.remove_prefix(1);
  }
  *queue = rest.empty() ? a : rest;
  return MatchKind::kDevice;
}

struct Match {
  size_t dev;
  NicIrq irq;
  bool bare;
};

// Appends the interfaces that IRQ line l serves: by interface or virtio name
// first (a shared INTx line may serve several), else by PCI address in the name,
// else an unnamed single-handler vector of a device goes to its first interface.
void MatchLine(const IrqLine& l, const std::vector<NicDevice>& devs, std::vector<Match>* out) {
  uint32_t irq = *l.irq;
  auto in_dev = [irq](const NicDevice& d) { return std::binary_search(d.irqs.begin(), d.irqs.end(), irq); };
  auto emit = [&](size_t i, std::string_view queue, bool bare) {
    out->push_back({i, NicIrq{irq, devs[i].name, std::string(queue), devs[i].pci}, bare});
  };
  bool named = false;
  for (size_t i = 0; i < devs.size(); ++i) {
    if (!devs[i].irqs.empty() && !in_dev(devs[i])) continue;
    for (const std::string& a : l.actions) {
      std::string_view q;
      MatchKind k = MatchAction(a, devs[i], &q);
      if (k == MatchKind::kQueue || k == MatchKind::kBare) {
        emit(i, q, k == MatchKind::kBare);
        named = true;
        break;
      }
    }
  }
  if (named) return;
  for (size_t i = 0; i < devs.size(); ++i) {
    if (!devs[i].owner || (!devs[i].irqs.empty() && !in_dev(devs[i]))) continue;
    for (const std::string& a : l.actions) {
      std::string_view q;
      if (MatchAction(a, devs[i], &q) == MatchKind::kDevice) {
        emit(i, q, false);
        return;
      }
    }
  }
  if (l.actions.size() != 1) return;
  for (size_t i = 0; i < devs.size(); ++i) {
    if (devs[i].owner && in_dev(devs[i])) {
      emit(i, l.actions.front(), false);
      return;
    }
  }
}

}  // namespace

Status MapNicIrqs(const HostFs& fs, const Interrupts& irqs, const std::vector<std::string>& interfaces,
                  std::vector<NicIrq>* out, std::vector<ReadIssue>* issues) {
  out->clear();
  std::vector<NicDevice> devs;
  for (const std::string& ifname : interfaces) {
    NicDevice d;
    if (!DescribeInterface(fs, ifname, &d, issues).ok()) continue;  // virtual, or unreadable (an issue)
    for (const NicDevice& e : devs) {
      if (!d.pci.empty() && e.pci == d.pci) d.owner = false;
    }
    devs.push_back(std::move(d));
  }
  if (devs.empty()) return Status::OK();
  std::vector<Match> matches;
  for (const IrqLine& l : irqs.lines) {
    if (l.irq) MatchLine(l, devs, &matches);
  }
  std::stable_sort(matches.begin(), matches.end(), [](const Match& a, const Match& b) { return a.dev < b.dev; });
  std::vector<size_t> per_dev(devs.size(), 0);
  for (const Match& m : matches) ++per_dev[m.dev];
  for (Match& m : matches) {
    if (m.bare) m.irq.queue = per_dev[m.dev] > 1 ? "config" : "";
    out->push_back(std::move(m.irq));
  }
  return Status::OK();
}

Status InterruptsCollector::Collect(const HostFs& fs, HostReadings* out) {
  Status s = fs.ReadProcKept("interrupts", &fd_, &buf_);
  if (s.IsNotFound()) return fs.MissingProcFiles(fs.ProcPath("interrupts"));
  BN_RETURN_IF_ERROR(s);
  Interrupts& irqs = out->interrupts ? *out->interrupts : out->interrupts.emplace();
  s = ParseProcInterrupts(buf_, &irqs);
  if (!s.ok()) {
    out->interrupts.reset();
    return s.WithContext(fs.ProcPath("interrupts"));
  }
  s = fs.ListSys("class/net", &interfaces_);
  if (!s.ok()) {  // no sysfs: no NICs; any other failure is said
    interfaces_.clear();
    LeftOut(fs.SysPath("class/net"), s);
  }
  key_scratch_.clear();
  for (const std::string& i : interfaces_) key_scratch_.append(i).push_back(' ');
  for (const IrqLine& l : irqs.lines) {
    if (!l.irq) continue;
    key_scratch_.push_back('\n');
    key_scratch_.append(l.name);
    for (const std::string& a : l.actions) key_scratch_.append(", ").append(a);
  }
  if (key_scratch_ != mapping_key_) {
    // The mapping is kept while handlers and interfaces stay the same, so
    // what it could not read is said (counted, logged) when it is made.
    s = MapNicIrqs(fs, irqs, interfaces_, &nic_irqs_, read_issues());
    if (!s.ok()) {
      nic_irqs_.clear();
      mapping_key_.clear();
      out->interrupts.reset();
      return s;
    }
    mapping_key_.swap(key_scratch_);
  }
  out->nic_irqs = nic_irqs_;
  return Status::OK();
}

}  // namespace bottleneckd
