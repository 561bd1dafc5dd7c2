#include "collectors/cpu.h"

#include <climits>
#include <cmath>
#include <string>

#include "base/parse_util.h"
#include "collectors/host_readings.h"

namespace bottleneckd {
namespace {

// Columns of a cpu line that CpuTimes keeps; later kernels may print more.
constexpr size_t kCpuColumns = 10;
constexpr size_t kMinCpuColumns = 4;  // user nice system idle (Linux 2.4)

enum class LineKind { kOther, kCpu, kBadCpu };

// Classifies the first token of a /proc/stat line: "cpu" (*cpu = -1) and
// "cpuN" are cpu lines; "cpu" + digit + junk or an id past INT_MAX is a bad cpu
// line; anything else ("ctxt", a future "cpufoo") is another line.
LineKind ClassifyLabel(std::string_view label, int* cpu) {
  if (!StartsWith(label, "cpu")) return LineKind::kOther;
  std::string_view id = label.substr(3);
  if (id.empty()) {
    *cpu = -1;
    return LineKind::kCpu;
  }
  if (id.front() < '0' || id.front() > '9') return LineKind::kOther;
  uint64_t n = 0;
  if (!ParseU64(id, &n) || n > INT_MAX) return LineKind::kBadCpu;
  *cpu = static_cast<int>(n);
  return LineKind::kCpu;
}

Status ParseCpuLine(std::string_view label, std::string_view rest, int cpu, CpuTimes* t) {
  uint64_t v[kCpuColumns] = {};
  size_t n = 0;
  for (std::string_view tok = NextToken(&rest); !tok.empty(); tok = NextToken(&rest)) {
    uint64_t x = 0;
    if (!ParseU64(tok, &x)) {
      return Status::Corruption(std::string(label) + ": bad value '" + std::string(tok) + "'");
    }
    if (n < kCpuColumns) v[n] = x;
    ++n;
  }
  if (n < kMinCpuColumns) {
    return Status::Corruption(std::string(label) + ": " + std::to_string(n) + " fields, at least 4 expected");
  }
  auto opt = [&](size_t i) { return i < n ? std::optional<uint64_t>(v[i]) : std::nullopt; };
  t->cpu = cpu;
  t->user = v[0];
  t->nice = v[1];
  t->system = v[2];
  t->idle = v[3];
  t->iowait = opt(4);
  t->irq = opt(5);
  t->softirq = opt(6);
  t->steal = opt(7);
  t->guest = opt(8);
  t->guest_nice = opt(9);
  return Status::OK();
}

// First column of a counter line ("ctxt 258143", "intr 128037 0 0 ..."); nullopt
// when it is missing or malformed.
std::optional<uint64_t> FirstValue(std::string_view rest) { return ToU64(NextToken(&rest)); }

Status ParsePressureLine(std::string_view rest, PressureLine* p) {
  struct Field {
    std::string_view key;
    double* avg;  // nullptr: the integer total
    bool seen;
  } fields[] = {{"avg10", &p->avg10, false},
                {"avg60", &p->avg60, false},
                {"avg300", &p->avg300, false},
                {"total", nullptr, false}};
  for (std::string_view tok = NextToken(&rest); !tok.empty(); tok = NextToken(&rest)) {
    size_t eq = tok.find('=');
    if (eq == std::string_view::npos) {
      return Status::Corruption("token without '=': '" + std::string(tok) + "'");
    }
    std::string_view key = tok.substr(0, eq), value = tok.substr(eq + 1);
    for (Field& f : fields) {
      if (f.key != key) continue;
      bool good = f.avg == nullptr ? ParseU64(value, &p->total_us)
                                   : ParseDouble(value, f.avg) && std::isfinite(*f.avg) && *f.avg >= 0;
      if (!good) return Status::Corruption("bad " + std::string(tok));
      f.seen = true;
    }
    // Keys a newer kernel may add are skipped.
  }
  for (const Field& f : fields) {
    if (!f.seen) return Status::Corruption("missing " + std::string(f.key));
  }
  return Status::OK();
}

}  // namespace

Status ParseProcStat(std::string_view text, ProcStat* out) {
  out->total.reset();
  out->cpus.clear();
  out->intr_total.reset();
  out->ctxt.reset();
  out->softirq_total.reset();
  out->procs_running.reset();
  out->procs_blocked.reset();
  std::string_view line;
  while (NextLine(&text, &line)) {
    std::string_view rest = line;
    std::string_view label = NextToken(&rest);
    int cpu = -1;
    switch (ClassifyLabel(label, &cpu)) {
      case LineKind::kBadCpu: return Status::Corruption("bad cpu line label '" + std::string(label) + "'");
      case LineKind::kCpu: {
        CpuTimes t;
        BN_RETURN_IF_ERROR(ParseCpuLine(label, rest, cpu, &t));
        if (cpu < 0) {
          out->total = t;
        } else {
          out->cpus.push_back(t);
        }
        break;
      }
      case LineKind::kOther:
        if (label == "intr") {
          out->intr_total = FirstValue(rest);
        } else if (label == "ctxt") {
          out->ctxt = FirstValue(rest);
        } else if (label == "softirq") {
          out->softirq_total = FirstValue(rest);
        } else if (label == "procs_running") {
          out->procs_running = FirstValue(rest);
        } else if (label == "procs_blocked") {
          out->procs_blocked = FirstValue(rest);
        }
        break;
    }
  }
  if (!out->total && out->cpus.empty()) return Status::Corruption("no cpu line");
  return Status::OK();
}

Status ParsePressure(std::string_view text, CpuPressure* out) {
  out->some.reset();
  out->full.reset();
  std::string_view line;
  while (NextLine(&text, &line)) {
    std::string_view rest = line;
    std::string_view kind = NextToken(&rest);
    std::optional<PressureLine>* target = kind == "some" ? &out->some : kind == "full" ? &out->full : nullptr;
    if (target == nullptr) continue;
    PressureLine p;
    BN_RETURN_IF_ERROR(ParsePressureLine(rest, &p).WithContext("pressure " + std::string(kind)));
    *target = p;
  }
  if (!out->some && !out->full) return Status::Corruption("pressure: no some or full line");
  return Status::OK();
}

Status CpuCollector::Collect(const HostFs& fs, HostReadings* out) {
  out->cpu_pressure.reset();
  Status s = fs.ReadProcKept("stat", &stat_fd_, &buf_);
  if (!s.ok()) {
    out->stat.reset();
    return s.IsNotFound() ? fs.MissingProcFiles(fs.ProcPath("stat")) : s;
  }
  // A recycled Sample keeps its cpus vector.
  ProcStat& stat = out->stat ? *out->stat : out->stat.emplace();
  s = ParseProcStat(buf_, &stat);
  if (!s.ok()) {
    out->stat.reset();
    return s.WithContext(fs.ProcPath("stat"));
  }

  s = fs.ReadProcKept("pressure/cpu", &pressure_fd_, &buf_);
  // No PSI (before 4.20, CONFIG_PSI=n) or disabled at boot (psi=0: EOPNOTSUPP).
  if (s.IsNotFound() || s.IsNotSupported()) return Status::OK();
  BN_RETURN_IF_ERROR(s);
  CpuPressure pressure;
  s = ParsePressure(buf_, &pressure);
  if (!s.ok()) return s.WithContext(fs.ProcPath("pressure/cpu"));
  out->cpu_pressure = pressure;
  return Status::OK();
}

}  // namespace bottleneckd
