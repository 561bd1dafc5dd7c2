// The live capture's entry (sources/source_entry.h): opened while
// collectors.pcap.interfaces lists an interface and pcap is not disabled,
// first of the sources (the daemon drops the capture capabilities after
// it); rebuilt when its options change while the process can still open a
// capture; its reading (counters, never a packet) is the recording's pcap
// file.
#include "base/log.h"
#include "sources/reading_file.h"
#include "sources/sample.h"
#include "sources/source_entry.h"

namespace bottleneckd {
namespace {

class CaptureSourceEntry : public SourceEntry {
 public:
  std::string_view name() const override { return "pcap"; }
  std::string_view default_state() const override { return "off"; }
  std::string_view help() const override {
    return "libpcap capture of collectors.pcap.interfaces or --capture.interface (CAP_NET_RAW): applied vs echoed "
           "rate, turnaround";
  }
  LoadMode Wanted(const SourceConfig& c) const override {
    const bool want = !c.capture->interfaces.empty() && CollectorEnabled(*c.collectors, "pcap", true);
    return want ? LoadMode::kAuto : LoadMode::kOff;
  }
  std::string OptionsKey(const SourceConfig& c) const override {
    const CaptureOptions& o = *c.capture;
    std::string key;
    for (const std::string& i : o.interfaces) key += i + "\n";
    key += std::to_string(o.snaplen) + " " + std::to_string(o.buffer_bytes) + " " + std::to_string(o.timeout_ms) + " " +
           (o.promiscuous ? "promisc" : "-") + " " + std::to_string(o.traffic.top_flows) + " " +
           std::to_string(o.traffic.max_tracked_flows) + " " + ShortestDouble(o.traffic.reply_timeout_seconds) + "\n" +
           o.filter;
    return key;
  }
  std::unique_ptr<Source> Make(const SourceConfig& c) const override {
    return std::make_unique<CaptureSource>(*c.capture);
  }
  Status CanRestart() const override {
    if (HaveNetRaw()) return Status::OK();
    return Status::PermissionDenied(
        "restart bottleneckd to apply the new capture options (the capability to open captures was dropped after "
        "the first ones opened); the running capture goes on unchanged");
  }
  void SayStarted(Source& s, const SourceConfig& c) const override {
    auto* capture = dynamic_cast<CaptureSource*>(&s);
    if (!capture) return;
    std::vector<CaptureReading> readings;
    capture->Read(&readings);
    for (const CaptureReading& r : readings) {
      if (r.active)
        Log(LogLevel::kInfo, "capturing",
            {{"interface", r.interface},
             {"linktype", std::to_string(r.linktype)},
             {"direction", r.direction_known ? "known" : "unknown"},
             {"snaplen", std::to_string(c.capture->snaplen)},
             {"filter", c.capture->filter.empty() ? "none" : c.capture->filter}});
      else
        Log(LogLevel::kWarn, "capture off for this interface", {{"interface", r.interface}, {"err", r.error}});
    }
  }
  std::string_view WithoutIt() const override { return "no interface could be opened"; }
  // A capture none of whose interfaces opened stays, each reading saying why
  // (SayStarted logged each interface's reason).
  bool KeptWhenRefused() const override { return true; }
  void SayRefused(const Status&, LoadMode, uint64_t) const override {
    Log(LogLevel::kError, "live capture off: no interface could be opened");
  }
  // *said: each interface's last error, one per line, in config order; the
  // start's errors are SayStarted's.
  void SayChanges(const Sample& s, std::string* said) const override {
    if (!s.capture) return;
    std::string now;
    for (const CaptureReading& r : *s.capture) now += r.error + "\n";
    if (now == *said) return;
    const bool first = said->empty();
    std::string_view before = *said;
    *said = now;
    for (const CaptureReading& r : *s.capture) {
      const size_t nl = before.find('\n');
      const std::string_view old = before.substr(0, nl);
      before = nl == std::string_view::npos ? std::string_view() : before.substr(nl + 1);
      if (first || r.error == old || r.error.empty()) continue;
      Log(LogLevel::kError, "capture stopped", {{"interface", r.interface}, {"err", r.error}});
    }
  }
  bool Encode(const Sample& s, std::string* text) const override {
    return EncodeReading(s.capture, &CaptureFileText, text);
  }
  Status Decode(std::string_view text, Sample* s) const override {
    return DecodeReading(text, &ParseCaptureFile, s->mono_ns, &s->capture);
  }
};

}  // namespace

const SourceEntry& CaptureEntry() {
  static const CaptureSourceEntry kEntry;
  return kEntry;
}

}  // namespace bottleneckd
