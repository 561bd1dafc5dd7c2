// The continuous sources that can be switched like collectors
// (--collector.NAME, --no-collector.NAME, collectors.NAME.enabled), listed
// in --help after the polled collectors of collectors/collector.h. The
// soaker is not here: runs and --soaker drive it (docs/soaker.md).
#pragma once

#include <string>
#include <vector>

namespace bottleneckd {

struct SourceInfo {
  std::string name;
  std::string default_state;  // as --help shows it: "off", "auto"
  std::string help;
};

const std::vector<SourceInfo>& SourceRegistry();

// A polled collector's or a switchable source's name.
bool KnownCollectorName(const std::string& name);

}  // namespace bottleneckd
