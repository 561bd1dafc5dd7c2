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
// (both again after each listing). TCP listeners are not here: their accept
// queues overflow into the namespace's ListenOverflows (the sockets
// collector), and the TCP table of a busy server is the full scan this
// avoids.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "collectors/host_fs.h"

namespace bottleneckd {

struct InputSocket {
  int pid = 0;
  uint64_t inode = 0;
  std::string protocol;        // "udp", "udp6"
  std::string local;           // "0.0.0.0:7000", "[::]:53"
  uint64_t receive_queue = 0;  // bytes in use now (rx_queue)
  uint64_t drops = 0;          // cumulative since the socket was made
  bool operator==(const InputSocket&) const = default;
};

// Appends to *out (as pid's) the unconnected sockets of one UDP table (v6:
// the udp6 form) whose inode is in `inodes` (sorted). Corruption naming
// the line when a line of one of them cannot be read; other lines are not
// parsed past their inode.
Status FindInputSockets(std::string_view table, bool v6, int pid, const std::vector<uint64_t>& inodes,
                        std::vector<InputSocket>* out);

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
    // Whether udp, udp6 held an input at the last read since the listing: a
    // table without one is not read again until the next listing (reading
    // one walks the namespace's whole UDP hash: about 30 us on this VM).
    bool tables[2] = {true, true};
  };
  void ListSockets(const HostFs& fs, int pid, Process* p);
  std::map<int, Process> processes_;
  std::vector<std::string> names_;
  std::string path_, link_, buf_;
  uint64_t listings_ = 0;
};

}  // namespace bottleneckd
