// sockets collector: protocol counters of the socket rung of the drop ladder.
// Reads /proc/net/snmp and /proc/net/netstat, both pairs of lines:
//   Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors ...
//   Udp: 1234 0 0 1200 0 0 ...
// Kept tables: Udp, UdpLite, Tcp (snmp) and TcpExt (netstat); others skipped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector.h"

namespace bottleneckd {

struct SnmpField {
  std::string name;   // "RcvbufErrors"
  int64_t value = 0;  // Tcp MaxConn is -1; everything else is a non-negative counter
};

struct SnmpTable {
  std::string protocol;  // "Udp", "UdpLite", "Tcp", "TcpExt"
  std::vector<SnmpField> fields;
};

struct SocketStats {
  std::vector<SnmpTable> tables;
  std::optional<int64_t> Get(std::string_view protocol, std::string_view field) const;
};

// Parses the header/value line pairs of /proc/net/snmp or /proc/net/netstat,
// appending the kept tables to *out; a kept table *out already holds (same
// protocol, e.g. from the previous tick) is overwritten in place so its strings
// keep their storage. Corruption when the text has no pair, a line lacks its
// "Proto:" prefix, a header is not followed by its own value line, the two
// disagree in length, or a value is not an int64 (kept tables only).
// *out is unspecified on failure.
Status ParseProcNetSnmp(std::string_view text, SocketStats* out);
Status ParseProcNetNetstat(std::string_view text, SocketStats* out);

// Fills Sample::sockets from both files, reusing a recycled Sample's tables.
// netstat or snmp missing: the other is used; both missing: NotSupported. Any
// other read or parse failure is returned (naming the file), sockets unset.
class SocketsCollector : public Collector {
 public:
  std::string_view name() const override { return "sockets"; }
  Status Collect(const HostFs& fs, HostReadings* out) override;

 private:
  std::string buf_;
  UniqueFd fds_[2];  // net/snmp, net/netstat, kept open between ticks (HostFs::ReadProcKept)
};

}  // namespace bottleneckd
