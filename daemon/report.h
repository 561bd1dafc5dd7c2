// The report (`bottleneckd --report --replay DIR [--format text|json]`):
// each run of a recording with its verdict, evidence and the seeds' sweep
// table (offered, delivered, CPU %, soaker idle, interrupts/s, bus %), and
// across the runs the plateau, the MLFRR and the sensitivity check. A
// recording without runs is reported as one run spanning it. (Reports from
// the running daemon and the run store come with runs.)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collectors/status.h"
#include "daemon/analysis/plateau.h"
#include "daemon/analysis/verdict.h"
#include "daemon/config.h"
#include "daemon/recording.h"

namespace bottleneckd {

struct RunReport {
  std::string name;
  double start = 0, end = 0;  // seconds since the first sample
  std::optional<double> offered_bits_per_second;  // from the recording's run, when given
  double offered_packets_per_second = 0;   // the run's, else received + NIC drops
  double delivered_packets_per_second = 0; // received by the NICs
  double delivered_bits_per_second = 0;
  double application_packets_per_second = 0;  // received less backlog and socket drops: what the application got
  double cpu_busy = 0;                      // busiest CPU's mean busy (soaker when it ran)
  double accounting_busy = 0;               // busiest CPU's /proc/stat busy
  std::optional<double> soaker_idle;        // least delivered idle among CPUs, mean
  double interrupts_per_second = 0;         // all NICs
  std::optional<double> bus_utilisation;    // busiest NIC bus path
  double drops_per_second = 0;              // all rungs
  std::string first_losing_rung;            // "none", "nic", "backlog", "socket"
  size_t windows = 0;                       // settled windows the figures average
  Verdict verdict;                          // label most settled windows held, with its evidence
  size_t verdict_windows = 0;               // how many held it
  std::string expected_label, expected_resource;  // ground truth, simulated recordings
};

struct Report {
  std::string recording;  // the directory
  RecordingInfo info;
  std::vector<RunReport> runs;
  Plateau plateau;  // across the runs, in order
  Mlfrr mlfrr;
  std::optional<bool> throughput_tracks_cpu_cost;
};

// Windows at the start of a run left out of its figures (the load step
// itself and the verdict's hysteresis).
inline constexpr size_t kSettleWindows = 5;

// Replays `dir` and builds its report. Errors are OpenRecording's/replay's.
Status BuildReplayReport(const std::string& dir, const Config& config, Report* out);

std::string ReportText(const Report& r);
std::string ReportJson(const Report& r);

}  // namespace bottleneckd
