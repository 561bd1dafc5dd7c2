// The recording's soaker file (docs/recording-format.md, "soaker"): the
// soaker's cumulative reading at one tick, written by SoakerFileText and read
// back by ParseSoakerFile; the form of recording versions 1 and 2, kept.
#include <algorithm>
#include <cmath>

#include "base/parse_util.h"
#include "sources/reading_file.h"
#include "sources/soaker.h"

namespace bottleneckd {
namespace {

// Splits "key=value"; false when there is no '='.
bool SplitKeyValue(std::string_view tok, std::string_view* key, std::string_view* value) {
  size_t eq = tok.find('=');
  if (eq == std::string_view::npos) return false;
  *key = tok.substr(0, eq);
  *value = tok.substr(eq + 1);
  return true;
}

}  // namespace

std::string SoakerFileText(const SoakerReading& r) {
  std::string t = "# cpu iterations thread_cpu_ns calibrated_iterations_per_second [key=value...]\n";
  if (r.mono_ns > 0) t += "mono_seconds " + FormatSecondsNs(r.mono_ns) + "\n";
  t += std::string("sched_idle ") + (r.sched_idle ? "1" : "0") + "\n";
  t += "calibration_unix_seconds " + std::to_string(r.calibration_unix_seconds) + "\n";
  if (!r.running) t += "running 0\n";
  if (r.calibration_generation != 0) t += "calibration_generation " + std::to_string(r.calibration_generation) + "\n";
  if (!r.caveat.empty()) {
    std::string c = r.caveat;
    std::replace(c.begin(), c.end(), '\n', ' ');
    t += "caveat " + c + "\n";
  }
  for (const SoakerCpu& c : r.cpus) {
    t += std::to_string(c.cpu) + " " + std::to_string(c.iterations) + " " + std::to_string(c.thread_cpu_ns) + " " +
         ShortestDouble(c.iterations_per_second);
    t += " generation=" + std::to_string(c.generation);
    t += " calibrated_unix_seconds=" + std::to_string(c.calibrated_unix_seconds);
    if (c.calibration_borrowed) t += " borrowed=1";
    if (c.calibration_cpu_ns != 0) t += " calibration_cpu_ns=" + std::to_string(c.calibration_cpu_ns);
    t += "\n";
  }
  return t;
}

Status ParseSoakerFile(std::string_view text, SoakerReading* out) {
  SoakerReading r;
  std::string_view line;
  int n = 0;
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("line " + std::to_string(n) + ": " + why + ", got " + Quoted(line));
  };
  while (NextLine(&text, &line)) {
    ++n;
    std::string_view rest = line;
    std::string_view first = NextToken(&rest);
    if (first.empty() || first.front() == '#') continue;
    if (first == "caveat") {
      r.caveat.assign(Trim(rest));
      continue;
    }
    if (first == "mono_seconds" || first == "sched_idle" || first == "calibration_unix_seconds" || first == "running" ||
        first == "calibration_generation") {
      std::string_view v = NextToken(&rest);
      int64_t i = 0;
      if (!NextToken(&rest).empty()) return bad("one value expected");
      if (first == "mono_seconds") {
        if (!ParseSecondsNs(v, &r.mono_ns)) return bad("mono_seconds must be seconds");
      } else if (first == "sched_idle" || first == "running") {
        if (v != "0" && v != "1") return bad(std::string(first) + " must be 0 or 1");
        (first == "running" ? r.running : r.sched_idle) = v == "1";
      } else if (first == "calibration_generation") {
        if (!ParseU64(v, &r.calibration_generation)) return bad("calibration_generation must be a whole number");
      } else {
        if (!ParseI64(v, &i)) return bad("calibration_unix_seconds must be a whole number");
        r.calibration_unix_seconds = i;
      }
      continue;
    }
    SoakerCpu c;
    int64_t cpu = 0;
    if (!ParseI64(first, &cpu) || cpu < 0 || cpu > kMaxCpuId) return bad("expected a CPU number or a known key");
    c.cpu = static_cast<int>(cpu);
    std::string_view it = NextToken(&rest), ns = NextToken(&rest), rate = NextToken(&rest);
    if (!ParseU64(it, &c.iterations) || !ParseU64(ns, &c.thread_cpu_ns) ||
        !ParseDouble(rate, &c.iterations_per_second) || !std::isfinite(c.iterations_per_second) ||
        c.iterations_per_second < 0)
      return bad("expected 'cpu iterations thread_cpu_ns calibrated_iterations_per_second'");
    for (std::string_view tok = NextToken(&rest); !tok.empty(); tok = NextToken(&rest)) {
      std::string_view key, value;
      int64_t v = 0;
      if (!SplitKeyValue(tok, &key, &value)) return bad("expected key=value after the four columns");
      if (key == "generation") {
        if (!ParseU64(value, &c.generation)) return bad("generation must be a whole number");
      } else if (key == "calibrated_unix_seconds") {
        if (!ParseI64(value, &v)) return bad("calibrated_unix_seconds must be a whole number");
        c.calibrated_unix_seconds = v;
      } else if (key == "calibration_cpu_ns") {
        if (!ParseU64(value, &c.calibration_cpu_ns)) return bad("calibration_cpu_ns must be a whole number");
      } else if (key == "borrowed") {
        if (value != "0" && value != "1") return bad("borrowed must be 0 or 1");
        c.calibration_borrowed = value == "1";
      } else {
        return bad("unknown key '" + std::string(key.substr(0, 40)) + "'");
      }
    }
    r.cpus.push_back(c);
  }
  std::sort(r.cpus.begin(), r.cpus.end(), [](const SoakerCpu& a, const SoakerCpu& b) { return a.cpu < b.cpu; });
  for (size_t i = 1; i < r.cpus.size(); ++i) {
    if (r.cpus[i].cpu == r.cpus[i - 1].cpu)
      return Status::InvalidArgument("cpu " + std::to_string(r.cpus[i].cpu) + " appears twice");
  }
  *out = std::move(r);
  return Status::OK();
}

}  // namespace bottleneckd
