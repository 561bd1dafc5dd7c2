// A target process's inputs (docs/verdict-rules.md section 2, "Is there
// work waiting?"): its UDP sockets that are bound and not connected, where
// whoever sends to the port is heard (the offered load arrives there), with
// the kernel's counters of each, from the socket tables of the process's own
// network namespace (/proc/PID/net/udp and udp6):
//
//   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
//  183: 00000000:1B58 00000000:0000 07 00000000:00034000 00:00000000 00000000     0        0 31337 2 ffff... 8812
//
// rx_queue is the receive buffer in use (bytes as the kernel charges them:
// each datagram's whole buffer, not its payload); drops counts the datagrams
// the socket refused since it was made (a full buffer, mostly: this
// socket's part of the namespace's Udp RcvbufErrors). A thread blocked
// elsewhere (a peer, a lock) while its own input drops is the limit; one
// whose input is empty is idle.
//
// Which sockets: the process's descriptors are listed (/proc/PID/fd, one
// readlink each) when it is first seen and every kRescanEvery calls after,
// at most kMaxFdsListed of them; the tables are read each call for a
// process that has a socket, each only while it holds one of its inputs
// (both again after each listing).
//
// A TCP server's input is its listener: the connections the kernel
// completed and the server has not accepted wait in its accept queue (a
// LISTEN row's rx_queue is that count, sk_ack_backlog; the kernel writes
// no per-listener drop count there: a full queue's refusals are the
// namespace's TcpExt ListenOverflows and ListenDrops, /proc/PID/net/netstat,
// read beside them). The kernel writes the TCP table's listeners before any
// connection, so only its head is read (HostFs::ReadProcPrefix, one 4 KiB
// page of the kernel's seq file at first), and more only while the head
// holds nothing but listeners. A namespace of 5000 loopback connections
// (this VM, kernel 6.18.44): the whole table 1.5 MB in 14.1 ms, its head in
// 54 us (docs/performance-history.md "TCP listeners"). Its accepted connections are not inputs here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "collectors/host_fs.h"
#include "collectors/sockets.h"

namespace bottleneckd {

struct InputSocket {
  int pid = 0;
  uint64_t inode = 0;
  std::string protocol;  // "udp", "udp6", "tcp", "tcp6"
  std::string local;     // "0.0.0.0:7000", "[::]:53"
  // UDP: bytes of its receive buffer in use now; a TCP listener: the
  // connections waiting in its accept queue now (rx_queue of both).
  uint64_t receive_queue = 0;
  // UDP: the datagrams the socket refused since it was made. A TCP
  // listener: its namespace's TcpExt ListenDrops (every listener's
  // refusals there; `namespace_drops`), when its netstat was read.
  uint64_t drops = 0;
  bool listening = false;        // a TCP listener (protocol tcp, tcp6)
  bool namespace_drops = false;  // drops are the namespace's, not the socket's
  bool operator==(const InputSocket&) const = default;
};

// The TCP table's head a listener read starts with, and the most it grows
// to while the head holds only listeners (a namespace of 7000 of them).
inline constexpr size_t kTcpTableHeadBytes = 4u << 10;
inline constexpr size_t kTcpTableHeadMaxBytes = 1u << 20;

// Appends to *out (as pid's) the unconnected sockets of one UDP table (v6:
// the udp6 form) whose inode is in `inodes` (sorted). Corruption naming
// the line when a line of one of them cannot be read; other lines are not
// parsed past their inode.
Status FindInputSockets(std::string_view table, bool v6, int pid, const std::vector<uint64_t>& inodes,
                        std::vector<InputSocket>* out);

// Appends to *out (as pid's) the listening sockets (st 0A) of the head of
// one TCP table (v6: tcp6) whose inode is in `inodes` (sorted). The head
// may stop mid-line: the part line is not read. *more is set when every
// whole row of it was a listener and it filled `head_bytes`: more
// listeners may follow. Corruption naming the line of one of them that
// cannot be read.
Status FindListeningSockets(std::string_view head, size_t head_bytes, bool v6, int pid,
                            const std::vector<uint64_t>& inodes, std::vector<InputSocket>* out, bool* more);

class InputSocketFinder {
 public:
  static constexpr int kRescanEvery = 10;
  static constexpr size_t kMaxFdsListed = 4096;

  // Appends pid's inputs to *out. A process that vanished, or whose
  // descriptors cannot be listed (no ptrace access), adds none.
  void Collect(const HostFs& fs, int pid, std::vector<InputSocket>* out);
  // Forgets the processes not in `pids` (sorted).
  void Keep(const std::vector<int>& pids);
  // Descriptor listings so far: for tests and the performance figures.
  uint64_t listings() const { return listings_; }

 private:
  struct Process {
    std::vector<uint64_t> sockets;  // socket inodes among its descriptors, sorted
    int calls = 0;                  // since they were listed
    // Whether udp, udp6, tcp, tcp6 held an input at the last read since the
    // listing: a table without one is not read again until the next listing
    // (reading one walks the namespace's whole UDP hash: about 30 us on this
    // VM).
    bool tables[4] = {true, true, true, true};
  };
  void ListSockets(const HostFs& fs, int pid, Process* p);
  // Appends pid's listeners from tcp (v6: tcp6); false when the table could
  // not be read (gone, no IPv6), or *failed when it could not be parsed.
  bool CollectListeners(const HostFs& fs, int pid, bool v6, const Process& p, std::vector<InputSocket>* out,
                        bool* failed);
  std::map<int, Process> processes_;
  std::vector<std::string> names_;
  std::string path_, link_, buf_;
  SocketStats netstat_;  // reused: ParseProcNetNetstat overwrites its tables in place, no allocation a tick
  uint64_t listings_ = 0;
};

}  // namespace bottleneckd
