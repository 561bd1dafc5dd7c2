#include "collectors/wait_object.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "base/parse_util.h"

namespace bottleneckd {
namespace {

// Of the system calls a server blocks in, those whose first argument is the
// descriptor it blocks on (by libseccomp's names, so every architecture's
// numbers). poll, select and ppoll take arrays: not resolved here.
constexpr std::string_view kFdCalls[] = {
    "accept", "accept4",         "connect",  "epoll_pwait", "epoll_pwait2",    "epoll_wait", "fdatasync", "flock",
    "fsync",  "pread64",         "preadv",   "preadv2",     "pwrite64",        "pwritev",    "pwritev2",  "read",
    "readv",  "recvfrom",        "recvmmsg", "recvmsg",     "sendfile",        "sendmmsg",   "sendmsg",   "sendto",
    "splice", "sync_file_range", "write",    "writev",      "copy_file_range", "tee",        "vmsplice"};

// The socket tables of the target's own network namespace (a server in a
// container binds there), looked in in this order.
struct SocketTable {
  const char* name;
  bool v6, tcp;
};
constexpr SocketTable kSocketTables[] = {
    {"udp", false, false}, {"tcp", false, true}, {"udp6", true, false}, {"tcp6", true, true}};

// "socket:[123]" -> 123 when link starts with prefix.
bool InodeOf(std::string_view link, std::string_view prefix, uint64_t* inode) {
  if (link.substr(0, prefix.size()) != prefix || link.size() < prefix.size() + 2 || link.back() != ']') return false;
  return ParseU64(link.substr(prefix.size(), link.size() - prefix.size() - 1), inode);
}

}  // namespace

bool FormatEndpoint(std::string_view text, bool v6, std::string* out) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon != (v6 ? 32u : 8u)) return false;
  uint64_t port = 0;
  if (!ParseHexU64(text.substr(colon + 1), &port) || port > 0xffff) return false;
  std::array<unsigned char, 16> bytes{};
  const size_t words = v6 ? 4 : 1;
  bool zero = port == 0;
  for (size_t w = 0; w < words; ++w) {
    uint64_t v = 0;
    if (!ParseHexU64(text.substr(w * 8, 8), &v)) return false;
    const uint32_t word = static_cast<uint32_t>(v);  // as the kernel read it from memory
    std::memcpy(bytes.data() + w * 4, &word, 4);
    zero = zero && word == 0;
  }
  if (zero) {
    out->clear();
    return true;
  }
  char addr[INET6_ADDRSTRLEN] = {};
  if (!::inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), addr, sizeof addr)) return false;
  *out = v6 ? "[" + std::string(addr) + "]:" + std::to_string(port) : std::string(addr) + ":" + std::to_string(port);
  return true;
}

std::string WaitObject::Describe() const {
  switch (kind) {
    case Kind::kNone: return "";
    case Kind::kSocket:
      if (local.empty()) return "socket:[" + std::to_string(inode) + "]";
      if (accepted) return protocol + " " + local + " <- " + remote + " (accepted)";
      if (!remote.empty()) return protocol + " " + local + " -> " + remote;
      return protocol + " " + local + (listening ? " (listening)" : " (unconnected)");
    case Kind::kPipe: return "pipe:[" + std::to_string(inode) + "]";
    case Kind::kFile: return "file " + path + (device.empty() ? "" : " (device " + device + ")");
    case Kind::kEpoll: {
      if (epoll_inputs + epoll_peers + epoll_others == 0) return "epoll";
      std::string d = "epoll (";
      if (epoll_inputs) d += "inputs " + std::to_string(epoll_inputs) + ": " + epoll_input;
      if (epoll_peers)
        d += std::string(epoll_inputs ? "; " : "") + "peers " + std::to_string(epoll_peers) + ": " + epoll_peer;
      if (epoll_others)
        d += std::string(epoll_inputs + epoll_peers ? "; " : "") + "other " + std::to_string(epoll_others);
      return d + ")";
    }
    case Kind::kOther: return path;
  }
  return "";
}

std::string_view DeviceOfObject(std::string_view described) {
  constexpr std::string_view kTag = " (device ";
  const size_t at = described.rfind(kTag);
  if (described.substr(0, 5) != "file " || at == std::string_view::npos || described.back() != ')') return {};
  return described.substr(at + kTag.size(), described.size() - at - kTag.size() - 1);
}

bool EpollWatchesInput(std::string_view described) { return described.rfind("epoll (inputs ", 0) == 0; }

bool EpollWatchesOnlyPeers(std::string_view described) {
  return described.rfind("epoll (peers ", 0) == 0 && described.find("; other ") == std::string_view::npos;
}

std::vector<uint64_t> ParseEpollTargets(std::string_view fdinfo) {
  std::vector<uint64_t> out;
  std::string_view line;
  while (NextLine(&fdinfo, &line) && out.size() < kMaxEpollTargets) {
    if (Trim(line).rfind("tfd:", 0) != 0) continue;
    const size_t at = line.find(" ino:");
    if (at == std::string_view::npos) continue;
    std::string_view rest = line.substr(at + 5);
    uint64_t inode = 0;
    if (ParseHexU64(NextToken(&rest), &inode)) out.push_back(inode);
  }
  return out;
}

std::string_view MountDevice(std::string_view mountinfo, uint64_t mount_id) {
  std::string_view line;
  while (NextLine(&mountinfo, &line)) {
    std::string_view rest = line;
    uint64_t id = 0;
    if (!ParseU64(NextToken(&rest), &id) || id != mount_id) continue;
    NextToken(&rest);  // the parent's id
    std::string_view device = NextToken(&rest);
    return device.find(':') == std::string_view::npos ? std::string_view() : device;
  }
  return {};
}

bool SyscallWaitsOnFd(std::string_view name) {
  return std::find(std::begin(kFdCalls), std::end(kFdCalls), name) != std::end(kFdCalls);
}

void ParseFdLink(std::string_view link, WaitObject* out) {
  out->path.assign(link);
  out->inode = 0;
  if (InodeOf(link, "socket:[", &out->inode)) {
    out->kind = WaitObject::Kind::kSocket;
    out->protocol = "socket";
  } else if (InodeOf(link, "pipe:[", &out->inode)) {
    out->kind = WaitObject::Kind::kPipe;
  } else if (link == "anon_inode:[eventpoll]") {
    out->kind = WaitObject::Kind::kEpoll;
  } else if (!link.empty() && link.front() == '/') {
    out->kind = WaitObject::Kind::kFile;
  } else {
    out->kind = link.empty() ? WaitObject::Kind::kNone : WaitObject::Kind::kOther;
  }
}

// "7000" of "10.0.0.1:7000" or "[::1]:7000".
std::string_view PortOf(std::string_view endpoint) {
  size_t colon = endpoint.rfind(':');
  return colon == std::string_view::npos ? std::string_view() : endpoint.substr(colon + 1);
}

// Whether a row of a TCP table listens on `port` (hexadecimal in the table:
// "0100007F:1F40 ... 0A").
bool Listens(std::string_view table, std::string_view port) {
  uint64_t want = 0;
  if (port.empty() || !ParseU64(port, &want)) return false;
  bool listens = false;
  ForEachSocketRow(table, [&](const SocketRow& row) {
    uint64_t state = 0, local_port = 0;
    const size_t colon = row.field[1].rfind(':');
    listens = colon != std::string_view::npos && ParseHexU64(row.field[3], &state) &&
              ParseHexU64(row.field[1].substr(colon + 1), &local_port) && state == 0x0A && local_port == want;
    return !listens;
  });
  return listens;
}

Status FindSocket(std::string_view table, bool v6, bool tcp, uint64_t inode, WaitObject* out, bool* found) {
  *found = false;
  Status status;
  ForEachSocketRow(table, [&](const SocketRow& row) {
    if (row.inode != inode) return true;
    uint64_t state = 0;
    if (!FormatEndpoint(row.field[1], v6, &out->local) || !FormatEndpoint(row.field[2], v6, &out->remote) ||
        !ParseHexU64(row.field[3], &state)) {
      status =
          Status::Corruption("socket " + std::to_string(inode) + ": cannot read '" + std::string(Trim(row.line)) + "'");
      return false;
    }
    out->listening = tcp && state == 0x0A;  // TCP_LISTEN
    out->accepted = tcp && !out->listening && !out->remote.empty() && Listens(table, PortOf(out->local));
    *found = true;
    return false;
  });
  return status;
}

void WaitObjectResolver::Resolve(const HostFs& fs, int pid, std::string_view syscall, const std::vector<uint64_t>& args,
                                 WaitObject* out) {
  *out = WaitObject();
  if (args.empty() || args[0] > static_cast<uint64_t>(INT32_MAX) || !SyscallWaitsOnFd(syscall)) return;
  const int fd = static_cast<int>(args[0]);
  path_.assign(std::to_string(pid)).append("/fd/").append(std::to_string(fd));
  if (!fs.ReadLinkProc(path_, &link_).ok()) return;  // closed meanwhile, or not ours to read
  WaitObject now;
  ParseFdLink(link_, &now);
  now.fd = fd;
  if (now.kind == WaitObject::Kind::kEpoll) {
    // Not cached: the interest list changes while the descriptor stays.
    ResolveEpoll(fs, pid, &now);
    *out = std::move(now);
    return;
  }
  auto it = cache_.find({pid, fd});
  if (it != cache_.end() && it->second.kind == now.kind && it->second.inode == now.inode &&
      it->second.path == now.path) {
    *out = it->second;
    return;
  }
  if (now.kind == WaitObject::Kind::kSocket) {
    for (const SocketTable& t : kSocketTables) {
      if (!ReadSocketTable(fs, pid, t.name)) continue;
      bool found = false;
      if (!FindSocket(buf_, t.v6, t.tcp, now.inode, &now, &found).ok()) break;
      if (found) {
        now.protocol = t.name;
        break;
      }
    }
  }
  if (now.kind == WaitObject::Kind::kFile) {
    // "mnt_id:\t27" in fdinfo, then mount 27's device in mountinfo.
    path_.assign(std::to_string(pid)).append("/fdinfo/").append(std::to_string(fd));
    uint64_t mount_id = 0;
    if (fs.ReadProc(path_, &buf_).ok()) {
      const size_t at = buf_.find("mnt_id:");
      std::string_view rest = at == std::string::npos ? std::string_view() : std::string_view(buf_).substr(at + 7);
      rest = rest.substr(0, rest.find('\n'));
      if (ParseU64(Trim(rest), &mount_id)) {
        path_.assign(std::to_string(pid)).append("/mountinfo");
        if (fs.ReadProc(path_, &buf_).ok()) now.device = std::string(MountDevice(buf_, mount_id));
      }
    }
  }
  cache_[{pid, fd}] = now;
  *out = std::move(now);
}

bool WaitObjectResolver::ReadSocketTable(const HostFs& fs, int pid, const char* name) {
  path_.assign(std::to_string(pid)).append("/net/").append(name);
  if (!fs.ReadProc(path_, &buf_).ok()) return false;
  ++table_reads_;
  return true;
}

void WaitObjectResolver::ResolveEpoll(const HostFs& fs, int pid, WaitObject* out) {
  path_.assign(std::to_string(pid)).append("/fdinfo/").append(std::to_string(out->fd));
  if (!fs.ReadProc(path_, &buf_).ok()) return;
  const std::vector<uint64_t> targets = ParseEpollTargets(buf_);
  if (by_inode_.size() + targets.size() > kMaxInodesCached) by_inode_.clear();
  std::vector<uint64_t> missed;
  for (uint64_t inode : targets)
    if (by_inode_.try_emplace({pid, inode}).second) missed.push_back(inode);  // kNone until found
  if (!missed.empty()) {
    // Each table read once for all of this call's new inodes.
    for (const SocketTable& t : kSocketTables) {
      if (!ReadSocketTable(fs, pid, t.name)) continue;
      for (uint64_t inode : missed) {
        WaitObject& o = by_inode_[{pid, inode}];
        if (o.kind != WaitObject::Kind::kNone) continue;
        WaitObject found;
        bool hit = false;
        if (!FindSocket(buf_, t.v6, t.tcp, inode, &found, &hit).ok() || !hit) continue;
        found.kind = WaitObject::Kind::kSocket;
        found.inode = inode;
        found.protocol = t.name;
        o = std::move(found);
      }
    }
  }
  for (uint64_t inode : targets) {
    const WaitObject& o = by_inode_[{pid, inode}];
    if (o.kind != WaitObject::Kind::kSocket) {
      ++out->epoll_others;
    } else if (o.peer()) {
      if (out->epoll_peers++ == 0) out->epoll_peer = o.Describe();
    } else {
      if (out->epoll_inputs++ == 0) out->epoll_input = o.Describe();
    }
  }
}

void WaitObjectResolver::Keep(const std::vector<int>& pids) {
  for (auto it = cache_.begin(); it != cache_.end();) {
    if (std::binary_search(pids.begin(), pids.end(), it->first.first)) {
      ++it;
    } else {
      it = cache_.erase(it);
    }
  }
  std::erase_if(by_inode_, [&](const auto& e) { return !std::binary_search(pids.begin(), pids.end(), e.first.first); });
}

}  // namespace bottleneckd
