// libFuzzer target: arbitrary bytes as the soaker's calibration file, as a CPU
// list (/sys/devices/system/cpu/online) and as /proc/cpuinfo. Checks what the
// parsers promise: an accepted calibration formats and parses back to the same
// thing, an accepted CPU list is sorted, unique, in range and survives
// FormatCpuList.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sources/soaker.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bottleneckd;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  SoakerCalibrationFile f;
  if (ParseSoakerCalibration(text, &f).ok()) {
    if (f.cpus.empty()) __builtin_trap();
    SoakerCalibrationFile g;
    if (!ParseSoakerCalibration(FormatSoakerCalibration(f), &g).ok()) __builtin_trap();
    if (!(g.key == f.key) || g.cpus.size() != f.cpus.size()) __builtin_trap();
    for (size_t i = 0; i < f.cpus.size(); ++i) {
      if (g.cpus[i].cpu != f.cpus[i].cpu || g.cpus[i].iterations_per_second != f.cpus[i].iterations_per_second ||
          g.cpus[i].measured_unix_seconds != f.cpus[i].measured_unix_seconds ||
          !(f.cpus[i].iterations_per_second > 0) || (i > 0 && f.cpus[i - 1].cpu >= f.cpus[i].cpu)) {
        __builtin_trap();
      }
    }
  }

  std::vector<int> cpus;
  if (ParseCpuList(text, &cpus).ok()) {
    for (size_t i = 0; i < cpus.size(); ++i) {
      if (cpus[i] < 0 || cpus[i] > kMaxCpuId || (i > 0 && cpus[i - 1] >= cpus[i])) __builtin_trap();
    }
    std::vector<int> back;
    if (!ParseCpuList(FormatCpuList(cpus), &back).ok() || back != cpus) __builtin_trap();
  }

  std::string model = ParseCpuinfoModel(text);
  (void)ParseCpuinfoHypervisor(text);
  if (model.size() > size) __builtin_trap();
  SoakerMode mode;
  ParseSoakerMode(text, &mode);
  return 0;
}
