// The sweep table of the text report and of the HTML report's table
// (report.h: RunTable, SweepTableCells): one formatting of each cell.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "exporters/report/report.h"
#include "exporters/report/report_budget.h"

namespace bottleneckd {

namespace {

std::string Kpps(double packets) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1fkpps", packets / 1e3);
  return b;
}

std::string Mbps(double bits) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1fMbps", bits / 1e6);
  return b;
}

// Unix seconds as local "2026-11-30 14:02:11".
std::string FormatTime(double t) {
  time_t secs = static_cast<time_t>(t);
  struct tm tm;
  localtime_r(&secs, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", &tm);
  return b;
}

std::string FormatSeconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f s", s);
  return b;
}

bool HasCapture(const RunReport& x) {
  return x.applied_per_second || x.echoed_per_second || x.echo_loss_ratio || x.turnaround_p99_seconds ||
         x.capture_drops_per_second;
}

// "%.<digits>f" of v x scale with `unit`, or "-" when unset.
std::string Fixed(const std::optional<double>& v, double scale, int digits, const char* unit) {
  if (!v) return "-";
  char b[48];
  std::snprintf(b, sizeof b, "%.*f%s", digits, *v * scale, unit);
  return b;
}

// The run's flows as a small table under its evidence.
void AppendFlows(const RunReport& x, std::string* o) {
  if (x.flows.empty()) return;
  int width = 4;
  for (const RunFlow& f : x.flows) width = std::max(width, static_cast<int>(f.flow.size()));
  char b[512];
  *o += "    flows (most packets first):\n";
  std::snprintf(b, sizeof b, "      %-*s %10s %10s %10s %12s\n", width, "flow", "requests", "replies", "lost",
                "packets");
  *o += b;
  for (const RunFlow& f : x.flows) {
    std::snprintf(b, sizeof b, "      %-*s %10s %10s %10s %12s\n", width, f.flow.c_str(),
                  std::to_string(f.requests).c_str(), std::to_string(f.replies).c_str(), std::to_string(f.lost).c_str(),
                  std::to_string(f.packets).c_str());
    *o += b;
  }
}

}  // namespace

namespace {

// One run's cells of the sweep table, in column order.
std::vector<std::string> RowCells(const RunReport& x, bool capture) {
  char b[96];
  auto f = [&b](const char* fmt, double v) {
    std::snprintf(b, sizeof b, fmt, v);
    return std::string(b);
  };
  // Offered in bits when the run says (a recording's), else the packets that reached the box.
  std::vector<std::string> c = {
      x.name,
      x.offered_bits_per_second ? Mbps(*x.offered_bits_per_second) : Kpps(x.offered_packets_per_second),
      Mbps(x.received_bits_per_second),
      Kpps(x.application_packets_per_second),
      f("%.1f", x.cpu_busy * 100),
      f("%.1f", x.accounting_busy * 100),
      x.soaker_idle ? std::to_string(static_cast<int>(std::lround(*x.soaker_idle * 100))) + " %" : "-",
      f("%.0f", x.interrupts_per_second),
      x.bus_utilisation ? f("%.1f", *x.bus_utilisation * 100) : "-",
      f("%.0f", x.drops_per_second)};
  if (capture) {
    c.push_back(Fixed(x.applied_per_second, 1, 0, ""));
    c.push_back(Fixed(x.echoed_per_second, 1, 0, ""));
    c.push_back(Fixed(x.echo_loss_ratio, 100, 2, "%"));
    c.push_back(Fixed(x.turnaround_p99_seconds, 1e3, 3, "ms"));
  }
  c.push_back(std::string(BoundName(x.verdict.label)) + f(" %.2f", x.verdict.confidence) +
              (x.verdict.resource.empty() ? "" : " " + x.verdict.resource));
  return c;
}

}  // namespace

SweepTable SweepTableCells(const std::vector<RunReport>& runs) {
  SweepTable t;
  const bool capture = std::any_of(runs.begin(), runs.end(), HasCapture);
  t.header = {"run",    "offered",     "received", "application", "CPU %",
              "(acct)", "soaker idle", "intr/s",   "bus %",       "drops/s"};
  if (capture) t.header.insert(t.header.end(), {"applied/s", "echoed/s", "loss", "p99"});
  t.header.push_back("verdict");
  for (const RunReport& x : runs) t.rows.push_back(RowCells(x, capture));
  return t;
}

std::string RunTable(const std::vector<RunReport>& runs, bool flows) {
  std::string o;
  char b[512];
  int width = 22;
  for (const RunReport& x : runs) width = std::max(width, static_cast<int>(x.name.size()));
  const bool capture = std::any_of(runs.begin(), runs.end(), HasCapture);
  std::string head = "run";
  head.resize(static_cast<size_t>(width) + 1, ' ');
  o += head + "   offered     received  application   CPU %  (acct)  soaker idle  intr/s    bus %   drops/s";
  if (capture) {
    std::snprintf(b, sizeof b, " %10s %10s %7s %9s", "applied/s", "echoed/s", "loss", "p99");
    o += b;
  }
  o += "  verdict\n";
  for (const RunReport& x : runs) {
    std::vector<std::string> c = RowCells(x, capture);
    std::snprintf(b, sizeof b, "%-*s %10s %12s %12s %6s %7s %12s %7s %8s %9s", width, c[0].c_str(), c[1].c_str(),
                  c[2].c_str(), c[3].c_str(), c[4].c_str(), c[5].c_str(), c[6].c_str(), c[7].c_str(), c[8].c_str(),
                  c[9].c_str());
    o += b;
    if (capture) {
      std::snprintf(b, sizeof b, " %10s %10s %7s %9s", c[10].c_str(), c[11].c_str(), c[12].c_str(), c[13].c_str());
      o += b;
    }
    o += "  " + c.back() + "\n";
    if (!x.source.empty() && x.source != "recording") {
      std::string when = FormatTime(x.start) + ", " + FormatSeconds(x.end - x.start) + ", " + x.state;
      if (x.exit_code) when += ", exit " + std::to_string(*x.exit_code);
      if (!x.command.empty()) when += ", command: " + x.command;
      o += "    (" + x.source + " run, " + when + ", " + std::to_string(x.windows) + " windows)\n";
    }
    if (std::string part = LimitedPartSentence(x); !part.empty()) o += "    = " + part + "\n";
    for (const std::string& e : x.verdict.evidence) o += "    - " + e + "\n";
    for (const std::string& e : x.verdict.reasons) o += "    ? " + e + "\n";
    if (flows) AppendFlows(x, &o), o += BudgetText(x);
    if (!x.expected_label.empty()) {
      bool ok = x.expected_label == BoundName(x.verdict.label) &&
                (x.expected_resource.empty() || x.expected_resource == x.verdict.resource);
      o += "    expected " + x.expected_label + (x.expected_resource.empty() ? "" : " " + x.expected_resource) +
           (ok ? " (matches)\n" : " (DIFFERS)\n");
    }
  }
  return o;
}

}  // namespace bottleneckd
