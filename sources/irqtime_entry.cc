// irqtime's entry (sources/source_entry.h): loaded in mode on, or auto over
// the live host; rebuilt when its mode or BTF path changes; its reading is
// the recording's irqtime file.
#include "base/log.h"
#include "sources/sample.h"
#include "sources/source_entry.h"

namespace bottleneckd {
namespace {

class IrqTimeSourceEntry : public SourceEntry {
 public:
  std::string_view name() const override { return "irqtime"; }
  std::string_view default_state() const override { return "auto"; }
  std::string_view help() const override {
    return "eBPF hardirq/softirq time per CPU, vector and NIC queue (CAP_BPF, CAP_PERFMON; collectors.irqtime.mode)";
  }
  LoadMode Wanted(const SourceConfig& c) const override {
    return LoadModeOnHost(c.irqtime->mode, CollectorEnabled(*c.collectors, "irqtime", true), c.live);
  }
  std::string OptionsKey(const SourceConfig& c) const override {
    return std::string(LoadModeName(Wanted(c))) + "\n" + c.irqtime->btf_path;
  }
  std::unique_ptr<Source> Make(const SourceConfig& c) const override {
    IrqTimeOptions o = *c.irqtime;
    o.mode = Wanted(c);
    return std::make_unique<IrqTimeSource>(o);
  }
  void SayStarted(Source& s, const SourceConfig&) const override {
    const auto* irqtime = dynamic_cast<const IrqTimeSource*>(&s);
    Log(LogLevel::kInfo, "irqtime loaded: measuring hardirq and softirq time with eBPF",
        {{"attach", irqtime ? irqtime->attach_note() : "unknown"}});
  }
  std::string_view WithoutIt() const override {
    return "interrupt time is not measured; it comes from /proc/stat and the soaker";
  }
  bool Encode(const Sample& s, std::string* text) const override {
    return EncodeReading(s.irqtime, &IrqTimeFileText, text);
  }
  Status Decode(std::string_view text, Sample* s) const override {
    return DecodeReading(text, &ParseIrqTimeFile, s->mono_ns, &s->irqtime);
  }
};

}  // namespace

const SourceEntry& IrqTimeEntry() {
  static const IrqTimeSourceEntry kEntry;
  return kEntry;
}

}  // namespace bottleneckd
