// The profiler's entry (sources/source_entry.h): loaded in mode on, or auto
// over the live host; rebuilt when collectors.profile changes; its reading,
// frames named at record time, is the recording's profile file.
#include "base/log.h"
#include "sources/sample.h"
#include "sources/source_entry.h"

namespace bottleneckd {
namespace {

class ProfileSourceEntry : public SourceEntry {
 public:
  std::string_view name() const override { return "profile"; }
  std::string_view default_state() const override { return "auto"; }
  std::string_view help() const override {
    return "eBPF on-CPU stacks at 49 Hz of the CPU the verdict names and the target threads (CAP_BPF, CAP_PERFMON; "
           "collectors.profile)";
  }
  LoadMode Wanted(const SourceConfig& c) const override {
    return LoadModeOnHost(c.profile->mode, CollectorEnabled(*c.collectors, "profile", true), c.live);
  }
  std::string OptionsKey(const SourceConfig& c) const override {
    const ProfileOptions& o = *c.profile;
    return std::string(LoadModeName(o.mode)) + "\n" + std::to_string(o.frequency_hz) + "\n" +
           ProfileStacksName(o.stacks);
  }
  std::unique_ptr<Source> Make(const SourceConfig& c) const override {
    return std::make_unique<ProfileSource>(*c.profile);
  }
  void SayStarted(Source&, const SourceConfig& c) const override {
    Log(LogLevel::kInfo, "profile loaded: sampling on-CPU stacks with eBPF",
        {{"frequency_hz", std::to_string(c.profile->frequency_hz)}, {"stacks", ProfileStacksName(c.profile->stacks)}});
  }
  std::string_view WithoutIt() const override { return "no on-CPU stacks in the evidence"; }
  bool Encode(const Sample& s, std::string* text) const override {
    return EncodeReading(s.profile, &ProfileFileText, text);
  }
  Status Decode(std::string_view text, Sample* s) const override {
    return DecodeReading(text, &ParseProfileFile, s->mono_ns, &s->profile);
  }
};

}  // namespace

const SourceEntry& ProfileEntry() {
  static const ProfileSourceEntry kEntry;
  return kEntry;
}

}  // namespace bottleneckd
