#include "traffic/pcap_file.h"

#include <pcap/pcap.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "traffic/packet.h"
#include "traffic/read_ahead.h"

namespace bottleneckd {
namespace {

inline constexpr uint64_t kProgressFrames = 1000000;
inline constexpr size_t kReadBuffer = 128 << 10;

// libpcap hands out DLT_ values: a file's LINKTYPE_RAW (101) reads as DLT_RAW
// (12 on Linux, 14 on OpenBSD); ParsePacket takes the LINKTYPE_ value for it.
// LINKTYPE_IPV4/IPV6 (228/229) read as the same DLT_ values and stay apart
// from LINKTYPE_RAW: each admits one IP version only.
int ParserLinkType(int dlt) {
  switch (dlt) {
    case 12:  // DLT_RAW
    case 14:  // DLT_RAW (OpenBSD numbering)
      return kLinkRaw;
    default: return dlt;
  }
}

std::string LinkTypeName(int dlt) {
  const char* n = pcap_datalink_val_to_name(dlt);
  return n ? n : "unknown";
}

// Classic pcap files (not pcapng) are read straight from the file while their
// records are ordinary: libpcap's reader costs two fread calls and a copy per
// record, more than the analysis of a headers-only frame. An ordinary record
// is one libpcap would hand over unchanged: version 2.4, a link type without
// libpcap post-processing, caplen <= the snap length, all bytes present.
// At the first other record (or the end) libpcap takes over at that offset,
// so anything unusual, truncation and corruption included, is libpcap's to
// read and to name, as before.
struct ClassicFormat {
  bool swapped = false;  // the file's byte order is not ours
  bool micro = false;    // microsecond timestamps (libpcap scales them to ns)
};

uint32_t Load32(const uint8_t* p, bool swapped) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return swapped ? __builtin_bswap32(v) : v;
}

// Whether `fd` (opened by libpcap as `dlt`) is a classic pcap file the fast
// path reads; its format in *fmt.
bool ClassicPcap(int fd, int dlt, ClassicFormat* fmt) {
  struct stat st;
  uint8_t h[24];
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || ::pread(fd, h, sizeof h, 0) != sizeof h) return false;
  switch (Load32(h, false)) {
    case 0xa1b2c3d4: *fmt = {false, true}; break;
    case 0xa1b23c4d: *fmt = {false, false}; break;
    case 0xd4c3b2a1: *fmt = {true, true}; break;
    case 0x4d3cb2a1: *fmt = {true, false}; break;
    default: return false;  // pcapng, modified pcap formats: libpcap's
  }
  uint16_t major, minor;
  std::memcpy(&major, h + 4, 2);
  std::memcpy(&minor, h + 6, 2);
  if (fmt->swapped) {
    major = __builtin_bswap16(major);
    minor = __builtin_bswap16(minor);
  }
  if (major != 2 || minor != 4) return false;  // older versions may have caplen and len swapped
  switch (dlt) {
    case 0:
    case 1:
    case 12:
    case 14:
    case 108:
    case 228:
    case 229: return true;
    case 113:
    case 276: return !fmt->swapped;  // libpcap swaps CAN headers in cooked frames of swapped files
    default: return false;
  }
}

// Hands each ordinary record from byte `*offset` on to `frame(sec, nsec,
// caplen, len, data)`; stops at the end of the file, a read error or the
// first record that is not ordinary, with *offset at that record. The file
// comes in chunks of `chunk` bytes read one ahead on a second thread
// (ReadAhead); records are handed out where they lie in a chunk, and the
// one a chunk's end cuts is put together in `carry` (any number of chunks
// long).
template <typename Frame>
void ReadClassic(int fd, const ClassicFormat& fmt, uint32_t snapshot, size_t chunk, uint64_t* offset, Frame frame) {
  auto emit = [&](const uint8_t* r) {
    const uint32_t caplen = Load32(r + 8, fmt.swapped);
    // As libpcap: the fields are signed 32-bit; microseconds scale up to ns.
    int64_t sec = static_cast<int32_t>(Load32(r, fmt.swapped));
    int64_t frac = static_cast<int32_t>(Load32(r + 4, fmt.swapped));
    if (fmt.micro) frac *= 1000;
    frame(sec, frac, caplen, Load32(r + 12, fmt.swapped), r + 16);
    *offset += 16 + uint64_t{caplen};
  };
  ReadAhead ahead(fd, *offset, chunk);
  std::vector<uint8_t> carry;
  for (;;) {
    const std::span<const uint8_t> c = ahead.Next();
    if (c.empty()) return;  // a record left in carry is cut: libpcap reads it and says so
    size_t pos = 0;
    if (!carry.empty()) {
      // The header first, then the rest of the record it announces.
      size_t want = 16;
      if (carry.size() >= 16) want = 16 + size_t{Load32(&carry[8], fmt.swapped)};
      size_t take = std::min(want - carry.size(), c.size());
      carry.insert(carry.end(), c.begin(), c.begin() + static_cast<ptrdiff_t>(take));
      pos = take;
      if (carry.size() == 16 && want == 16) {
        const uint32_t caplen = Load32(&carry[8], fmt.swapped);
        if (caplen > snapshot) return;
        want = 16 + size_t{caplen};
        take = std::min(want - 16, c.size() - pos);
        carry.insert(carry.end(), c.begin() + static_cast<ptrdiff_t>(pos),
                     c.begin() + static_cast<ptrdiff_t>(pos + take));
        pos += take;
      }
      if (carry.size() < want) continue;
      emit(carry.data());
      carry.clear();
    }
    while (pos < c.size()) {
      const size_t left = c.size() - pos;
      if (left >= 16) {
        const uint32_t caplen = Load32(&c[pos + 8], fmt.swapped);
        if (caplen > snapshot) return;
        if (left >= 16 + size_t{caplen}) {
          emit(&c[pos]);
          pos += 16 + size_t{caplen};
          continue;
        }
      }
      carry.assign(c.begin() + static_cast<ptrdiff_t>(pos), c.end());
      break;
    }
  }
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
                       const std::function<void(uint64_t)>& progress, size_t chunk_bytes) {
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
  // libpcap reads every record with two fread calls; stdio's default buffer
  // is one page (st_blksize), i.e. a read system call every ~30 frames of a
  // headers-only capture. A 128 KiB buffer makes that one per ~950 (glibc
  // ignores the size unless it is given the buffer). Declared before the
  // closer: it must outlive the FILE.
  std::unique_ptr<char[]> iobuf;
  if (f != stdin) {
    iobuf = std::make_unique<char[]>(kReadBuffer);
    std::setvbuf(f, iobuf.get(), _IOFBF, kReadBuffer);
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
  auto frame = [&](int64_t sec, int64_t frac, uint32_t caplen, uint32_t len, const uint8_t* data) {
    PacketStatus s = ParsePacket(linktype, data, caplen, len, &pi);
    if (s == PacketStatus::kUnsupportedLink) {
      ++unsupported;
      pi.caplen = caplen;
      pi.wirelen = len;
    }
    double ts = static_cast<double>(sec) + static_cast<double>(frac) * tick;
    analyzer->Add(ts, s, pi, data);
    ++info->frames;
    if (progress && info->frames % kProgressFrames == 0) progress(info->frames);
  };
  ClassicFormat fmt;
  if (f != stdin && info->nanosecond && ClassicPcap(fileno(f), info->linktype, &fmt)) {
    uint64_t offset = 24;  // the file header
    ReadClassic(fileno(f), fmt, info->snaplen, chunk_bytes, &offset, frame);
    if (fseeko(f, static_cast<off_t>(offset), SEEK_SET) != 0) {
      return Status::FromErrno(errno, path + ": packet " + std::to_string(info->frames + 1));
    }
  }
  for (;;) {
    struct pcap_pkthdr* h = nullptr;
    const u_char* data = nullptr;
    int rc = pcap_next_ex(p, &h, &data);
    if (rc == -2 || rc == 0) break;  // end of file (0 is a live timeout; never for a file)
    if (rc != 1) {
      return Status::Corruption(path + ": packet " + std::to_string(info->frames + 1) + ": " + pcap_geterr(p));
    }
    frame(h->ts.tv_sec, h->ts.tv_usec, h->caplen, h->len, data);
  }
  if (unsupported > 0) {
    return Status::NotSupported(path + ": link type " + std::to_string(info->linktype) + " (" + info->linktype_name +
                                ") is not supported: " + std::to_string(unsupported) + " frames counted, not analysed");
  }
  return Status::OK();
}

}  // namespace bottleneckd
