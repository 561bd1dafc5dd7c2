// CollectorsConfig: the options collectors take, as plain data, and the
// parser of their keys in the config's `collectors` section
// (collectors/collectors_config.cc; daemon/config.cc hands it each
// collector's mapping). Tests build it directly.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace YAML {
class Node;
}  // namespace YAML

namespace bottleneckd {

class ConfigReader;

struct NetdevOptions {
  // RE2 patterns (base/pattern.h) searched in the interface name; empty
  // include = all.
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  // Hide virtual interfaces (no /sys/class/net/IF/device) whose packet counters
  // have never moved, so a host with 500 idle veths does not flood metrics.
  bool hide_idle_virtual = true;
  // Ask drivers for ethtool statistics (SIOCETHTOOL or the --path.ethtool files).
  bool ethtool = true;
};

struct ThreadTarget {
  std::string name;        // process comm to match ("udpecho"); or
  std::optional<int> pid;  // an explicit pid
};

struct ThreadsOptions {
  std::vector<ThreadTarget> targets;
};

struct InterruptsOptions {
  // Export per-IRQ x per-CPU counts (high cardinality; off like node_exporter).
  bool per_cpu_matrix = false;
};

struct CollectorsConfig {
  std::vector<std::string> enabled;  // names; empty = each collector's default
  std::vector<std::string> disabled;
  NetdevOptions netdev;
  ThreadsOptions threads;
  InterruptsOptions interrupts;
};

// collectors.NAME for collector or source `name`: the keys of the polled
// collectors with options (netdev, interrupts, threads) read into *c, no key
// but `enabled` for the others (the sources' own keys, collectors.pcap and
// collectors.irqtime, are sources/source_config.h's: `extra` lists them), and
// `enabled`, which moves `name` between c->enabled and c->disabled.
Status ParseCollectorSection(const ConfigReader& r, const std::string& name, const YAML::Node& n, CollectorsConfig* c,
                             bool keys_parsed_elsewhere = false);

// Whether collector `name` runs under this config (enabled/disabled lists,
// else the registry default).
bool CollectorEnabled(const CollectorsConfig& c, std::string_view name, bool default_enabled);

}  // namespace bottleneckd
