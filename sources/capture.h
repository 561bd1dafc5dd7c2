// Live capture: the pcap collector's continuous source (docs/pcap.md "Live capture").
// Unlike the polled collectors it runs all the time on its own thread per
// interface: pcap_create / pcap_activate with the configured buffer size, snap
// length (headers only by default), a non-zero timeout and a BPF filter; each
// frame goes through ParsePacket into that interface's TrafficAnalyzer
// (traffic/traffic.h). The sampler calls Read() once per tick, which takes a
// short lock per interface and copies the cumulative reading; it never waits
// for packets. Rates, percentiles over a window and the 32-bit wrap of the
// pcap_stats counters are window/capture_window's business, as for every
// other counter.
//
// Direction: the capture asks for Linux cooked headers (DLT_LINUX_SLL), whose
// packet type tells received frames from sent ones, so the box under test's
// offered load is captured receive + NIC drops. libpcap 1.10 (Debian 12)
// offers cooked headers only on the "any" device, so on a named Ethernet
// interface the direction comes from the frame's source address instead: a
// frame carrying the interface's own MAC was sent by this host, any other
// was received (a bridge port forwarding other hosts' frames counts them as
// received). Where neither works (loopback, whose address is all zeros; raw
// IP links) receive/transmit are unknown (left 0, `direction_known` false).
//
// Privileges: opening a capture needs CAP_NET_RAW. Without it the interface's
// reading says so (`error`; the daemon logs it once) and that interface stays
// off; nothing retries. After Start() nothing needs the capability again, so
// the daemon drops it (DropCaptureCapabilities), and each capture thread drops
// its own as its first act (capabilities are per thread).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "sources/source.h"
#include "traffic/traffic.h"

namespace bottleneckd {

struct CaptureOptions {
  std::vector<std::string> interfaces;  // empty: no capture
  uint32_t snaplen = 128;               // bytes kept of each frame: headers and 32+ payload bytes for echo pairing
  uint32_t buffer_bytes = 8u << 20;     // kernel ring per interface (pcap_set_buffer_size)
  int timeout_ms = 100;                 // pcap_set_timeout: how long a partly filled block waits
  std::string filter;                   // BPF program text ("udp"); empty: every frame
  bool promiscuous = false;
  TrafficOptions traffic{.top_flows = 16,
                         .max_tracked_flows = 4096,
                         .max_outstanding = 4096,
                         .max_outstanding_total = 262144,
                         .reply_timeout_seconds = 1.0,
                         .fingerprint_bytes = 32,
                         .max_seconds = 2};
};

// One interface's capture, cumulative since it opened. pcap_stats counters are
// kept as libpcap gives them (32-bit on Linux, wrapping): window/capture_window
// differences them.
struct CaptureReading {
  std::string interface;
  bool active = false;  // the capture is open and its thread runs
  std::string error;    // why it is not active ("needs CAP_NET_RAW ...", "no such device ...")
  int linktype = -1;    // DLT in use (113 or 276 when cooked)
  bool direction_known = false;
  int64_t opened_mono_ns = 0;  // when the capture opened (CLOCK_MONOTONIC); a change means a new capture
  // pcap_stats: frames the filter passed (ps_recv), dropped for lack of buffer
  // space (ps_drop), dropped by the interface or driver (ps_ifdrop).
  uint32_t pcap_received = 0, pcap_dropped = 0, pcap_ifdropped = 0;
  bool stats_ok = false;  // pcap_stats answered
  // The traffic seen: every frame, then by direction (when known).
  uint64_t packets = 0, bytes = 0;  // wire lengths
  uint64_t receive_packets = 0, receive_bytes = 0;
  uint64_t transmit_packets = 0, transmit_bytes = 0;
  // Flow-direction counts and UDP echo pairing (traffic/traffic.h):
  // requests are "applied", replies "echoed".
  uint64_t requests = 0, replies = 0, request_bytes = 0, reply_bytes = 0;
  uint64_t paired = 0, lost = 0, unmatched_replies = 0;
  uint64_t truncated = 0, malformed = 0, not_ip = 0;
  std::array<uint64_t, kSizeBuckets> sizes{};  // frames by SizeBucket(wirelen)
  LatencyHistogram turnaround;                 // every paired request's turnaround so far
  std::vector<FlowStats> top_flows;            // cumulative, bounded (TrafficOptions::top_flows)
  bool operator==(const CaptureReading&) const = default;
};

class CaptureSource : public Source {
 public:
  explicit CaptureSource(const CaptureOptions& o);
  ~CaptureSource() override;  // Stop()
  CaptureSource(const CaptureSource&) = delete;
  CaptureSource& operator=(const CaptureSource&) = delete;

  // Opens every configured interface and starts its thread. An interface that
  // cannot be opened (no CAP_NET_RAW, no such device, a bad filter) reports
  // the reason in its reading and stays off for the life of the source; the
  // others run. Returns an error only when no interface could be opened (the
  // message names each one's reason; OK when none is configured). Opens once:
  // a second call returns the first one's result.
  Status Start() override;
  // Stops every thread (wakes it through its eventfd, joins) and closes the
  // captures; the counters read so far stay readable. Safe to call twice.
  void Stop() override;
  // The cumulative reading of each configured interface, in config order.
  // Requests older than the reply timeout are counted lost first (the capture
  // clock: wall time). Takes each interface's lock briefly.
  void Read(std::vector<CaptureReading>* out);
  // Source: sets out->capture to Read()'s readings; NotSupported when
  // no interface is being captured.
  Status Read(Sample* out) override;
  std::string_view name() const override { return "pcap"; }

 private:
  struct Capture;
  // A capture thread: drops its own capabilities, then polls the capture and
  // the wake-up eventfd until Stop() or a capture error.
  void Run(Capture* c);

  CaptureOptions o_;
  std::vector<std::unique_ptr<Capture>> captures_;  // one per interface, config order
  bool started_ = false;                            // Start() ran: it opens each interface once, ever
  Status start_status_;                             // what it returned
};

// The recording's pcap file (docs/recording-format.md, "pcap";
// sources/capture_reading_file.cc): each interface's reading as counters,
// histograms and top flows, never a packet. Parse errors are Corruption
// "pcap line N: ...".
std::string CaptureFileText(const std::vector<CaptureReading>& readings);
Status ParseCaptureFile(std::string_view text, std::vector<CaptureReading>* out);

// Compiles `filter` for link type `linktype` without a device (pcap_open_dead),
// so config checks can reject a bad BPF expression with libpcap's message.
Status CheckCaptureFilter(const std::string& filter, int linktype = 1);

// Drops CAP_NET_RAW and CAP_NET_ADMIN from the effective, permitted,
// inheritable and ambient sets and the bounding set of the calling thread
// (capabilities are per thread on Linux: threads started earlier keep theirs,
// threads started later inherit the reduced sets). *what says what it did:
// "dropped CAP_NET_RAW, CAP_NET_ADMIN" (those it held) or "held none", plus
// "; bounding set still has ... (no CAP_SETPCAP)" when the bounding set could
// not be changed. An error only when the kernel refuses (capget/capset).
Status DropCaptureCapabilities(std::string* what);

// Whether the calling thread holds CAP_NET_RAW in its effective set.
bool HaveNetRaw();

}  // namespace bottleneckd
