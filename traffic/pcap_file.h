// Capture files: reads a pcap or pcapng file with libpcap, frame by frame,
// through ParsePacket into a TrafficAnalyzer (traffic/traffic.h). A file
// that ends mid-record or is corrupt stops the read with an error naming the
// file and the packet number; everything read before it stays in the
// analyzer, so the caller reports what was read and then the error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"
#include "traffic/traffic.h"

namespace bottleneckd {

struct PcapFileInfo {
  std::string path;
  int linktype = -1;
  std::string linktype_name;  // pcap_datalink_val_to_name ("EN10MB")
  uint32_t snaplen = 0;
  uint64_t frames = 0;      // frames read (before any error)
  bool nanosecond = false;  // timestamps were read at nanosecond precision
};

// Reads `path` into `analyzer`. Errors: NotFound / PermissionDenied /
// Corruption ("not a capture file", "truncated at packet N: ...") naming the
// path; NotSupported for a link type ParsePacket does not handle (frames are
// still counted as unsupported). `progress`, when set, is called every
// 1 000 000 frames with the count so far.
// `chunk_bytes`: the size of each read of a classic pcap file (read by
// bottleneckd itself, one chunk ahead on a second thread; tests make it
// small so that records span reads).
Status AnalysePcapFile(const std::string& path, TrafficAnalyzer* analyzer, PcapFileInfo* info,
                       const std::function<void(uint64_t)>& progress = nullptr, size_t chunk_bytes = 1 << 20);

}  // namespace bottleneckd
