// Capture evidence: the live capture's figures as sentences under a verdict
// (applied vs echoed, echo loss, turnaround) and the caveat of a capture that
// dropped frames, whose figures are then not used. The capture informs the
// reader; it does not change the label (the rules read the kernel's
// counters, which a lossy capture cannot contradict). docs/pcap.md.
#pragma once

#include <string>
#include <vector>

#include "window/capture_window.h"

namespace bottleneckd {

// One sentence per captured interface that saw traffic this window:
//   "capture eth0: applied 20.0 k/s, echoed 19.5 k/s, echo loss 2.5 %, turnaround p50 33.0 us, p99 167.0 us"
//   "capture eth0 dropped 1234 frames (pcap buffer 1234, interface 0): its figures are not trusted this window"
std::vector<std::string> CaptureEvidence(const std::vector<CaptureWindow>& captures);

// "33.0 us", "1.25 ms", "2.10 s".
std::string FormatLatency(double seconds);

}  // namespace bottleneckd
