#include "collectors/input_sockets.h"

#include <algorithm>

#include "base/parse_util.h"
#include "collectors/sockets.h"
#include "collectors/wait_object.h"

namespace bottleneckd {

Status FindInputSockets(std::string_view table, bool v6, int pid, const std::vector<uint64_t>& inodes,
                        std::vector<InputSocket>* out) {
  Status status;
  ForEachSocketRow(table, [&](const SocketRow& row) {
    if (!std::binary_search(inodes.begin(), inodes.end(), row.inode)) return true;
    InputSocket s;
    std::string remote;
    const std::string_view queues = row.field[4];  // tx_queue:rx_queue
    const size_t colon = queues.find(':');
    if (!FormatEndpoint(row.field[1], v6, &s.local) || !FormatEndpoint(row.field[2], v6, &remote) ||
        colon == std::string_view::npos || !ParseHexU64(queues.substr(colon + 1), &s.receive_queue) ||
        !ParseU64(row.field[12], &s.drops)) {
      status = Status::Corruption("socket " + std::to_string(row.inode) + ": cannot read '" +
                                  std::string(Trim(row.line)) + "'");
      return false;
    }
    if (!remote.empty()) return true;  // connected: a peer, not an input
    s.pid = pid;
    s.inode = row.inode;
    s.protocol = v6 ? "udp6" : "udp";
    out->push_back(std::move(s));
    return true;
  });
  return status;
}

Status FindListeningSockets(std::string_view head, size_t head_bytes, bool v6, int pid,
                            const std::vector<uint64_t>& inodes, std::vector<InputSocket>* out, bool* more) {
  const bool cut = head.size() >= head_bytes;
  if (cut) head = head.substr(0, head.rfind('\n') + 1);  // the part line (npos + 1: none)
  bool all_listening = true;
  Status status;
  ForEachSocketRow(head, [&](const SocketRow& row) {
    if (row.field[3] != "0A") {  // TCP_LISTEN; the connections follow the listeners
      all_listening = false;
      return false;
    }
    if (!std::binary_search(inodes.begin(), inodes.end(), row.inode)) return true;
    InputSocket s;
    const std::string_view queues = row.field[4];  // tx_queue:rx_queue
    const size_t colon = queues.find(':');
    if (!FormatEndpoint(row.field[1], v6, &s.local) || colon == std::string_view::npos ||
        !ParseHexU64(queues.substr(colon + 1), &s.receive_queue)) {
      status = Status::Corruption("socket " + std::to_string(row.inode) + ": cannot read '" +
                                  std::string(Trim(row.line)) + "'");
      return false;
    }
    s.pid = pid;
    s.inode = row.inode;
    s.protocol = v6 ? "tcp6" : "tcp";
    s.listening = true;
    out->push_back(std::move(s));
    return true;
  });
  *more = status.ok() && cut && all_listening;
  return status;
}

void InputSocketFinder::ListSockets(const HostFs& fs, int pid, Process* p) {
  ++listings_;
  p->sockets.clear();
  p->calls = 0;
  p->tables[0] = p->tables[1] = true;
  path_.assign(std::to_string(pid)).append("/fd");
  if (!fs.ListProc(path_, &names_).ok()) return;
  size_t listed = 0;
  for (const std::string& fd : names_) {
    if (++listed > kMaxFdsListed) break;
    path_.assign(std::to_string(pid)).append("/fd/").append(fd);
    if (!fs.ReadLinkProc(path_, &link_).ok()) continue;  // closed meanwhile
    WaitObject o;
    ParseFdLink(link_, &o);
    if (o.kind == WaitObject::Kind::kSocket) p->sockets.push_back(o.inode);
  }
  std::sort(p->sockets.begin(), p->sockets.end());
  p->sockets.erase(std::unique(p->sockets.begin(), p->sockets.end()), p->sockets.end());
}

bool InputSocketFinder::CollectListeners(const HostFs& fs, int pid, bool v6, const Process& p,
                                         std::vector<InputSocket>* out, bool* failed) {
  path_.assign(std::to_string(pid)).append(v6 ? "/net/tcp6" : "/net/tcp");
  for (size_t head = kTcpTableHeadBytes;; head *= 4) {
    const size_t had = out->size();
    bool more = false;
    if (!fs.ReadProcPrefix(path_, &buf_, head).ok()) return false;
    if (!FindListeningSockets(buf_, head, v6, pid, p.sockets, out, &more).ok()) {
      *failed = true;
      return true;
    }
    if (!more || head >= kTcpTableHeadMaxBytes) return true;
    out->resize(had);  // read again, further
  }
}

void InputSocketFinder::Collect(const HostFs& fs, int pid, std::vector<InputSocket>* out) {
  auto [it, fresh] = processes_.try_emplace(pid);
  Process& p = it->second;
  if (fresh || ++p.calls >= kRescanEvery) ListSockets(fs, pid, &p);
  if (p.sockets.empty()) return;
  const size_t before = out->size();
  for (bool v6 : {false, true}) {
    bool& table = p.tables[v6 ? 1 : 0];
    if (!table) continue;
    path_.assign(std::to_string(pid)).append(v6 ? "/net/udp6" : "/net/udp");
    const size_t had = out->size();
    if (!fs.ReadProc(path_, &buf_).ok()) {
      table = false;  // gone, or no IPv6
      continue;
    }
    if (!FindInputSockets(buf_, v6, pid, p.sockets, out).ok()) {
      out->resize(before);  // a table cut mid-line: none this call, rather than some
      return;
    }
    table = out->size() > had;
  }
  const size_t tcp = out->size();
  for (bool v6 : {false, true}) {
    bool& table = p.tables[v6 ? 3 : 2];
    if (!table) continue;
    const size_t had = out->size();
    bool failed = false;
    if (!CollectListeners(fs, pid, v6, p, out, &failed)) {
      table = false;  // gone, or no IPv6
      continue;
    }
    if (failed) {
      out->resize(before);
      return;
    }
    table = out->size() > had;
  }
  if (out->size() == tcp) return;
  // The listeners' refusals: their namespace's, read once for the process.
  path_.assign(std::to_string(pid)).append("/net/netstat");
  if (!fs.ReadProc(path_, &buf_).ok() || !ParseProcNetNetstat(buf_, &netstat_).ok()) return;
  if (auto drops = netstat_.Get("TcpExt", "ListenDrops"); drops && *drops >= 0)
    for (auto i = out->begin() + static_cast<std::ptrdiff_t>(tcp); i != out->end(); ++i) {
      i->drops = static_cast<uint64_t>(*drops);
      i->namespace_drops = true;
    }
}

void InputSocketFinder::Keep(const std::vector<int>& pids) {
  for (auto it = processes_.begin(); it != processes_.end();) {
    if (std::binary_search(pids.begin(), pids.end(), it->first)) {
      ++it;
    } else {
      it = processes_.erase(it);
    }
  }
}

}  // namespace bottleneckd
