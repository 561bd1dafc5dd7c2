// Capture windows: what the live capture of one interface saw between two
// Samples (sources/capture.h): rates by direction and by flow direction
// (applied vs echoed), echo loss, the turnaround percentiles of the window,
// the packet sizes, the window's top flows, and the pcap_stats drops with
// their 32-bit wrap handled (window/counter.h). Pure arithmetic, no I/O.
//
// Trust: a capture that dropped frames in a window (buffer or interface drops
// from pcap_stats, or stats unavailable) is not trusted for that window: its
// rates undercount and its "lost" requests may be replies it missed. Reports
// and the verdict say so and do not use its figures.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sources/capture.h"
#include "window/counter.h"

namespace bottleneckd {

struct NicWindow;

struct CaptureWindow {
  std::string interface;
  double seconds = 0;
  // pcap_stats deltas over the window: buffer (ps_drop) and interface
  // (ps_ifdrop) drops; nullopt when stats were unavailable or reset.
  std::optional<uint64_t> buffer_drops, interface_drops;
  bool trusted = false;  // both drop counts known and zero
  double packets_per_second = 0, bits_per_second = 0;
  // By link direction (cooked captures only).
  std::optional<double> receive_packets_per_second, transmit_packets_per_second;
  std::optional<double> receive_bits_per_second, transmit_bits_per_second;
  // Offered load at this box: captured receive + the interface's NIC rung
  // drops (netdev window of the same interface), when both are known.
  std::optional<double> offered_packets_per_second;
  // Flow directions (traffic/traffic.h): requests "applied", replies "echoed".
  double requests_per_second = 0, replies_per_second = 0;
  double request_bits_per_second = 0, reply_bits_per_second = 0;  // their wire bytes x 8
  double paired_per_second = 0, lost_per_second = 0;
  std::optional<double> loss_ratio;  // lost / (paired + lost), when any resolved
  std::array<uint64_t, kSizeBuckets> sizes{};
  uint64_t turnarounds = 0;  // paired requests in the window
  std::optional<double> turnaround_p50_seconds, turnaround_p90_seconds, turnaround_p99_seconds;
  // The window's flows, most packets first: the cumulative top flows' deltas
  // (a flow that entered the bounded table this window counts whole, with
  // its space-saving error).
  std::vector<FlowStats> top_flows;
};

// One CaptureWindow per interface present and active in both readings with the
// same capture (opened_mono_ns); an interface re-opened or missing in one of
// them has no window. `nics` (may be empty) gives the NIC drops for the
// offered rate. Counter anomalies go to `issues` (source "pcap").
void ComputeCaptureWindows(const std::vector<CaptureReading>& prev, const std::vector<CaptureReading>& cur,
                           double seconds, const std::vector<NicWindow>& nics, std::vector<CounterIssue>* issues,
                           std::vector<CaptureWindow>* out);

}  // namespace bottleneckd
