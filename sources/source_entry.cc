#include "sources/source_entry.h"

#include "base/log.h"

namespace bottleneckd {

void SourceEntry::SayStarted(Source&, const SourceConfig&) const {
  Log(LogLevel::kInfo, std::string(name()) + " started");
}

void SourceEntry::SayRefused(const Status& s, LoadMode mode, uint64_t) const {
  Log(mode == LoadMode::kOn ? LogLevel::kError : LogLevel::kInfo,
      std::string(name()) + " off: " + std::string(WithoutIt()), {{"err", s.ToString()}, {"mode", LoadModeName(mode)}});
}

LoadMode LoadModeOnHost(LoadMode configured, bool enabled, bool live) {
  if (!enabled || configured == LoadMode::kOff) return LoadMode::kOff;
  if (configured == LoadMode::kAuto && !live) return LoadMode::kOff;
  return configured;
}

}  // namespace bottleneckd
