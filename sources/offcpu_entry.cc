// offcpu's entry (sources/source_entry.h): loaded while the threads collector
// has targets on the live host and neither it nor offcpu is disabled; tried
// once per reason to load; its reading, wait sites named at record time, is
// the recording's offcpu file.
#include "base/log.h"
#include "sources/offcpu.h"
#include "sources/sample.h"
#include "sources/source_entry.h"

namespace bottleneckd {
namespace {

class OffCpuSourceEntry : public SourceEntry {
 public:
  std::string_view name() const override { return "offcpu"; }
  std::string_view default_state() const override { return "auto"; }
  std::string_view help() const override {
    return "eBPF time the target threads spend off the CPU, per wait site (CAP_BPF, CAP_PERFMON, kernel BTF, "
           "kallsyms); loaded with collectors.threads.targets or while a run follows its command";
  }
  LoadMode Wanted(const SourceConfig& c) const override {
    const CollectorsConfig& k = *c.collectors;
    const bool want = c.live && CollectorEnabled(k, "offcpu", true) && CollectorEnabled(k, "threads", true) &&
                      (!k.threads.targets.empty() || c.run_follows);
    return want ? LoadMode::kAuto : LoadMode::kOff;
  }
  std::string OptionsKey(const SourceConfig&) const override { return ""; }
  std::unique_ptr<Source> Make(const SourceConfig&) const override { return std::make_unique<OffCpuSource>(); }
  void SayStarted(Source&, const SourceConfig&) const override {
    Log(LogLevel::kInfo, "offcpu loaded: measuring where the target threads wait with eBPF (sched_switch)");
  }
  std::string_view WithoutIt() const override {
    return "where the target threads wait is sampled from /proc (wchan, syscall)";
  }
  bool Encode(const Sample& s, std::string* text) const override {
    return EncodeReading(s.offcpu, &OffCpuFileText, text);
  }
  Status Decode(std::string_view text, Sample* s) const override {
    return DecodeReading(text, &ParseOffCpuFile, s->mono_ns, &s->offcpu);
  }
};

}  // namespace

const SourceEntry& OffCpuEntry() {
  static const OffCpuSourceEntry kEntry;
  return kEntry;
}

}  // namespace bottleneckd
