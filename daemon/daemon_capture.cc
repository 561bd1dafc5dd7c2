// The daemon's live capture: opening it (once, before other threads start),
// dropping the capabilities it needed, and reading it every tick.
#include <algorithm>

#include "base/log.h"
#include "daemon/daemon.h"

namespace bottleneckd {
namespace {

bool SameCapture(const CaptureOptions& a, const CaptureOptions& b) {
  return a.interfaces == b.interfaces && a.snaplen == b.snaplen && a.buffer_bytes == b.buffer_bytes &&
         a.timeout_ms == b.timeout_ms && a.filter == b.filter && a.promiscuous == b.promiscuous &&
         a.traffic.top_flows == b.traffic.top_flows && a.traffic.max_tracked_flows == b.traffic.max_tracked_flows &&
         a.traffic.reply_timeout_seconds == b.traffic.reply_timeout_seconds;
}

}  // namespace

void Daemon::StartCapture() {
  if (!CaptureEnabled(config_.collectors)) return;
  const CaptureOptions& o = config_.collectors.pcap;
  capture_ = std::make_unique<CaptureSource>(o);
  Status s = capture_->Start();
  std::vector<CaptureReading> readings;
  capture_->Read(&readings);
  capture_errors_.assign(readings.size(), "");
  for (size_t i = 0; i < readings.size(); ++i) {
    const CaptureReading& r = readings[i];
    capture_errors_[i] = r.error;
    if (r.active)
      Log(LogLevel::kInfo, "capturing",
          {{"interface", r.interface},
           {"linktype", std::to_string(r.linktype)},
           {"direction", r.direction_known ? "known" : "unknown"},
           {"snaplen", std::to_string(o.snaplen)},
           {"filter", o.filter.empty() ? "none" : o.filter}});
    else
      Log(LogLevel::kWarn, "capture off for this interface", {{"interface", r.interface}, {"err", r.error}});
  }
  // Each interface's reason is logged above.
  if (!s.ok()) Log(LogLevel::kError, "live capture off: no interface could be opened");
  if (!config_.drop_capabilities) return;
  std::string what;
  Status d = DropCaptureCapabilities(&what);
  if (!d.ok()) {
    Log(LogLevel::kWarn, "could not drop the capture capabilities", {{"err", d.ToString()}});
    return;
  }
  capabilities_dropped_ = true;
  Log(LogLevel::kInfo, "capabilities no longer needed after opening the captures", {{"dropped", what}});
}

void Daemon::ReadCapture(Sample* sample) {
  if (!capture_) return;
  ReadSource(capture_.get(), sample);
  const std::vector<CaptureReading>& readings = *sample->capture;
  capture_errors_.resize(readings.size());
  for (size_t i = 0; i < readings.size(); ++i) {
    if (readings[i].error == capture_errors_[i]) continue;  // say it once, when it changes
    capture_errors_[i] = readings[i].error;
    if (!readings[i].error.empty())
      Log(LogLevel::kError, "capture stopped", {{"interface", readings[i].interface}, {"err", readings[i].error}});
  }
}

// Called by ApplyPending with the new config already in config_ and the old
// capture options in `old`.
void Daemon::ReconfigureCapture(const CaptureOptions& old, bool was_enabled) {
  bool enabled = CaptureEnabled(config_.collectors);
  if (enabled == was_enabled && (!enabled || SameCapture(old, config_.collectors.pcap))) return;
  if (capabilities_dropped_ && enabled && !HaveNetRaw()) {
    Log(LogLevel::kWarn,
        "capture options changed: restart bottleneckd to apply them (the capability to open captures was dropped "
        "after the first ones opened); the running capture goes on unchanged");
    config_.collectors.pcap = old;
    if (!was_enabled) config_.collectors.pcap.interfaces.clear();
    return;
  }
  if (capture_) capture_->Stop();
  capture_.reset();
  capture_errors_.clear();
  bool drop = config_.drop_capabilities;
  config_.drop_capabilities = false;  // later threads exist now; the first drop already covered them
  StartCapture();
  config_.drop_capabilities = drop;
}

}  // namespace bottleneckd
