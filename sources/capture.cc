// Live capture: one pcap handle and one thread per interface. The thread
// polls the capture's selectable fd and an eventfd that Stop() writes, then
// drains what is ready in bounded batches under the interface's mutex, so
// Read() never waits for more than one batch.
#include "sources/capture.h"

#include <net/if.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <thread>
#include <utility>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/unique_fd.h"
#include "sources/sample.h"
#include "traffic/packet.h"

namespace bottleneckd {
namespace {

// Frames handed to the analyzer per lock hold: a flood cannot keep Read()
// waiting for longer than one batch.
constexpr int kBatch = 1024;

// Cooked link types, in the order they are asked for.
constexpr int kCookedLinkTypes[] = {kLinkLinuxSll, kLinkLinuxSll2};
constexpr uint8_t kPacketOutgoing = 4;  // sll_pkttype of a frame this host sent

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// The interface's own Ethernet address (SIOCGIFHWADDR, no privilege
// needed); false when it has none (lo's is all zeros) or the ioctl fails.
bool InterfaceMac(const std::string& ifname, std::array<uint8_t, 6>* mac) {
  if (ifname.size() >= IFNAMSIZ) return false;
  UniqueFd s(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (s.get() < 0) return false;
  ifreq req{};
  std::memcpy(req.ifr_name, ifname.c_str(), ifname.size());
  if (ioctl(s.get(), SIOCGIFHWADDR, &req) != 0) return false;
  std::memcpy(mac->data(), req.ifr_hwaddr.sa_data, mac->size());
  return std::any_of(mac->begin(), mac->end(), [](uint8_t b) { return b != 0; });
}

// How a frame's link direction is known: the cooked header's packet type,
// or (Ethernet) whether its source address is the interface's own.
enum class DirectionBy { kNone, kCooked, kSourceMac };

// An opened, configured capture not yet handed to its thread.
struct Opened {
  pcap_t* pcap = nullptr;
  int linktype = -1;
  bool direction_known = false;
  DirectionBy direction_by = DirectionBy::kNone;
  std::array<uint8_t, 6> mac{};
  double tick = 1e-6;  // seconds per unit of pcap_pkthdr::ts.tv_usec
};

// Closes the handle unless released (every error return of OpenLive).
struct PcapGuard {
  pcap_t* p;
  ~PcapGuard() {
    if (p) pcap_close(p);
  }
};

// pcap_geterr when libpcap wrote a message, else the status code's text.
std::string PcapMessage(pcap_t* p, int rc) {
  const char* e = pcap_geterr(p);
  return e != nullptr && e[0] != '\0' ? e : pcap_statustostr(rc);
}

Status OpenLive(const CaptureOptions& o, const std::string& ifname, Opened* out) {
  const std::string where = "capture on " + ifname;
  char errbuf[PCAP_ERRBUF_SIZE] = "";
  pcap_t* p = pcap_create(ifname.c_str(), errbuf);
  if (p == nullptr) return Status::IOError(where + ": " + errbuf);
  PcapGuard guard{p};
  pcap_set_snaplen(p, static_cast<int>(std::min<uint32_t>(o.snaplen, INT_MAX)));
  pcap_set_buffer_size(p, static_cast<int>(std::min<uint32_t>(o.buffer_bytes, INT_MAX)));
  pcap_set_timeout(p, std::max(1, o.timeout_ms));
  pcap_set_promisc(p, o.promiscuous ? 1 : 0);
  // Nanoseconds where the kernel gives them; microseconds otherwise.
  pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
  const int rc = pcap_activate(p);
  if (rc == PCAP_ERROR_PERM_DENIED) {
    return Status::PermissionDenied(where +
                                    " needs CAP_NET_RAW (run as root or grant the capability): " + PcapMessage(p, rc));
  }
  if (rc == PCAP_ERROR_NO_SUCH_DEVICE) return Status::NotFound("no such interface " + ifname);
  if (rc < 0) return Status::IOError(where + ": " + PcapMessage(p, rc));
  // rc > 0 is a warning (promiscuous mode not supported, ...): the capture runs.
  // Cooked headers carry the direction; libpcap 1.10 offers them only on the
  // "any" device, so on a named Ethernet interface the direction comes from
  // the source address (a frame this host sent carries the interface's own).
  out->direction_by = DirectionBy::kNone;
  for (int cooked : kCookedLinkTypes) {
    if (pcap_set_datalink(p, cooked) == 0) {
      out->direction_by = DirectionBy::kCooked;
      break;
    }
  }
  out->linktype = pcap_datalink(p);
  if (out->direction_by == DirectionBy::kNone && out->linktype == kLinkEthernet && InterfaceMac(ifname, &out->mac))
    out->direction_by = DirectionBy::kSourceMac;
  out->direction_known = out->direction_by != DirectionBy::kNone;
  out->tick = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO ? 1e-9 : 1e-6;
  // The filter is compiled for the link type in use, so after the datalink.
  if (!o.filter.empty()) {
    bpf_program prog{};
    if (pcap_compile(p, &prog, o.filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
      return Status::InvalidArgument(where + ": filter " + Quoted(o.filter) + ": " + pcap_geterr(p));
    }
    const int set = pcap_setfilter(p, &prog);
    pcap_freecode(&prog);
    if (set != 0) return Status::InvalidArgument(where + ": filter " + Quoted(o.filter) + ": " + pcap_geterr(p));
  }
  if (pcap_setnonblock(p, 1, errbuf) != 0) return Status::IOError(where + ": " + errbuf);
  if (pcap_get_selectable_fd(p) < 0) return Status::NotSupported(where + ": no selectable file descriptor");
  out->pcap = std::exchange(guard.p, nullptr);
  return Status::OK();
}

}  // namespace

struct CaptureSource::Capture {
  Capture(std::string name, const TrafficOptions& t) : interface(std::move(name)), analyzer(t) {}

  const std::string interface;
  // Set by Start() before the thread starts; read-only while it runs.
  int fd = -1;    // pcap_get_selectable_fd
  UniqueFd wake;  // eventfd: Stop() writes it to end the thread
  std::atomic<bool> stopping{false};
  double tick = 1e-6;
  std::thread thread;

  Mutex mu;
  // Guarded by mu (the thread holds it while it dispatches frames).
  pcap_t* pcap GUARDED_BY(mu) = nullptr;  // owned; closed by Stop()
  bool active GUARDED_BY(mu) = false;
  std::string error GUARDED_BY(mu);
  int linktype GUARDED_BY(mu) = -1;
  bool direction_known GUARDED_BY(mu) = false;
  DirectionBy direction_by GUARDED_BY(mu) = DirectionBy::kNone;
  std::array<uint8_t, 6> mac GUARDED_BY(mu) = {};  // the interface's, for DirectionBy::kSourceMac
  int64_t opened_mono_ns GUARDED_BY(mu) = 0;
  TrafficAnalyzer analyzer GUARDED_BY(mu);
  uint64_t receive_packets GUARDED_BY(mu) = 0, receive_bytes GUARDED_BY(mu) = 0;
  uint64_t transmit_packets GUARDED_BY(mu) = 0, transmit_bytes GUARDED_BY(mu) = 0;

  // One frame from pcap_dispatch: on the capture thread, with mu held.
  void Frame(const pcap_pkthdr* h, const u_char* bytes) EXCLUSIVE_LOCKS_REQUIRED(mu) {
    PacketInfo info;
    const PacketStatus s = ParsePacket(linktype, bytes, h->caplen, h->len, &info);
    const double ts = static_cast<double>(h->ts.tv_sec) + static_cast<double>(h->ts.tv_usec) * tick;
    analyzer.Add(ts, s, info, bytes);
    bool sent = false;
    switch (direction_by) {
      case DirectionBy::kNone: return;
      case DirectionBy::kCooked: sent = info.sll_pkttype == kPacketOutgoing; break;
      case DirectionBy::kSourceMac: sent = h->caplen >= 12 && std::memcmp(bytes + 6, mac.data(), 6) == 0; break;
    }
    if (sent) {
      ++transmit_packets;
      transmit_bytes += h->len;
    } else {
      ++receive_packets;
      receive_bytes += h->len;
    }
  }
};

CaptureSource::CaptureSource(const CaptureOptions& o) : o_(o) {
  for (const std::string& ifname : o_.interfaces) captures_.push_back(std::make_unique<Capture>(ifname, o_.traffic));
}

CaptureSource::~CaptureSource() { Stop(); }

Status CaptureSource::Start() {
  if (started_) return start_status_;
  started_ = true;
  std::string reasons;
  Status first_failure;
  bool any = captures_.empty();
  for (auto& cp : captures_) {
    Capture* c = cp.get();
    Opened opened;
    Status s = OpenLive(o_, c->interface, &opened);
    if (s.ok()) {
      c->wake = UniqueFd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
      if (!c->wake.valid()) {
        s = Status::FromErrno(errno, "capture on " + c->interface + ": eventfd");
        pcap_close(opened.pcap);
      }
    }
    if (!s.ok()) {
      MutexLock lock(&c->mu);
      c->error = s.message();
      if (first_failure.ok()) first_failure = s;
      if (!reasons.empty()) reasons += "; ";
      reasons += s.message();
      continue;
    }
    c->fd = pcap_get_selectable_fd(opened.pcap);
    c->tick = opened.tick;
    {
      MutexLock lock(&c->mu);
      c->pcap = opened.pcap;
      c->active = true;
      c->linktype = opened.linktype;
      c->direction_known = opened.direction_known;
      c->direction_by = opened.direction_by;
      c->mac = opened.mac;
      c->opened_mono_ns = ClockNanos(CLOCK_MONOTONIC);
    }
    c->thread = std::thread(&CaptureSource::Run, this, c);
    any = true;
  }
  if (!any) {
    std::string msg = "no interface could be captured: " + reasons;
    switch (first_failure.code()) {
      case Status::Code::kPermissionDenied: start_status_ = Status::PermissionDenied(msg); break;
      case Status::Code::kNotFound: start_status_ = Status::NotFound(msg); break;
      case Status::Code::kInvalidArgument: start_status_ = Status::InvalidArgument(msg); break;
      default: start_status_ = Status::IOError(msg); break;
    }
  }
  return start_status_;
}

void CaptureSource::Run(Capture* c) {
  // Capabilities are per thread: this one never opens anything again, so it
  // keeps none of what opening needed. A failure changes nothing it does.
  std::string dropped;
  (void)DropCaptureCapabilities(&dropped);
  const int timeout_ms = std::max(1, o_.timeout_ms);
  const pcap_handler on_frame = [](u_char* user, const pcap_pkthdr* h, const u_char* bytes) {
    Capture* capture = reinterpret_cast<Capture*>(user);
    capture->mu.AssertHeld();  // pcap_dispatch calls it, and Run calls that under mu
    capture->Frame(h, bytes);
  };
  while (!c->stopping.load(std::memory_order_relaxed)) {
    pollfd fds[2] = {{c->fd, POLLIN, 0}, {c->wake.get(), POLLIN, 0}};
    const int n = poll(fds, 2, timeout_ms);
    if (n < 0 && errno != EINTR) {
      const int err = errno;
      MutexLock lock(&c->mu);
      c->active = false;
      c->error = "capture on " + c->interface + " stopped: poll: " + std::strerror(err);
      return;
    }
    if (n > 0 && fds[1].revents != 0) return;  // Stop()
    // Drain what is ready (also after a timeout: a block the kernel retired
    // meanwhile), a batch per lock hold.
    int got = 0, total = 0;
    do {
      MutexLock lock(&c->mu);
      got = pcap_dispatch(c->pcap, kBatch, on_frame, reinterpret_cast<u_char*>(c));
      if (got < 0) {
        c->active = false;
        c->error = "capture on " + c->interface + " stopped: " + PcapMessage(c->pcap, got);
        return;  // the interface went away, ...: no retry
      }
      total += got;
    } while (got == kBatch && !c->stopping.load(std::memory_order_relaxed));
    // An error condition libpcap read as "nothing to do" (an interface gone
    // down reports POLLERR once): wait out the timeout rather than spin.
    if (total == 0 && n > 0 && (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
      pollfd wake = {c->wake.get(), POLLIN, 0};
      if (poll(&wake, 1, timeout_ms) > 0) return;
    }
  }
}

void CaptureSource::Stop() {
  for (auto& c : captures_) {
    if (!c->thread.joinable()) continue;
    c->stopping.store(true, std::memory_order_relaxed);
    const uint64_t one = 1;
    // If the write fails the thread still sees `stopping` within a timeout.
    (void)!write(c->wake.get(), &one, sizeof one);
    c->thread.join();
  }
  for (auto& c : captures_) {
    MutexLock lock(&c->mu);
    if (c->pcap != nullptr) pcap_close(c->pcap);
    c->pcap = nullptr;
    c->active = false;
  }
}

void CaptureSource::Read(std::vector<CaptureReading>* out) {
  out->clear();
  out->reserve(captures_.size());
  for (auto& cp : captures_) {
    Capture* c = cp.get();
    CaptureReading& r = out->emplace_back();
    r.interface = c->interface;
    const double now = static_cast<double>(ClockNanos(CLOCK_REALTIME)) / 1e9;  // the capture clock
    MutexLock lock(&c->mu);
    r.active = c->active;
    r.error = c->error;
    r.linktype = c->linktype;
    r.direction_known = c->direction_known;
    r.opened_mono_ns = c->opened_mono_ns;
    if (c->pcap != nullptr) {
      pcap_stat ps{};
      if (pcap_stats(c->pcap, &ps) == 0) {
        r.stats_ok = true;
        r.pcap_received = ps.ps_recv;
        r.pcap_dropped = ps.ps_drop;
        r.pcap_ifdropped = ps.ps_ifdrop;
      }
    }
    if (c->opened_mono_ns == 0) continue;  // never opened: nothing counted
    c->analyzer.Expire(now);
    TrafficSummary s = c->analyzer.Snapshot();
    r.packets = s.packets;
    r.bytes = s.bytes;
    r.receive_packets = c->receive_packets;
    r.receive_bytes = c->receive_bytes;
    r.transmit_packets = c->transmit_packets;
    r.transmit_bytes = c->transmit_bytes;
    r.requests = s.requests;
    r.replies = s.replies;
    r.request_bytes = s.request_bytes;
    r.reply_bytes = s.reply_bytes;
    r.paired = s.paired;
    r.lost = s.lost;
    r.unmatched_replies = s.unmatched_replies;
    r.truncated = s.truncated;
    r.malformed = s.malformed;
    r.not_ip = s.not_ip;
    r.sizes = s.sizes;
    r.turnaround = std::move(s.turnaround);
    r.top_flows = std::move(s.top_flows);
  }
}

Status CaptureSource::Read(Sample* out) {
  std::vector<CaptureReading>& readings = out->capture.emplace();
  Read(&readings);
  for (const CaptureReading& r : readings)
    if (r.active) return Status::OK();
  return Status::NotSupported("no interface is being captured");
}

}  // namespace bottleneckd
