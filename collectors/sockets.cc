#include "collectors/sockets.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "base/parse_util.h"
#include "collectors/host_readings.h"

namespace bottleneckd {
namespace {

enum class SnmpFile { kSnmp, kNetstat };

struct KeptTable {
  std::string_view protocol;
  SnmpFile file;
};

// Bit i of a `seen` mask stands for kKept[i].
constexpr KeptTable kKept[] = {
    {"Tcp", SnmpFile::kSnmp},
    {"Udp", SnmpFile::kSnmp},
    {"UdpLite", SnmpFile::kSnmp},
    {"TcpExt", SnmpFile::kNetstat},
};
constexpr size_t kNumKept = std::size(kKept);

int KeptIndex(std::string_view protocol, SnmpFile file) {
  for (size_t i = 0; i < kNumKept; ++i) {
    if (kKept[i].protocol == protocol && kKept[i].file == file) return static_cast<int>(i);
  }
  return -1;
}

bool NextNonBlankLine(std::string_view* text, std::string_view* line) {
  while (NextLine(text, line)) {
    if (!Trim(*line).empty()) return true;
  }
  return false;
}

// Splits "Udp: a b c" into "Udp" and " a b c"; false without a "Proto:" prefix.
bool SplitProtocol(std::string_view line, std::string_view* protocol, std::string_view* rest) {
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  *protocol = line.substr(0, colon);
  *rest = line.substr(colon + 1);
  return protocol->find_first_of(" \t") == std::string_view::npos;
}

SnmpTable* FindOrAddTable(std::string_view protocol, SocketStats* out) {
  for (SnmpTable& t : out->tables) {
    if (t.protocol == protocol) return &t;
  }
  SnmpTable& t = out->tables.emplace_back();
  t.protocol.assign(protocol);
  return &t;
}

// Parses the header/value line pairs of one file. A kept table already in *out
// is overwritten in place (its strings keep their storage); a protocol printed
// in several pairs (IcmpMsg style) continues its table. Sets bit i of *seen for
// each kKept[i] found.
Status ParsePairs(std::string_view text, SnmpFile file, SocketStats* out, uint32_t* seen) {
  size_t used[kNumKept] = {};
  uint32_t seen_here = 0;
  bool any_pair = false;
  std::string_view header, values;
  while (NextNonBlankLine(&text, &header)) {
    std::string_view protocol, values_protocol, names, nums;
    if (!SplitProtocol(header, &protocol, &names)) {
      return Status::Corruption("line without 'Proto:'");
    }
    if (!NextNonBlankLine(&text, &values)) {
      return Status::Corruption(std::string(protocol) + ": header without a value line");
    }
    if (!SplitProtocol(values, &values_protocol, &nums) || values_protocol != protocol) {
      return Status::Corruption(std::string(protocol) + ": header not followed by its values");
    }
    any_pair = true;
    int k = KeptIndex(protocol, file);
    if (k < 0) continue;
    SnmpTable* table = FindOrAddTable(protocol, out);
    seen_here |= 1u << k;
    for (;;) {
      std::string_view name = NextToken(&names), num = NextToken(&nums);
      if (name.empty() && num.empty()) break;
      if (name.empty() || num.empty()) {
        return Status::Corruption(std::string(protocol) + ": header and values differ in length");
      }
      int64_t v = 0;
      if (!ParseI64(num, &v)) {
        return Status::Corruption(std::string(protocol) + ": bad value '" + std::string(num) + "' for " +
                                  std::string(name));
      }
      // Counters and gauges are never negative; Tcp MaxConn is -1 ("no
      // limit", RFC 4022) and the one field that may be.
      if (v < 0 && !(file == SnmpFile::kSnmp && protocol == "Tcp" && name == "MaxConn")) {
        return Status::Corruption(std::string(protocol) + ": negative value " + std::string(num) + " for " +
                                  std::string(name));
      }
      size_t i = used[k]++;
      SnmpField& f = i < table->fields.size() ? table->fields[i] : table->fields.emplace_back();
      f.name.assign(name);
      f.value = v;
    }
  }
  for (SnmpTable& t : out->tables) {
    int k = KeptIndex(t.protocol, file);
    if (k >= 0 && (seen_here & (1u << k))) t.fields.resize(used[k]);
  }
  *seen |= seen_here;
  if (!any_pair) return Status::Corruption("no header/value line pair");
  return Status::OK();
}

}  // namespace

std::optional<int64_t> SocketStats::Get(std::string_view protocol, std::string_view field) const {
  for (const SnmpTable& t : tables) {
    if (t.protocol != protocol) continue;
    for (const SnmpField& f : t.fields) {
      if (f.name == field) return f.value;
    }
  }
  return std::nullopt;
}

Status ParseProcNetSnmp(std::string_view text, SocketStats* out) {
  uint32_t seen = 0;
  return ParsePairs(text, SnmpFile::kSnmp, out, &seen);
}

Status ParseProcNetNetstat(std::string_view text, SocketStats* out) {
  uint32_t seen = 0;
  return ParsePairs(text, SnmpFile::kNetstat, out, &seen);
}

Status SocketsCollector::Collect(const HostFs& fs, HostReadings* out) {
  static constexpr struct {
    std::string_view rel;
    SnmpFile file;
  } kFiles[] = {{"net/snmp", SnmpFile::kSnmp}, {"net/netstat", SnmpFile::kNetstat}};

  SocketStats& stats = out->sockets ? *out->sockets : out->sockets.emplace();
  uint32_t seen = 0;
  bool any_file = false;
  for (size_t i = 0; i < std::size(kFiles); ++i) {
    const auto& f = kFiles[i];
    Status s = fs.ReadProcKept(f.rel, &fds_[i], &buf_);
    if (s.IsNotFound()) continue;  // netstat is absent on some old or stripped kernels
    if (s.ok()) s = ParsePairs(buf_, f.file, &stats, &seen).WithContext(fs.ProcPath(f.rel));
    if (!s.ok()) {
      out->sockets.reset();
      return s;
    }
    any_file = true;
  }
  if (!any_file) {
    out->sockets.reset();
    return fs.MissingProcFiles(fs.ProcPath("net/snmp") + " and " + fs.ProcPath("net/netstat"));
  }
  // Drop tables a recycled Sample held that this tick's files no longer have.
  std::erase_if(stats.tables, [&](const SnmpTable& t) {
    for (size_t i = 0; i < kNumKept; ++i) {
      if (kKept[i].protocol == t.protocol) return (seen & (1u << i)) == 0;
    }
    return true;
  });
  return Status::OK();
}

}  // namespace bottleneckd
