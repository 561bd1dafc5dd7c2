// `bottleneckd pcap FILE... [--format text|json]` (and `--report --pcap
// FILE`): each capture's traffic analysis as the seeds' table — applied vs
// echoed rate per second and overall, loss per flow, turnaround
// percentiles, the size histogram, the top flows — in text or JSON
// (docs/pcap.md has the JSON schema).
#pragma once

#include <string>
#include <vector>

#include "exporters/report/json_writer.h"
#include "traffic/pcap_file.h"
#include "traffic/traffic.h"

namespace bottleneckd {

struct PcapReport {
  PcapFileInfo info;
  TrafficSummary summary;
  std::string error;  // the read stopped here ("" when the whole file was read)
};

std::string PcapReportText(const std::vector<PcapReport>& reports);
std::string PcapReportJson(const std::vector<PcapReport>& reports);
// The same document, streamed through `w` (which it leaves to Finish): for
// a long capture's per-second rows, written to stdout as they are made.
void WritePcapReportJson(const std::vector<PcapReport>& reports, JsonWriter* w);

// Analyses every file (each on its own analyzer) and prints the report to
// stdout; errors go to stderr after the report of what was read. Exit code:
// 0 all read, 1 some file stopped early or could not be opened (or stdout
// could not be written), 2 bad arguments. JSON streams to stdout as it is
// written (JsonWriter's FILE* sink).
int RunPcapCommand(const std::vector<std::string>& files, const std::string& format, const TrafficOptions& o);

}  // namespace bottleneckd
