// HostFs: the one door to the kernel's files. Every collector reads /proc, /sys and
// ethtool statistics through it, relative to injected roots (--path.procfs,
// --path.sysfs, --path.ethtool), so tests and replays point it at fixture trees.
// The eBPF sources (irqtime, offcpu, profile) name the two kernel files they
// load with (/sys/kernel/btf/vmlinux, /proc/kallsyms) themselves: they run on
// the live host only, never over a fixture tree.
//
// Reads are never sized by stat() (procfs lies); a whole-file read grows its buffer
// up to a cap, a sysfs attribute is one bounded read. Methods are const and
// thread-compatible; subclasses (tests) may override any of them to inject faults.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/unique_fd.h"

namespace bottleneckd {

struct HostRoots {
  std::string procfs = "/proc";
  std::string sysfs = "/sys";
  // Directory holding one `ethtool -S IF` output per interface, file named IF.
  // Empty: ask the driver through the SIOCETHTOOL ioctl (live host only).
  std::string ethtool;
};

using NamedCounters = std::vector<std::pair<std::string, uint64_t>>;

class HostFs {
 public:
  // Largest /proc file read whole (a 4096-CPU /proc/interrupts is ~40 MB).
  static constexpr size_t kMaxProcBytes = 64u << 20;
  // Largest sysfs attribute (PCI config space is 4096 bytes).
  static constexpr size_t kMaxSysBytes = 64u << 10;

  explicit HostFs(HostRoots roots);
  virtual ~HostFs();

  const HostRoots& roots() const { return roots_; }
  // True when reading the running kernel (roots are /proc and /sys).
  bool live() const;

  // Every read below opens without blocking and refuses anything but a
  // regular file (a FIFO, socket or device where a kernel file should be:
  // InvalidArgument naming it), so no read waits for a writer. A buffer
  // that grew far past what the file holds gives its memory back. Text
  // (everything but ReadSysPrefix) that does not end with a newline was cut
  // mid-line: Corruption, never a shorter number; except a task's `wchan`,
  // which the kernel writes as one word without a newline.

  // Reads the whole file `rel` under the procfs root ("stat", "net/snmp",
  // "1234/task/1234/stat") into *out, replacing its contents (its capacity is
  // reused). NotFound when absent; IOError/PermissionDenied otherwise; IOError
  // for a file longer than kMaxProcBytes (never a value cut at the cap).
  virtual Status ReadProc(std::string_view rel, std::string* out) const;
  // ReadProc through a descriptor kept in *kept between calls, for a table
  // read every tick: opened by OpenProc (and checked, as above) on the first
  // call, then read again from offset 0 with pread, which makes procfs write
  // the text afresh; on a failed read it is closed and opened once more. An
  // open, fstat and close per file were 30 of an idle tick's ~157 system
  // calls (docs/performance-history.md "The idle tick against its floor"). Where
  // OpenProc refuses (NotSupported: fixture roots, a recorder, a replay, a
  // test that injects faults) it is the virtual ReadProc, and *kept stays
  // closed: the fast path is the door's to offer, never a way around it.
  Status ReadProcKept(std::string_view rel, UniqueFd* kept, std::string* out) const;
  // Reads at most the first max_bytes of the /proc text file `rel`: a table
  // whose head is all that is wanted (the TCP table's listeners, which the
  // kernel writes before any connection: the rest of a busy server's table
  // is never made). The text may stop mid-line at the cap, where the caller
  // drops the part line; a shorter file is read whole and must end its line.
  virtual Status ReadProcPrefix(std::string_view rel, std::string* out, size_t max_bytes) const;
  // Opens the /proc file `rel` (checked as the reads above) for ReadProcKept.
  // NotSupported unless this door reads the live host (live()): a subclass
  // that wraps ReadProc (the recorder) refuses it too, so every kept read
  // comes back through ReadProc (RecordingFs.KeptReadsAreRecorded).
  virtual Status OpenProc(std::string_view rel, UniqueFd* out) const;

  // Reads the sysfs attribute `rel` ("class/net/eth0/statistics/rx_packets")
  // with one bounded read. An attribute longer than max_bytes is an IOError:
  // a counter is never read cut short.
  virtual Status ReadSys(std::string_view rel, std::string* out, size_t max_bytes = kMaxSysBytes) const;

  // Reads at most the first max_bytes of the binary attribute `rel` (PCI
  // config space: the 64-byte header of every function, 256 or 4096 bytes
  // where capabilities are wanted). A longer file is not an error; fewer
  // bytes (config space without root) are what the kernel gave.
  virtual Status ReadSysPrefix(std::string_view rel, std::string* out, size_t max_bytes) const;

  // Opens the sysfs attribute `rel` (O_RDONLY | O_CLOEXEC) for repeated reads with
  // PreadAttribute, so a hot attribute costs one pread a tick instead of
  // open+read+close. *out owns the descriptor (closed when it is destroyed or
  // reassigned) and is left untouched on error (errno mapped by
  // Status::FromErrno: NotFound when absent). The descriptor stays bound to the
  // file it opened: when the object behind it may have been replaced (a network
  // interface re-created, seen as a new ifindex) or a PreadAttribute fails, the
  // caller closes it and opens again.
  virtual Status OpenSys(std::string_view rel, UniqueFd* out) const;

  // One bounded pread of at most max_bytes at offset 0 of `fd` (EINTR retried)
  // into *out, replacing its contents (capacity reused). A sysfs attribute
  // regenerates its text on every read from offset 0, so this returns the
  // current value each time. An attribute whose device was removed fails with
  // ENODEV (NotFound). Does not own or close fd. Static: it reads a descriptor
  // already opened, so there is nothing for a subclass to redirect.
  static Status PreadAttribute(const UniqueFd& fd, std::string* out, size_t max_bytes = kMaxSysBytes);

  // True when the file behind `fd` was unlinked (st_nlink 0; false when fstat
  // fails). For trees that are not sysfs (fixture replays), where a file
  // replaced by rename or delete+create leaves an open descriptor on the old
  // contents; sysfs replaces attributes only with their device (new ifindex).
  static bool Unlinked(const UniqueFd& fd);

  // Names in a directory, sorted, without "." and "..".
  virtual Status ListProc(std::string_view rel, std::vector<std::string>* names) const;
  virtual Status ListSys(std::string_view rel, std::vector<std::string>* names) const;

  // Target of the symlink `rel` under the sysfs root, as stored (often relative,
  // "../../devices/pci0000:00/0000:00:03.0/virtio0/net/eth0").
  virtual Status ReadLinkSys(std::string_view rel, std::string* target) const;
  // Target of the symlink `rel` under the procfs root ("socket:[123]" for
  // PID/fd/N), as stored.
  virtual Status ReadLinkProc(std::string_view rel, std::string* target) const;

  // The driver's ethtool statistics of `ifname`: from the file <ethtool root>/IF
  // when roots().ethtool is set, from SIOCETHTOOL otherwise. NotSupported when the
  // driver offers none.
  virtual Status EthtoolStats(const std::string& ifname, NamedCounters* out) const;

  std::string ProcPath(std::string_view rel) const;
  std::string SysPath(std::string_view rel) const;

  // The error for files every Linux kernel bottleneckd runs on has (paths, one
  // or more, as ProcPath/SysPath wrote them): their absence says the root is
  // wrong (a --path.procfs or --path.sysfs that is no procfs or sysfs), not
  // that this kernel lacks them. "not supported" is kept for what kernels
  // genuinely lack (no PCI bus, no PSI, no netstat on stripped kernels).
  Status MissingProcFiles(const std::string& paths) const;
  Status MissingSysFiles(const std::string& paths) const;

 private:
  HostRoots roots_;
};

}  // namespace bottleneckd
