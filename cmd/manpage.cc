// bottleneckd(8) from the command line's description (cmd/manpage.h).
#include "cmd/manpage.h"

#include <cstdint>
#include <cstdio>
#include <vector>

#include "base/utf8.h"
#include "cmd/run_command.h"

namespace bottleneckd {
namespace {

// Bold text, escaped.
std::string B(std::string_view s) { return "\\fB" + TroffEscape(s) + "\\fR"; }
// Italic text, escaped.
std::string I(std::string_view s) { return "\\fI" + TroffEscape(s) + "\\fR"; }

// "--flag VALUE" in the option style: the flag bold, its value italic.
std::string FlagTag(const CliFlag& f) {
  std::string tag = f.name == "--help" ? B("-h") + ", " + B(f.name) : B(f.name);
  if (!f.value.empty()) tag += " " + I(f.value);
  return tag;
}

void Synopsis(const CliDescription& cli, std::string* o) {
  *o += ".SH SYNOPSIS\n";
  for (const CliCommand& m : cli.modes) {
    *o += B(cli.program);
    if (m.name.rfind("--", 0) == 0) *o += " " + B(m.name) + (m.operands.empty() ? "" : " " + I(m.operands));
    *o += " [" + I("FLAGS") + "]\n.br\n";
  }
  for (const CliCommand& c : cli.commands) {
    *o += B(cli.program) + " " + B(c.name) + " [" + I("FLAGS") + "]";
    if (c.operands.rfind("-- ", 0) == 0) {
      *o += " " + B("--") + " " + I(c.operands.substr(3));
    } else if (!c.operands.empty()) {
      *o += " " + I(c.operands);
    }
    *o += "\n.br\n";
  }
  *o += B(cli.program) + " [" + I("COMMAND") + "] " + B("--help") + "\n.br\n";
  *o += B(cli.program) + " " + B("--version") + "\n";
}

void Commands(const CliDescription& cli, std::string* o) {
  *o += ".SH COMMANDS\nWithout a command, " + cli.program +
        " runs as the daemon or, given one of the flags below, in that mode. "
        "Each flag goes with the modes and commands OPTIONS names; given to any other it is a usage error.\n";
  for (const CliCommand& m : cli.modes) {
    *o += ".TP\n" + (m.name.rfind("--", 0) == 0 ? B(m.name) + (m.operands.empty() ? "" : " " + I(m.operands))
                                                : B("daemon") + " (no command)");
    *o += "\n" + TroffEscape(m.summary) + "\n";
  }
  for (const CliCommand& c : cli.commands) {
    *o += ".TP\n" + B(c.name) + (c.operands.empty() ? "" : " " + I(c.operands)) + "\n" + TroffEscape(c.summary) + "\n";
    if (!c.operands_help.empty()) *o += ".br\n" + I(c.operands) + ": " + TroffEscape(c.operands_help) + ".\n";
    std::vector<std::string> flags;
    bool switches = false;  // takes the --collector.NAME switches
    for (const CliFlag& f : cli.flags)
      for (const std::string& name : f.commands) {
        if (name != c.name) continue;
        if (f.group.empty()) switches = true;
        if (!f.group.empty()) flags.push_back(B(f.name));
      }
    *o += ".br\nFlags: " + JoinWords(flags, ", ") + (switches ? "; the collector switches (COLLECTORS).\n" : ".\n");
  }
}

void Options(const CliDescription& cli, std::string* o) {
  *o += ".SH OPTIONS\nFlags are given as " + B("--name=value") + " or " + B("--name value") +
        "; a flag given on the command line overrides the config file.\n";
  std::vector<std::string> groups;
  for (const CliFlag& f : cli.flags) {
    if (f.group.empty()) continue;
    bool seen = false;
    for (const std::string& g : groups) seen = seen || g == f.group;
    if (!seen) groups.push_back(f.group);
  }
  for (const std::string& g : groups) {
    *o += ".SS " + TroffEscape(g) + "\n";
    for (const CliFlag& f : cli.flags) {
      if (f.group != g) continue;
      *o += ".TP\n" + FlagTag(f) + "\n" + TroffEscape(f.help) + ".\n.br\nFor " + TroffEscape(f.modes) + ".\n";
    }
  }
}

void Collectors(const CliDescription& cli, std::string* o) {
  std::string modes;
  for (const CliFlag& f : cli.flags)
    if (f.group.empty()) modes = f.modes;
  *o += ".SH COLLECTORS\n" + B("--collector.") + I("NAME") + " enables the collector " + I("NAME") + ", " +
        B("--no-collector.") + I("NAME") +
        " disables it, over the config file's collectors.enabled and "
        "collectors.disabled; for " +
        TroffEscape(modes) + ". The default state is in brackets.\n";
  for (const CliCollector& c : cli.collectors) {
    *o += ".TP\n" + B("--collector." + c.name) + ", " + B("--no-collector." + c.name) + " [" +
          TroffEscape(c.default_state) + "]\n" + TroffEscape(c.help) + "\n";
  }
}

// The sections that describe the program's surroundings rather than its
// flags: what main.cc, run_command.cc and the daemon do.
void Surroundings(std::string* o) {
  *o += R"(.SH VERDICTS
Each window of the host, and each run, gets one label (\fIbottleneckd_verdict_info\fR,
\fB\-\-report\fR), with the resource it names and its evidence (docs/verdict\-rules.md):
.TP
.B cpu
a CPU, or a target thread, is saturated by its own work (\fIcpu1\fR, \fIthread udpecho\fR).
.TP
.B interrupt
a CPU is saturated by interrupt work: hardirq and softirq time (measured by irqtime or sampled by
/proc/stat's ticks) and the delivery of its interrupts, learned on the host as an estimate.
.TP
.B bus
a NIC's bus segment is near its capacity while CPUs are left idle.
.TP
.B wait
the socket loses while a target thread that should be reading is off its unsaturated CPU in its own
waits (a sleep, a lock, a peer): throughput stops below 100 % utilisation; the evidence names where
it waits.
.TP
.B none
nothing is lost and no resource is near its limit.
.TP
.B undetermined
the evidence is weak or points two ways; the reasons say what is missing.
.SH FILES
.TP
.I /etc/bottleneckd/bottleneckd.yaml
The config file (\fB\-\-config.file\fR); when the default one is absent the built\-in defaults apply.
Every key is documented in the installed file.
.TP
.I /var/lib/bottleneckd/
The state directory (\fB\-\-path.state\fR): \fIsoaker\-calibration\fR, the soaker's per\-CPU rates
(\fBcalibrate\fR), \fIdelivery\-cost\fR, the interrupt delivery cost learned on this host (learned
again when the CPU model, kernel, CPU count or hypervisor changes), and \fIruns.db\fR, the run
store (SQLite) that \fB\-\-report\fR reads.
.TP
.I /run/bottleneckd/control.sock
The run control socket (\fB\-\-control.socket\fR): \fBrun\fR starts and stops runs through it.
.TP
.I /usr/share/bottleneckd/prometheus/
Prometheus alerting and recording rules.
.TP
.I /usr/share/bottleneckd/grafana/
Grafana dashboards (host and fleet).
.TP
.I /usr/share/doc/bottleneckd/
The documentation: \fImetrics.md\fR, every metric and where its number comes from.
.SH SIGNALS
.TP
.B SIGHUP
The daemon reloads the config file and applies the command line's flags over it again. A file that
cannot be used is logged and the running config kept; a changed web.listen_address needs a restart.
.TP
.BR SIGTERM ", " SIGINT
The daemon stops sampling, closes its sockets and saves finished runs to the run store, then exits.
If sampling has not stopped within 10 seconds (a read stuck in the kernel) it exits 1 at once.
\fBrecord\fR stops early and keeps the samples so far.
\fBrun\fR passes SIGTERM (and SIGHUP) on to \fICMD\fR and ignores SIGINT, which reaches \fICMD\fR
through the terminal; the run ends when \fICMD\fR exits.
.SH "EXIT STATUS"
.TP
.B 0
Success; with \fB\-\-config.check\fR, the config and the flags are valid.
.TP
.B 1
The config file cannot be used, the daemon cannot start (the HTTP listen address cannot be bound, or
collectors.irqtime.mode is on and the BPF program did not load), finished runs could not be saved at exit, sampling did not stop,
\fBrecord\fR failed, \fBcalibrate\fR measured no CPU, or \fBpcap\fR could not read a capture.
.TP
.B 2
A usage error: an unknown flag or command, a flag given to a mode it does not go with, a missing or bad
value; also a \fBrecord\fR directory that cannot be used, and a recording or run store that
\fB\-\-replay\fR or \fB\-\-report\fR cannot read.
.TP
.B 3
The fleet report (\fB\-\-report \-\-prometheus.url\fR) read the query API but nothing matched: no
instance for \fB\-\-selector\fR, or no host that had the \fB\-\-run\fR active. It exits 1 when the
API could not be read (unreachable, slower than \fB\-\-prometheus.timeout\fR, an HTTP error, an answer
that is not the API's) and 2 for a bad URL, selector or token file.
.PP
\fBrun\fR exits with \fICMD\fR's exit status, 128+\fIN\fR when signal \fIN\fR killed it, )";
  char codes[200];
  std::snprintf(codes, sizeof codes,
                "%d when bottleneckd failed before \\fICMD\\fR ran, %d when \\fICMD\\fR cannot be executed and %d "
                "when it is not found.\n",
                kRunExitFailed, kRunExitCannotExecute, kRunExitNotFound);
  *o += codes;
  *o += R"(.SH ENVIRONMENT
bottleneckd reads no environment variables of its own. \fBrun\fR looks \fICMD\fR up in
.B PATH
as a shell does, and \fICMD\fR inherits the environment.
.SH "SEE ALSO"
.BR prometheus (1),
.BR prometheus\-node\-exporter (1) " (node_exporter),"
.BR systemd.exec (5),
.BR systemd.service (5)
.PP
In \fI/usr/share/doc/bottleneckd/\fR: \fImetrics.md\fR (the metrics reference), \fIreport.md\fR
(\fB\-\-report\fR), \fIruns.md\fR and \fIrun\-store.md\fR (\fBrun\fR, runs.db), \fIcontrol\-socket.md\fR,
\fIsoaker.md\fR (\fB\-\-soaker\fR, \fBcalibrate\fR), \fIrecording\-format.md\fR (\fBrecord\fR,
\fB\-\-replay\fR), \fIpcap.md\fR (\fBpcap\fR, \fB\-\-capture.interface\fR), \fIverdict\-rules.md\fR,
\fIbus\-model.md\fR, \fIirqtime.md\fR, \fIdashboards.md\fR and \fIarchitecture.md\fR.
)";
}

}  // namespace

std::string JoinWords(const std::vector<std::string>& words, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) out += sep;
    out += words[i];
  }
  return out;
}

std::string TroffEscape(std::string_view text) {
  std::string o;
  bool line_start = true;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (line_start && (c == '.' || c == '\'')) o += "\\&";
    line_start = c == '\n';
    if (c < 0x80) {
      if (c == '\\') {
        o += "\\e";
      } else if (c == '-') {
        o += "\\-";
      } else {
        o += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    uint32_t cp = 0xFFFD;
    size_t n = Utf8SequenceLength(text.substr(i), &cp);
    if (n == 0) {
      cp = 0xFFFD;
      n = 1;
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\[u%04X]", static_cast<unsigned>(cp));
    o += buf;
    i += n;
  }
  return o;
}

std::string RenderManPage(const CliDescription& cli, const std::string& version) {
  std::string o = ".\\\" Generated by bottleneckd-gen-docs from cmd/flags.cc (the table --help is written from).\n";
  o += ".TH BOTTLENECKD 8 \"\" \"" + TroffEscape(cli.program + " " + version) + "\" \"System Administration\"\n.nh\n";
  o += ".SH NAME\n" + cli.program + " \\- Linux bottleneck profiler daemon and Prometheus exporter\n";
  Synopsis(cli, &o);
  o += ".SH DESCRIPTION\n" + TroffEscape(cli.description) + "\n.PP\n" +
       "Each window of samples gets a verdict with the evidence for it; runs (a named span, such as one benchmark) "
       "are kept in the run store and reported with " +
       B("--report") + ". Logs are logfmt on standard error.\n";
  Commands(cli, &o);
  Options(cli, &o);
  Collectors(cli, &o);
  Surroundings(&o);
  return o;
}

}  // namespace bottleneckd
