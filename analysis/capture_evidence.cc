#include "analysis/capture_evidence.h"

#include <cstdio>

#include "analysis/rules.h"

namespace bottleneckd {
namespace {

std::string Fixed(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

std::string FormatLatency(double seconds) {
  if (seconds < 1e-3) return Fixed("%.1f us", seconds * 1e6);
  if (seconds < 1) return Fixed("%.2f ms", seconds * 1e3);
  return Fixed("%.2f s", seconds);
}

std::vector<std::string> CaptureEvidence(const std::vector<CaptureWindow>& captures) {
  std::vector<std::string> out;
  for (const CaptureWindow& c : captures) {
    if (!c.trusted) {
      if (!c.buffer_drops || !c.interface_drops) {
        out.push_back("capture " + c.interface +
                      ": pcap statistics unavailable this window, so its figures are not trusted");
        continue;
      }
      uint64_t total = *c.buffer_drops + *c.interface_drops;
      out.push_back("capture " + c.interface + " dropped " + std::to_string(total) + " frames (pcap buffer " +
                    std::to_string(*c.buffer_drops) + ", interface " + std::to_string(*c.interface_drops) +
                    "): its figures are not trusted this window");
      continue;
    }
    if (c.packets_per_second <= 0) continue;
    std::string s = "capture " + c.interface + ": applied " + FormatRate(c.requests_per_second) + "/s, echoed " +
                    FormatRate(c.replies_per_second) + "/s";
    if (c.loss_ratio) s += ", echo loss " + FormatPercent(*c.loss_ratio);
    if (c.turnaround_p50_seconds && c.turnaround_p99_seconds)
      s += ", turnaround p50 " + FormatLatency(*c.turnaround_p50_seconds) + ", p99 " +
           FormatLatency(*c.turnaround_p99_seconds);
    if (c.offered_packets_per_second) s += ", offered here " + FormatRate(*c.offered_packets_per_second) + "/s";
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace bottleneckd
