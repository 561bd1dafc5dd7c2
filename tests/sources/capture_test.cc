// Tests of the live capture (sources/capture.h) on real interfaces: a UDP
// echo on loopback captured while the test sends a known number of datagrams,
// interfaces that cannot be opened, a capture without CAP_NET_RAW (in a forked
// child) and an interface deleted under a running capture (a veth pair in a
// network namespace of a forked child). Needs root, as the suite on CI has.
// Expected counts come from what the test sent; every wait is bounded.
#include "sources/capture.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_util.h"

namespace bottleneckd::capture_test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kPayload = 100;  // UDP payload: IP datagram 20 + 8 + 100 = 128 bytes

sockaddr_in Loopback(uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

// A UDP socket on 127.0.0.1 (port 0: the kernel picks a free one) whose
// receives time out after `timeout_ms`.
int BoundUdpSocket(int timeout_ms, uint16_t* port) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a = Loopback(0);
  socklen_t len = sizeof a;
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

// Answers every datagram to 127.0.0.1:port() with the same bytes, on its own
// thread, until destroyed (at most 30 s).
class UdpEcho {
 public:
  UdpEcho() : fd_(BoundUdpSocket(50, &port_)) {
    thread_ = std::thread([this] {
      const auto deadline = Clock::now() + std::chrono::seconds(30);
      char buf[2048];
      while (!stop_ && Clock::now() < deadline) {
        sockaddr_in from{};
        socklen_t len = sizeof from;
        ssize_t n = recvfrom(fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
        if (n >= 0) sendto(fd_, buf, static_cast<size_t>(n), 0, reinterpret_cast<sockaddr*>(&from), len);
      }
    });
  }
  ~UdpEcho() {
    stop_ = true;
    thread_.join();
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  uint16_t port() const { return port_; }

 private:
  uint16_t port_ = 0;
  int fd_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Sends `n` datagrams of kPayload bytes to 127.0.0.1:port, each different in
// its first bytes, waiting up to 1 s for each one's echo. Returns the echoes
// received; *client_port is the sender's port.
int PingPong(uint16_t port, int n, uint16_t* client_port) {
  int fd = BoundUdpSocket(1000, client_port);
  if (fd < 0) return -1;
  const sockaddr_in to = Loopback(port);
  int echoed = 0;
  for (int i = 0; i < n; ++i) {
    char msg[kPayload];
    std::fill(std::begin(msg), std::end(msg), 'x');
    std::snprintf(msg, sizeof msg, "datagram %06d", i);
    if (sendto(fd, msg, sizeof msg, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to) !=
        static_cast<ssize_t>(sizeof msg))
      break;
    char reply[2048];
    if (recv(fd, reply, sizeof reply, 0) == static_cast<ssize_t>(sizeof msg)) ++echoed;
  }
  close(fd);
  return echoed;
}

// Reads `src` every 50 ms, up to 10 s, until `done` holds for the reading of
// interface `index`; returns that reading (the last one read).
CaptureReading WaitFor(CaptureSource* src, size_t index, const std::function<bool(const CaptureReading&)>& done) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  std::vector<CaptureReading> readings;
  for (;;) {
    src->Read(&readings);
    if (readings.size() <= index || done(readings[index]) || Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return readings.size() > index ? readings[index] : CaptureReading{};
}

// What libpcap itself offers on `ifname`: the cooked link type it would
// accept (0 when none) and its native link type.
void OfferedLinkTypes(const char* ifname, int* cooked, int* native) {
  *cooked = 0;
  *native = -1;
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_create(ifname, err);
  if (p == nullptr) return;
  if (pcap_activate(p) >= 0) {
    *native = pcap_datalink(p);
    int* list = nullptr;
    int n = pcap_list_datalinks(p, &list);
    for (int want : {113, 276}) {
      if (*cooked == 0 && std::find(list, list + std::max(n, 0), want) != list + std::max(n, 0)) *cooked = want;
    }
    pcap_free_datalinks(list);
  }
  pcap_close(p);
}

// Threads of this process whose effective set lacks CAP_NET_RAW (bit 13 of
// CapEff in /proc/self/task/*/status).
int ThreadsWithoutNetRaw() {
  int count = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream status(task.path() / "status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("CapEff:", 0) != 0) continue;
      if ((std::stoull(line.substr(7), nullptr, 16) & (1ull << 13)) == 0) ++count;
    }
  }
  return count;
}

CaptureOptions Options(std::vector<std::string> interfaces, std::string filter) {
  CaptureOptions o;
  o.interfaces = std::move(interfaces);
  o.filter = std::move(filter);
  o.traffic.reply_timeout_seconds = 5;  // a loaded (sanitizer) run still pairs every echo
  return o;
}

TEST(CaptureTest, UdpEchoOnLoopbackIsCountedExactly) {
  constexpr int kN = 200;
  UdpEcho echo;
  ASSERT_TRUE(echo.ok());
  const int threads_before = ThreadsWithoutNetRaw();
  CaptureSource src(Options({"lo"}, "udp and port " + std::to_string(echo.port())));
  ASSERT_OK(src.Start());
  uint16_t client_port = 0;
  ASSERT_EQ(PingPong(echo.port(), kN, &client_port), kN);  // the sender's own count
  CaptureReading r = WaitFor(&src, 0, [&](const CaptureReading& x) { return x.paired >= kN && x.packets >= 2 * kN; });

  EXPECT_TRUE(r.active);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.interface, "lo");
  EXPECT_GT(r.opened_mono_ns, 0);
  EXPECT_EQ(r.packets, 2u * kN);
  EXPECT_EQ(r.requests, static_cast<uint64_t>(kN));
  EXPECT_EQ(r.replies, static_cast<uint64_t>(kN));
  EXPECT_EQ(r.paired, static_cast<uint64_t>(kN));
  EXPECT_EQ(r.lost, 0u);
  EXPECT_EQ(r.unmatched_replies, 0u);
  EXPECT_EQ(r.truncated + r.malformed + r.not_ip, 0u);
  EXPECT_EQ(r.turnaround.count(), static_cast<uint64_t>(kN));

  // The link type: cooked when libpcap offers it on lo, else the native one.
  int cooked = 0, native = -1;
  OfferedLinkTypes("lo", &cooked, &native);
  EXPECT_EQ(r.linktype, cooked != 0 ? cooked : native);
  EXPECT_EQ(r.direction_known, cooked != 0);
  const uint32_t link_header = r.linktype == 113 ? 16 : r.linktype == 276 ? 20 : 14;  // cooked v1, v2, Ethernet
  const uint64_t frame = 128 + link_header;  // 142..148 bytes: the (128, 256] bucket, index 2
  EXPECT_EQ(r.bytes, 2 * kN * frame);
  EXPECT_EQ(r.request_bytes, kN * frame);
  EXPECT_EQ(r.reply_bytes, kN * frame);
  EXPECT_EQ(std::accumulate(r.sizes.begin(), r.sizes.end(), uint64_t{0}), 2u * kN);
  EXPECT_EQ(r.sizes[2], 2u * kN);
  // On lo every frame is both sent and received; libpcap keeps only the
  // received copy, so with direction known all of them are receive.
  if (r.direction_known) {
    EXPECT_EQ(r.receive_packets, 2u * kN);
    EXPECT_EQ(r.receive_bytes, r.bytes);
    EXPECT_EQ(r.transmit_packets, 0u);
  } else {
    EXPECT_EQ(r.receive_packets + r.transmit_packets, 0u);
    EXPECT_EQ(r.receive_bytes + r.transmit_bytes, 0u);
  }
  EXPECT_TRUE(r.stats_ok);
  EXPECT_GE(r.pcap_received, 2u * kN);

  ASSERT_EQ(r.top_flows.size(), 1u);
  const FlowStats& f = r.top_flows[0];
  EXPECT_EQ(f.key.ToString(),
            "udp 127.0.0.1:" + std::to_string(client_port) + " > 127.0.0.1:" + std::to_string(echo.port()));
  EXPECT_EQ(f.requests, static_cast<uint64_t>(kN));
  EXPECT_EQ(f.replies, static_cast<uint64_t>(kN));
  EXPECT_EQ(f.packets, 2u * kN);

  // The capture thread dropped CAP_NET_RAW for itself; this thread keeps it.
  EXPECT_EQ(ThreadsWithoutNetRaw(), threads_before + 1);

  src.Stop();
  std::vector<CaptureReading> after;
  src.Read(&after);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_FALSE(after[0].active);
  EXPECT_EQ(after[0].error, "");
  EXPECT_EQ(after[0].packets, 2u * kN);  // the counts outlive the capture
  src.Stop();                            // twice is fine
}

TEST(CaptureTest, ReadBeforeStartReportsInactive) {
  CaptureSource src(Options({"lo", "bnd-nosuch0"}, ""));
  std::vector<CaptureReading> r;
  src.Read(&r);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].interface, "lo");
  EXPECT_EQ(r[1].interface, "bnd-nosuch0");
  for (const CaptureReading& x : r) {
    EXPECT_FALSE(x.active);
    EXPECT_EQ(x.error, "");
    EXPECT_FALSE(x.stats_ok);
    EXPECT_EQ(x.packets, 0u);
    EXPECT_EQ(x.opened_mono_ns, 0);
  }
  src.Stop();  // never started: nothing to stop
}

TEST(CaptureTest, NoInterfacesIsNotAnError) {
  CaptureSource src(Options({}, ""));
  EXPECT_OK(src.Start());
  std::vector<CaptureReading> r;
  src.Read(&r);
  EXPECT_TRUE(r.empty());
}

TEST(CaptureTest, NonexistentInterfaceFailsStart) {
  CaptureSource src(Options({"bnd-nosuch0"}, ""));
  Status s = src.Start();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.message().find("bnd-nosuch0"), std::string::npos) << s.ToString();
  std::vector<CaptureReading> r;
  src.Read(&r);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].active);
  EXPECT_EQ(r[0].error, "no such interface bnd-nosuch0");
  // Opened once: a second Start() does not retry and says the same.
  EXPECT_EQ(src.Start().ToString(), s.ToString());
}

TEST(CaptureTest, BadFilterFailsThatInterface) {
  CaptureSource src(Options({"lo"}, "udp and and"));
  Status s = src.Start();
  ASSERT_FALSE(s.ok());
  std::vector<CaptureReading> r;
  src.Read(&r);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].active);
  EXPECT_NE(r[0].error.find("capture on lo: filter \"udp and and\": "), std::string::npos) << r[0].error;
  EXPECT_NE(s.message().find("filter"), std::string::npos) << s.ToString();
}

TEST(CaptureTest, OneBadInterfaceLeavesTheOtherRunning) {
  constexpr int kN = 10;
  UdpEcho echo;
  ASSERT_TRUE(echo.ok());
  CaptureSource src(Options({"bnd-nosuch0", "lo"}, "udp and port " + std::to_string(echo.port())));
  ASSERT_OK(src.Start());
  uint16_t client_port = 0;
  ASSERT_EQ(PingPong(echo.port(), kN, &client_port), kN);
  CaptureReading lo = WaitFor(&src, 1, [&](const CaptureReading& x) { return x.paired >= kN; });
  EXPECT_TRUE(lo.active);
  EXPECT_EQ(lo.paired, static_cast<uint64_t>(kN));
  EXPECT_EQ(lo.packets, 2u * kN);
  std::vector<CaptureReading> r;
  src.Read(&r);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_FALSE(r[0].active);
  EXPECT_EQ(r[0].error, "no such interface bnd-nosuch0");
  EXPECT_EQ(r[0].packets, 0u);
}

// In a forked child (one thread): without CAP_NET_RAW, Start() fails and the
// reading says which capability is missing. Returns 0 when all holds.
int StartWithoutNetRaw() {
  std::string what;
  if (!DropCaptureCapabilities(&what).ok()) return 2;
  if (HaveNetRaw()) return 3;
  CaptureSource src(Options({"lo"}, ""));
  Status s = src.Start();
  if (s.ok()) return 4;
  if (!s.IsPermissionDenied()) return 5;
  std::vector<CaptureReading> r;
  src.Read(&r);
  if (r.size() != 1 || r[0].active) return 6;
  std::fprintf(stderr, "error: %s\n", r[0].error.c_str());
  if (r[0].error.rfind("capture on lo needs CAP_NET_RAW", 0) != 0) return 7;
  return 0;
}

TEST(CaptureTest, WithoutNetRawSaysSo) {
  ASSERT_TRUE(HaveNetRaw()) << "the suite runs as root";
  EXPECT_EXIT(_exit(StartWithoutNetRaw()), ::testing::ExitedWithCode(0), "");
}

// In a forked child, in a network namespace of its own: a capture on one end
// of a veth pair stops with an error when the pair is deleted. Returns 0 when
// all holds.
int CaptureStopsWhenInterfaceGoes() {
  if (unshare(CLONE_NEWNET) != 0) return 2;
  if (std::system("ip link add bnd-cap0 type veth peer name bnd-cap1 && ip link set bnd-cap0 up && "
                  "ip link set bnd-cap1 up") != 0)
    return 3;
  CaptureSource src(Options({"bnd-cap0"}, ""));
  if (!src.Start().ok()) return 4;
  std::vector<CaptureReading> r;
  src.Read(&r);
  if (r.size() != 1 || !r[0].active) return 5;
  if (std::system("ip link del bnd-cap1") != 0) return 6;
  CaptureReading last = WaitFor(&src, 0, [](const CaptureReading& x) { return !x.active; });
  std::fprintf(stderr, "error: %s\n", last.error.c_str());
  if (last.active) return 7;
  if (last.error.rfind("capture on bnd-cap0 stopped: ", 0) != 0) return 8;
  src.Stop();
  return 0;
}

TEST(CaptureTest, DeletedInterfaceStopsItsCapture) {
  EXPECT_EXIT(_exit(CaptureStopsWhenInterfaceGoes()), ::testing::ExitedWithCode(0), "");
}

// In a forked child, in a network namespace of its own: the "any" device
// gives cooked headers, so direction is known. kN datagrams leave bnd-cap0
// for 10.99.0.2 (a permanent neighbour entry: the peer's MAC) and arrive on
// its peer bnd-cap1: each is seen twice, sent (packet type 4) and received
// (type 0, addressed to the peer's MAC). Returns 0 when all holds.
int CookedCaptureKnowsDirection() {
  constexpr uint64_t kN = 50;
  if (unshare(CLONE_NEWNET) != 0) return 2;
  if (std::system("ip link add bnd-cap0 type veth peer name bnd-cap1 address 02:00:00:00:00:02 && "
                  "ip addr add 10.99.0.1/24 dev bnd-cap0 && ip link set bnd-cap0 up && ip link set bnd-cap1 up && "
                  "ip neigh replace 10.99.0.2 lladdr 02:00:00:00:00:02 dev bnd-cap0 nud permanent") != 0)
    return 3;
  CaptureSource src(Options({"any"}, "udp and dst port 9"));
  if (!src.Start().ok()) return 4;
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in to = Loopback(9);
  to.sin_addr.s_addr = htonl(0x0A630002);  // 10.99.0.2
  char msg[kPayload] = {};
  for (uint64_t i = 0; i < kN; ++i) {
    if (sendto(fd, msg, sizeof msg, 0, reinterpret_cast<sockaddr*>(&to), sizeof to) != sizeof msg) return 5;
  }
  close(fd);
  CaptureReading r = WaitFor(&src, 0, [](const CaptureReading& x) { return x.packets >= 2 * kN; });
  std::fprintf(stderr, "linktype %d direction %d packets %lu receive %lu transmit %lu bytes %lu\n", r.linktype,
               r.direction_known, r.packets, r.receive_packets, r.transmit_packets, r.bytes);
  if (!r.direction_known || (r.linktype != 113 && r.linktype != 276)) return 6;
  if (r.packets != 2 * kN || r.transmit_packets != kN || r.receive_packets != kN) return 7;
  const uint64_t frame = 128 + (r.linktype == 113 ? 16 : 20);  // IP datagram + cooked v1 or v2 header
  if (r.transmit_bytes != kN * frame || r.receive_bytes != kN * frame) return 8;
  return 0;
}

TEST(CaptureTest, CookedCaptureCountsEachDirection) {
  EXPECT_EXIT(_exit(CookedCaptureKnowsDirection()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace bottleneckd::capture_test
