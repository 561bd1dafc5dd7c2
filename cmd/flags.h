// Command-line flags, node_exporter style: --name=value or --name value,
// --collector.NAME / --no-collector.NAME, parsed with CLI11. The top level is
// the daemon and its modes (--once, --config.check, --report, --replay);
// calibrate, record, run and pcap are subcommands with their own flags and
// help. Each flag names the modes it applies to: given to any other it is a
// usage error, as is an unknown flag, a missing value or a value given to a
// switch (main exits 2 on every one). A flag given on the command line
// overrides the config file; unset flags leave the config alone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "daemon/config.h"

namespace bottleneckd {

struct Flags {
  std::string config_file;  // --config.file
  bool config_file_given = false;
  bool config_check = false;            // --config.check: validate and exit
  bool once = false;                    // --once: two samples, print /metrics, exit
  bool soaker = false;                  // --soaker: the daemon's life is one run (soaker on)
  std::string command;                  // "" (the daemon), "calibrate", "record", "run" or "pcap"
  std::string record_out;               // record --out DIR
  double record_seconds = 30;           // record --duration D (default 30s, at most 24h)
  std::string run_name;                 // run --name N (default: the command line)
  std::vector<std::string> run_argv;    // run ... -- CMD ARGS...
  std::string run_join;                 // run --join NAME: start NAME in the daemon, wrap nothing
  std::string run_leave;                // run --leave NAME: stop it, print its report
  std::vector<std::string> pcap_files;  // pcap FILE... / --report --pcap FILE
  bool report = false;                  // --report: runs with verdicts (run store, or --replay)
  std::string report_run;               // --run NAME: that run and its segments
  size_t report_last = 10;              // --last N: the newest N runs
  std::string format = "text";          // --format text|json
  std::optional<std::string> replay;    // --replay DIR
  // The fleet report (--report --prometheus.url URL, fleet/): many hosts from
  // a Prometheus-compatible query API instead of this host's run store.
  std::string prometheus_url;                  // --prometheus.url
  std::string selector;                        // --selector '{job="..."}' ("" = every instance: "{}")
  std::optional<double> since;                 // --since D
  double prometheus_timeout = 30;              // --prometheus.timeout D
  std::string bearer_token_file, ca_file;      // --prometheus.bearer-token-file, --prometheus.ca-file
  std::vector<std::string> fleet_flags_given;  // the fleet flags given, for the check that --prometheus.url is
  bool help = false, version = false;
  std::string help_text;                       // with help: the help of the command it was asked of
  std::optional<std::string> web_config_file;  // --web.config.file
  std::optional<std::string> listen_address, procfs, sysfs, ethtool, log_level, state_dir, control_socket;
  std::vector<std::string> enable, disable;  // --collector.X / --no-collector.X
  std::vector<std::string>
      capture_interfaces;  // --capture.interface IF (repeatable): replaces collectors.pcap.interfaces
  std::optional<std::string> capture_filter;  // --capture.filter EXPR (BPF)
};

inline constexpr const char* kDefaultConfigFile = "/etc/bottleneckd/bottleneckd.yaml";

// Parses argv[1..]. InvalidArgument names the offending flag and, for a flag
// of another command, the commands it is for.
Status ParseFlags(int argc, const char* const* argv, Flags* out);

// Applies the flags given on the command line over `config`.
Status ApplyFlags(const Flags& flags, Config* config);

// The generated help of the top level ("") or of a subcommand.
std::string Usage(const std::string& command = "");

// The command line as data, for what is generated from it besides --help
// (the man page and the shell completion, cmd/manpage.h): the same table
// that parses the flags and writes Usage(), so none of them can drift.
struct CliFlag {
  std::string name;                   // "--path.procfs"
  std::string value;                  // "DIR"; empty for a switch
  std::string help;                   // as --help shows it
  std::string group;                  // --help's heading; "" for the --collector.NAME switches
  std::vector<std::string> choices;   // the only values it takes ("text", "json", "html"); empty: any
  std::string modes;                  // the modes it goes with, in words: "the daemon, --once and record"
  bool top_level = false;             // the top level's parser takes it
  std::vector<std::string> commands;  // the subcommands whose parsers take it
};

struct CliCommand {
  std::string name;           // "calibrate"; a top-level mode: "the daemon", "--once", "--replay"
  std::string summary;        // as --help shows it
  std::string operands;       // what follows its name: "FILE..." (pcap), "-- CMD [ARGS...]" (run), "DIR" (--replay)
  std::string operands_help;  // what they are
};

struct CliCollector {
  std::string name;           // "softnet": --collector.softnet, --no-collector.softnet
  std::string default_state;  // "on", "off", "auto"
  std::string help;
};

struct CliDescription {
  std::string program;            // "bottleneckd"
  std::string description;        // the top level's (the daemon's) description
  std::vector<CliCommand> modes;  // the top level's: the daemon, --once, --config.check, --report, --replay
  std::vector<CliCommand> commands;
  // Top-level modes also written as commands: {"report", "--report"},
  // {"replay", "--replay"} (`bottleneckd report --run NAME`).
  std::vector<std::pair<std::string, std::string>> mode_commands;
  std::vector<CliFlag> flags;  // --help (-h) first, then the table's order, collector switches last
  std::vector<CliCollector> collectors;
};

// The description of this build's command line (the collectors included).
CliDescription DescribeCli();

}  // namespace bottleneckd
