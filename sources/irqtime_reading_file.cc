// The recording's irqtime file (docs/recording-format.md, "irqtime"): the
// irqtime source's cumulative counters at one tick, one line per CPU and per
// (IRQ, CPU), written by IrqTimeFileText and read back by ParseIrqTimeFile.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <utility>

#include "base/parse_util.h"
#include "sources/irqtime.h"
#include "sources/reading_file.h"
#include "sources/soaker.h"

namespace bottleneckd {
namespace {

constexpr char kCpuForm[] =
    "expected 'cpu CPU hardirq NS COUNT unattributed NS overflow COUNT [VECTOR NS COUNT]...' "
    "with whole numbers from 0 to 2^64-1";
constexpr char kIrqForm[] = "expected 'irq IRQ CPU hardirq NS COUNT net NS COUNT' with whole numbers from 0 to 2^64-1";

// Pops `word`, then one whole number into each of `outs`; false when the
// word differs or a number is missing, signed or past uint64.
bool TakeKeyed(std::string_view* rest, std::string_view word, std::initializer_list<uint64_t*> outs) {
  if (NextToken(rest) != word) return false;
  for (uint64_t* o : outs) {
    if (!ParseU64(NextToken(rest), o)) return false;
  }
  return true;
}

// Pops a CPU number (0 .. kMaxCpuId).
bool TakeCpu(std::string_view* rest, int* cpu) {
  uint64_t v = 0;
  if (!ParseU64(NextToken(rest), &v) || v > static_cast<uint64_t>(kMaxCpuId)) return false;
  *cpu = static_cast<int>(v);
  return true;
}

}  // namespace

std::string IrqTimeFileText(const IrqTimeReading& r) {
  std::string t = "format 1\n";
  t += "mono_ns " + std::to_string(r.mono_ns) + "\n";
  t += "generation " + std::to_string(r.generation) + "\n";
  if (!r.attach.empty()) t += "attach " + r.attach + "\n";
  for (const IrqTimeCpu& c : r.cpus) {
    t += "cpu " + std::to_string(c.cpu) + " hardirq " + std::to_string(c.hardirq_ns) + " " +
         std::to_string(c.hardirq_count) + " unattributed " + std::to_string(c.net_unattributed_ns) + " overflow " +
         std::to_string(c.irq_overflow_count);
    for (int v = 0; v < kSoftirqVectors; ++v) {
      t += " ";
      t += SoftirqVectorName(v);
      t += " " + std::to_string(c.softirq_ns[v]) + " " + std::to_string(c.softirq_count[v]);
    }
    t += "\n";
  }
  for (const IrqTimeIrq& q : r.irqs) {
    t += "irq " + std::to_string(q.irq) + " " + std::to_string(q.cpu) + " hardirq " + std::to_string(q.hardirq_ns) +
         " " + std::to_string(q.hardirq_count) + " net " + std::to_string(q.net_softirq_ns) + " " +
         std::to_string(q.net_softirq_count) + "\n";
  }
  return t;
}

Status ParseIrqTimeFile(std::string_view text, IrqTimeReading* out) {
  IrqTimeReading r;
  std::string_view line;
  int n = 0;
  bool format = false;
  std::set<std::string_view> headers;
  std::set<int> cpus;
  std::set<std::pair<uint32_t, int>> irqs;
  auto bad = [&](const std::string& why) {
    return Status::Corruption("line " + std::to_string(n) + ": " + why + ", got " + Quoted(line));
  };
  while (NextLine(&text, &line)) {
    ++n;
    std::string_view rest = line;
    const std::string_view key = NextToken(&rest);
    if (key.empty() || key.front() == '#') continue;
    if (!format && key != "format") return bad("expected 'format 1' first");
    if (key == "format" || key == "mono_ns" || key == "generation" || key == "attach") {
      const std::string k(key);
      std::string_view v = NextToken(&rest);
      if (v.empty() || !NextToken(&rest).empty()) return bad(k + " takes one value");
      if (!headers.insert(key).second) return bad(k + " given twice");
      uint64_t u = 0;
      if (key == "format") {
        if (v != "1") return bad("unknown irqtime format (this bottleneckd reads format 1)");
        format = true;
      } else if (key == "mono_ns") {
        if (!ParseU64(v, &u) || u > static_cast<uint64_t>(INT64_MAX))
          return bad("mono_ns must be a whole number of nanoseconds");
        r.mono_ns = static_cast<int64_t>(u);
      } else if (key == "generation") {
        if (!ParseU64(v, &r.generation)) return bad("generation must be a whole number from 0 to 2^64-1");
      } else {
        if (v != "tp_btf" && v != "raw_tp") return bad("attach must be tp_btf or raw_tp");
        r.attach.assign(v);
      }
      continue;
    }
    if (key == "cpu") {
      IrqTimeCpu c;
      if (!TakeCpu(&rest, &c.cpu) || !TakeKeyed(&rest, "hardirq", {&c.hardirq_ns, &c.hardirq_count}) ||
          !TakeKeyed(&rest, "unattributed", {&c.net_unattributed_ns}) ||
          !TakeKeyed(&rest, "overflow", {&c.irq_overflow_count}))
        return bad(kCpuForm);
      std::array<bool, kSoftirqVectors> seen{};
      for (std::string_view name = NextToken(&rest); !name.empty(); name = NextToken(&rest)) {
        const int v = SoftirqVectorIndex(name);
        if (v < 0)
          return bad("unknown softirq vector '" + std::string(name.substr(0, 40)) + "' (/proc/softirqs names)");
        if (seen[v]) return bad("vector " + std::string(name) + " given twice");
        seen[v] = true;
        if (!ParseU64(NextToken(&rest), &c.softirq_ns[v]) || !ParseU64(NextToken(&rest), &c.softirq_count[v]))
          return bad(kCpuForm);
      }
      if (!cpus.insert(c.cpu).second) return bad("cpu " + std::to_string(c.cpu) + " given twice");
      r.cpus.push_back(c);
      continue;
    }
    if (key == "irq") {
      IrqTimeIrq q;
      uint64_t irq = 0;
      if (!ParseU64(NextToken(&rest), &irq) || irq > UINT32_MAX || !TakeCpu(&rest, &q.cpu) ||
          !TakeKeyed(&rest, "hardirq", {&q.hardirq_ns, &q.hardirq_count}) ||
          !TakeKeyed(&rest, "net", {&q.net_softirq_ns, &q.net_softirq_count}) || !NextToken(&rest).empty())
        return bad(kIrqForm);
      q.irq = static_cast<uint32_t>(irq);
      if (!irqs.insert({q.irq, q.cpu}).second)
        return bad("irq " + std::to_string(q.irq) + " on cpu " + std::to_string(q.cpu) + " given twice");
      r.irqs.push_back(q);
      continue;
    }
    return bad("unknown key '" + std::string(key.substr(0, 40)) +
               "' (expected format, mono_ns, generation, attach, cpu or irq)");
  }
  if (!format) return Status::Corruption("no 'format 1' line: not an irqtime file");
  std::sort(r.cpus.begin(), r.cpus.end(), [](const IrqTimeCpu& a, const IrqTimeCpu& b) { return a.cpu < b.cpu; });
  std::sort(r.irqs.begin(), r.irqs.end(),
            [](const IrqTimeIrq& a, const IrqTimeIrq& b) { return std::pair(a.irq, a.cpu) < std::pair(b.irq, b.cpu); });
  *out = std::move(r);
  return Status::OK();
}

}  // namespace bottleneckd
