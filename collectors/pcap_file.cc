#include "collectors/pcap_file.h"

#include <pcap/pcap.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "collectors/packet.h"

namespace bottleneckd {
namespace {

inline constexpr uint64_t kProgressFrames = 1000000;

// libpcap hands out DLT_ values: a file's LINKTYPE_RAW (101) reads as DLT_RAW
// (12 on Linux, 14 on OpenBSD), and LINKTYPE_IPV4/IPV6 (228/229) are raw IP
// too. ParsePacket takes the LINKTYPE_ value for those.
int ParserLinkType(int dlt) {
  switch (dlt) {
    case 12:   // DLT_RAW
    case 14:   // DLT_RAW (OpenBSD numbering)
    case 228:  // DLT_IPV4
    case 229:  // DLT_IPV6
      return kLinkRaw;
    default: return dlt;
  }
}

std::string LinkTypeName(int dlt) {
  const char* n = pcap_datalink_val_to_name(dlt);
  return n ? n : "unknown";
}

// Closes the capture (and with it the FILE it read) on every return.
struct PcapCloser {
  pcap_t* p = nullptr;
  ~PcapCloser() {
    if (p) pcap_close(p);
  }
};

}  // namespace

Status AnalysePcapFile(const std::string& path, TrafficAnalyzer* analyzer, PcapFileInfo* info,
                       const std::function<void(uint64_t)>& progress) {
  *info = PcapFileInfo();
  info->path = path;
  // Opening the FILE here (pcap_fopen_offline is pcap_open_offline on an open
  // stream) keeps errno, so a missing or unreadable file is told apart from
  // one that is not a capture.
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) return Status::FromErrno(errno, path);
  struct stat st;
  if (::fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::fclose(f);
    return Status::InvalidArgument(path + ": is a directory, not a capture file");
  }
  char errbuf[PCAP_ERRBUF_SIZE] = "";
  PcapCloser pc;
  pc.p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!pc.p) {
    if (f != stdin) std::fclose(f);
    return Status::Corruption(path + ": not a capture file (pcap or pcapng): " + errbuf);
  }
  pcap_t* p = pc.p;
  info->linktype = pcap_datalink(p);
  info->linktype_name = LinkTypeName(info->linktype);
  info->snaplen = static_cast<uint32_t>(pcap_snapshot(p));
  info->nanosecond = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
  const int linktype = ParserLinkType(info->linktype);
  const double tick = info->nanosecond ? 1e-9 : 1e-6;

  uint64_t unsupported = 0;
  PacketInfo pi;
  for (;;) {
    struct pcap_pkthdr* h = nullptr;
    const u_char* data = nullptr;
    int rc = pcap_next_ex(p, &h, &data);
    if (rc == -2 || rc == 0) break;  // end of file (0 is a live timeout; never for a file)
    if (rc != 1) {
      return Status::Corruption(path + ": packet " + std::to_string(info->frames + 1) + ": " + pcap_geterr(p));
    }
    PacketStatus s = ParsePacket(linktype, data, h->caplen, h->len, &pi);
    if (s == PacketStatus::kUnsupportedLink) {
      ++unsupported;
      pi.caplen = h->caplen;
      pi.wirelen = h->len;
    }
    double ts = static_cast<double>(h->ts.tv_sec) + static_cast<double>(h->ts.tv_usec) * tick;
    analyzer->Add(ts, s, pi, data);
    ++info->frames;
    if (progress && info->frames % kProgressFrames == 0) progress(info->frames);
  }
  if (unsupported > 0) {
    return Status::NotSupported(path + ": link type " + std::to_string(info->linktype) + " (" + info->linktype_name +
                                ") is not supported: " + std::to_string(unsupported) + " frames counted, not analysed");
  }
  return Status::OK();
}

}  // namespace bottleneckd
