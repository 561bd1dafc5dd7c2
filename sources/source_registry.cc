#include "sources/source_registry.h"

#include "collectors/collector.h"
#include "sources/source.h"

namespace bottleneckd {

const std::vector<const SourceEntry*>& SourceRegistry() {
  static const std::vector<const SourceEntry*> kSources = {&CaptureEntry(), &SoakerEntry(), &IrqTimeEntry(),
                                                           &OffCpuEntry(), &ProfileEntry()};
  return kSources;
}

const SourceEntry* FindSourceEntry(std::string_view name) {
  for (const SourceEntry* e : SourceRegistry())
    if (e->name() == name) return e;
  return nullptr;
}

bool ParseLoadMode(std::string_view s, LoadMode* out) {
  if (s == "off") {
    *out = LoadMode::kOff;
  } else if (s == "auto") {
    *out = LoadMode::kAuto;
  } else if (s == "on") {
    *out = LoadMode::kOn;
  } else {
    return false;
  }
  return true;
}

const char* LoadModeName(LoadMode m) {
  switch (m) {
    case LoadMode::kOff: return "off";
    case LoadMode::kAuto: return "auto";
    case LoadMode::kOn: return "on";
  }
  return "auto";
}

bool KnownCollectorName(const std::string& name) {
  for (const CollectorInfo& c : CollectorRegistry())
    if (c.name == name) return true;
  for (const SourceEntry* s : SourceRegistry())
    if (s->switchable() && s->name() == name) return true;
  return false;
}

}  // namespace bottleneckd
