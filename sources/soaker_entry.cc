// The soaker's entry (sources/source_entry.h): runs in mode "always", or in
// mode "runs" while a run is active, once its calibration is measured;
// retried every tick when it cannot start (said once, then hourly); its
// reading is the recording's soaker file. Not switchable: runs and --soaker
// drive it (docs/soaker.md).
#include <cstdio>

#include "base/log.h"
#include "sources/sample.h"
#include "sources/source_entry.h"

namespace bottleneckd {
namespace {

class SoakerSourceEntry : public SourceEntry {
 public:
  std::string_view name() const override { return "soaker"; }
  bool switchable() const override { return false; }
  std::string_view default_state() const override { return "runs"; }
  std::string_view help() const override { return "per-CPU idle measured as delivered cycles (soaker.mode)"; }
  LoadMode Wanted(const SourceConfig& c) const override {
    const SoakerMode m = c.soaker->mode;
    const bool want = m == SoakerMode::kAlways || (m == SoakerMode::kRuns && c.run_active);
    return want && !c.soaker_calibrating ? LoadMode::kAuto : LoadMode::kOff;
  }
  // The HostFs it reads is part of the key: a reload that replaces it
  // restarts the soaker (its calibration is loaded again, not measured).
  std::string OptionsKey(const SourceConfig& c) const override {
    const SoakerOptions& o = *c.soaker;
    char key[256];
    std::snprintf(key, sizeof(key), "%p %g %g %d %d %g", static_cast<const void*>(c.fs), o.calibration_seconds,
                  o.calibration_max_age_seconds, o.calibration_percentile, o.sched_idle ? 1 : 0,
                  o.hotplug_check_seconds);
    return std::string(SoakerModeName(o.mode)) + " " + key + " " + o.state_dir;
  }
  std::unique_ptr<Source> Make(const SourceConfig& c) const override {
    return std::make_unique<Soaker>(c.fs, *c.soaker);
  }
  bool RetryEachTick() const override { return true; }
  void SayStarted(Source&, const SourceConfig& c) const override {
    Log(LogLevel::kInfo, "soaker started",
        {{"mode", SoakerModeName(c.soaker->mode)}, {"state_dir", c.soaker->state_dir}});
  }
  std::string_view WithoutIt() const override { return "CPU idle comes from accounting only"; }
  void SayRefused(const Status& s, LoadMode, uint64_t held_back) const override {
    if (held_back == 0)
      Log(LogLevel::kError, "soaker did not start; CPU idle comes from accounting only", {{"err", s.ToString()}});
    else
      Log(LogLevel::kWarn, "soaker still does not start; CPU idle comes from accounting only",
          {{"err", s.ToString()}, {"failed_ticks_not_logged", std::to_string(held_back)}});
  }
  void SayChanges(const Sample& s, std::string* said) const override {
    if (!s.soaker || s.soaker->caveat == *said) return;
    *said = s.soaker->caveat;
    if (!said->empty()) Log(LogLevel::kWarn, "soaker caveat", {{"caveat", *said}});
  }
  bool Encode(const Sample& s, std::string* text) const override {
    return EncodeReading(s.soaker, &SoakerFileText, text);
  }
  Status Decode(std::string_view text, Sample* s) const override {
    return DecodeReading(text, &ParseSoakerFile, s->mono_ns, &s->soaker);
  }
  size_t max_file_bytes() const override { return 64u << 10; }
};

}  // namespace

const SourceEntry& SoakerEntry() {
  static const SoakerSourceEntry kEntry;
  return kEntry;
}

}  // namespace bottleneckd
