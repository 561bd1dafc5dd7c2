// The config's keys of the continuous sources (etc/bottleneckd.yaml): the
// live capture (collectors.pcap), the eBPF interrupt-time source
// (collectors.irqtime) and the soaker (soaker). Each parser reads its section
// over *out (which holds the defaults) and errs at the value's
// file:line:column; `enabled` under collectors.pcap and collectors.irqtime is
// the collectors' list's (daemon/config.cc).
#pragma once

#include "base/config_reader.h"
#include "base/status.h"
#include "sources/capture.h"
#include "sources/irqtime.h"
#include "sources/profile.h"
#include "sources/soaker.h"

namespace bottleneckd {

// collectors.pcap (sources/capture_config.cc): interfaces, snap length,
// buffer, timeout, BPF filter (compiled to check it), flow-table bounds.
Status ParseCapture(const ConfigReader& r, const YAML::Node& n, CaptureOptions* out);

// collectors.irqtime (sources/irqtime_config.cc): mode and btf_path.
Status ParseIrqTime(const ConfigReader& r, const YAML::Node& n, IrqTimeOptions* out);

// collectors.profile (sources/profile_config.cc): mode, frequency, stacks.
Status ParseProfile(const ConfigReader& r, const YAML::Node& n, ProfileOptions* out);

// soaker (sources/soaker_config.cc): mode, calibration time, age and percentile.
Status ParseSoaker(const ConfigReader& r, const YAML::Node& n, SoakerOptions* out);

}  // namespace bottleneckd
