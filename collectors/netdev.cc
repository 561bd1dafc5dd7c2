#include "collectors/netdev.h"

#include <sys/resource.h>

#include <algorithm>
#include <utility>

#include "base/parse_util.h"
#include "collectors/host_readings.h"
#include "collectors/sysfs_path.h"

namespace bottleneckd {
namespace {

std::optional<uint64_t> Find(const NamedCounters& counters, std::string_view name) {
  auto it = std::lower_bound(counters.begin(), counters.end(), name,
                             [](const auto& c, std::string_view n) { return c.first < n; });
  if (it == counters.end() || it->first != name) return std::nullopt;
  return it->second;
}

// Errors that mean the interface went away while being read: the files are
// gone (NotFound) or the kernel refuses a dying device's attribute (EINVAL,
// which Status::FromErrno maps to NotSupported).
bool Vanished(const Status& s) { return s.IsNotFound() || s.IsNotSupported(); }

// Most statistics descriptors held open across ticks: 4096 (170 interfaces of
// 24 counters), and at most a quarter of the soft RLIMIT_NOFILE (1024 under
// systemd: 256) so the rest of the daemon keeps room for its own files and
// sockets. Interfaces beyond it are read with open+read+close every tick.
constexpr size_t kMaxCachedFds = 4096;
// include/uapi/linux/if_arp.h
constexpr int64_t kArphrdLoopback = 772;

size_t MaxCachedFds() {
  struct rlimit rl;
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0;
  if (rl.rlim_cur == RLIM_INFINITY) return kMaxCachedFds;
  return std::min<size_t>(kMaxCachedFds, static_cast<size_t>(rl.rlim_cur / 4));
}

}  // namespace

std::optional<uint64_t> NetDev::Stat(std::string_view counter) const { return Find(stats, counter); }

std::optional<uint64_t> NetDev::Ethtool(std::string_view counter) const { return Find(ethtool, counter); }

NetdevCollector::NetdevCollector(const NetdevOptions& options) : options_(options), max_cached_fds_(MaxCachedFds()) {
  auto compile = [this](const std::vector<std::string>& patterns, std::vector<std::unique_ptr<Pattern>>* out) {
    for (const std::string& p : patterns) {
      std::unique_ptr<Pattern> re;
      Status s = Pattern::Compile(p, &re);
      if (s.ok()) {
        out->push_back(std::move(re));
      } else if (init_status_.ok()) {
        init_status_ = Status::InvalidArgument("netdev: bad interface pattern: " + s.message());
      }
    }
  };
  compile(options_.include, &include_);
  compile(options_.exclude, &exclude_);
}

bool NetdevCollector::Selected(std::string_view ifname) const {
  auto matches = [ifname](const std::unique_ptr<Pattern>& re) { return re->Search(ifname); };
  if (!include_.empty() && std::none_of(include_.begin(), include_.end(), matches)) return false;
  return std::none_of(exclude_.begin(), exclude_.end(), matches);
}

void NetdevCollector::CountError(const std::string& file, const Status& s) {
  ++counter_errors_;
  last_counter_error_ = s;
  LeftOut(file, s);
}

Status NetdevCollector::ReadAttr(const HostFs& fs, std::string_view rel) {
  path_.resize(path_base_);
  path_.append(rel);
  return fs.ReadSys(path_, &buf_);
}

Status NetdevCollector::ReadKeptAttr(const HostFs& fs, const Known& known, UniqueFd* fd, std::string_view rel) {
  if (fd->valid()) {
    if ((fs.live() || !HostFs::Unlinked(*fd)) && HostFs::PreadAttribute(*fd, &buf_).ok()) return Status::OK();
    CloseFd(fd);
  }
  Status s = ReadAttr(fs, rel);  // leaves path_ at the attribute
  // OpenStatFds left room for these two under the cap.
  if (s.ok() && !known.stat_fds.empty() && cached_fds_ < max_cached_fds_ && fs.OpenSys(path_, fd).ok()) ++cached_fds_;
  return s;
}

void NetdevCollector::CloseFd(UniqueFd* fd) {
  if (!fd->valid()) return;
  *fd = UniqueFd();
  --cached_fds_;
}

void NetdevCollector::CloseAllFds(Known* known) {
  CloseStatFds(known);
  CloseFd(&known->ifindex_fd);
}

Status NetdevCollector::LoadFacts(const HostFs& fs, const std::string& ifname, Known* known) {
  known->have_facts = false;
  path_.resize(path_base_);
  path_ += "statistics";
  Status s = fs.ListSys(path_, &known->stat_names);
  if (!s.ok()) return s.IsNotFound() ? s : s.WithContext("netdev " + ifname);
  std::sort(known->stat_names.begin(), known->stat_names.end());

  // class/net/IF -> ../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0 and
  // its device -> ../../../virtio2 resolve to devices/.../0000:00:03.0/virtio2.
  // When class/net/IF is a plain directory (a copied tree), the device link is
  // taken relative to it.
  const std::string self = path_.substr(0, path_base_ - 1);  // "class/net/IF"
  std::string real, device_dir;
  if (!ResolveSysLink(fs, self, &real).ok()) real = self;
  path_.resize(path_base_);
  path_ += "device";
  Status d = ResolveSysLink(fs, real + "/device", &device_dir);
  // NotFound: no device, a virtual interface. Any other error (EINVAL: the
  // entry is not a symlink in a copied tree) still means a device exists.
  known->is_virtual = d.IsNotFound();
  known->pci_device.clear();
  if (d.ok()) known->pci_device = PciFunctionOf(device_dir);
  known->driver.clear();
  path_ += "/driver";
  if (!known->is_virtual && fs.ReadLinkSys(path_, &link_).ok()) known->driver = Basename(link_);
  int64_t type;
  if (ReadAttr(fs, "type").ok() && ParseI64(Trim(buf_), &type)) {
    known->is_loopback = type == kArphrdLoopback;
  } else {
    known->is_loopback = ifname == "lo";
  }
  known->have_facts = true;
  return Status::OK();
}

void NetdevCollector::OpenStatFds(const HostFs& fs, Known* known) {
  if (!known->stat_fds.empty() || known->stat_names.empty()) return;
  // By path beyond the cap; room is left for ifindex and operstate.
  if (cached_fds_ + known->stat_names.size() + 2 > max_cached_fds_) return;
  known->stat_fds.resize(known->stat_names.size());
  for (size_t i = 0; i < known->stat_names.size(); ++i) {
    path_.resize(path_base_);
    path_ += "statistics/";
    path_ += known->stat_names[i];
    // A failure leaves the entry invalid: read by path, which reports it.
    if (fs.OpenSys(path_, &known->stat_fds[i]).ok()) ++cached_fds_;
  }
}

void NetdevCollector::CloseStatFds(Known* known) {
  for (const UniqueFd& fd : known->stat_fds) cached_fds_ -= fd.valid() ? 1 : 0;
  known->stat_fds.clear();
  CloseFd(&known->operstate_fd);
}

Status NetdevCollector::ReadStat(const HostFs& fs, Known* known, size_t i) {
  path_.resize(path_base_);
  path_ += "statistics/";
  path_ += known->stat_names[i];
  if (i < known->stat_fds.size() && known->stat_fds[i].valid()) {
    const UniqueFd& fd = known->stat_fds[i];
    if ((fs.live() || !HostFs::Unlinked(fd)) && HostFs::PreadAttribute(fd, &buf_).ok()) {
      return Status::OK();
    }
    // The device went away (ENODEV) or, in a replayed tree, the file was
    // replaced: re-open next tick; the read by path below tells which.
    CloseStatFds(known);
  }
  return fs.ReadSys(path_, &buf_);
}

bool NetdevCollector::IdleCounters(const HostFs& fs, Known* known) {
  for (std::string_view counter : {"rx_packets", "tx_packets"}) {
    auto it = std::lower_bound(known->stat_names.begin(), known->stat_names.end(), counter);
    if (it == known->stat_names.end() || *it != counter) continue;
    Status s = ReadStat(fs, known, static_cast<size_t>(it - known->stat_names.begin()));
    if (s.IsNotFound()) continue;
    uint64_t v;
    if (!s.ok() || !ParseU64(Trim(buf_), &v) || v != 0) return false;
  }
  return true;
}

Status NetdevCollector::ReadInterface(const HostFs& fs, const std::string& ifname, Known* known, NetDev* dev,
                                      bool* keep) {
  *keep = false;
  path_.assign("class/net/");
  path_ += ifname;
  path_ += '/';
  path_base_ = path_.size();

  std::optional<int64_t> ifindex;
  int64_t index;
  if (ReadKeptAttr(fs, *known, &known->ifindex_fd, "ifindex").ok() && ParseI64(Trim(buf_), &index)) ifindex = index;
  if (!known->have_facts || !ifindex || ifindex != known->ifindex) {
    CloseStatFds(known);  // a new ifindex is a new device: new attribute files
    Status s = LoadFacts(fs, ifname, known);
    if (s.IsNotFound()) return Status::OK();  // gone, or not an interface
    BN_RETURN_IF_ERROR(s);
    known->ifindex = ifindex;
  }
  OpenStatFds(fs, known);
  if (known->is_virtual && options_.hide_idle_virtual && IdleCounters(fs, known)) {
    return Status::OK();
  }

  size_t n = 0;
  Status first_error;
  bool all_vanished = true;
  for (size_t i = 0; i < known->stat_names.size(); ++i) {
    const std::string& counter = known->stat_names[i];
    Status s = ReadStat(fs, known, i);  // leaves path_ at statistics/<counter>
    uint64_t v;
    if (s.ok() && !ParseU64(Trim(buf_), &v)) {
      s = Status::Corruption(fs.SysPath(path_) + ": '" + std::string(Trim(buf_)) + "' is not a u64");
    }
    if (!s.ok()) {
      CountError(fs.SysPath(path_), s);
      all_vanished = all_vanished && Vanished(s);
      if (first_error.ok()) first_error = s;
      continue;
    }
    if (n < dev->stats.size()) {
      dev->stats[n].first.assign(counter);
      dev->stats[n].second = v;
    } else {
      dev->stats.emplace_back(counter, v);
    }
    ++n;
  }
  dev->stats.resize(n);
  if (n == 0 && !known->stat_names.empty()) {
    if (all_vanished) {
      CloseStatFds(known);
      known->have_facts = false;
      return Status::OK();
    }
    return first_error.WithContext("netdev " + ifname + ": none of " + std::to_string(known->stat_names.size()) +
                                   " counters readable");
  }

  dev->name = ifname;
  dev->ifindex = ifindex;
  dev->is_virtual = known->is_virtual;
  dev->is_loopback = known->is_loopback;
  dev->pci_device = known->pci_device;
  dev->driver = known->driver;
  dev->operstate.clear();
  if (Status o = ReadKeptAttr(fs, *known, &known->operstate_fd, "operstate"); o.ok()) {
    dev->operstate.assign(Trim(buf_));
  } else {
    LeftOut(fs.SysPath(path_), o);
  }

  dev->ethtool.clear();
  if (options_.ethtool) {
    Status e = fs.EthtoolStats(ifname, &dev->ethtool);
    if (!e.ok()) {
      dev->ethtool.clear();
      if (!Vanished(e)) CountError((fs.roots().ethtool.empty() ? "ethtool -S " : fs.roots().ethtool + "/") + ifname, e);
    }
  }
  *keep = true;
  return Status::OK();
}

Status NetdevCollector::Collect(const HostFs& fs, HostReadings* out) {
  std::vector<NetDev> devs;
  if (out->netdev) devs = std::move(*out->netdev);
  out->netdev.reset();
  BN_RETURN_IF_ERROR(init_status_);
  Status s = fs.ListSys("class/net", &ifnames_);
  if (s.IsNotFound()) return fs.MissingSysFiles(fs.SysPath("class/net"));
  BN_RETURN_IF_ERROR(s);

  ++tick_;
  size_t n = 0;
  for (const std::string& ifname : ifnames_) {
    Known& known = known_[ifname];
    if (known.seen_tick == 0) known.selected = Selected(ifname);
    known.seen_tick = tick_;
    if (!known.selected) continue;
    if (n == devs.size()) devs.emplace_back();
    bool keep = false;
    BN_RETURN_IF_ERROR(ReadInterface(fs, ifname, &known, &devs[n], &keep));
    if (keep) ++n;
  }
  devs.resize(n);
  if (known_.size() > ifnames_.size()) {
    for (auto it = known_.begin(); it != known_.end();) {
      if (it->second.seen_tick == tick_) {
        ++it;
        continue;
      }
      CloseAllFds(&it->second);  // the interface is gone: release its descriptors
      it = known_.erase(it);
    }
  }
  // ListSys sorts; a HostFs override might not.
  auto by_name = [](const NetDev& a, const NetDev& b) { return a.name < b.name; };
  if (!std::is_sorted(devs.begin(), devs.end(), by_name)) {
    std::sort(devs.begin(), devs.end(), by_name);
  }
  out->netdev = std::move(devs);
  return Status::OK();
}

}  // namespace bottleneckd
