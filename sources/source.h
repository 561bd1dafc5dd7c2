// Source: a continuous source of readings, with threads of its own and a
// lifecycle, as opposed to a polled Collector (collectors/collector.h), the
// way osquery separates event publishers from polled tables. The daemon
// starts a source, reads it once a tick into the Sample (each read is timed
// and reported as that source's bottleneckd_collector_success/_duration),
// and stops it. Implementations: Soaker (sources/soaker.h), CaptureSource
// (sources/capture.h).
#pragma once

#include <string_view>

#include "base/status.h"

namespace bottleneckd {

// How an optional source loads (collectors.irqtime.mode,
// collectors.profile.mode): auto, when the host allows it, else one log line
// and the daemon runs without it; on, or the daemon refuses to start; off.
enum class LoadMode { kOff, kAuto, kOn };
// "off", "auto", "on"; false (and *out untouched) for anything else.
bool ParseLoadMode(std::string_view s, LoadMode* out);
const char* LoadModeName(LoadMode m);

struct Sample;

class Source {
 public:
  virtual ~Source() = default;
  // The name its CollectorResult carries ("soaker", "pcap").
  virtual std::string_view name() const = 0;
  // Starts the source's threads. Errors say why it cannot run at all.
  virtual Status Start() = 0;
  // Stops and joins the threads. Idempotent; readings taken stay valid.
  virtual void Stop() = 0;
  // Adds this tick's cumulative reading to *out (its own part of the
  // Sample). Non-OK when the source has nothing to give this tick; the
  // message is the collector result's error. Never blocks for long.
  virtual Status Read(Sample* out) = 0;
};

}  // namespace bottleneckd
