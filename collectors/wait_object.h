// What a blocked target thread waits on, resolved from /proc without eBPF
// (docs/verdict-rules.md section 2, "The object of a wait"): the system call
// it is blocked in (/proc/PID/task/TID/syscall prints its arguments), the
// descriptor that call's first argument names (/proc/PID/fd/N: "socket:[I]",
// "pipe:[I]", "anon_inode:[eventpoll]", a path), and for a socket its
// addresses from the socket tables of the target's own network namespace
// (/proc/PID/net/udp, udp6, tcp, tcp6):
//
//   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ...
//    0: 0100000A:1B58 0200000A:9C40 01 00000000:00000000 00:00000000 00000000     0        0 31337 ...
//
// Addresses are the kernel's words printed in hex (%08X of each 32-bit word
// as it lies in memory: 10.0.0.1 reads 0100000A on a little-endian host),
// ports in host order. A socket whose remote address is set is connected to
// one peer; one bound with no remote address (or listening) takes whoever
// sends: a server's input.
//
// A file's device comes from the descriptor's /proc/PID/fdinfo/FD (its
// mount's id) and /proc/PID/mountinfo (that mount's device number).
//
// Cost: the descriptor link is read each tick a thread is blocked in such a
// call (one readlink); the tables (or fdinfo and mountinfo) only when that
// descriptor's inode or path is not in the cache of (pid, fd), so a thread
// that blocks on the same sockets tick after tick costs no table read
// (docs/performance.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/parse_util.h"
#include "base/status.h"
#include "collectors/host_fs.h"

namespace bottleneckd {

struct WaitObject {
  enum class Kind { kNone, kSocket, kPipe, kFile, kEpoll, kOther };
  Kind kind = Kind::kNone;
  int fd = -1;
  uint64_t inode = 0;  // sockets and pipes
  // Sockets: "udp", "udp6", "tcp", "tcp6" (found in the target's tables),
  // "socket" (not in them: unix, raw, netlink, ...).
  std::string protocol;
  std::string local, remote;  // "10.0.0.1:7000", "[::1]:53"; remote "" when not connected
  bool listening = false;     // tcp LISTEN
  // A TCP connection whose local port a socket of the same namespace listens
  // on: accepted by a server, its remote a client. A receive here waits for
  // the client's next request: the server's input, not a peer.
  bool accepted = false;
  std::string path;  // a file's path, or the link as the kernel wrote it ("pipe:[123]")
  // A file's device, "MAJOR:MINOR" of the mount it lies on (its fdinfo's
  // mnt_id in the process's mountinfo): a block device in /proc/diskstats,
  // or 0:N for one that is not (tmpfs, overlay, NFS); "" unknown.
  std::string device;
  // An epoll instance: what its interest list watches (its fdinfo's `tfd`
  // lines, each target's inode looked up in the process's socket tables):
  // inputs (sockets that are not peers: unconnected, listening, accepted),
  // peers, and other descriptors (pipes, eventfds, timers, unix sockets);
  // the first input and the first peer described.
  int epoll_inputs = 0, epoll_peers = 0, epoll_others = 0;
  std::string epoll_input{}, epoll_peer{};

  // Connected to one peer (and not accepted from a listener): a receive
  // here waits for that peer's answer.
  bool peer() const { return kind == Kind::kSocket && !remote.empty() && !accepted; }
  // "udp 10.0.0.1:40000 -> 10.0.0.2:7000", "udp 0.0.0.0:7000 (unconnected)",
  // "tcp 10.0.0.2:8000 <- 10.0.0.1:40000 (accepted)",
  // "tcp 0.0.0.0:80 (listening)", "pipe:[123]", "file /var/lib/x (device 254:0)",
  // "epoll (inputs 1: udp 0.0.0.0:7000 (unconnected); peers 2: tcp
  // 10.0.0.1:40000 -> 10.0.0.7:5432; other 1)", "epoll" when it watches
  // nothing resolved; "" for kNone.
  std::string Describe() const;
  bool operator==(const WaitObject&) const = default;
};

// Whether the system call named `name` (SyscallName) takes a file
// descriptor as its first argument and may block on it: read, recvfrom,
// accept4, fdatasync, epoll_wait, ... (not futex, nanosleep, poll).
bool SyscallWaitsOnFd(std::string_view name);

// Parses "socket:[123]", "pipe:[123]", "anon_inode:[eventpoll]" or a path
// (what /proc/PID/fd/N links to) into *out's kind, inode and path.
void ParseFdLink(std::string_view link, WaitObject* out);

// "0100000A:1B58" (v4) or 32 hex digits and a port (v6), a socket table's
// address as the kernel prints it, -> "10.0.0.1:7000", "[::1]:53"; "" for
// the unset address and port (not connected). False when malformed.
bool FormatEndpoint(std::string_view text, bool v6, std::string* out);

// The device of a file object's Describe(): "254:0" of "file /x (device
// 254:0)"; "" when it names none.
std::string_view DeviceOfObject(std::string_view described);

// Of an epoll object's Describe(): whether it watches an input (a thread
// blocked there has nothing ready on its inputs: epoll is level-triggered,
// so work queued on one would have ended the wait), or peers and nothing
// else of the network.
bool EpollWatchesInput(std::string_view described);
bool EpollWatchesOnlyPeers(std::string_view described);

// The inodes of the files an epoll instance watches, from its fdinfo
// ("tfd:        5 events:       19 data: 5  pos:0 ino:3ea sdev:8": ino in
// hex), in order, at most kMaxEpollTargets.
inline constexpr size_t kMaxEpollTargets = 64;
std::vector<uint64_t> ParseEpollTargets(std::string_view fdinfo);

// The "MAJOR:MINOR" field of mount `mount_id` in a mountinfo text
// (/proc/PID/mountinfo: "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw");
// "" when no line has that id.
std::string_view MountDevice(std::string_view mountinfo, uint64_t mount_id);

// A row of a socket table (/proc/PID/net/udp, tcp, udp6, tcp6), its header
// skipped: the line and its first 13 fields (sl, local and remote address,
// st, tx_queue:rx_queue, tr:tm->when, retrnsmt, uid, timeout, inode, ref,
// pointer, and drops in the UDP tables; "" past a short line's end), with
// the inode parsed.
struct SocketRow {
  std::string_view line;
  std::string_view field[13];
  uint64_t inode = 0;
};
// Calls visit(row) for each row whose inode field is a number, in order,
// until it returns false.
template <typename Visit>
void ForEachSocketRow(std::string_view table, Visit visit);

// Finds the socket of `inode` in one socket table (/proc/net/udp, tcp, ...;
// v6 for the udp6/tcp6 forms) and sets out->local, remote and listening.
// False when the table has no such inode; Corruption for a line that has
// the inode but cannot be read.
Status FindSocket(std::string_view table, bool v6, bool tcp, uint64_t inode, WaitObject* out, bool* found);

// Resolves the object a blocked thread waits on, caching each (pid, fd)'s
// object by inode. Not thread-safe; one per ThreadsCollector.
class WaitObjectResolver {
 public:
  // Sets *out from the thread's system call (its number's name and
  // arguments): kNone when the call takes no descriptor, the descriptor's
  // link cannot be read (closed meanwhile, no ptrace access) or names
  // nothing known. Reads /proc/PID/fd/FD each call; the tables on a cache
  // miss only.
  void Resolve(const HostFs& fs, int pid, std::string_view syscall, const std::vector<uint64_t>& args, WaitObject* out);
  // Forgets the processes not in `pids` (sorted): gone, their fds reused.
  void Keep(const std::vector<int>& pids);
  // Socket-table reads so far (each a cache miss): for tests and the
  // performance figures.
  uint64_t table_reads() const { return table_reads_; }

 private:
  // Reads /proc/PID/net/NAME into buf_, counted in table_reads_; false when unreadable.
  bool ReadSocketTable(const HostFs& fs, int pid, const char* name);
  // Resolves an epoll object's watched inodes (out->kind kEpoll, fd set).
  void ResolveEpoll(const HostFs& fs, int pid, WaitObject* out);
  std::map<std::pair<int, int>, WaitObject> cache_;  // (pid, fd)
  // (pid, inode) -> the socket (kind kSocket with its addresses), or kNone
  // for a watched file that is no socket of the tables; at most
  // kMaxInodesCached, then emptied.
  static constexpr size_t kMaxInodesCached = 4096;
  std::map<std::pair<int, uint64_t>, WaitObject> by_inode_;
  std::string link_, buf_, path_;
  uint64_t table_reads_ = 0;
};

template <typename Visit>
void ForEachSocketRow(std::string_view table, Visit visit) {
  SocketRow row;
  bool header = true;
  while (NextLine(&table, &row.line)) {
    if (header) {  // "  sl  local_address rem_address   st ..."
      header = false;
      continue;
    }
    std::string_view rest = row.line;
    for (std::string_view& f : row.field) f = NextToken(&rest);
    if (ParseU64(row.field[9], &row.inode) && !visit(row)) return;
  }
}

}  // namespace bottleneckd
