// Config: the daemon's options, read from a YAML file (etc/bottleneckd.yaml
// documents every key) and overridden by command-line flags. Each section is
// parsed beside its options, in its stage (bus/bus_model_config.h,
// analysis/verdict_config.h, sources/source_config.h, collectors/
// collectors_config.h, runs/run_tracker_config.h), with one FieldTable per
// struct (base/config_fields.h); the top level, runs and limits here. Every error names
// the file, line and column ("etc/x.yaml:4:3: unknown key 'intervall'"); unknown
// keys are errors, so a typo never silently falls back to a default.
#pragma once

#include <string>
#include <string_view>

#include "analysis/verdict.h"
#include "base/log.h"
#include "base/status.h"
#include "bus/bus_model.h"
#include "collectors/collectors_config.h"
#include "collectors/host_fs.h"
#include "collectors/self_limit.h"
#include "runs/run_tracker.h"
#include "sources/capture.h"
#include "sources/irqtime.h"
#include "sources/profile.h"
#include "sources/soaker.h"

namespace YAML {
class Node;
}  // namespace YAML

namespace bottleneckd {

// Default port: in Prometheus's exporter range, not node_exporter's 9100.
inline constexpr int kDefaultPort = 9858;

// Runs (docs/runs.md): the control socket, the run store, continuous
// window runs and segmentation.
struct RunsConfig {
  std::string control_socket = "/run/bottleneckd/control.sock";  // "" turns run control off
  std::string control_group;  // group allowed to start/stop runs besides the daemon's user; "" its primary group
  bool store = true;          // keep runs in STATE_DIR/runs.db
  RunTrackerOptions tracker;
};

// The config's `collectors` section: the polled collectors' options
// (collectors/collectors_config.h) and, under the key collectors.pcap, the
// live capture's (a continuous source, sources/capture.h). Capture is on when
// `pcap.interfaces` is not empty and "pcap" is not disabled.
struct CollectorsSection : CollectorsConfig {
  CaptureOptions pcap;
};

struct Config {
  std::string file;               // where it was read from ("" = built-in defaults)
  double interval_seconds = 1.0;  // sampling period
  std::string listen_address = ":9858";
  // The exporter toolkit's web config (TLS, basic auth, headers of the HTTP
  // listener; exporters/http/web_config.h); "" serves plain HTTP to anyone.
  std::string web_config_file;
  HostRoots roots;
  LogLevel log_level = LogLevel::kInfo;
  CollectorsSection collectors;
  // Where calibrations (and later runs) are kept. soaker.state_dir mirrors it.
  std::string state_dir = "/var/lib/bottleneckd";
  SoakerOptions soaker;
  // Measured interrupt time (collectors.irqtime, sources/irqtime.h). Off also
  // when "irqtime" is disabled (collectors.irqtime.enabled: false,
  // --no-collector.irqtime): its entry's Wanted says which
  // (sources/irqtime_entry.cc).
  IrqTimeOptions irqtime;
  // The on-CPU profiler (collectors.profile, sources/profile.h); off also
  // when "profile" is disabled.
  ProfileOptions profile;
  // Treat the daemon's whole life as one run (--soaker): the soaker runs in mode
  // "runs" even before run control exists.
  bool run_active = false;
  // The bus model's NIC profiles, interface -> profile choices and bus
  // timings (docs/bus-model.md).
  BusModelOptions bus_model = DefaultBusModelOptions();
  // Thresholds of the verdict rules (docs/verdict-rules.md).
  VerdictThresholds verdict;
  RunsConfig runs;
  // The self-limit watchdog's budgets (the `limits` section, collectors/self_limit.h).
  SelfLimitOptions limits;
  // Drop CAP_NET_RAW and CAP_NET_ADMIN once the live captures are open (the
  // daemon itself; not `bottleneckd run`, whose command inherits them).
  bool drop_capabilities = false;
};

// Largest config accepted (1 MiB); a bigger one is refused before it is parsed.
inline constexpr size_t kMaxConfigBytes = 1 << 20;

// Parses YAML text; `filename` only labels error messages. Starts from the
// defaults above, so an empty document is a valid config. Refused, at the
// node's file:line:column: text over kMaxConfigBytes (before parsing), a key
// given twice in one mapping, a one-line value that runs on to the next line,
// a list over kMaxConfigListEntries (base/config_reader.h), an invalid pattern
// or listen address, an unknown runs.control_group. *out is left unchanged on
// any error.
Status ParseConfig(std::string_view yaml, std::string_view filename, Config* out);

// Reads and parses a config file: at most kMaxConfigBytes are read.
// NotFound / IOError name the path.
Status LoadConfigFile(const std::string& path, Config* out);

// Whether live capture runs under this config.
bool CaptureEnabled(const CollectorsSection& c);
// InvalidArgument when the pcap collector is switched on (--collector.pcap,
// collectors.pcap.enabled: true) without an interface to capture on.
Status CheckCaptureInterfaces(const CollectorsSection& c);

class ConfigReader;
// Parses the limits section (daemon/config_limits.cc) over *out: cpu_percent,
// cpu_window, memory_bytes.
Status ParseLimits(const ConfigReader& r, const YAML::Node& n, SelfLimitOptions* out);

// Parses the runs section (daemon/config_runs.cc) over *out.
Status ParseRuns(const ConfigReader& r, const YAML::Node& n, RunsConfig* out);

}  // namespace bottleneckd
