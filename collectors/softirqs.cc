#include "collectors/softirqs.h"

#include <climits>
#include <string>

#include "base/parse_util.h"
#include "collectors/host_readings.h"

namespace bottleneckd {
namespace {

// softnet_stat columns (0-based) that SoftnetCpu keeps.
constexpr size_t kMinSoftnetColumns = 9;
constexpr size_t kCpuIdColumn = 12;
constexpr size_t kKeptSoftnetColumns = kCpuIdColumn + 1;

bool ParseCpuId(std::string_view digits, int* cpu) {
  uint64_t n = 0;
  if (!ParseU64(digits, &n) || n > INT_MAX) return false;
  *cpu = static_cast<int>(n);
  return true;
}

Status ParseSoftirqsHeader(std::string_view line, std::vector<int>* cpus) {
  for (std::string_view tok = NextToken(&line); !tok.empty(); tok = NextToken(&line)) {
    int cpu = 0;
    if (!StartsWith(tok, "CPU") || !ParseCpuId(tok.substr(3), &cpu)) {
      return Status::Corruption("softirqs: bad header column '" + std::string(tok) + "'");
    }
    cpus->push_back(cpu);
  }
  if (cpus->empty()) return Status::Corruption("softirqs: empty header");
  return Status::OK();
}

Status ParseSoftirqsRow(std::string_view line, size_t ncpus, SoftirqRow* row) {
  size_t colon = line.find(':');
  std::string_view type = Trim(line.substr(0, colon));
  if (colon == std::string_view::npos || type.empty()) {
    return Status::Corruption("softirqs: line without 'TYPE:'");
  }
  row->type.assign(type);
  row->per_cpu.clear();
  std::string_view rest = line.substr(colon + 1);
  for (std::string_view tok = NextToken(&rest); !tok.empty(); tok = NextToken(&rest)) {
    uint64_t v = 0;
    if (!ParseU64(tok, &v)) {
      return Status::Corruption("softirqs: " + row->type + ": bad count '" + std::string(tok) + "'");
    }
    row->per_cpu.push_back(v);
  }
  if (row->per_cpu.size() != ncpus) {
    return Status::Corruption("softirqs: " + row->type + ": " + std::to_string(row->per_cpu.size()) + " counts for " +
                              std::to_string(ncpus) + " CPUs");
  }
  return Status::OK();
}

// Reads `rel` and parses it into *part, reusing the storage a recycled Sample
// already holds. *part is unset unless the result is OK; *found is false when
// the file is absent.
template <typename T, typename ParseFn>
Status ReadPart(const HostFs& fs, std::string_view rel, UniqueFd* kept, ParseFn parse, std::string* buf,
                std::optional<T>* part, bool* found) {
  Status s = fs.ReadProcKept(rel, kept, buf);
  *found = !s.IsNotFound();
  if (s.ok()) {
    s = parse(*buf, *part ? &**part : &part->emplace());
    if (!s.ok()) s = s.WithContext(fs.ProcPath(rel));
  }
  if (!s.ok()) part->reset();
  return *found ? s : Status::OK();
}

}  // namespace

Status ParseProcSoftirqs(std::string_view text, Softirqs* out) {
  out->cpus.clear();
  size_t nrows = 0;
  bool have_header = false;
  std::string_view line;
  while (NextLine(&text, &line)) {
    if (Trim(line).empty()) continue;
    if (!have_header) {
      BN_RETURN_IF_ERROR(ParseSoftirqsHeader(line, &out->cpus));
      have_header = true;
      continue;
    }
    // Rows overwrite the previous parse's rows in place, keeping their storage.
    SoftirqRow* row = nrows < out->rows.size() ? &out->rows[nrows] : &out->rows.emplace_back();
    ++nrows;
    BN_RETURN_IF_ERROR(ParseSoftirqsRow(line, out->cpus.size(), row));
  }
  out->rows.resize(nrows);
  if (!have_header) return Status::Corruption("softirqs: no header line");
  return Status::OK();
}

Status ParseSoftnetStat(std::string_view text, std::vector<SoftnetCpu>* out) {
  out->clear();
  std::string_view line;
  while (NextLine(&text, &line)) {
    if (Trim(line).empty()) continue;
    auto corrupt = [&](const std::string& what) {  // builds its message only on failure
      return Status::Corruption("softnet_stat line " + std::to_string(out->size() + 1) + ": " + what);
    };
    uint64_t col[kKeptSoftnetColumns] = {};
    size_t n = 0;
    for (std::string_view tok = NextToken(&line); !tok.empty(); tok = NextToken(&line)) {
      uint64_t v = 0;
      if (!ParseHexU64(tok, &v)) {
        return corrupt("bad hex column '" + std::string(tok) + "'");
      }
      if (n < kKeptSoftnetColumns) col[n] = v;
      ++n;  // columns past 15 (a newer kernel) are skipped
    }
    if (n < kMinSoftnetColumns) {
      return corrupt(std::to_string(n) + " columns, at least 9 expected");
    }
    auto opt = [&](size_t i) { return i < n ? std::optional<uint64_t>(col[i]) : std::nullopt; };
    SoftnetCpu c;
    c.processed = col[0];
    c.dropped = col[1];
    c.time_squeeze = col[2];
    c.cpu_collision = opt(8);
    c.received_rps = opt(9);
    c.flow_limit_count = opt(10);
    c.backlog_len = opt(11);
    if (n > kCpuIdColumn) {
      if (col[kCpuIdColumn] > INT_MAX) return corrupt("CPU id out of range");
      c.cpu = static_cast<int>(col[kCpuIdColumn]);
      c.cpu_from_column = true;
    } else {
      c.cpu = static_cast<int>(out->size());  // a guess: offline CPUs have no line
    }
    out->push_back(c);
  }
  if (out->empty()) return Status::Corruption("softnet_stat: no lines");
  return Status::OK();
}

Status SoftirqsCollector::Collect(const HostFs& fs, HostReadings* out) {
  bool have_softirqs = false, have_softnet = false;
  Status s1 = ReadPart(fs, "softirqs", &softirqs_fd_, ParseProcSoftirqs, &buf_, &out->softirqs, &have_softirqs);
  Status s2 = ReadPart(fs, "net/softnet_stat", &softnet_fd_, ParseSoftnetStat, &buf_, &out->softnet, &have_softnet);
  if (!have_softirqs && !have_softnet) {
    return fs.MissingProcFiles(fs.ProcPath("softirqs") + " and " + fs.ProcPath("net/softnet_stat"));
  }
  return s1.ok() ? s2 : s1;
}

}  // namespace bottleneckd
