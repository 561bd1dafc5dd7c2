#include "cmd/flags.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "collectors/collector.h"

namespace bottleneckd {
namespace {

bool KnownCollector(std::string_view name) {
  if (name == "irqtime") return true;  // a source (sources/irqtime.h), not a polled collector
  for (const auto& c : CollectorRegistry())
    if (c.name == name) return true;
  return false;
}

}  // namespace

Status ParseFlags(int argc, const char* const* argv, Flags* out) {
  Flags f;
  f.config_file = kDefaultConfigFile;
  bool duration_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--" && f.command == "run") {  // the wrapped command: everything after
      for (int j = i + 1; j < argc; ++j) f.run_argv.emplace_back(argv[j]);
      break;
    }
    std::string name(arg), value;
    bool has_value = false;
    if (size_t eq = arg.find('='); eq != std::string_view::npos) {
      name = std::string(arg.substr(0, eq));
      value = std::string(arg.substr(eq + 1));
      has_value = true;
    }
    auto take = [&](std::optional<std::string>* dst) -> Status {
      if (!has_value) {
        if (i + 1 >= argc) return Status::InvalidArgument("flag " + name + " needs a value");
        value = argv[++i];
      }
      *dst = value;
      return Status::OK();
    };
    auto no_value = [&]() -> Status {
      return has_value ? Status::InvalidArgument("flag " + name + " takes no value") : Status::OK();
    };
    if (name == "-h" || name == "--help") {
      f.help = true;
    } else if (name == "--version") {
      f.version = true;
    } else if (name == "--config.file") {
      std::optional<std::string> v;
      BN_RETURN_IF_ERROR(take(&v));
      f.config_file = *v;
      f.config_file_given = true;
    } else if (name == "--config.check") {
      BN_RETURN_IF_ERROR(no_value());
      f.config_check = true;
    } else if (name == "--once") {
      BN_RETURN_IF_ERROR(no_value());
      f.once = true;
    } else if (name == "--soaker") {
      BN_RETURN_IF_ERROR(no_value());
      f.soaker = true;
    } else if (name == "--path.state") {
      BN_RETURN_IF_ERROR(take(&f.state_dir));
    } else if ((name == "calibrate" || name == "record" || name == "run" || name == "pcap") && f.command.empty()) {
      f.command = name;
    } else if (name == "--out") {
      std::optional<std::string> v;
      BN_RETURN_IF_ERROR(take(&v));
      if (v->empty()) return Status::InvalidArgument("--out needs a directory");
      f.record_out = *v;
    } else if (name == "--duration") {
      std::optional<std::string> v;
      BN_RETURN_IF_ERROR(take(&v));
      if (!ParseDuration(*v, &f.record_seconds) || f.record_seconds > 24 * 3600)
        return Status::InvalidArgument("--duration must be a duration like 30s, 10m or 2h, at most 24h, got '" + *v +
                                       "'");
      duration_given = true;
    } else if (name == "--report") {
      BN_RETURN_IF_ERROR(no_value());
      f.report = true;
    } else if (name == "--format") {
      std::optional<std::string> v;
      BN_RETURN_IF_ERROR(take(&v));
      if (*v != "text" && *v != "json")
        return Status::InvalidArgument("--format must be text or json, got '" + *v + "'");
      f.format = *v;
    } else if (name == "--replay") {
      BN_RETURN_IF_ERROR(take(&f.replay));
      if (f.replay->empty()) return Status::InvalidArgument("--replay needs a recording directory");
    } else if (f.command == "pcap" && !name.empty() && (name[0] != '-' || arg == "-")) {
      f.pcap_files.push_back(std::string(arg));  // a capture file; "-" is standard input
    } else if (name == "--pcap") {
      std::optional<std::string> v;
      BN_RETURN_IF_ERROR(take(&v));
      if (v->empty()) return Status::InvalidArgument("--pcap needs a capture file");
      f.pcap_files.push_back(*v);
    } else if (name == "--name") {
      std::optional<std::string> v;
      BN_RETURN_IF_ERROR(take(&v));
      if (v->empty()) return Status::InvalidArgument("--name needs a run name");
      f.run_name = *v;
    } else if (name == "--run") {
      std::optional<std::string> v;
      BN_RETURN_IF_ERROR(take(&v));
      f.report_run = *v;
    } else if (name == "--last") {
      std::optional<std::string> v;
      BN_RETURN_IF_ERROR(take(&v));
      char* end = nullptr;
      unsigned long n = std::strtoul(v->c_str(), &end, 10);
      if (v->empty() || *end != '\0' || n == 0 || n > 100000)
        return Status::InvalidArgument("--last must be a number of runs from 1 to 100000, got '" + *v + "'");
      f.report_last = n;
    } else if (name == "--control.socket") {
      BN_RETURN_IF_ERROR(take(&f.control_socket));
    } else if (name == "--web.listen-address") {
      BN_RETURN_IF_ERROR(take(&f.listen_address));
    } else if (name == "--path.procfs") {
      BN_RETURN_IF_ERROR(take(&f.procfs));
    } else if (name == "--path.sysfs") {
      BN_RETURN_IF_ERROR(take(&f.sysfs));
    } else if (name == "--path.ethtool") {
      BN_RETURN_IF_ERROR(take(&f.ethtool));
    } else if (name == "--log.level") {
      BN_RETURN_IF_ERROR(take(&f.log_level));
    } else if (name == "--capture.interface") {
      std::optional<std::string> v;
      BN_RETURN_IF_ERROR(take(&v));
      if (v->empty() || v->size() > 15 || v->find('/') != std::string::npos)
        return Status::InvalidArgument("--capture.interface needs an interface name, got '" + *v + "'");
      f.capture_interfaces.push_back(*v);
    } else if (name == "--capture.filter") {
      BN_RETURN_IF_ERROR(take(&f.capture_filter));
    } else if (name.rfind("--collector.", 0) == 0 || name.rfind("--no-collector.", 0) == 0) {
      BN_RETURN_IF_ERROR(no_value());
      bool enable = name[2] == 'c';
      std::string c = name.substr(enable ? 12 : 15);
      if (!KnownCollector(c)) return Status::InvalidArgument("unknown collector in " + name);
      (enable ? f.enable : f.disable).push_back(c);
    } else {
      return Status::InvalidArgument("unknown flag " + name + " (see --help)");
    }
  }
  if (f.command == "record" && f.record_out.empty())
    return Status::InvalidArgument("record needs --out DIR (a new or empty directory)");
  if (f.command != "record" && (!f.record_out.empty() || duration_given))
    return Status::InvalidArgument("--out and --duration belong to the record command (bottleneckd record --out DIR)");
  if (f.replay && !f.command.empty()) return Status::InvalidArgument("--replay does not go with " + f.command);
  if (f.command == "pcap" && f.pcap_files.empty())
    return Status::InvalidArgument("pcap needs capture files: bottleneckd pcap FILE... [--format text|json]");
  if (f.command != "pcap" && !f.pcap_files.empty() && !f.report)
    return Status::InvalidArgument("--pcap FILE goes with --report (or use bottleneckd pcap FILE...)");
  if (f.report && !f.pcap_files.empty() && f.replay)
    return Status::InvalidArgument("--pcap and --replay are different reports: give one");
  if (f.command == "run" && f.run_argv.empty())
    return Status::InvalidArgument("run needs a command: bottleneckd run [--name N] -- CMD [ARGS...]");
  if (f.command != "run" && !f.run_name.empty()) return Status::InvalidArgument("--name belongs to the run command");
  if ((!f.report_run.empty() || f.report_last != 10) && (!f.report || f.replay))
    return Status::InvalidArgument(
        "--run and --last select runs of the run store: use them with --report (without --replay)");
  *out = std::move(f);
  return Status::OK();
}

Status ApplyFlags(const Flags& f, Config* c) {
  if (f.listen_address) c->listen_address = *f.listen_address;
  if (f.procfs) c->roots.procfs = *f.procfs;
  if (f.sysfs) c->roots.sysfs = *f.sysfs;
  if (f.ethtool) c->roots.ethtool = *f.ethtool;
  if (f.state_dir) c->state_dir = c->soaker.state_dir = *f.state_dir;
  if (f.control_socket) c->runs.control_socket = *f.control_socket;
  if (f.soaker) {
    c->run_active = true;
    if (c->soaker.mode == SoakerMode::kOff) c->soaker.mode = SoakerMode::kRuns;
  }
  if (!f.capture_interfaces.empty()) c->collectors.pcap.interfaces = f.capture_interfaces;
  if (f.capture_filter) {
    if (!f.capture_filter->empty())
      BN_RETURN_IF_ERROR(CheckCaptureFilter(*f.capture_filter).WithContext("--capture.filter"));
    c->collectors.pcap.filter = *f.capture_filter;
  }
  if (f.log_level && !ParseLogLevel(*f.log_level, &c->log_level))
    return Status::InvalidArgument("--log.level must be debug, info, warn or error, got '" + *f.log_level + "'");
  auto& en = c->collectors.enabled;
  auto& dis = c->collectors.disabled;
  for (const std::string& n : f.enable) {
    dis.erase(std::remove(dis.begin(), dis.end(), n), dis.end());
    en.push_back(n);
  }
  for (const std::string& n : f.disable) {
    en.erase(std::remove(en.begin(), en.end(), n), en.end());
    dis.push_back(n);
  }
  return Status::OK();
}

std::string Usage() {
  std::string u =
      "usage: bottleneckd [flags]\n"
      "       bottleneckd calibrate [flags]   measure the soaker's per-CPU rate and store it\n"
      "       bottleneckd record --out DIR [--duration 30s] [flags]\n"
      "                                       record this host's kernel files into a recording\n"
      "                                       (docs/recording-format.md; at most 24h; SIGINT\n"
      "                                       stops early and keeps the samples so far)\n"
      "       bottleneckd run [--name N] -- CMD [ARGS...]\n"
      "                                       run CMD as a named run of the daemon (or, with no\n"
      "                                       daemon, sample in-process) and print its verdict;\n"
      "                                       exits with CMD's exit code (125: bottleneckd failed,\n"
      "                                       126: CMD cannot run, 127: CMD not found)\n"
      "       bottleneckd pcap FILE... [--format json]    (or --report --pcap FILE)\n"
      "                                       analyse captures (pcap, pcapng): applied vs echoed\n"
      "                                       rate, loss per flow, turnaround, sizes (docs/pcap.md)\n"
      "       bottleneckd --report [--run NAME] [--last N] [--format json]\n"
      "                                       the run store's runs (newest 10), or a run's sweep\n"
      "                                       table (its segments), from STATE_DIR/runs.db\n"
      "\n"
      "Samples this host's CPU, interrupt, softirq, NIC and socket counters and serves\n"
      "them as Prometheus metrics.\n"
      "\n"
      "  --config.file=PATH          YAML config (default " +
      std::string(kDefaultConfigFile) +
      ";\n"
      "                              built-in defaults when that file is absent)\n"
      "  --config.check              validate the config and exit (0 = valid)\n"
      "  --web.listen-address=ADDR   :PORT, HOST:PORT or [IPV6]:PORT (default :9858)\n"
      "  --path.procfs=DIR           procfs mount point (default /proc)\n"
      "  --path.sysfs=DIR            sysfs mount point (default /sys)\n"
      "  --path.ethtool=DIR          recorded `ethtool -S IF` files, one per interface\n"
      "                              (default: ask drivers through SIOCETHTOOL)\n"
      "  --log.level=LEVEL           debug, info, warn or error (default info)\n"
      "  --path.state=DIR            state directory: calibrations, runs.db (default\n"
      "                              /var/lib/bottleneckd)\n"
      "  --control.socket=PATH       Unix socket for run start/stop (default\n"
      "                              /run/bottleneckd/control.sock; owner and group only)\n"
      "  --soaker                    run the soaker (per-CPU idle as delivered cycles) for the\n"
      "                              daemon's whole life, as one run\n"
      "  --once                      take two samples one interval apart, print the\n"
      "                              metrics to stdout and exit\n"
      "  --replay DIR                replay a recording through the collectors and windows\n"
      "                              (with --report: verdicts; alone: a window summary,\n"
      "                              one line per window)\n"
      "  --report                    each run's verdict, evidence and the sweep table\n"
      "                              (offered, received, application, CPU, soaker idle,\n"
      "                              interrupts, bus), plateau and MLFRR: of a recording\n"
      "                              with --replay,\n"
      "                              else of the run store (--run NAME, --last N)\n"
      "  --format=text|json          the report's format (default text)\n"
      "  --capture.interface=IF      capture live on IF with libpcap (repeat for more; needs\n"
      "                              CAP_NET_RAW, dropped once the captures are open):\n"
      "                              applied vs echoed rate, turnaround, sizes (docs/pcap.md)\n"
      "  --capture.filter=EXPR       BPF filter of the live capture (default: every frame)\n"
      "  --collector.NAME            enable a collector; --no-collector.NAME disables it\n"
      "  --version, --help\n"
      "\n"
      "Collectors:\n";
  for (const auto& c : CollectorRegistry()) {
    std::string line = "  " + c.name;
    line.resize(16, ' ');
    u += line + (c.default_enabled ? "[on]  " : "[off] ") + c.help + "\n";
  }
  u += "\nSignals: SIGHUP reloads the config file, SIGTERM/SIGINT stop.\n";
  return u;
}

}  // namespace bottleneckd
