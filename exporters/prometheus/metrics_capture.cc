// Live capture metric families (sources/capture.h, window/capture_window.h).
// Low cardinality by design: labels are the interface and a fixed small set
// (direction, drop source, unparsed reason); flows appear in reports only.
#include <limits>
#include <string>

#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics_internal.h"
#include "window/capture_window.h"

namespace bottleneckd::internal {
namespace {

using prometheus::MetricType;

// Upper bounds of the turnaround histogram's buckets (seconds): 10 us to 1 s.
constexpr double kTurnaroundBounds[] = {10e-6, 20e-6, 50e-6, 100e-6, 200e-6, 500e-6, 1e-3,
                                        2e-3,  5e-3,  10e-3, 20e-3,  50e-3,  100e-3, 1};

prometheus::ClientMetric HistogramMetric(const std::string& interface) {
  prometheus::ClientMetric m;
  m.label.push_back({"interface", interface});
  return m;
}

void AddSizeHistogram(const CaptureReading& r, prometheus::MetricFamily* f) {
  prometheus::ClientMetric m = HistogramMetric(r.interface);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < kSizeBuckets; ++i) {
    cumulative += r.sizes[i];
    prometheus::ClientMetric::Bucket b;
    b.cumulative_count = cumulative;
    b.upper_bound =
        i + 1 < kSizeBuckets ? static_cast<double>(kSizeBounds[i]) : std::numeric_limits<double>::infinity();
    m.histogram.bucket.push_back(b);
  }
  m.histogram.sample_count = cumulative;
  m.histogram.sample_sum = static_cast<double>(r.bytes);
  f->metric.push_back(std::move(m));
}

void AddTurnaroundHistogram(const CaptureReading& r, prometheus::MetricFamily* f) {
  prometheus::ClientMetric m = HistogramMetric(r.interface);
  for (double bound : kTurnaroundBounds) {
    prometheus::ClientMetric::Bucket b;
    b.cumulative_count = r.turnaround.CountAtOrBelow(bound);
    b.upper_bound = bound;
    m.histogram.bucket.push_back(b);
  }
  prometheus::ClientMetric::Bucket inf;
  inf.cumulative_count = r.turnaround.count();
  inf.upper_bound = std::numeric_limits<double>::infinity();
  m.histogram.bucket.push_back(inf);
  m.histogram.sample_count = r.turnaround.count();
  m.histogram.sample_sum = r.turnaround.Sum();
  f->metric.push_back(std::move(m));
}

prometheus::MetricFamily Histogram(MetricName name, const char* help) {
  prometheus::MetricFamily f;
  f.name = name.str();
  f.help = help;
  f.type = MetricType::Histogram;
  return f;
}

}  // namespace

void AddCaptureFamilies(const Snapshot& s, MetricsOut* out) {
  if (!s.sample.capture) return;
  const std::vector<CaptureReading>& readings = *s.sample.capture;
  {
    FamilyBuilder up(out, metric::kCaptureUp,
                     "1 while the live capture of the interface runs; 0 when it could not open or stopped (the "
                     "daemon's log says why: no CAP_NET_RAW, no such interface, a bad filter).",
                     MetricType::Gauge);
    FamilyBuilder packets(out, metric::kCapturePacketsTotal, "Frames the live capture saw (after its filter).",
                          MetricType::Counter);
    FamilyBuilder bytes(out, metric::kCaptureBytesTotal, "Bytes on the wire of the frames the capture saw.",
                        MetricType::Counter);
    FamilyBuilder dir(out, metric::kCaptureDirectionPacketsTotal,
                      "Captured frames by link direction (receive, transmit), from the cooked header's packet type.",
                      MetricType::Counter);
    FamilyBuilder dir_bytes(out, metric::kCaptureDirectionBytesTotal,
                            "Captured bytes by link direction (receive, transmit).", MetricType::Counter);
    FamilyBuilder requests(out, metric::kCaptureRequestsTotal,
                           "Captured packets from a flow's requester (the side seen first): the applied load.",
                           MetricType::Counter);
    FamilyBuilder replies(out, metric::kCaptureRepliesTotal,
                          "Captured packets from a flow's responder: the echoed load.", MetricType::Counter);
    FamilyBuilder paired(out, metric::kCaptureEchoPairedTotal,
                         "UDP requests whose echo (same payload, swapped addresses and ports) was captured.",
                         MetricType::Counter);
    FamilyBuilder lost(out, metric::kCaptureEchoLostTotal, "UDP requests with no echo within the reply timeout.",
                       MetricType::Counter);
    FamilyBuilder unparsed(out, metric::kCaptureUnparsedTotal,
                           "Captured frames not analysed, by reason: not_ip, truncated (snap length), malformed.",
                           MetricType::Counter);
    FamilyBuilder drops(out, metric::kCaptureDropsTotal,
                        "Frames the capture lost (pcap_stats): buffer (no room in the capture ring), interface "
                        "(dropped by the interface or driver). A capture that drops is not trusted.",
                        MetricType::Counter);
    for (const CaptureReading& r : readings) {
      const std::string& i = r.interface;
      up.Add(r.active ? 1 : 0, {{"interface", i}});
      if (r.opened_mono_ns == 0) continue;  // never opened: no counters
      packets.Add(static_cast<double>(r.packets), {{"interface", i}});
      bytes.Add(static_cast<double>(r.bytes), {{"interface", i}});
      if (r.direction_known) {
        dir.Add(static_cast<double>(r.receive_packets), {{"interface", i}, {"direction", "receive"}});
        dir.Add(static_cast<double>(r.transmit_packets), {{"interface", i}, {"direction", "transmit"}});
        dir_bytes.Add(static_cast<double>(r.receive_bytes), {{"interface", i}, {"direction", "receive"}});
        dir_bytes.Add(static_cast<double>(r.transmit_bytes), {{"interface", i}, {"direction", "transmit"}});
      }
      requests.Add(static_cast<double>(r.requests), {{"interface", i}});
      replies.Add(static_cast<double>(r.replies), {{"interface", i}});
      paired.Add(static_cast<double>(r.paired), {{"interface", i}});
      lost.Add(static_cast<double>(r.lost), {{"interface", i}});
      unparsed.Add(static_cast<double>(r.not_ip), {{"interface", i}, {"reason", "not_ip"}});
      unparsed.Add(static_cast<double>(r.truncated), {{"interface", i}, {"reason", "truncated"}});
      unparsed.Add(static_cast<double>(r.malformed), {{"interface", i}, {"reason", "malformed"}});
      for (const char* source : {"buffer", "interface"}) {
        auto it = s.capture_drops_total.find({i, source});
        drops.Add(it == s.capture_drops_total.end() ? 0 : static_cast<double>(it->second),
                  {{"interface", i}, {"source", source}});
      }
    }
  }
  prometheus::MetricFamily sizes =
      Histogram(metric::kCapturePacketSizeBytes, "Captured frames by length on the wire (bytes).");
  prometheus::MetricFamily turnaround =
      Histogram(metric::kCaptureTurnaroundSeconds,
                "Echo turnaround: from a UDP request to its captured echo (the box's time, seen from this capture); a "
                "reply that could answer another identical request in flight is left out.");
  for (const CaptureReading& r : readings) {
    if (r.opened_mono_ns == 0) continue;
    AddSizeHistogram(r, &sizes);
    AddTurnaroundHistogram(r, &turnaround);
  }
  out->AddFamily(std::move(sizes));
  out->AddFamily(std::move(turnaround));
  if (!s.window) return;
  FamilyBuilder trusted(out, metric::kCaptureTrusted,
                        "1 when the capture lost nothing in the last window (its rates and losses can be believed).",
                        MetricType::Gauge);
  FamilyBuilder quantile(out, metric::kCaptureWindowTurnaroundSeconds,
                         "Echo turnaround percentiles (50, 90, 99) over the last window.", MetricType::Gauge);
  for (const CaptureWindow& w : s.window->captures) {
    trusted.Add(w.trusted ? 1 : 0, {{"interface", w.interface}});
    if (w.turnaround_p50_seconds)
      quantile.Add(*w.turnaround_p50_seconds, {{"interface", w.interface}, {"percentile", "50"}});
    if (w.turnaround_p90_seconds)
      quantile.Add(*w.turnaround_p90_seconds, {{"interface", w.interface}, {"percentile", "90"}});
    if (w.turnaround_p99_seconds)
      quantile.Add(*w.turnaround_p99_seconds, {{"interface", w.interface}, {"percentile", "99"}});
  }
}

}  // namespace bottleneckd::internal
