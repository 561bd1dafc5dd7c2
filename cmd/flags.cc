#include "cmd/flags.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "base/listen_address.h"
#include "base/log.h"
#include "base/parse_util.h"
#include "collectors/collector.h"
#include "sources/capture.h"
#include "sources/source_registry.h"

namespace bottleneckd {
namespace {

// What a command line makes bottleneckd do. Every flag names the modes it
// applies to; given anywhere else it is a usage error.
enum Mode : unsigned {
  kDaemon = 1u << 0,
  kOnce = 1u << 1,
  kCheck = 1u << 2,
  kReport = 1u << 3,
  kReplay = 1u << 4,  // --replay DIR without --report: the window summary
  kCalibrate = 1u << 5,
  kRecord = 1u << 6,
  kRun = 1u << 7,
  kPcap = 1u << 8,
};
constexpr unsigned kTopLevel = kDaemon | kOnce | kCheck | kReport | kReplay;
constexpr unsigned kLive = kDaemon | kOnce | kCheck;  // samples this host, serves or prints /metrics
constexpr unsigned kHost = kLive | kRecord | kRun;    // reads this host's collectors
constexpr unsigned kAll = kTopLevel | kCalibrate | kRecord | kRun | kPcap;

std::string ModeName(unsigned m) {
  switch (m) {
    case kDaemon: return "the daemon";
    case kOnce: return "--once";
    case kCheck: return "--config.check";
    case kReport: return "--report";
    case kReplay: return "--replay";
    case kCalibrate: return "calibrate";
    case kRecord: return "record";
    case kRun: return "run";
    case kPcap: return "pcap";
  }
  return "?";
}

std::string ModeList(unsigned modes) {
  std::vector<std::string> names;
  for (unsigned m = 1; m <= kPcap; m <<= 1)
    if (modes & m) names.push_back(ModeName(m));
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

struct Command {
  const char* name;
  Mode mode;
  const char* summary;
  const char* operands = "";  // what follows its flags
  const char* operands_help = "";
};

constexpr Command kCommands[] = {
    {"calibrate", kCalibrate, "Measure the soaker's per-CPU rate and store it in the state directory."},
    {"record", kRecord,
     "Record this host's kernel files into a recording (docs/recording-format.md), at most 24h; SIGINT stops "
     "early and keeps the samples so far."},
    {"run", kRun,
     "Run CMD as a named run of the daemon (or, with no daemon, sample in-process) and print its verdict. Exits "
     "with CMD's exit code (125: bottleneckd failed, 126: CMD cannot run, 127: CMD not found).",
     "-- CMD [ARGS...]", "the command to run as the run (its own flags stay its own)"},
    {"pcap", kPcap,
     "Analyse captures (pcap, pcapng; - is standard input): applied vs echoed rate, loss per flow, turnaround, "
     "sizes (docs/pcap.md).",
     "FILE...", "capture files (pcap, pcapng); - is standard input"},
};

// Modes that are flags, also written as commands: `bottleneckd report --run
// NAME` is `bottleneckd --report --run NAME` (a new user types the verb).
constexpr std::pair<const char*, const char*> kModeCommands[] = {{"report", "--report"}, {"replay", "--replay"}};

// The known word nearest `word`, dashes aside: at most one edit for a word
// of up to four letters, two for a longer one, a swap of neighbours counting
// as one (optimal string alignment distance). The suggestion after an unknown
// command or flag; empty when none is that near ("--nope" suggests nothing,
// "--reprot" --report). Written here: CLI11 2.1 (Debian 12's) suggests
// nothing, and this runs only on a command line that is already an error.
std::string Nearest(const std::string& word, const std::vector<std::string>& known) {
  auto bare = [](const std::string& w) { return w.substr(std::min(w.find_first_not_of('-'), w.size())); };
  const std::string a = bare(word);
  std::string best;
  size_t best_d = (a.size() <= 4 ? 1 : 2) + 1;
  for (const std::string& k : known) {
    const std::string b = bare(k);
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      for (size_t j = 1; j <= b.size(); ++j) {
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
    if (d[a.size()][b.size()] < best_d) {
      best_d = d[a.size()][b.size()];
      best = k;
    }
  }
  return best;
}

constexpr const char* kDescription =
    "Samples this host's CPU, interrupt, softirq, NIC, PCI and socket counters, labels each window CPU-, "
    "interrupt- or bus-bound (or waiting: losing while its threads wait below 100 % utilisation), and serves "
    "it all as Prometheus metrics.";
constexpr const char* kSignals = "Signals: SIGHUP reloads the config file, SIGTERM/SIGINT stop.";
// The top level's first lines for a new user: the two things people come for.
constexpr const char* kStartHere =
    "Start here:\n"
    "  bottleneckd                                   serve this host's metrics and verdict on :9858\n"
    "  bottleneckd run --name trial -- ./benchmark   a benchmark as a named run, its verdict at the end\n"
    "  bottleneckd report --run trial                that run again: verdict, evidence, sweep table\n";

// A command whose operands come after `--` (run): CLI11 never sees them, so
// its usage line is given them here, the one usage line of the command's help.
class OperandsFormatter : public CLI::Formatter {
 public:
  explicit OperandsFormatter(std::string operands) : operands_(std::move(operands)) { column_width(30); }
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string u = CLI::Formatter::make_usage(app, std::move(name));
    size_t end = u.find_last_not_of('\n');
    return u.substr(0, end + 1) + " " + operands_ + u.substr(end + 1);
  }

 private:
  std::string operands_;
};
const std::vector<std::string> kFormats = {"text", "json", "html", "folded", "folded-offcpu"};
const std::vector<std::string> kPcapFormats = {"text", "json", "html"};
const std::vector<std::string> kLogLevels = {"debug", "info", "warn", "error"};

enum class Kind { kFlag, kValue, kRepeated };

// Parsing state: the first error a setter found, and the flags given on
// the top level (checked against the mode once it is known).
struct State {
  Flags* f = nullptr;
  Status error;
  std::vector<const struct Spec*> top_level_given;
  bool last_given = false;
  void Fail(Status s) {
    if (error.ok()) error = std::move(s);
  }
};

struct Spec {
  std::string name;   // "--path.procfs"
  std::string value;  // "DIR"; empty for a flag
  Kind kind;
  unsigned modes;
  std::string help;
  std::string group;  // "" hides it from the option list (the collector switches: listed in the footer)
  std::function<Status(State*, const std::string&)> set;
  std::vector<std::string> choices = {};  // the only values the setter takes, for the completion
};

// "text, json or html" (and "or folded"): the choices as a sentence.
std::string OneOf(const std::vector<std::string>& choices) {
  std::string s;
  for (size_t i = 0; i < choices.size(); ++i) s += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  return s;
}

// --format for `modes` (in help group `group`), taking `formats` (text first,
// the default; the help names the first three, more_help the rest).
Spec FormatSpec(unsigned modes, const std::string& group, const std::string& more_help,
                const std::vector<std::string>& formats) {
  const std::vector<std::string> shown(formats.begin(), formats.begin() + std::min<size_t>(3, formats.size()));
  return {"--format",
          "FORMAT",
          Kind::kValue,
          modes,
          OneOf(shown) + " (default text)" + more_help,
          group,
          [formats](State* st, const std::string& v) {
            if (std::find(formats.begin(), formats.end(), v) == formats.end())
              return Status::InvalidArgument("--format must be " + OneOf(formats) + ", got '" + v + "'");
            st->f->format = v;
            return Status::OK();
          },
          formats};
}

Status NonEmpty(const std::string& flag, const std::string& v, const char* what) {
  if (v.empty()) return Status::InvalidArgument(flag + " needs " + what);
  return Status::OK();
}

// Setters for the common shapes.
std::function<Status(State*, const std::string&)> Into(std::optional<std::string> Flags::*field) {
  return [field](State* st, const std::string& v) {
    st->f->*field = v;
    return Status::OK();
  };
}

std::function<Status(State*, const std::string&)> Set(bool Flags::*field) {
  return [field](State* st, const std::string&) {
    st->f->*field = true;
    return Status::OK();
  };
}

std::vector<Spec> BuildSpecs() {
  const std::string g_main = "General", g_host = "Host", g_daemon = "Daemon", g_report = "Report";
  std::vector<Spec> s = {
      {"--config.file", "PATH", Kind::kValue, kAll & ~kPcap,
       std::string("YAML config (default ") + kDefaultConfigFile + "; built-in defaults when that file is absent)",
       g_main,
       [](State* st, const std::string& v) {
         BN_RETURN_IF_ERROR(NonEmpty("--config.file", v, "a file"));
         st->f->config_file = v;
         st->f->config_file_given = true;
         return Status::OK();
       }},
      {"--log.level", "LEVEL", Kind::kValue, kAll & ~kPcap, "debug, info, warn or error (default info)", g_main,
       [](State* st, const std::string& v) {
         LogLevel l;
         if (!ParseLogLevel(v, &l))
           return Status::InvalidArgument("--log.level must be debug, info, warn or error, got '" + v + "'");
         st->f->log_level = v;
         return Status::OK();
       },
       kLogLevels},
      {"--path.procfs", "DIR", Kind::kValue, kHost | kCalibrate, "procfs mount point (default /proc)", g_host,
       Into(&Flags::procfs)},
      {"--path.sysfs", "DIR", Kind::kValue, kHost | kCalibrate, "sysfs mount point (default /sys)", g_host,
       Into(&Flags::sysfs)},
      {"--path.ethtool", "DIR", Kind::kValue, kHost,
       "recorded `ethtool -S IF` files, one per interface (default: ask drivers through SIOCETHTOOL)", g_host,
       Into(&Flags::ethtool)},
      {"--path.state", "DIR", Kind::kValue, kHost | kCalibrate | kReport,
       "state directory: calibrations, runs.db (default /var/lib/bottleneckd)", g_host, Into(&Flags::state_dir)},
      {"--web.listen-address", "ADDR", Kind::kValue, kDaemon | kCheck,
       ":PORT, HOST:PORT or [IPV6]:PORT (default :9858)", g_daemon,
       [](State* st, const std::string& v) {
         ListenAddress a;
         BN_RETURN_IF_ERROR(ParseListenAddress(v, &a).WithContext("--web.listen-address"));
         st->f->listen_address = v;
         return Status::OK();
       }},
      {"--web.config.file", "FILE", Kind::kValue, kDaemon | kCheck,
       "the exporter toolkit's web config (node_exporter's format): TLS, client certificates, basic auth "
       "(docs/web-config.md; default none: plain HTTP)",
       g_daemon, Into(&Flags::web_config_file)},
      {"--control.socket", "PATH", Kind::kValue, kDaemon | kCheck | kRun | kReport,
       "Unix socket for run start/stop (default /run/bottleneckd/control.sock; owner and group only); with report, "
       "read the run store of the daemon listening there",
       g_daemon, Into(&Flags::control_socket)},
      {"--soaker", "", Kind::kFlag, kLive | kRecord,
       "run the soaker (per-CPU idle as delivered cycles) for the whole life of the daemon, as one run", g_daemon,
       Set(&Flags::soaker)},
      {"--capture.interface", "IF", Kind::kRepeated, kLive | kRun,
       "capture live on IF with libpcap (repeat for more; needs CAP_NET_RAW, dropped once the captures are open): "
       "applied vs echoed rate, turnaround, sizes (docs/pcap.md)",
       g_daemon,
       [](State* st, const std::string& v) {
         if (v.empty() || v.size() > 15 || v.find('/') != std::string::npos)
           return Status::InvalidArgument("--capture.interface needs an interface name, got '" + v + "'");
         st->f->capture_interfaces.push_back(v);
         return Status::OK();
       }},
      {"--capture.filter", "EXPR", Kind::kValue, kLive | kRun, "BPF filter of the live capture (default: every frame)",
       g_daemon,
       [](State* st, const std::string& v) {
         if (!v.empty()) BN_RETURN_IF_ERROR(CheckCaptureFilter(v).WithContext("--capture.filter"));
         st->f->capture_filter = v;
         return Status::OK();
       }},
      {"--once", "", Kind::kFlag, kOnce, "take two samples one interval apart, print the metrics to stdout and exit",
       g_main, Set(&Flags::once)},
      {"--config.check", "", Kind::kFlag, kCheck, "validate the config and the flags, and exit (0 = valid)", g_main,
       Set(&Flags::config_check)},
      {"--report", "", Kind::kFlag, kReport,
       "each run's verdict, evidence and the sweep table (offered, received, application, CPU, soaker idle, "
       "interrupts, bus), plateau and MLFRR: of a recording with --replay, of captures with --pcap, else of the "
       "run store (--run NAME, --last N); also written as a command: bottleneckd report [--run NAME]",
       g_report, Set(&Flags::report)},
      {"--replay", "DIR", Kind::kValue, kReport | kReplay,
       "replay a recording through the collectors and windows (with --report: verdicts; alone: a window summary, "
       "one line per window); also written as a command: bottleneckd replay DIR",
       g_report,
       [](State* st, const std::string& v) {
         BN_RETURN_IF_ERROR(NonEmpty("--replay", v, "a recording directory"));
         st->f->replay = v;
         return Status::OK();
       }},
      {"--prometheus.url", "URL", Kind::kValue, kReport,
       "the fleet report: every instance's verdict from this Prometheus-compatible query API (Prometheus, "
       "VictoriaMetrics) instead of this host's run store; with --run NAME, that run across hosts",
       g_report,
       [](State* st, const std::string& v) {
         BN_RETURN_IF_ERROR(NonEmpty("--prometheus.url", v, "an http:// or https:// URL"));
         st->f->prometheus_url = v;
         return Status::OK();
       }},
      {"--selector", "SEL", Kind::kValue, kReport,
       "with --prometheus.url: the instances to read, as label matchers: '{job=\"bottleneckd\"}' (default: all)",
       g_report,
       [](State* st, const std::string& v) {
         st->f->selector = v;
         st->f->fleet_flags_given.push_back("--selector");
         return Status::OK();
       }},
      {"--since", "D", Kind::kValue, kReport,
       "with --prometheus.url: the span, the last D (default 1h); with --run, how far back to look for the run "
       "(default 7d)",
       g_report,
       [](State* st, const std::string& v) {
         double d = 0;
         if (!ParseDuration(v, &d) || d < 1 || d > 366 * 86400)
           return Status::InvalidArgument("--since must be a duration like 30m, 6h or 7d, from 1s to 366d, got '" + v +
                                          "'");
         st->f->since = d;
         st->f->fleet_flags_given.push_back("--since");
         return Status::OK();
       }},
      {"--prometheus.timeout", "D", Kind::kValue, kReport,
       "with --prometheus.url: how long each query may take (default 30s)", g_report,
       [](State* st, const std::string& v) {
         if (!ParseDuration(v, &st->f->prometheus_timeout) || st->f->prometheus_timeout <= 0 ||
             st->f->prometheus_timeout > 3600)
           return Status::InvalidArgument("--prometheus.timeout must be a duration like 10s or 2m, at most 1h, got '" +
                                          v + "'");
         st->f->fleet_flags_given.push_back("--prometheus.timeout");
         return Status::OK();
       }},
      {"--prometheus.bearer-token-file", "FILE", Kind::kValue, kReport,
       "with --prometheus.url: send the token on FILE's first line as Authorization: Bearer", g_report,
       [](State* st, const std::string& v) {
         BN_RETURN_IF_ERROR(NonEmpty("--prometheus.bearer-token-file", v, "a file"));
         st->f->bearer_token_file = v;
         st->f->fleet_flags_given.push_back("--prometheus.bearer-token-file");
         return Status::OK();
       }},
      {"--prometheus.ca-file", "FILE", Kind::kValue, kReport,
       "with an https --prometheus.url: the CA certificates (PEM) to check the server's with", g_report,
       [](State* st, const std::string& v) {
         BN_RETURN_IF_ERROR(NonEmpty("--prometheus.ca-file", v, "a file"));
         st->f->ca_file = v;
         st->f->fleet_flags_given.push_back("--prometheus.ca-file");
         return Status::OK();
       }},
      {"--run", "NAME", Kind::kValue, kReport,
       "the run store's run NAME and its segments; with --prometheus.url, run NAME across hosts", g_report,
       [](State* st, const std::string& v) {
         st->f->report_run = v;
         return Status::OK();
       }},
      {"--last", "N", Kind::kValue, kReport, "the newest N runs of the run store (default 10)", g_report,
       [](State* st, const std::string& v) {
         char* end = nullptr;
         unsigned long n = std::strtoul(v.c_str(), &end, 10);
         if (v.empty() || v[0] == '-' || *end != '\0' || n == 0 || n > 100000)
           return Status::InvalidArgument("--last must be a number of runs from 1 to 100000, got '" + v + "'");
         st->f->report_last = n;
         st->last_given = true;
         return Status::OK();
       }},
      {"--pcap", "FILE", Kind::kRepeated, kReport, "with --report: analyse a capture file (repeat for more)", g_report,
       [](State* st, const std::string& v) {
         BN_RETURN_IF_ERROR(NonEmpty("--pcap", v, "a capture file"));
         st->f->pcap_files.push_back(v);
         return Status::OK();
       }},
      FormatSpec(kReport, g_report,
                 "; folded: a run's on-CPU stacks (--report --run NAME), folded-offcpu: its off-CPU stacks "
                 "(microseconds)",
                 kFormats),
      // pcap's own: a capture has no stacks to fold (its help offered folded,
      // which pcap then refused).
      FormatSpec(kPcap, g_report, "", kPcapFormats),
      {"--out", "DIR", Kind::kValue, kRecord, "the recording's directory (new or empty; required)", g_main,
       [](State* st, const std::string& v) {
         BN_RETURN_IF_ERROR(NonEmpty("--out", v, "a directory"));
         st->f->record_out = v;
         return Status::OK();
       }},
      {"--duration", "D", Kind::kValue, kRecord, "how long to record, like 30s, 10m or 2h (default 30s, at most 24h)",
       g_main,
       [](State* st, const std::string& v) {
         if (!ParseDuration(v, &st->f->record_seconds) || st->f->record_seconds > 24 * 3600)
           return Status::InvalidArgument("--duration must be a duration like 30s, 10m or 2h, at most 24h, got '" + v +
                                          "'");
         return Status::OK();
       }},
      {"--name", "N", Kind::kValue, kRun, "the run's name (default: the command line)", g_main,
       [](State* st, const std::string& v) {
         BN_RETURN_IF_ERROR(NonEmpty("--name", v, "a run name"));
         st->f->run_name = v;
         return Status::OK();
       }},
      {"--join", "NAME", Kind::kValue, kRun,
       "start run NAME in this host's daemon and return, wrapping no command (this host's part of a run started "
       "elsewhere)",
       g_main,
       [](State* st, const std::string& v) {
         BN_RETURN_IF_ERROR(NonEmpty("--join", v, "a run name"));
         st->f->run_join = v;
         return Status::OK();
       }},
      {"--leave", "NAME", Kind::kValue, kRun, "stop run NAME in this host's daemon and print its report", g_main,
       [](State* st, const std::string& v) {
         BN_RETURN_IF_ERROR(NonEmpty("--leave", v, "a run name"));
         st->f->run_leave = v;
         return Status::OK();
       }},
      {"--version", "", Kind::kFlag, kTopLevel, "print the version and exit", g_main, Set(&Flags::version)},
  };
  auto add_switch = [&](const std::string& name) {
    s.push_back({"--collector." + name, "", Kind::kFlag, kHost, "", "", [name](State* st, const std::string&) {
                   st->f->enable.push_back(name);
                   return Status::OK();
                 }});
    s.push_back({"--no-collector." + name, "", Kind::kFlag, kHost, "", "", [name](State* st, const std::string&) {
                   st->f->disable.push_back(name);
                   return Status::OK();
                 }});
  };
  for (const CollectorInfo& c : CollectorRegistry()) add_switch(c.name);
  for (const SourceEntry* c : SourceRegistry())
    if (c->switchable()) add_switch(std::string(c->name()));
  return s;
}

const std::vector<Spec>& Specs() {
  static const std::vector<Spec> kSpecs = BuildSpecs();
  return kSpecs;
}

const Spec* FindSpec(std::string_view name) {
  for (const Spec& s : Specs())
    if (s.name == name) return &s;
  return nullptr;
}

// The modes a flag goes with, over every spec of that name (--format has one
// per command).
unsigned ModesOf(std::string_view name) {
  unsigned modes = 0;
  for (const Spec& s : Specs())
    if (s.name == name) modes |= s.modes;
  return modes;
}

std::string CollectorsFooter() {
  std::string u = "Collectors (--collector.NAME enables, --no-collector.NAME disables):\n";
  auto line = [&](const std::string& name, const std::string& state, const std::string& help) {
    std::string l = "  " + name;
    l.resize(16, ' ');
    std::string st = "[" + state + "]";
    st.resize(7, ' ');
    u += l + st + help + "\n";
  };
  for (const CollectorInfo& c : CollectorRegistry()) line(c.name, c.default_enabled ? "on" : "off", c.help);
  for (const SourceEntry* c : SourceRegistry())
    if (c->switchable()) line(std::string(c->name()), std::string(c->default_state()), std::string(c->help()));
  return u;
}

// Registers the specs of `modes` on `app`; their setters report to *st.
void AddSpecs(CLI::App* app, unsigned modes, bool top_level, State* st) {
  for (const Spec& spec : Specs()) {
    if (!(spec.modes & modes)) continue;
    const Spec* sp = &spec;
    auto run = [st, sp, top_level](const std::string& v) {
      if (top_level) st->top_level_given.push_back(sp);
      if (sp->kind != Kind::kFlag && v.rfind("--", 0) == 0) {
        // CLI11 takes the next word as a value whatever it looks like.
        st->Fail(Status::InvalidArgument(sp->name + " needs a value, got the flag '" + v + "'"));
        return;
      }
      Status s = sp->set(st, v);
      if (!s.ok()) st->Fail(std::move(s));
    };
    CLI::Option* o = nullptr;
    if (spec.kind == Kind::kFlag) {
      o = app->add_flag_callback(
                 spec.name, [run] { run(""); }, spec.help)
              ->disable_flag_override();
    } else {
      o = app->add_option_function<std::string>(spec.name, run, spec.help)->type_name(spec.value);
      if (spec.kind == Kind::kRepeated) o->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
    o->trigger_on_parse()->group(spec.group);
  }
}

// The whole command line's parser: the top level (the daemon and its
// modes) and one subcommand per command, each with its own flags and help.
std::unique_ptr<CLI::App> BuildApp(State* st) {
  auto app = std::make_unique<CLI::App>(kDescription, "bottleneckd");
  app->allow_extras();  // reported by ParseFlags with the command they were given to
  app->get_formatter()->column_width(30);
  AddSpecs(app.get(), kTopLevel, true, st);
  app->footer(std::string(kStartHere) + "\n" + CollectorsFooter() + "\n" + kSignals + "\n");
  for (const Command& c : kCommands) {
    CLI::App* sub = app->add_subcommand(c.name, c.summary);
    sub->allow_extras();
    AddSpecs(sub, c.mode, false, st);
    if (c.mode == kPcap) {
      sub->add_option_function<std::vector<std::string>>(
          "FILE", [st](const std::vector<std::string>& v) { st->f->pcap_files = v; }, c.operands_help);
    }
    std::string footer;  // a subcommand inherits the top level's otherwise
    if (c.mode == kRun) {
      sub->formatter(std::make_shared<OperandsFormatter>(c.operands));
      footer = std::string("After `--`: CMD [ARGS...], ") + c.operands_help + ".\n\n";
    }
    if (c.mode == kRecord || c.mode == kRun) footer += CollectorsFooter();
    sub->footer(footer);
  }
  return app;
}

// CLI11's messages for missing values and values given to flags, in ours.
std::string UsageMessage(const CLI::ParseError& e) {
  std::string m = e.what();
  size_t colon = m.find(':');
  if (m.find("required") != std::string::npos && m.find("missing") != std::string::npos && colon != std::string::npos)
    return "flag " + m.substr(0, colon) + " needs a value";
  if (size_t p = m.find(" was given a disallowed flag override"); p != std::string::npos)
    return "flag --" + m.substr(0, p) + " takes no value";
  return m;
}

// The first word the parser of `app` (mode `mode`) did not take, as a
// message.
Status Unexpected(const std::string& word, unsigned mode, const std::string& command) {
  const std::string help = command.empty() ? "bottleneckd --help" : "bottleneckd " + command + " --help";
  if (word.empty() || word[0] != '-' || word == "-") {
    if (command.empty()) {
      std::vector<std::string> known;
      for (const Command& c : kCommands) known.push_back(c.name);
      for (const auto& [name, flag] : kModeCommands) known.push_back(name);
      std::string near = Nearest(word, known);
      return Status::InvalidArgument("unknown command '" + word + "'" +
                                     (near.empty() ? "" : ": did you mean '" + near + "'?") +
                                     " (commands: calibrate, record, run, pcap, report, replay)");
    }
    return Status::InvalidArgument("unexpected argument '" + word + "' for " + command + " (see " + help + ")");
  }
  std::string name = word.substr(0, word.find('='));
  if (name.rfind("--collector.", 0) == 0 || name.rfind("--no-collector.", 0) == 0) {
    std::string c = name.substr(name[2] == 'c' ? 12 : 15);
    if (!KnownCollectorName(c)) {
      std::vector<std::string> known;
      for (const CollectorInfo& ci : CollectorRegistry()) known.push_back(ci.name);
      for (const SourceEntry* si : SourceRegistry())
        if (si->switchable()) known.push_back(std::string(si->name()));
      std::string near = Nearest(c, known);
      return Status::InvalidArgument(
          "unknown collector '" + c + "' in " + name +
          (near.empty() ? "" : ": did you mean " + name.substr(0, name.size() - c.size()) + near + "?") + " (see " +
          help + ")");
    }
  }
  if (FindSpec(name))
    return Status::InvalidArgument(name + " does not go with " + ModeName(mode) + ": it is for " +
                                   ModeList(ModesOf(name)) + " (see " + help + ")");
  std::vector<std::string> known;
  const unsigned pool = command.empty() ? kTopLevel : mode;  // the top level takes every mode's flags
  for (const Spec& s : Specs())
    if (s.modes & pool) known.push_back(s.name);
  std::string near = Nearest(name, known);
  return Status::InvalidArgument("unknown flag " + name + (near.empty() ? "" : ": did you mean " + near + "?") +
                                 " (see " + help + ")");
}

}  // namespace

Status ParseFlags(int argc, const char* const* argv, Flags* out) {
  Flags f;
  f.config_file = kDefaultConfigFile;
  State st;
  st.f = &f;
  // `--` ends bottleneckd's own flags; what follows is run's command.
  int own = argc;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--") {
      own = i;
      break;
    }
  for (int j = own + 1; j < argc; ++j) f.run_argv.emplace_back(argv[j]);
  // `bottleneckd report ...` and `bottleneckd replay DIR ...` are --report and
  // --replay DIR written as commands (kModeCommands).
  std::vector<const char*> words(argv, argv + own);
  if (words.size() > 1) {
    for (const auto& [command, flag] : kModeCommands)
      if (std::string_view(words[1]) == command) words[1] = flag;
  }
  std::unique_ptr<CLI::App> app = BuildApp(&st);
  CLI::App* sub = nullptr;
  try {
    app->parse(static_cast<int>(words.size()), words.data());
  } catch (const CLI::CallForHelp&) {
    for (CLI::App* s : app->get_subcommands()) sub = s;
    f.help = true;
    f.help_text = sub ? sub->help("bottleneckd") : app->help();
    *out = std::move(f);
    return Status::OK();
  } catch (const CLI::ParseError& e) {
    if (!st.error.ok()) return st.error;
    return Status::InvalidArgument(UsageMessage(e));
  }
  if (!st.error.ok()) return st.error;
  for (CLI::App* s : app->get_subcommands()) sub = s;
  unsigned mode = kDaemon;
  if (sub) {
    f.command = sub->get_name();
    for (const Command& c : kCommands)
      if (f.command == c.name) mode = c.mode;
  } else if (f.config_check) {
    mode = kCheck;
  } else if (f.report) {
    mode = kReport;
  } else if (f.replay) {
    mode = kReplay;
  } else if (f.once) {
    mode = kOnce;
  }
  if (sub && !sub->remaining().empty()) return Unexpected(sub->remaining().front(), mode, f.command);
  if (!app->remaining().empty()) return Unexpected(app->remaining().front(), mode, "");
  for (const Spec* s : st.top_level_given) {
    if (s->modes & mode) continue;
    if (s->name == "--once" || s->name == "--config.check" || s->name == "--report")
      return Status::InvalidArgument(s->name + " and " + ModeName(mode) +
                                     " are different commands: give one (see bottleneckd --help)");
    return Status::InvalidArgument(s->name + " does not go with " + ModeName(mode) + ": it is for " +
                                   ModeList(ModesOf(s->name)) + " (see bottleneckd --help)");
  }
  if (f.version && mode != kDaemon) return Status::InvalidArgument("--version goes alone");
  if (own < argc && mode != kRun)
    return Status::InvalidArgument("`--` belongs to run (bottleneckd run [--name N] -- CMD [ARGS...])");
  if (mode == kRecord && f.record_out.empty())
    return Status::InvalidArgument("record needs --out DIR (a new or empty directory)");
  if (mode == kPcap && f.pcap_files.empty())
    return Status::InvalidArgument("pcap needs capture files: bottleneckd pcap FILE... [--format text|json|html]");
  const bool join_or_leave = !f.run_join.empty() || !f.run_leave.empty();
  if (mode == kRun && !f.run_join.empty() && !f.run_leave.empty())
    return Status::InvalidArgument("--join and --leave are different requests: give one");
  if (mode == kRun && join_or_leave && (!f.run_argv.empty() || !f.run_name.empty()))
    return Status::InvalidArgument(
        "--join and --leave take the run's name and wrap no command: bottleneckd run --join NAME, later "
        "bottleneckd run --leave NAME");
  if (mode == kRun && f.run_argv.empty() && !join_or_leave)
    return Status::InvalidArgument(
        "run needs a command: bottleneckd run [--name N] -- CMD [ARGS...] (or --join NAME / --leave NAME)");
  if (mode == kReport && !f.pcap_files.empty() && f.replay)
    return Status::InvalidArgument("--pcap and --replay are different reports: give one");
  if (mode == kReport && (!f.pcap_files.empty() || f.replay) && (!f.report_run.empty() || st.last_given))
    return Status::InvalidArgument(
        "--run and --last select runs of the run store: use them with --report (without --replay or --pcap)");
  if (mode == kReport && f.prometheus_url.empty() && !f.fleet_flags_given.empty())
    return Status::InvalidArgument(f.fleet_flags_given.front() +
                                   " goes with the fleet report: bottleneckd --report --prometheus.url URL");
  if (mode == kReport && !f.prometheus_url.empty() &&
      (!f.pcap_files.empty() || f.replay || st.last_given || f.format.starts_with("folded")))
    return Status::InvalidArgument(
        "--prometheus.url reads the fleet from Prometheus: it does not go with --pcap, --replay, --last or --format " +
        f.format);
  if (f.format.starts_with("folded") && (mode != kReport || f.report_run.empty() || f.replay || !f.pcap_files.empty()))
    return Status::InvalidArgument("--format " + f.format + " prints one run's " +
                                   (f.format == "folded" ? "on" : "off") +
                                   "-CPU stacks: bottleneckd --report --run NAME --format " + f.format);
  *out = std::move(f);
  return Status::OK();
}

Status ApplyFlags(const Flags& f, Config* c) {
  if (f.listen_address) c->listen_address = *f.listen_address;
  if (f.web_config_file) c->web_config_file = *f.web_config_file;
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
  if (f.capture_filter) c->collectors.pcap.filter = *f.capture_filter;  // compiled by ParseFlags
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

std::string Usage(const std::string& command) {
  Flags f;
  State st;
  st.f = &f;
  std::unique_ptr<CLI::App> app = BuildApp(&st);
  if (command.empty()) return app->help();
  for (CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == command) return sub->help("bottleneckd");
  return app->help();
}

CliDescription DescribeCli() {
  CliDescription d;
  d.program = "bottleneckd";
  d.description = kDescription;
  for (unsigned m = kDaemon; m <= kReplay; m <<= 1) {
    const Spec* s = FindSpec(ModeName(m));
    d.modes.push_back({ModeName(m), s ? s->help : kDescription, s ? s->value : "", ""});
  }
  for (const Command& c : kCommands) d.commands.push_back({c.name, c.summary, c.operands, c.operands_help});
  for (const auto& [command, flag] : kModeCommands) d.mode_commands.emplace_back(command, flag);
  Flags f;
  State st;
  st.f = &f;
  std::unique_ptr<CLI::App> app = BuildApp(&st);
  const CLI::Option* help = app->get_help_ptr();
  CliFlag h{"--help", "", help->get_description(), help->get_group(), {}, "every command", true, {}};
  for (const Command& c : kCommands) h.commands.push_back(c.name);
  d.flags.push_back(std::move(h));
  for (const Spec& s : Specs()) {
    CliFlag cf{s.name, s.value, s.help, s.group, s.choices, ModeList(s.modes), (s.modes & kTopLevel) != 0, {}};
    for (const Command& c : kCommands)
      if (s.modes & c.mode) cf.commands.push_back(c.name);
    d.flags.push_back(std::move(cf));
  }
  for (const CollectorInfo& c : CollectorRegistry())
    d.collectors.push_back({c.name, c.default_enabled ? "on" : "off", c.help});
  for (const SourceEntry* c : SourceRegistry())
    if (c->switchable())
      d.collectors.push_back({std::string(c->name()), std::string(c->default_state()), std::string(c->help())});
  return d;
}

}  // namespace bottleneckd
