#include "collectors/diskstats.h"

#include <algorithm>

#include "base/parse_util.h"

namespace bottleneckd {

Status ParseProcDiskstats(std::string_view text, std::vector<DiskStat>* out,
                          const std::vector<std::pair<int, int>>* only) {
  out->clear();
  std::string_view line;
  int number = 0;
  while (NextLine(&text, &line)) {
    ++number;
    if (Trim(line).empty()) continue;
    std::string_view rest = line, tok[14];
    for (std::string_view& t : tok) t = NextToken(&rest);
    DiskStat d;
    uint64_t major = 0, minor = 0;
    if (!ParseU64(tok[0], &major) || !ParseU64(tok[1], &minor) || major > 4095 || minor > (1u << 20) ||
        tok[2].empty() || !ParseU64(tok[3], &d.reads) || !ParseU64(tok[7], &d.writes) || !ParseU64(tok[12], &d.io_ms))
      return Status::Corruption("diskstats line " + std::to_string(number) +
                                ": expected 'MAJOR MINOR NAME' and 11 "
                                "whole numbers, got '" +
                                std::string(Trim(line).substr(0, 120)) + "'");
    const std::pair<int, int> number(static_cast<int>(major), static_cast<int>(minor));
    if (only && std::find(only->begin(), only->end(), number) == only->end()) continue;
    d.major = static_cast<int>(major);
    d.minor = static_cast<int>(minor);
    d.name = std::string(tok[2]);
    out->push_back(std::move(d));
  }
  return Status::OK();
}

bool ParseDeviceNumber(std::string_view major_minor, std::pair<int, int>* out) {
  const size_t colon = major_minor.find(':');
  uint64_t major = 0, minor = 0;
  if (colon == std::string_view::npos || !ParseU64(major_minor.substr(0, colon), &major) ||
      !ParseU64(major_minor.substr(colon + 1), &minor) || major > 4095 || minor > (1u << 20))
    return false;
  *out = {static_cast<int>(major), static_cast<int>(minor)};
  return true;
}

const DiskStat* FindDisk(const std::vector<DiskStat>& disks, std::string_view major_minor) {
  std::pair<int, int> n;
  if (!ParseDeviceNumber(major_minor, &n)) return nullptr;
  for (const DiskStat& d : disks)
    if (d.major == n.first && d.minor == n.second) return &d;
  return nullptr;
}

}  // namespace bottleneckd
