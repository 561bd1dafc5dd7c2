// libFuzzer target: arbitrary bytes as /proc/net/snmp and /proc/net/netstat,
// parsed into one SocketStats (as the collector does, twice to exercise the
// in-place overwrite), then looked up.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/sockets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  bottleneckd::SocketStats stats;
  for (int i = 0; i < 2; ++i) {
    (void)bottleneckd::ParseProcNetSnmp(text, &stats);
    (void)bottleneckd::ParseProcNetNetstat(text, &stats);
  }
  if (stats.tables.size() > 4) __builtin_trap();  // Tcp, Udp, UdpLite, TcpExt at most
  (void)stats.Get("Udp", "RcvbufErrors");
  (void)stats.Get("TcpExt", "ListenDrops");
  return 0;
}
