// The soaker's pure parts and its state file: mode names, the CPU list, the
// calibration key and the calibration file format (see soaker.h). Measuring a
// calibration and the one in use are in soaker_calibrate.cc.

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <string>
#include <utility>

#include "base/parse_util.h"
#include "base/state_file.h"
#include "sources/soaker.h"

namespace bottleneckd {
namespace {

constexpr int kFormatVersion = 1;
constexpr const char* kFileName = "soaker-calibration";
constexpr size_t kMaxFileBytes = 4u << 20;  // 65536 cpu lines fit with room to spare

// One line, no '\n', no blanks at the ends: what Parse gives back for it.
std::string OneLine(std::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '\n', ' ');
  return std::string(Trim(out));
}

void AppendDouble(double v, std::string* out) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest exact form
  out->append(buf, ec == std::errc() ? ptr : buf);
}

bool ParseCpuId(std::string_view s, int* cpu) {
  uint64_t v = 0;
  if (!ParseU64(s, &v) || v > static_cast<uint64_t>(kMaxCpuId)) return false;
  *cpu = static_cast<int>(v);
  return true;
}

Status ParseCpuLine(std::string_view rest, size_t n, SoakerCalibration* c) {
  std::string_view id = NextToken(&rest), rate = NextToken(&rest), when = NextToken(&rest);
  if (!ParseCpuId(id, &c->cpu)) return StateLineError(n, "bad cpu id '" + std::string(id) + "'");
  if (!ParseDouble(rate, &c->iterations_per_second) || !std::isfinite(c->iterations_per_second) ||
      c->iterations_per_second <= 0) {
    return StateLineError(n, "bad rate '" + std::string(rate) + "'");
  }
  if (!ParseI64(when, &c->measured_unix_seconds)) {
    return StateLineError(n, "bad time '" + std::string(when) + "'");
  }
  c->disturbed = NextToken(&rest) == "disturbed";
  return Status::OK();  // later columns (a future format addition) are skipped
}

}  // namespace

bool ParseSoakerMode(std::string_view s, SoakerMode* out) {
  for (SoakerMode m : {SoakerMode::kOff, SoakerMode::kRuns, SoakerMode::kAlways}) {
    if (s == SoakerModeName(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

const char* SoakerModeName(SoakerMode m) {
  switch (m) {
    case SoakerMode::kOff: return "off";
    case SoakerMode::kRuns: return "runs";
    case SoakerMode::kAlways: return "always";
  }
  return "?";
}

std::string FormatSoakerCalibration(const SoakerCalibrationFile& f) {
  std::string out =
      "# bottleneckd soaker calibration: work units per second of thread CPU time, per CPU.\n"
      "# Redone when the cpu model, frequency driver/governor, loop version or percentile\n"
      "# changes, or when older than soaker.calibration_max_age.\n";
  out += "format " + std::to_string(kFormatVersion) + "\n";
  out += "cpu_model " + OneLine(f.key.cpu_model) + "\n";
  out += "freq_driver " + OneLine(f.key.freq_driver) + "\n";
  out += "freq_governor " + OneLine(f.key.freq_governor) + "\n";
  out += "loop_version " + std::to_string(f.key.loop_version) + "\n";
  out += "percentile " + std::to_string(f.key.percentile) + "\n";
  out += "# cpu <id> <units per cpu-second> <measured, unix seconds> [disturbed]\n";
  for (const SoakerCalibration& c : f.cpus) {
    out += "cpu " + std::to_string(c.cpu) + " ";
    AppendDouble(c.iterations_per_second, &out);
    out += " " + std::to_string(c.measured_unix_seconds) + (c.disturbed ? " disturbed" : "") + "\n";
  }
  return out;
}

Status ParseSoakerCalibration(std::string_view text, SoakerCalibrationFile* out) {
  out->key = SoakerCalibrationKey();
  out->cpus.clear();
  bool model = false, driver = false, governor = false, loop = false, percentile = false;
  auto line = [&](size_t n, std::string_view key, std::string_view value) -> Status {
    auto once = [&](bool* seen) {
      if (*seen) return false;
      *seen = true;
      return true;
    };
    if (key == "cpu_model" || key == "freq_driver" || key == "freq_governor") {
      bool* seen = key == "cpu_model" ? &model : key == "freq_driver" ? &driver : &governor;
      std::string* field = key == "cpu_model"     ? &out->key.cpu_model
                           : key == "freq_driver" ? &out->key.freq_driver
                                                  : &out->key.freq_governor;
      if (!once(seen)) return StateLineError(n, "duplicate " + std::string(key));
      field->assign(value);
    } else if (key == "loop_version") {
      int64_t v = 0;
      if (!once(&loop)) return StateLineError(n, "duplicate loop_version");
      if (!ParseI64(value, &v) || v < INT_MIN || v > INT_MAX) {
        return StateLineError(n, "bad loop_version '" + std::string(value) + "'");
      }
      out->key.loop_version = static_cast<int>(v);
    } else if (key == "percentile") {
      int64_t v = 0;
      if (!once(&percentile)) return StateLineError(n, "duplicate percentile");
      if (!ParseI64(value, &v) || v < 1 || v > 99) {
        return StateLineError(n, "bad percentile '" + std::string(value) + "' (1-99)");
      }
      out->key.percentile = static_cast<int>(v);
    } else if (key == "cpu") {
      SoakerCalibration c;
      BN_RETURN_IF_ERROR(ParseCpuLine(value, n, &c));
      auto it = std::lower_bound(out->cpus.begin(), out->cpus.end(), c.cpu,
                                 [](const SoakerCalibration& a, int cpu) { return a.cpu < cpu; });
      if (it != out->cpus.end() && it->cpu == c.cpu) {
        return StateLineError(n, "duplicate cpu " + std::to_string(c.cpu));
      }
      out->cpus.insert(it, c);
    }
    // Unknown keys (a later version's additions) are skipped.
    return Status::OK();
  };
  BN_RETURN_IF_ERROR(ForEachStateLine(text, kFormatVersion, "calibration file", line));
  if (!model) return Status::Corruption("missing cpu_model");
  if (!loop) return Status::Corruption("missing loop_version");
  if (out->cpus.empty()) return Status::Corruption("no cpu line");
  return Status::OK();
}

Status ParseCpuList(std::string_view text, std::vector<int>* out) {
  out->clear();
  text = Trim(text);
  if (text.empty()) return Status::OK();
  // Ranges first, merged, then expanded: "0-65535,0-65535,..." costs no more
  // than one "0-65535".
  std::vector<std::pair<int, int>> ranges;
  while (true) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    size_t dash = item.find('-');
    int lo = 0, hi = 0;
    if (!ParseCpuId(item.substr(0, dash), &lo) ||
        !ParseCpuId(dash == std::string_view::npos ? item : item.substr(dash + 1), &hi) || hi < lo) {
      return Status::Corruption("bad cpu list element '" + std::string(item) + "'");
    }
    ranges.emplace_back(lo, hi);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::sort(ranges.begin(), ranges.end());
  int next = 0;  // first id not yet emitted
  for (auto [lo, hi] : ranges) {
    for (int c = std::max(lo, next); c <= hi; ++c) out->push_back(c);
    next = std::max(next, hi + 1);
  }
  return Status::OK();
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::string ParseCpuinfoModel(std::string_view cpuinfo) {
  static constexpr std::string_view kKeys[] = {"model name", "cpu model", "cpu", "CPU part"};
  size_t best = std::size(kKeys);
  std::string_view model;
  std::string_view line;
  while (best > 0 && NextLine(&cpuinfo, &line)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = Trim(line.substr(0, colon));
    for (size_t i = 0; i < best; ++i) {
      if (key == kKeys[i]) {
        best = i;
        model = Trim(line.substr(colon + 1));
        break;
      }
    }
  }
  return std::string(model);
}

bool ParseCpuinfoHypervisor(std::string_view cpuinfo) {
  std::string_view raw;
  while (NextLine(&cpuinfo, &raw)) {
    size_t colon = raw.find(':');
    if (colon == std::string_view::npos || Trim(raw.substr(0, colon)) != "flags") continue;
    std::string_view flags = raw.substr(colon + 1);
    for (std::string_view f = NextToken(&flags); !f.empty(); f = NextToken(&flags)) {
      if (f == "hypervisor") return true;
    }
    return false;  // the first CPU's flags decide
  }
  return false;
}

int SoakerCalibrationPercentile(int option, bool hypervisor) {
  if (option >= 1 && option <= 99) return option;
  return hypervisor ? kSoakerVmPercentile : kSoakerBareMetalPercentile;
}

Status ReadSoakerCalibrationKey(const HostFs& fs, int percentile_option, SoakerCalibrationKey* out) {
  std::string buf;
  BN_RETURN_IF_ERROR(fs.ReadProc("cpuinfo", &buf));
  out->cpu_model = ParseCpuinfoModel(buf);
  out->loop_version = kSoakerLoopVersion;
  out->percentile = SoakerCalibrationPercentile(percentile_option, ParseCpuinfoHypervisor(buf));
  struct {
    const char* rel;
    std::string* field;
  } attrs[] = {{"devices/system/cpu/cpufreq/policy0/scaling_driver", &out->freq_driver},
               {"devices/system/cpu/cpufreq/policy0/scaling_governor", &out->freq_governor}};
  for (auto& a : attrs) {
    Status s = fs.ReadSys(a.rel, &buf, 256);
    // No cpufreq (VMs, containers without it): "" is part of the key.
    *a.field = s.ok() ? std::string(Trim(buf)) : std::string();
  }
  return Status::OK();
}

bool SoakerCalibrationUsable(const SoakerCalibrationFile& f, const SoakerCalibrationKey& key,
                             const std::vector<int>& cpus, int64_t now_unix_seconds, double max_age_seconds) {
  if (!(f.key == key)) return false;
  for (int cpu : cpus) {
    auto it = std::find_if(f.cpus.begin(), f.cpus.end(), [cpu](const SoakerCalibration& c) { return c.cpu == cpu; });
    if (it == f.cpus.end() || !(it->iterations_per_second > 0)) return false;
    if (max_age_seconds > 0) {
      // In double: timestamps come from a file and may be anything.
      double age = static_cast<double>(now_unix_seconds) - static_cast<double>(it->measured_unix_seconds);
      if (std::fabs(age) > max_age_seconds) return false;
    }
  }
  return true;
}

std::string SoakerCalibrationPath(const std::string& state_dir) { return state_dir + "/" + kFileName; }

Status LoadSoakerCalibration(const std::string& path, SoakerCalibrationFile* out) {
  std::string text;
  BN_RETURN_IF_ERROR(ReadStateFile(path, kMaxFileBytes, &text));
  return ParseSoakerCalibration(text, out).WithContext(path);
}

Status StoreSoakerCalibration(const std::string& state_dir, const SoakerCalibrationFile& f) {
  return WriteStateFile(state_dir, kFileName, FormatSoakerCalibration(f));
}

}  // namespace bottleneckd
