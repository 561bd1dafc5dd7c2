#include "window/capture_window.h"

#include <algorithm>

#include "window/window.h"

namespace bottleneckd {
namespace {

// Delta of a cumulative 64-bit count kept by the collector itself (it never
// wraps; a decrease means the analyzer restarted).
uint64_t Grew(uint64_t a, uint64_t b) { return b >= a ? b - a : 0; }

double PerSecond(uint64_t n, double secs) { return static_cast<double>(n) / secs; }

const CaptureReading* Find(const std::vector<CaptureReading>& v, const std::string& interface) {
  for (const CaptureReading& r : v)
    if (r.interface == interface) return &r;
  return nullptr;
}

// The window's flows: each cumulative top flow less what the same flow had
// at the previous reading (a flow new to the table counts whole).
std::vector<FlowStats> FlowDeltas(const std::vector<FlowStats>& prev, const std::vector<FlowStats>& cur) {
  std::vector<FlowStats> out;
  for (const FlowStats& c : cur) {
    FlowStats d = c;
    for (const FlowStats& p : prev) {
      if (!(p.key == c.key)) continue;
      if (c.packets < p.packets) break;  // re-entered the table: its counts restarted, keep them whole
      d.requests = Grew(p.requests, c.requests);
      d.replies = Grew(p.replies, c.replies);
      d.paired = Grew(p.paired, c.paired);
      d.lost = Grew(p.lost, c.lost);
      d.bytes = Grew(p.bytes, c.bytes);
      d.packets = c.packets - p.packets;
      d.packets_error = Grew(p.packets_error, c.packets_error);
      break;
    }
    if (d.packets > 0) out.push_back(d);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const FlowStats& a, const FlowStats& b) { return a.packets > b.packets; });
  return out;
}

void Percentiles(const LatencyHistogram& a, const LatencyHistogram& b, CaptureWindow* w) {
  LatencyHistogram h = b.Since(a);
  w->turnarounds = h.count();
  if (h.count() == 0) return;
  w->turnaround_p50_seconds = h.Percentile(50);
  w->turnaround_p90_seconds = h.Percentile(90);
  w->turnaround_p99_seconds = h.Percentile(99);
}

}  // namespace

void ComputeCaptureWindows(const std::vector<CaptureReading>& prev, const std::vector<CaptureReading>& cur,
                           double seconds, const std::vector<NicWindow>& nics, std::vector<CounterIssue>* issues,
                           std::vector<CaptureWindow>* out) {
  out->clear();
  if (!(seconds > 0)) return;
  for (const CaptureReading& b : cur) {
    const CaptureReading* a = Find(prev, b.interface);
    if (!a || !a->active || !b.active || a->opened_mono_ns != b.opened_mono_ns) continue;
    CaptureWindow w;
    w.interface = b.interface;
    w.seconds = seconds;
    if (a->stats_ok && b.stats_ok) {
      w.buffer_drops =
          CounterDelta(a->pcap_dropped, b.pcap_dropped, CounterWidth::k32, issues, "pcap", b.interface, "buffer_drops");
      w.interface_drops = CounterDelta(a->pcap_ifdropped, b.pcap_ifdropped, CounterWidth::k32, issues, "pcap",
                                       b.interface, "interface_drops");
    }
    w.trusted = w.buffer_drops && w.interface_drops && *w.buffer_drops == 0 && *w.interface_drops == 0;
    w.packets_per_second = PerSecond(Grew(a->packets, b.packets), seconds);
    w.bits_per_second = 8 * PerSecond(Grew(a->bytes, b.bytes), seconds);
    if (a->direction_known && b.direction_known) {
      w.receive_packets_per_second = PerSecond(Grew(a->receive_packets, b.receive_packets), seconds);
      w.transmit_packets_per_second = PerSecond(Grew(a->transmit_packets, b.transmit_packets), seconds);
      w.receive_bits_per_second = 8 * PerSecond(Grew(a->receive_bytes, b.receive_bytes), seconds);
      w.transmit_bits_per_second = 8 * PerSecond(Grew(a->transmit_bytes, b.transmit_bytes), seconds);
      for (const NicWindow& n : nics)
        if (n.interface == b.interface && n.nic_drops_per_second)
          w.offered_packets_per_second = *w.receive_packets_per_second + *n.nic_drops_per_second;
    }
    w.requests_per_second = PerSecond(Grew(a->requests, b.requests), seconds);
    w.replies_per_second = PerSecond(Grew(a->replies, b.replies), seconds);
    w.request_bits_per_second = 8 * PerSecond(Grew(a->request_bytes, b.request_bytes), seconds);
    w.reply_bits_per_second = 8 * PerSecond(Grew(a->reply_bytes, b.reply_bytes), seconds);
    uint64_t paired = Grew(a->paired, b.paired), lost = Grew(a->lost, b.lost);
    w.paired_per_second = PerSecond(paired, seconds);
    w.lost_per_second = PerSecond(lost, seconds);
    if (paired + lost > 0) w.loss_ratio = static_cast<double>(lost) / static_cast<double>(paired + lost);
    for (size_t i = 0; i < kSizeBuckets; ++i) w.sizes[i] = Grew(a->sizes[i], b.sizes[i]);
    Percentiles(a->turnaround, b.turnaround, &w);
    w.top_flows = FlowDeltas(a->top_flows, b.top_flows);
    out->push_back(std::move(w));
  }
}

}  // namespace bottleneckd
