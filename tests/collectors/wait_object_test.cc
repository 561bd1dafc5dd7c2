// The object of a wait without eBPF (collectors/wait_object.h): a blocked
// thread's system call arguments, the descriptor's link, the socket tables
// of the target's network namespace. The table and syscall lines below were
// recorded on this project's CI VM (kernel 6.18.44, x86_64): a UDP socket
// bound to 127.0.0.1:47001, one bound to 127.0.0.1:47002 and connected to
// the first, one bound to [::1]:47003, and a thread blocked in recvfrom on
// the connected one. The live tests do the same in this process.
#include "collectors/wait_object.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "base/unique_fd.h"
#include "collectors/host_readings.h"
#include "collectors/task_state.h"
#include "collectors/threads.h"
#include "tests/support/test_util.h"

namespace bottleneckd::wait_object_test {
namespace {

using testing::TempDir;

constexpr char kUdp[] =
    "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer "
    "drops            \n"
    " 4324: 0100007F:B799 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 17336027 2 "
    "00000000fea5af2e 0      \n"
    " 4325: 0100007F:B79A 0100007F:B799 01 00000000:00000000 00:00000000 00000000     0        0 17336028 2 "
    "00000000eda1494d 0      \n";
constexpr char kUdp6[] =
    "  sl  local_address                         remote_address                        st tx_queue rx_queue tr "
    "tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
    " 4326: 00000000000000000000000001000000:B79B 00000000000000000000000000000000:0000 07 00000000:00000000 "
    "00:00000000 00000000     0        0 17336029 2 0000000086a9046b 0\n";
// The thread blocked in recvfrom (45 on x86_64) on fd 4.
constexpr char kSyscall[] = "45 0x4 0x7f048e4c3e60 0xa 0x0 0x0 0x0 0x7f048e40ea10 0x7f048eb28974\n";

TEST(ParseTaskSyscall, ArgumentsOfACall) {
  std::optional<int64_t> nr;
  std::vector<uint64_t> args;
  ASSERT_TRUE(ParseTaskSyscall(kSyscall, &nr, &args).ok());
  EXPECT_EQ(nr, 45);
  EXPECT_EQ(args, (std::vector<uint64_t>{4, 0x7f048e4c3e60, 0xa, 0, 0, 0}));
  // Outside a call: the stack and program counter only, no arguments.
  ASSERT_TRUE(ParseTaskSyscall("-1 0x7fff33796bb0 0x7f048eb162ec\n", &nr, &args).ok());
  EXPECT_EQ(nr, -1);
  EXPECT_TRUE(args.empty());
  ASSERT_TRUE(ParseTaskSyscall("running\n", &nr, &args).ok());
  EXPECT_FALSE(nr);
  Status s = ParseTaskSyscall("45 0x4 0x7f zz\n", &nr, &args);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("bad argument 'zz'"), std::string::npos) << s.ToString();
  EXPECT_TRUE(args.empty());
  EXPECT_TRUE(ParseTaskSyscall("45 0x4\n", &nr, &args).IsCorruption());  // cut short
}

TEST(FindSocket, ConnectedUnconnectedAndV6) {
  WaitObject o;
  bool found = false;
  ASSERT_TRUE(FindSocket(kUdp, false, false, 17336028, &o, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(o.local, "127.0.0.1:47002");
  EXPECT_EQ(o.remote, "127.0.0.1:47001");
  ASSERT_TRUE(FindSocket(kUdp, false, false, 17336027, &o, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(o.local, "127.0.0.1:47001");
  EXPECT_EQ(o.remote, "");
  EXPECT_FALSE(o.listening);
  ASSERT_TRUE(FindSocket(kUdp6, true, false, 17336029, &o, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(o.local, "[::1]:47003");
  EXPECT_EQ(o.remote, "");
  ASSERT_TRUE(FindSocket(kUdp, false, false, 42, &o, &found).ok());
  EXPECT_FALSE(found);
  // A TCP listener (st 0A).
  ASSERT_TRUE(FindSocket("  sl  local_address rem_address   st\n   0: 00000000:0050 00000000:0000 0A 00000000:00000000 "
                         "00:00000000 00000000     0        0 555 1 0000000000000000 100 0 0 10 0\n",
                         false, true, 555, &o, &found)
                  .ok());
  ASSERT_TRUE(found);
  EXPECT_TRUE(o.listening);
  EXPECT_EQ(o.local, "0.0.0.0:80");
  // The inode's line, unreadable: an error naming it, not a wrong address.
  Status s =
      FindSocket("header\n 0: 0100007G:B799 00000000:0000 07 0:0 0:0 0 0 0 77 2 0 0\n", false, false, 77, &o, &found);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("socket 77"), std::string::npos) << s.ToString();
}

// Recorded on this VM (kernel 6.18.44): a listener on 127.0.0.1:49951, a
// client connected to it from :41534, and the connection the listener
// accepted. The client's receive waits on a peer (the server's answer); the
// accepted socket's receive waits for the client's next request, the
// server's input (issue 49: a TCP backend thread, waiting for its
// requests, must not read as a thread blocked on a peer).
constexpr const char* kTcp =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   1: 0100007F:C31F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 18067402 1 "
    "000000009b972303 100 0 0 10 0\n"
    "   2: 0100007F:C31F 0100007F:A23E 01 00000000:00000000 00:00000000 00000000     0        0 18067404 1 "
    "000000005ed98aaf 20 0 0 10 -1\n"
    "   3: 0100007F:A23E 0100007F:C31F 01 00000000:00000000 00:00000000 00000000     0        0 18067403 2 "
    "0000000083279dd4 20 0 0 10 -1\n";

TEST(FindSocket, AnAcceptedConnectionIsTheServersInputNotAPeer) {
  WaitObject o;
  o.kind = WaitObject::Kind::kSocket;
  o.protocol = "tcp";
  bool found = false;
  ASSERT_TRUE(FindSocket(kTcp, false, true, 18067403, &o, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_FALSE(o.accepted);
  EXPECT_TRUE(o.peer());
  EXPECT_EQ(o.Describe(), "tcp 127.0.0.1:41534 -> 127.0.0.1:49951");
  ASSERT_TRUE(FindSocket(kTcp, false, true, 18067404, &o, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_TRUE(o.accepted);
  EXPECT_FALSE(o.peer());
  EXPECT_EQ(o.Describe(), "tcp 127.0.0.1:49951 <- 127.0.0.1:41534 (accepted)");
  ASSERT_TRUE(FindSocket(kTcp, false, true, 18067402, &o, &found).ok());
  EXPECT_TRUE(o.listening);
  EXPECT_FALSE(o.accepted);
  EXPECT_FALSE(o.peer());
}

TEST(ParseFdLink, Kinds) {
  WaitObject o;
  ParseFdLink("socket:[17336028]", &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kSocket);
  EXPECT_EQ(o.inode, 17336028u);
  ParseFdLink("pipe:[991]", &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kPipe);
  EXPECT_EQ(o.Describe(), "pipe:[991]");
  ParseFdLink("anon_inode:[eventpoll]", &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kEpoll);
  ParseFdLink("/var/lib/bottleneckd/runs.db", &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kFile);
  EXPECT_EQ(o.Describe(), "file /var/lib/bottleneckd/runs.db");
  ParseFdLink("socket:[12x]", &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kOther);
  ParseFdLink("anon_inode:[eventfd]", &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kOther);
}

TEST(SyscallWaitsOnFd, ByName) {
  for (const char* yes : {"recvfrom", "read", "accept4", "fdatasync", "epoll_wait", "recvmmsg"})
    EXPECT_TRUE(SyscallWaitsOnFd(yes)) << yes;
  for (const char* no : {"futex", "clock_nanosleep", "poll", "ppoll", "select", "none", ""})
    EXPECT_FALSE(SyscallWaitsOnFd(no)) << no;
}

// Over a tree: the link read each time, the tables once per (pid, fd, inode).
TEST(WaitObjectResolver, CachesByInodeAndForgetsGoneProcesses) {
  TempDir root;
  root.Write("proc/700/net/udp", kUdp);
  root.Write("proc/700/net/udp6", kUdp6);
  ASSERT_EQ(::mkdir((root.path() + "/proc/700/fd").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("socket:[17336028]", (root.path() + "/proc/700/fd/4").c_str()), 0);
  HostFs fs(HostRoots{root.path() + "/proc", root.path() + "/sys", ""});
  WaitObjectResolver r;
  WaitObject o;
  r.Resolve(fs, 700, "recvfrom", {4, 0, 10, 0, 0, 0}, &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kSocket);
  EXPECT_EQ(o.fd, 4);
  EXPECT_TRUE(o.peer());
  EXPECT_EQ(o.Describe(), "udp 127.0.0.1:47002 -> 127.0.0.1:47001");
  EXPECT_EQ(r.table_reads(), 1u);
  r.Resolve(fs, 700, "recvfrom", {4, 0, 10, 0, 0, 0}, &o);
  EXPECT_EQ(o.Describe(), "udp 127.0.0.1:47002 -> 127.0.0.1:47001");
  EXPECT_EQ(r.table_reads(), 1u) << "a known inode reads no table";
  // The fd now names the unconnected socket: read again.
  ASSERT_EQ(::unlink((root.path() + "/proc/700/fd/4").c_str()), 0);
  ASSERT_EQ(::symlink("socket:[17336027]", (root.path() + "/proc/700/fd/4").c_str()), 0);
  r.Resolve(fs, 700, "recvfrom", {4, 0, 10, 0, 0, 0}, &o);
  EXPECT_FALSE(o.peer());
  EXPECT_EQ(o.Describe(), "udp 127.0.0.1:47001 (unconnected)");
  EXPECT_EQ(r.table_reads(), 2u);
  // Not a descriptor call, a closed descriptor, an absurd one: nothing.
  r.Resolve(fs, 700, "futex", {4, 0, 0, 0, 0, 0}, &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kNone);
  r.Resolve(fs, 700, "read", {9, 0, 0, 0, 0, 0}, &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kNone);
  r.Resolve(fs, 700, "read", {~0ull, 0, 0, 0, 0, 0}, &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kNone);
  // A socket in none of the target's tables (unix, netlink): a socket all the same.
  ASSERT_EQ(::symlink("socket:[5]", (root.path() + "/proc/700/fd/6").c_str()), 0);
  r.Resolve(fs, 700, "recvmsg", {6, 0, 0, 0, 0, 0}, &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kSocket);
  EXPECT_FALSE(o.peer());
  EXPECT_EQ(o.Describe(), "socket:[5]");
  const uint64_t reads = r.table_reads();
  r.Keep({});  // pid 700 gone: its fds may be reused by a successor
  r.Resolve(fs, 700, "recvfrom", {4, 0, 10, 0, 0, 0}, &o);
  EXPECT_GT(r.table_reads(), reads);
}

// An epoll instance's interest list, from its fdinfo (the line is this
// VM's), each watched inode looked up in the tables once.
TEST(WaitObjectResolver, AnEpollNamesWhatItWatches) {
  EXPECT_EQ(ParseEpollTargets("pos:\t0\nflags:\t02000002\nmnt_id:\t17\nino:\t1038\n"
                              "tfd:        4 events:       19 data:                4  pos:0 ino:14946dd sdev:9\n"),
            std::vector<uint64_t>{0x14946dd});
  TempDir root;
  root.Write("proc/700/net/udp", kUdp);
  root.Write("proc/700/net/udp6", kUdp6);
  // The unconnected socket, the connected one and an eventfd (in no table).
  root.Write("proc/700/fdinfo/7",
             "pos:\t0\nflags:\t02\nmnt_id:\t17\nino:\t1038\n"
             "tfd:        3 events:       19 data:                3  pos:0 ino:10886db sdev:9\n"
             "tfd:        4 events:       19 data:                4  pos:0 ino:10886dc sdev:9\n"
             "tfd:        5 events:       19 data:                5  pos:0 ino:40e sdev:f\n");
  ASSERT_EQ(::mkdir((root.path() + "/proc/700/fd").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("anon_inode:[eventpoll]", (root.path() + "/proc/700/fd/7").c_str()), 0);
  HostFs fs(HostRoots{root.path() + "/proc", root.path() + "/sys", ""});
  WaitObjectResolver r;
  WaitObject o;
  r.Resolve(fs, 700, "epoll_wait", {7, 0, 16, 100, 0, 0}, &o);
  EXPECT_EQ(o.kind, WaitObject::Kind::kEpoll);
  EXPECT_EQ(o.Describe(),
            "epoll (inputs 1: udp 127.0.0.1:47001 (unconnected); peers 1: udp 127.0.0.1:47002 -> 127.0.0.1:47001; "
            "other 1)");
  const uint64_t reads = r.table_reads();
  // Read again each time (the list changes), its inodes from the cache.
  root.Write("proc/700/fdinfo/7",
             "pos:\t0\nflags:\t02\nmnt_id:\t17\nino:\t1038\n"
             "tfd:        4 events:       19 data:                4  pos:0 ino:10886dc sdev:9\n");
  r.Resolve(fs, 700, "epoll_wait", {7, 0, 16, 100, 0, 0}, &o);
  EXPECT_EQ(o.Describe(), "epoll (peers 1: udp 127.0.0.1:47002 -> 127.0.0.1:47001)");
  EXPECT_EQ(r.table_reads(), reads);
}

// This process on the real /proc: a thread blocked in recv on a socket
// connected to one peer, another on an unconnected bound socket. The threads
// collector names both objects, from the real syscall, fd link and tables.
TEST(WaitObjectLive, TheThreadsCollectorNamesTheSocketABlockedThreadWaitsOn) {
  auto bound = [](UniqueFd* fd, uint16_t* port) {
    *fd = UniqueFd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    ASSERT_TRUE(fd->valid());
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(fd->get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    ASSERT_EQ(::getsockname(fd->get(), reinterpret_cast<sockaddr*>(&a), &len), 0);
    *port = ntohs(a.sin_port);
  };
  UniqueFd backend, client, input;
  uint16_t backend_port = 0, client_port = 0, input_port = 0;
  bound(&backend, &backend_port);
  bound(&client, &client_port);
  bound(&input, &input_port);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  to.sin_port = htons(backend_port);
  ASSERT_EQ(::connect(client.get(), reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
  std::atomic<int> peer_tid{0}, input_tid{0};
  // Each receive ends on a datagram sent below (bounded: 10 s at most, by SO_RCVTIMEO).
  auto wait_on = [](int fd, std::atomic<int>* tid) {
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    tid->store(static_cast<int>(::gettid()));
    char b[16];
    (void)::recv(fd, b, sizeof b, 0);
  };
  std::thread peer_waiter(wait_on, client.get(), &peer_tid);
  std::thread input_waiter(wait_on, input.get(), &input_tid);
  ThreadsOptions o;
  o.targets.push_back(ThreadTarget{"", ::getpid()});
  ThreadsCollector c(o);
  HostFs fs(HostRoots{});
  WaitObject peer_object, input_object;
  for (int attempt = 0;
       attempt < 200 && (peer_object.kind == WaitObject::Kind::kNone || input_object.kind == WaitObject::Kind::kNone);
       ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    HostReadings r;
    ASSERT_TRUE(c.Collect(fs, &r).ok());
    for (const ThreadSample& t : *r.threads) {
      if (t.task.tid == peer_tid.load()) peer_object = t.wait.object;
      if (t.task.tid == input_tid.load()) input_object = t.wait.object;
    }
  }
  // Wake both: the backend answers the client, anyone sends to the input.
  sockaddr_in back{};
  back.sin_family = AF_INET;
  back.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  back.sin_port = htons(client_port);
  ASSERT_EQ(::sendto(backend.get(), "a", 1, 0, reinterpret_cast<sockaddr*>(&back), sizeof back), 1);
  back.sin_port = htons(input_port);
  ASSERT_EQ(::sendto(backend.get(), "b", 1, 0, reinterpret_cast<sockaddr*>(&back), sizeof back), 1);
  peer_waiter.join();
  input_waiter.join();
  EXPECT_EQ(peer_object.kind, WaitObject::Kind::kSocket);
  EXPECT_EQ(peer_object.fd, client.get());
  EXPECT_TRUE(peer_object.peer());
  EXPECT_EQ(peer_object.Describe(),
            "udp 127.0.0.1:" + std::to_string(client_port) + " -> 127.0.0.1:" + std::to_string(backend_port));
  EXPECT_EQ(input_object.kind, WaitObject::Kind::kSocket);
  EXPECT_FALSE(input_object.peer());
  EXPECT_EQ(input_object.Describe(), "udp 127.0.0.1:" + std::to_string(input_port) + " (unconnected)");
}

// This process on the real /proc: a thread blocked in epoll_wait on a
// bound UDP socket and an eventfd is an event loop waiting on its input.
TEST(WaitObjectLive, AThreadInEpollWaitWatchesItsInput) {
  UniqueFd input(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)), ep(::epoll_create1(EPOLL_CLOEXEC)),
      ev(::eventfd(0, EFD_CLOEXEC));
  ASSERT_TRUE(input.valid() && ep.valid() && ev.valid());
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(input.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ASSERT_EQ(::getsockname(input.get(), reinterpret_cast<sockaddr*>(&a), &len), 0);
  for (int fd : {input.get(), ev.get()}) {
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.fd = fd;
    ASSERT_EQ(::epoll_ctl(ep.get(), EPOLL_CTL_ADD, fd, &e), 0);
  }
  std::atomic<int> tid{0};
  std::thread loop([&] {  // ends on the eventfd written below, or after 10 s
    tid.store(static_cast<int>(::gettid()));
    epoll_event got{};
    (void)::epoll_wait(ep.get(), &got, 1, 10000);
  });
  while (tid.load() == 0) std::this_thread::yield();
  ThreadsOptions o;
  o.targets.push_back(ThreadTarget{"", ::getpid()});
  ThreadsCollector c(o);
  HostFs fs(HostRoots{});
  WaitObject seen;
  for (int attempt = 0; attempt < 200 && seen.kind != WaitObject::Kind::kEpoll; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    HostReadings r;
    ASSERT_TRUE(c.Collect(fs, &r).ok());
    for (const ThreadSample& t : *r.threads)
      if (t.task.tid == tid.load()) seen = t.wait.object;
  }
  const uint64_t one = 1;
  ASSERT_EQ(::write(ev.get(), &one, sizeof one), static_cast<ssize_t>(sizeof one));
  loop.join();
  EXPECT_EQ(seen.Describe(),
            "epoll (inputs 1: udp 127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + " (unconnected); other 1)");
}

}  // namespace
}  // namespace bottleneckd::wait_object_test
