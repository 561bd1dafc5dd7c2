// CollectorsConfig: the options collectors take, as plain data. daemon/config
// fills it from etc/bottleneckd.yaml; tests build it directly.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace bottleneckd {

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

}  // namespace bottleneckd
