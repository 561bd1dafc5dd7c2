// A target process's inputs (collectors/input_sockets.h): its unconnected
// UDP sockets and the kernel's per-socket counters. The table lines below
// are the format this project's CI VM printed (kernel 6.18.44, x86_64),
// with the rx_queue and drops columns of the first socket set by hand to
// what a socket that overflowed shows (the live test makes one for real).
#include "collectors/input_sockets.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "collectors/host_readings.h"
#include "collectors/sockets.h"
#include "collectors/threads.h"
#include "tests/support/test_util.h"

namespace bottleneckd::input_sockets_test {
namespace {

using testing::TempDir;

constexpr char kUdp[] =
    "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer "
    "drops            \n"
    " 4324: 00000000:1B58 00000000:0000 07 00000000:00034000 00:00000000 00000000     0        0 17336027 2 "
    "00000000fea5af2e 8812   \n"
    " 4325: 0100007F:B79A 0100007F:B799 01 00000000:00000000 00:00000000 00000000     0        0 17336028 2 "
    "00000000eda1494d 0      \n";
constexpr char kUdp6[] =
    "  sl  local_address                         remote_address                        st tx_queue rx_queue tr "
    "tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
    " 4326: 00000000000000000000000001000000:B79B 00000000000000000000000000000000:0000 07 00000000:00000000 "
    "00:00000000 00000000     0        0 17336029 2 0000000086a9046b 0\n";

TEST(FindInputSockets, TheUnconnectedOnesOfTheProcessWithTheirCounters) {
  std::vector<InputSocket> out;
  ASSERT_OK(FindInputSockets(kUdp, false, 700, {17336027, 17336028}, &out));
  ASSERT_EQ(out.size(), 1u);  // 17336028 is connected: a peer
  EXPECT_EQ(out[0].pid, 700);
  EXPECT_EQ(out[0].inode, 17336027u);
  EXPECT_EQ(out[0].protocol, "udp");
  EXPECT_EQ(out[0].local, "0.0.0.0:7000");
  EXPECT_EQ(out[0].receive_queue, 0x34000u);
  EXPECT_EQ(out[0].drops, 8812u);
  ASSERT_OK(FindInputSockets(kUdp6, true, 700, {17336029}, &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].protocol, "udp6");
  EXPECT_EQ(out[1].local, "[::1]:47003");
  // Not the process's: not read.
  out.clear();
  ASSERT_OK(FindInputSockets(kUdp, false, 700, {5}, &out));
  EXPECT_TRUE(out.empty());
}

TEST(FindInputSockets, ALineOfItsSocketCutShortIsAnError) {
  const std::string cut =
      "   sl  local_address rem_address ...\n 4324: 00000000:1B58 00000000:0000 07 00000000:0 "
      "00:00000000 00000000     0        0 17336027 2\n";
  std::vector<InputSocket> out;
  Status s = FindInputSockets(cut, false, 700, {17336027}, &out);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_NE(s.message().find("socket 17336027: cannot read"), std::string::npos) << s.ToString();
  // Another socket's line is not parsed past its inode.
  EXPECT_OK(FindInputSockets(cut, false, 700, {9}, &out));
}

// The TCP table's head as this VM printed it (kernel 6.18.44): the
// listeners first (st 0A, rx_queue the connections waiting to be accepted:
// the first set by hand to a full queue of 128), then the connections.
constexpr char kTcp[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 00000000:1F90 00000000:0000 0A 00000000:00000080 00:00000000 00000000     0        0 1062 1 "
    "000000008e488edc 100 0 0 10 0\n"
    "   1: 0100007F:0277 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1063 1 "
    "000000001e488edc 100 0 0 10 0\n"
    "   2: 0100007F:1F90 0100007F:A2C4 01 00000000:00000000 00:00000000 00000000     0        0 1070 1 "
    "000000002e488edc 20 4 30 10 -1\n";

TEST(FindListeningSockets, TheProcessListenersFromTheTablesHead) {
  std::vector<InputSocket> out;
  bool more = true;
  ASSERT_OK(FindListeningSockets(kTcp, kTcpTableHeadBytes, false, 700, {1062, 1070}, &out, &more));
  ASSERT_EQ(out.size(), 1u) << "1063 is not its; 1070 is a connection";
  EXPECT_EQ(out[0].protocol, "tcp");
  EXPECT_EQ(out[0].local, "0.0.0.0:8080");
  EXPECT_TRUE(out[0].listening);
  EXPECT_EQ(out[0].receive_queue, 128u);
  EXPECT_EQ(out[0].drops, 0u);
  EXPECT_FALSE(more) << "a connection followed the listeners";
  // A head cut at its cap in the second listener: the part line is not
  // read, and more listeners may follow.
  const std::string text = kTcp;
  const size_t cut = text.find("   1:") + 20;
  out.clear();
  ASSERT_OK(FindListeningSockets(text.substr(0, cut), cut, false, 700, {1062, 1063}, &out, &more));
  EXPECT_EQ(out.size(), 1u);
  EXPECT_TRUE(more);
  // A listener of its whose queue cannot be read: an error naming it.
  std::string broken = text;
  broken.replace(broken.find("00000000:00000080"), 17, "00000000-00000080");
  out.clear();
  Status s = FindListeningSockets(broken, kTcpTableHeadBytes, false, 700, {1062}, &out, &more);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("socket 1062"), std::string::npos) << s.ToString();
}

// A HostFs that counts the reads of each proc file.
class CountingFs : public HostFs {
 public:
  using HostFs::HostFs;
  Status ReadProc(std::string_view rel, std::string* out) const override {
    ++reads[std::string(rel)];
    return HostFs::ReadProc(rel, out);
  }
  mutable std::map<std::string, int> reads;
};

// Over a tree: the descriptors listed when the process is first seen and
// every kRescanEvery calls after, the tables each call (a table that held
// none of its inputs only after a listing); a process gone is forgotten.
TEST(InputSocketFinder, ListsDescriptorsOnceInAWhileAndReadsTheTablesEachCall) {
  TempDir root;
  root.Write("proc/700/net/udp", kUdp);
  root.Write("proc/700/net/udp6", kUdp6);
  ASSERT_EQ(::mkdir((root.path() + "/proc/700/fd").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("socket:[17336027]", (root.path() + "/proc/700/fd/3").c_str()), 0);
  ASSERT_EQ(::symlink("socket:[17336028]", (root.path() + "/proc/700/fd/4").c_str()), 0);
  ASSERT_EQ(::symlink("/var/log/x", (root.path() + "/proc/700/fd/5").c_str()), 0);
  CountingFs fs(HostRoots{root.path() + "/proc", root.path() + "/sys", ""});
  InputSocketFinder f;
  std::vector<InputSocket> out;
  f.Collect(fs, 700, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].local, "0.0.0.0:7000");
  EXPECT_EQ(f.listings(), 1u);
  // A socket opened since: seen at the next listing, not before.
  ASSERT_EQ(::symlink("socket:[17336029]", (root.path() + "/proc/700/fd/6").c_str()), 0);
  for (int i = 1; i < InputSocketFinder::kRescanEvery; ++i) {
    out.clear();
    f.Collect(fs, 700, &out);
    EXPECT_EQ(out.size(), 1u) << "call " << i;
  }
  EXPECT_EQ(f.listings(), 1u);
  EXPECT_EQ(fs.reads["700/net/udp"], InputSocketFinder::kRescanEvery);
  EXPECT_EQ(fs.reads["700/net/udp6"], 1) << "none of its inputs there: not read again until the next listing";
  out.clear();
  f.Collect(fs, 700, &out);
  EXPECT_EQ(f.listings(), 2u);
  EXPECT_EQ(fs.reads["700/net/udp6"], 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].local, "[::1]:47003");
  // A process without descriptors to list (gone, or not ours): none.
  out.clear();
  f.Collect(fs, 701, &out);
  EXPECT_TRUE(out.empty());
  f.Keep({701});
  f.Collect(fs, 700, &out);
  EXPECT_EQ(f.listings(), 4u) << "700 was forgotten: listed again";
}

// This process on the real /proc: a UDP socket bound to loopback with a
// small receive buffer, sent more than it holds and never read, is the
// threads collector's input with the kernel's drops and queue; a socket
// connected to one peer is not an input.
TEST(InputSocketsLive, AnOverflowingSocketOfATargetShowsItsDropsAndQueue) {
  UniqueFd input(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)),
      sender(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(input.valid() && sender.valid());
  const int small = 4096;  // the kernel doubles it, and a datagram costs its whole buffer
  ASSERT_EQ(::setsockopt(input.get(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(input.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ASSERT_EQ(::getsockname(input.get(), reinterpret_cast<sockaddr*>(&a), &len), 0);
  ASSERT_EQ(::connect(sender.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  constexpr int kSent = 200;
  for (int i = 0; i < kSent; ++i) ASSERT_EQ(::send(sender.get(), "datagram", 8, 0), 8);
  ThreadsOptions o;
  o.targets.push_back(ThreadTarget{"", ::getpid()});
  ThreadsCollector c(o);
  HostReadings r;
  ASSERT_OK(c.Collect(HostFs(HostRoots{}), &r));
  ASSERT_TRUE(r.input_sockets.has_value());
  const std::string port = ":" + std::to_string(ntohs(a.sin_port));
  const InputSocket* mine = nullptr;
  for (const InputSocket& s : *r.input_sockets) {
    if (s.local == "127.0.0.1" + port) mine = &s;
    EXPECT_EQ(s.pid, ::getpid());
  }
  ASSERT_NE(mine, nullptr) << "no input 127.0.0.1" << port;
  EXPECT_EQ(mine->protocol, "udp");
  EXPECT_GT(mine->drops, 0u);
  EXPECT_LT(mine->drops, static_cast<uint64_t>(kSent));
  EXPECT_GT(mine->receive_queue, 0u);
  // The sender is connected: a peer's socket, not an input.
  sockaddr_in s{};
  len = sizeof s;
  ASSERT_EQ(::getsockname(sender.get(), reinterpret_cast<sockaddr*>(&s), &len), 0);
  for (const InputSocket& i : *r.input_sockets) EXPECT_NE(i.local, "127.0.0.1:" + std::to_string(ntohs(s.sin_port)));
}

// TcpExt ListenDrops of this process's namespace, read here by the test.
uint64_t ListenDrops() {
  SocketStats st;
  std::string text;
  EXPECT_OK(HostFs(HostRoots{}).ReadProc("self/net/netstat", &text));
  EXPECT_OK(ParseProcNetNetstat(text, &st));
  return static_cast<uint64_t>(st.Get("TcpExt", "ListenDrops").value_or(-1));
}

// This process on the real /proc: a TCP listener on loopback with a backlog
// of 1, connected to by clients it never accepts, is the threads
// collector's input with the connections waiting in its accept queue and
// its namespace's ListenDrops; the clients' connections are not inputs.
TEST(InputSocketsLive, AListenerOfATargetShowsItsAcceptQueue) {
  UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(listener.valid());
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(listener.get(), 1), 0);
  socklen_t len = sizeof a;
  ASSERT_EQ(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&a), &len), 0);
  // Two connections complete (the queue holds backlog + 1); the kernel's
  // handshake with each is done before connect returns on loopback.
  std::vector<UniqueFd> clients;
  for (int i = 0; i < 2; ++i) {
    clients.emplace_back(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    ASSERT_EQ(::connect(clients.back().get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << i;
  }
  const uint64_t drops_before = ListenDrops();
  ThreadsOptions o;
  o.targets.push_back(ThreadTarget{"", ::getpid()});
  ThreadsCollector c(o);
  HostReadings r;
  ASSERT_OK(c.Collect(HostFs(HostRoots{}), &r));
  const uint64_t drops_after = ListenDrops();
  ASSERT_TRUE(r.input_sockets.has_value());
  const std::string local = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  const InputSocket* mine = nullptr;
  for (const InputSocket& s : *r.input_sockets)
    if (s.local == local) mine = &s;
  ASSERT_NE(mine, nullptr) << "no input " << local;
  EXPECT_EQ(mine->protocol, "tcp");
  EXPECT_TRUE(mine->listening);
  EXPECT_EQ(mine->receive_queue, 2u) << "two connections waiting to be accepted";
  EXPECT_TRUE(mine->namespace_drops);
  EXPECT_GE(mine->drops, drops_before);
  EXPECT_LE(mine->drops, drops_after);
  // The clients' sockets are connections, not inputs.
  for (const UniqueFd& cl : clients) {
    sockaddr_in s{};
    len = sizeof s;
    ASSERT_EQ(::getsockname(cl.get(), reinterpret_cast<sockaddr*>(&s), &len), 0);
    for (const InputSocket& i : *r.input_sockets) EXPECT_NE(i.local, "127.0.0.1:" + std::to_string(ntohs(s.sin_port)));
  }
}

}  // namespace
}  // namespace bottleneckd::input_sockets_test
