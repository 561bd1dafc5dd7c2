#include "analysis/wait_class.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/rules.h"
#include "analysis/wait_history.h"
#include "collectors/wait_object.h"

namespace bottleneckd {
namespace {

constexpr const char* kNames[kWaitClassCount] = {"input", "peer", "lock", "disk", "sleep", "other", "unseen"};

// The system call of a place: "recvfrom" of "__skb_wait_for_more_packets
// (recvfrom)", "" when it names none.
std::string_view SyscallOf(std::string_view where) {
  size_t open = where.rfind('(');
  if (open == std::string_view::npos || where.back() != ')') return "";
  return where.substr(open + 1, where.size() - open - 2);
}

bool Among(std::string_view x, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), x) != names.end();
}

// Kernel functions a task sleeps in for block I/O or the page cache.
bool DiskFunction(std::string_view fn) {
  for (std::string_view k : {"io_schedule", "blk_", "jbd2", "folio_wait", "wait_on_page", "bit_wait_io",
                             "filemap_fault", "ext4_sync", "xfs_", "btrfs_"})
    if (fn.find(k) != std::string_view::npos) return true;
  return false;
}

// collectors/wait_object.h's Describe of a socket: "udp ...", "tcp6 ...",
// "socket:[N]" when its table row was not found.
bool SocketObject(std::string_view object) {
  for (std::string_view k : {"udp", "tcp", "socket:[", "raw", "unix"})
    if (object.substr(0, k.size()) == k) return true;
  return false;
}

}  // namespace

const char* WaitClassName(WaitClass c) { return kNames[static_cast<size_t>(c)]; }

namespace {

// A receive: in a socket's wait function, or a receive call on a socket.
bool SocketReceive(const ThreadState::Place& p, std::string_view fn, std::string_view call) {
  bool socket_wait = fn == "__skb_wait_for_more_packets" || fn == "sk_wait_data" || fn == "inet_csk_accept";
  bool socket_call = Among(call, {"recvfrom", "recvmsg", "recvmmsg", "read", "readv", "accept", "accept4"}) &&
                     p.object_samples > 0 && SocketObject(p.object);
  return socket_wait || socket_call;
}

// An epoll wait on an interest list that holds one of the thread's inputs
// (collectors/wait_object.h Describe: "epoll (inputs 1: ...)"): the event
// loop has nothing ready on its inputs (level-triggered: queued work would
// have ended the wait). An epoll that watches only peers waits for their
// answers.
bool EpollCall(std::string_view call) { return Among(call, {"epoll_wait", "epoll_pwait", "epoll_pwait2"}); }

}  // namespace

WaitClass ClassOfPlace(const ThreadState::Place& p) {
  std::string_view where = p.where;
  std::string_view call = SyscallOf(where);
  std::string_view fn = where.substr(0, where.find(' '));
  if (Among(call, {"clock_nanosleep", "nanosleep"})) return WaitClass::kSleep;
  // A futex woken mostly by the thread that receives the work, waited on by
  // one that does not: a pool worker waiting for work handed over (its
  // input); else a lock (wait_history.h MarkHandoffs).
  if (Among(call, {"futex", "futex_waitv"})) return p.handoff > 0.5 ? WaitClass::kInput : WaitClass::kLock;
  if (Among(call, {"fsync", "fdatasync", "sync_file_range", "msync", "syncfs", "sync"}) || DiskFunction(fn) ||
      p.object.rfind("file ", 0) == 0)
    return WaitClass::kDisk;
  if (EpollCall(call) && p.object_samples > 0) {
    if (EpollWatchesInput(p.object)) return WaitClass::kInput;
    if (EpollWatchesOnlyPeers(p.object)) return WaitClass::kPeer;
  }
  if (!SocketReceive(p, fn, call)) return WaitClass::kOther;
  return p.object_samples > 0 && p.peer_samples * 2 > p.object_samples ? WaitClass::kPeer : WaitClass::kInput;
}

bool WaitedForInput(const ThreadState::Place& p) {
  std::string_view where = p.where;
  const std::string_view call = SyscallOf(where);
  return SocketReceive(p, where.substr(0, where.find(' ')), call) ||
         (EpollCall(call) && p.object_samples > 0 && EpollWatchesInput(p.object));
}

std::array<double, kWaitClassCount> WaitShares(const ThreadState& st) {
  std::array<double, kWaitClassCount> out{};
  double all = 0;
  for (const ThreadState::Place& p : st.places) all += st.places_measured ? p.ratio : p.samples;
  if (all <= 0) {
    // No history of places: the window-end sample alone, when it saw one.
    std::string where = WaitPlace(st.wchan, st.syscall);
    if (where.empty()) {
      out[static_cast<size_t>(WaitClass::kUnseen)] = st.waiting;
    } else {
      ThreadState::Place p;
      p.where = where;
      p.object = st.object;
      p.object_samples = st.object.empty() ? 0 : 1;
      p.peer_samples = st.object_peer ? 1 : 0;
      out[static_cast<size_t>(ClassOfPlace(p))] = st.waiting;
    }
    return out;
  }
  if (!st.places_measured) {
    // Sampled places are instants: they share the waiting among themselves,
    // when there are enough of them to.
    if (all < kSampledPlacesMin) {
      out[static_cast<size_t>(WaitClass::kUnseen)] = st.waiting;
      return out;
    }
    for (const ThreadState::Place& p : st.places)
      out[static_cast<size_t>(ClassOfPlace(p))] += st.waiting * p.samples / all;
    return out;
  }
  // Measured places are shares of the time off the CPU (waiting and
  // runnable: preemptions count in it but are no place); scaled down where
  // the two clocks claim more than the waiting, and what they leave unseen.
  const double off = st.waiting + st.runnable;
  const double scale = all * off > st.waiting && all > 0 ? st.waiting / (all * off) : 1.0;
  double placed = 0;
  for (const ThreadState::Place& p : st.places) {
    double t = p.ratio * off * scale;
    out[static_cast<size_t>(ClassOfPlace(p))] += t;
    placed += t;
  }
  out[static_cast<size_t>(WaitClass::kUnseen)] += std::max(0.0, st.waiting - placed);
  return out;
}

int SampledWaits(const ThreadState& st) {
  if (st.places_measured) return 0;
  int n = 0;
  for (const ThreadState::Place& p : st.places) n += p.samples;
  return n;
}

bool TooFewSampledWaits(const ThreadState& st) {
  const int n = SampledWaits(st);
  return n > 0 && n < kSampledPlacesMin;
}

std::vector<ThreadWaitShares> ThreadWaits(const Signals& s) {
  std::vector<ThreadWaitShares> out;
  for (const ThreadSignal& th : s.threads)
    if (th.state) out.push_back({th.tid, WaitShares(*th.state)});
  return out;
}

std::vector<ThreadWaitSeconds> WaitSecondsTotals::Add(const std::vector<ThreadWaitShares>& window, double seconds) {
  std::map<int, std::array<double, kWaitClassCount>> next;
  std::vector<ThreadWaitSeconds> out;
  for (const ThreadWaitShares& w : window) {
    std::array<double, kWaitClassCount>& total = next[w.tid];
    if (auto it = by_tid_.find(w.tid); it != by_tid_.end()) total = it->second;
    for (size_t c = 0; c < kWaitClassCount; ++c) total[c] += w.shares[c] * seconds;
    out.push_back({w.tid, total});
  }
  by_tid_ = std::move(next);
  return out;
}

std::string LargestOwnClass(const ThreadState& st) {
  const std::array<double, kWaitClassCount> shares = WaitShares(st);
  size_t best = kWaitClassCount;
  for (size_t i = 0; i < kWaitClassCount; ++i) {
    const auto c = static_cast<WaitClass>(i);
    if (c == WaitClass::kInput || c == WaitClass::kUnseen || shares[i] < 0.0005) continue;
    if (best == kWaitClassCount || shares[i] > shares[best]) best = i;
  }
  return best == kWaitClassCount ? "" : kNames[best];
}

std::string WaitSharesSentence(const std::array<double, kWaitClassCount>& shares) {
  std::vector<std::pair<double, size_t>> order;
  for (size_t i = 0; i < kWaitClassCount; ++i)
    if (shares[i] >= 0.0005) order.push_back({shares[i], i});
  std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::string s;
  for (const auto& [v, i] : order) s += (s.empty() ? "" : ", ") + std::string(kNames[i]) + " " + FormatPercent(v);
  return s;
}

}  // namespace bottleneckd
