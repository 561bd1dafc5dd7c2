#include "collectors/ethtool.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/parse_util.h"
#include "base/unique_fd.h"

namespace bottleneckd {
namespace {

// Writes (name, value) at index *n of *out, reusing the string already there.
void Put(std::string_view name, uint64_t value, NamedCounters* out, size_t* n) {
  if (*n < out->size()) {
    (*out)[*n].first.assign(name);
    (*out)[*n].second = value;
  } else {
    out->emplace_back(std::string(name), value);
  }
  ++*n;
}

Status EthtoolIoctl(int fd, const std::string& ifname, void* data, const char* what) {
  struct ifreq ifr;
  std::memset(&ifr, 0, sizeof(ifr));
  std::memcpy(ifr.ifr_name, ifname.data(), ifname.size());  // size < IFNAMSIZ
  ifr.ifr_data = static_cast<char*>(data);
  if (::ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
    return Status::FromErrno(errno, "ethtool " + ifname + ": " + what);
  }
  return Status::OK();
}

// Number of ETH_SS_STATS strings: ETHTOOL_GSSET_INFO, or the n_stats field of
// ETHTOOL_GDRVINFO on kernels older than 2.6.34 that lack it.
Status StatsCount(int fd, const std::string& ifname, uint32_t* count) {
  // struct ethtool_sset_info followed by one u32 for the one set asked for.
  uint64_t buf[(sizeof(ethtool_sset_info) + sizeof(uint32_t) + 7) / 8] = {};
  auto* info = reinterpret_cast<ethtool_sset_info*>(buf);
  info->cmd = ETHTOOL_GSSET_INFO;
  info->sset_mask = uint64_t{1} << ETH_SS_STATS;
  Status s = EthtoolIoctl(fd, ifname, info, "ETHTOOL_GSSET_INFO");
  if (s.ok()) {
    *count = (info->sset_mask & (uint64_t{1} << ETH_SS_STATS)) ? info->data[0] : 0;
    return s;
  }
  if (!s.IsNotSupported()) return s;
  ethtool_drvinfo drv;
  std::memset(&drv, 0, sizeof(drv));
  drv.cmd = ETHTOOL_GDRVINFO;
  BN_RETURN_IF_ERROR(EthtoolIoctl(fd, ifname, &drv, "ETHTOOL_GDRVINFO"));
  *count = drv.n_stats;
  return Status::OK();
}

// Per-thread buffers for the kernel to write into, kept between calls. u64
// storage gives the 8-byte alignment struct ethtool_stats needs.
struct Scratch {
  std::vector<uint64_t> strings;
  std::vector<uint64_t> stats;
};

// The kernel writes as many entries as the driver has at the time of each
// call, not as many as we asked for; headroom covers a set that grows
// between the count and the read (e.g. channels added), and the returned
// lengths are checked.
size_t WithHeadroom(size_t n) { return 2 * n + 64; }

}  // namespace

void SortCountersByName(NamedCounters* counters) {
  auto by_name = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(counters->begin(), counters->end(), by_name)) {
    std::stable_sort(counters->begin(), counters->end(), by_name);
  }
  auto same = [](const auto& a, const auto& b) { return a.first == b.first; };
  counters->erase(std::unique(counters->begin(), counters->end(), same), counters->end());
}

Status ParseEthtoolStats(std::string_view text, NamedCounters* out) {
  size_t n = 0;
  std::string_view line;
  while (NextLine(&text, &line)) {
    size_t colon = line.rfind(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = Trim(line.substr(0, colon));
    std::string_view value = Trim(line.substr(colon + 1));
    if (name.empty() || value.empty()) continue;
    uint64_t v;
    if (!ParseU64(value, &v)) {
      out->clear();
      return Status::Corruption("ethtool statistic '" + std::string(name) + "': '" + std::string(value) +
                                "' is not a u64");
    }
    Put(name, v, out, &n);
  }
  out->resize(n);
  SortCountersByName(out);
  return Status::OK();
}

namespace {

// ReadEthtoolStatsIoctl without the clean-up: writes *out only on success.
Status ReadIoctl(const std::string& ifname, NamedCounters* out) {
  if (ifname.empty() || ifname.size() >= IFNAMSIZ || ifname.find('/') != std::string::npos) {
    return Status::NotFound("ethtool " + ifname + ": not a valid interface name");
  }
  UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (sock.get() < 0) {
    return Status::NotSupported(Status::FromErrno(errno, "ethtool " + ifname + ": socket").message());
  }
  uint32_t count = 0;
  BN_RETURN_IF_ERROR(StatsCount(sock.get(), ifname, &count));
  if (count == 0) return Status::NotSupported("ethtool " + ifname + ": driver has no statistics");
  if (count > kMaxEthtoolStats) {
    return Status::IOError("ethtool " + ifname + ": driver reports " + std::to_string(count) +
                           " statistics, more than " + std::to_string(kMaxEthtoolStats));
  }
  const size_t cap = WithHeadroom(count);

  thread_local Scratch scratch;
  const size_t string_words = (sizeof(ethtool_gstrings) + cap * ETH_GSTRING_LEN + 7) / 8;
  if (scratch.strings.size() < string_words) scratch.strings.resize(string_words);
  auto* gs = reinterpret_cast<ethtool_gstrings*>(scratch.strings.data());
  std::memset(gs, 0, sizeof(*gs));
  gs->cmd = ETHTOOL_GSTRINGS;
  gs->string_set = ETH_SS_STATS;
  gs->len = count;
  BN_RETURN_IF_ERROR(EthtoolIoctl(sock.get(), ifname, gs, "ETHTOOL_GSTRINGS"));
  const uint32_t len = gs->len;

  const size_t stat_words = (sizeof(ethtool_stats) + cap * sizeof(uint64_t) + 7) / 8;
  if (scratch.stats.size() < stat_words) scratch.stats.resize(stat_words);
  auto* st = reinterpret_cast<ethtool_stats*>(scratch.stats.data());
  std::memset(st, 0, sizeof(*st));
  st->cmd = ETHTOOL_GSTATS;
  st->n_stats = count;
  BN_RETURN_IF_ERROR(EthtoolIoctl(sock.get(), ifname, st, "ETHTOOL_GSTATS"));

  if (len > cap || st->n_stats != len) {
    return Status::IOError("ethtool " + ifname + ": statistics set changed while reading (" + std::to_string(len) +
                           " names, " + std::to_string(st->n_stats) + " values)");
  }
  if (len == 0) return Status::NotSupported("ethtool " + ifname + ": driver has no statistics");

  const char* names = reinterpret_cast<const char*>(gs->data);
  size_t n = 0;
  for (uint32_t i = 0; i < len; ++i) {
    const char* s = names + static_cast<size_t>(i) * ETH_GSTRING_LEN;
    std::string_view name = Trim(std::string_view(s, strnlen(s, ETH_GSTRING_LEN)));
    if (name.empty()) continue;
    Put(name, st->data[i], out, &n);
  }
  out->resize(n);
  SortCountersByName(out);
  return Status::OK();
}

}  // namespace

Status ReadEthtoolStatsIoctl(const std::string& ifname, NamedCounters* out) {
  Status s = ReadIoctl(ifname, out);
  if (!s.ok()) out->clear();
  return s;
}

}  // namespace bottleneckd
