// netdev collector: every per-interface counter the kernel and the driver keep.
// Reads /sys/class/net/IF/statistics/* (one u64 per file, "rx_packets" -> "1234"),
// /sys/class/net/IF/{ifindex,operstate,device} and the driver's ethtool stats.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/pattern.h"
#include "base/unique_fd.h"
#include "collectors/collector.h"
#include "collectors/collectors_config.h"

namespace bottleneckd {

struct NetDev {
  std::string name;
  std::optional<int64_t> ifindex;  // changes when the interface is re-created
  std::string operstate;           // "up", "down", "unknown"
  bool is_virtual = true;          // no /sys/class/net/IF/device
  // class/net/IF/type is ARPHRD_LOOPBACK (772); without a type file (an older
  // recording), the interface named "lo". Never on a packet path.
  bool is_loopback = false;
  std::string pci_device;  // "0000:00:03.0" when backed by a PCI function
  std::string driver;      // basename of device/driver, "" when virtual
  NamedCounters stats;     // statistics/*, sorted by name
  NamedCounters ethtool;   // driver stats, sorted by name; empty if none

  // Look a counter up by name in stats / ethtool; nullopt when absent.
  std::optional<uint64_t> Stat(std::string_view counter) const;
  std::optional<uint64_t> Ethtool(std::string_view counter) const;
};

// Collect() lists class/net and, for each selected interface, reads its
// statistics/* counters, ifindex, operstate and (with options.ethtool) the
// driver's ethtool statistics; out->netdev is sorted by name.
// - An interface that vanishes while being read (its statistics/ directory or
//   every counter gone) is left out silently; so are idle virtual interfaces
//   when options.hide_idle_virtual is set (both rx_packets and tx_packets 0).
// - A counter file that cannot be read or is not a u64 is skipped and counted
//   (counter_errors()); an interface none of whose counters can be read for
//   another reason fails the whole Collect (out->netdev left unset).
// - Ethtool NotSupported/NotFound is silent (ethtool empty); other ethtool
//   errors are counted and leave that interface's ethtool empty.
// - Static facts (is_virtual, pci_device, driver, the statistics file names)
//   are read once per interface and re-read only when its ifindex changes.
// - The statistics/* files stay open across ticks (one pread each per tick),
//   and with them ifindex and operstate (from the tick after their first
//   read); an interface's descriptors are re-opened when its ifindex changes
//   or one of its reads fails, and closed when it disappears. At most
//   max_cached_fds() are held; interfaces beyond that are read with
//   open+read+close.
class NetdevCollector : public Collector {
 public:
  // Compiles the include/exclude patterns (RE2, base/pattern.h); never
  // throws. An invalid pattern (config validation should have refused it)
  // makes every Collect return InvalidArgument naming it.
  explicit NetdevCollector(const NetdevOptions& options);
  std::string_view name() const override { return "netdev"; }
  Status Collect(const HostFs& fs, HostReadings* out) override;

  // True when `ifname` passes the include/exclude patterns: some include
  // pattern matches (or there are none) and no exclude pattern matches.
  // Matching is a search, as node_exporter's (anchor with ^...$ for a whole
  // name): "eth" selects eth0 and veth1.
  bool Selected(std::string_view ifname) const;

  // Counter files skipped and ethtool reads failed since construction, and
  // the last such error (OK when none), for the daemon's debug log.
  uint64_t counter_errors() const { return counter_errors_; }
  const Status& last_counter_error() const { return last_counter_error_; }
  // Statistics descriptors held open now, and the most that will be.
  size_t cached_fds() const { return cached_fds_; }
  size_t max_cached_fds() const { return max_cached_fds_; }

 private:
  // What is read once per interface (keyed by name) and kept while its
  // ifindex stays the same.
  struct Known {
    bool selected = false;
    bool have_facts = false;
    std::optional<int64_t> ifindex;
    bool is_virtual = true;
    bool is_loopback = false;
    std::string pci_device;
    std::string driver;
    std::vector<std::string> stat_names;  // statistics/*, sorted
    // Open statistics/<stat_names[i]>, same order; empty when not opened
    // (over the cap, or dropped after a failed read until the next tick). An
    // invalid entry is read by path.
    std::vector<UniqueFd> stat_fds;
    // ifindex and operstate, read every tick like the statistics: kept open
    // too (an open, fstat and close each were 18 of an idle tick's system
    // calls with four interfaces); invalid: read by path next.
    UniqueFd ifindex_fd, operstate_fd;
    uint64_t seen_tick = 0;
  };

  // Fills *dev for one interface; *keep false when it is hidden or vanished.
  Status ReadInterface(const HostFs& fs, const std::string& ifname, Known* known, NetDev* dev, bool* keep);
  // Re-reads the static facts; NotFound when statistics/ is gone.
  Status LoadFacts(const HostFs& fs, const std::string& ifname, Known* known);
  // Opens known->stat_fds when none are open and the cap allows it.
  void OpenStatFds(const HostFs& fs, Known* known);
  void CloseStatFds(Known* known);
  // Reads statistics/<stat_names[i]> into buf_: by pread when its descriptor
  // is open (any failure closes all of the interface's descriptors and falls
  // back to a read by path), by ReadSys otherwise.
  Status ReadStat(const HostFs& fs, Known* known, size_t i);
  // True when rx_packets and tx_packets are both 0 or absent.
  bool IdleCounters(const HostFs& fs, Known* known);
  // Reads <class/net/IF/>rel into buf_.
  Status ReadAttr(const HostFs& fs, std::string_view rel);
  // ReadAttr through *fd, kept open between ticks as the statistics are: a
  // failed pread (the device gone: ENODEV) or, in a replayed tree, a file
  // replaced closes it and reads by path; a read by path opens it for the
  // next tick when the interface's statistics are kept open.
  Status ReadKeptAttr(const HostFs& fs, const Known& known, UniqueFd* fd, std::string_view rel);
  // Closes one kept descriptor, keeping cached_fds_ right.
  void CloseFd(UniqueFd* fd);
  // Closes every descriptor the interface keeps (it is gone).
  void CloseAllFds(Known* known);
  void CountError(const std::string& file, const Status& s);

  NetdevOptions options_;
  std::vector<std::unique_ptr<Pattern>> include_, exclude_;
  Status init_status_;
  std::string buf_;
  std::string path_;  // "class/net/IF/" of the interface being read
  size_t path_base_ = 0;
  std::string link_;
  std::vector<std::string> ifnames_;
  std::unordered_map<std::string, Known> known_;
  uint64_t tick_ = 0;
  size_t cached_fds_ = 0;
  size_t max_cached_fds_ = 0;  // set from RLIMIT_NOFILE in the constructor
  uint64_t counter_errors_ = 0;
  Status last_counter_error_;
};

}  // namespace bottleneckd
