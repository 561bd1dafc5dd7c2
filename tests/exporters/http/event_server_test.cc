// EventServer (exporters/http/event_server.h) through real sockets on
// 127.0.0.1: keep-alive and pipelining, the answers that close, the deadlines
// (short ones, set by the test; each asserted only as "closed within a
// generous bound"), the connection limit, the worker for slow routes, and a
// thousand idle connections beside a request.
#include "exporters/http/event_server.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/unique_fd.h"
#include "tests/support/test_util.h"

namespace bottleneckd::event_server_test {
namespace {

constexpr int kBoundMs = 5000;  // "within a generous bound": never a measured figure

HttpResponse Body(std::string text) {
  HttpResponse r;
  r.body = std::make_shared<const std::string>(std::move(text));
  return r;
}

class Client {
 public:
  explicit Client(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  }
  bool connected() const { return connected_; }
  int fd() const { return fd_.get(); }

  bool Send(const std::string& s) {
    return ::send(fd_.get(), s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
  }

  // Reads until `pred(buffer)` holds, the peer closes, or kBoundMs pass.
  template <typename Pred>
  void ReadUntil(Pred pred) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBoundMs);
    while (!pred(in_) && !closed_) {
      int left = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count());
      if (left <= 0) return;
      pollfd p{fd_.get(), POLLIN, 0};
      if (::poll(&p, 1, left) <= 0) return;
      char buf[65536];
      ssize_t n = ::recv(fd_.get(), buf, sizeof(buf), 0);
      if (n <= 0) {
        closed_ = true;
        return;
      }
      in_.append(buf, static_cast<size_t>(n));
    }
  }

  // One whole answer (head and Content-Length bytes of body), removed from
  // the buffer; "" when none came.
  std::string Response(bool head_only = false) {
    size_t end = 0;
    size_t length = 0;
    auto complete = [&](const std::string& in) {
      end = in.find("\r\n\r\n");
      if (end == std::string::npos) return false;
      size_t cl = in.find("Content-Length: ");
      length = cl < end ? std::stoul(in.substr(cl + 16)) : 0;
      if (head_only) length = 0;
      return in.size() >= end + 4 + length;
    };
    ReadUntil(complete);
    if (!complete(in_)) return "";
    std::string r = in_.substr(0, end + 4 + length);
    in_.erase(0, r.size());
    return r;
  }

  // True when the server closes the connection within the bound.
  bool ClosedByServer() {
    ReadUntil([](const std::string&) { return false; });
    return closed_;
  }
  const std::string& unread() const { return in_; }

 private:
  UniqueFd fd_;
  bool connected_ = false;
  bool closed_ = false;
  std::string in_;
};

class EventServerTest : public ::testing::Test {
 protected:
  void Start(EventServerOptions options = {}) {
    std::vector<HttpRoute> routes = {
        {"/a", false, [](const HttpRequest& r) { return Body("a:" + r.accept_encoding); }},
        {"/big", false,
         [](const HttpRequest&) {
           static const auto big = std::make_shared<const std::string>(32u << 20, 'x');
           HttpResponse r;
           r.body = big;
           return r;
         }},
        {"/stall", false,  // a fast route that holds the loop thread until the test lets it go
         [this](const HttpRequest&) {
           stall_entered_.set_value();
           stall_release_.get_future().wait();
           return Body("stall");
         }},
        {"/slow", true,
         [this](const HttpRequest&) {
           if (entered_count_++ == 0) entered_.set_value();
           release_.wait();
           return Body("slow");
         }},
    };
    ListenAddress addr;
    ASSERT_OK(ParseListenAddress("127.0.0.1:0", &addr));
    ASSERT_OK(EventServer::Start(addr, std::move(routes), options, &server_));
    std::string bound = server_->BoundAddress();
    port_ = std::stoi(bound.substr(bound.rfind(':') + 1));
  }
  void TearDown() override {
    if (!released_) release_promise_.set_value();
    server_.reset();
  }
  void Release() {
    released_ = true;
    release_promise_.set_value();
  }

  std::unique_ptr<EventServer> server_;
  int port_ = 0;
  std::atomic<int> entered_count_{0};
  std::promise<void> entered_;  // set when the first slow request enters
  std::promise<void> release_promise_;
  std::shared_future<void> release_ = release_promise_.get_future().share();
  bool released_ = false;
  std::promise<void> stall_entered_;  // set when /stall holds the loop
  std::promise<void> stall_release_;  // the test sets it (once per test)
};

TEST_F(EventServerTest, KeepAliveAndPipelining) {
  Start();
  Client c(port_);
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.Send("GET /a HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::string first = c.Response();
  std::string second = c.Response();
  EXPECT_EQ(first.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << first;
  EXPECT_NE(first.find("\r\n\r\na:gzip"), std::string::npos) << first;
  EXPECT_EQ(first.find("Connection: close"), std::string::npos) << first;
  EXPECT_NE(second.find("\r\n\r\na:"), std::string::npos) << second;
  ASSERT_TRUE(c.Send("GET /a HTTP/1.1\r\nConnection: close\r\n\r\n"));
  std::string third = c.Response();
  EXPECT_NE(third.find("Connection: close\r\n"), std::string::npos) << third;
  EXPECT_TRUE(c.ClosedByServer());
  EventServer::Stats s = server_->GetStats();
  EXPECT_EQ(s.accepted, 1u);
  EXPECT_EQ(s.requests, 3u);
}

// Every request on a kept-alive connection supersedes its deadlines; the heap
// keeps only current ones past its bound (8 a connection + 4096). It once kept
// every entry of the connection being served, so one busy client grew it
// without end and each request re-sorted it (a scrape loop on one connection
// took 1.8 ms a request, 63 % in the heap's pop).
TEST_F(EventServerTest, ABusyKeptAliveClientDoesNotGrowTheDeadlines) {
  Start();
  Client c(port_);
  ASSERT_TRUE(c.connected());
  constexpr int kRequests = 6000;
  for (int sent = 0; sent < kRequests;) {
    std::string batch;
    for (int i = 0; i < 100; ++i, ++sent) batch += "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
    ASSERT_TRUE(c.Send(batch));
    for (int i = 0; i < 100; ++i) ASSERT_NE(c.Response(), "") << "request " << sent - 100 + i;
  }
  EventServer::Stats s = server_->GetStats();
  EXPECT_EQ(s.requests, static_cast<uint64_t>(kRequests));
  EXPECT_LE(s.deadlines, 8u * s.open + 4096u + 1u);
}

TEST_F(EventServerTest, HttpOneZeroKeepAliveIsConfirmed) {
  Start();
  Client c(port_);
  ASSERT_TRUE(c.Send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
  EXPECT_NE(c.Response().find("Connection: keep-alive\r\n"), std::string::npos);
  ASSERT_TRUE(c.Send("GET /a HTTP/1.0\r\n\r\n"));
  EXPECT_NE(c.Response().find("Connection: close\r\n"), std::string::npos);
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(EventServerTest, HeadSendsTheHeadersOnly) {
  Start();
  Client c(port_);
  ASSERT_TRUE(c.Send("HEAD /a HTTP/1.1\r\n\r\nGET /a HTTP/1.1\r\n\r\n"));
  std::string head = c.Response(true);
  EXPECT_NE(head.find("Content-Length: 2\r\n"), std::string::npos) << head;  // GET's length: "a:"
  std::string get = c.Response();
  EXPECT_EQ(get.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << "the HEAD answer carried a body: " << get;
}

TEST_F(EventServerTest, OtherMethodsAre405AndCloseWithoutTheBody) {
  Start();
  Client c(port_);
  ASSERT_TRUE(c.Send("POST /a HTTP/1.1\r\nContent-Length: 1073741824\r\n\r\nsome of the body"));
  std::string r = c.Response();
  EXPECT_EQ(r.rfind("HTTP/1.1 405 Method Not Allowed\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("Allow: GET, HEAD\r\n"), std::string::npos) << r;
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(EventServerTest, UnknownPathIs404AndKeepsTheConnection) {
  Start();
  Client c(port_);
  ASSERT_TRUE(c.Send("GET /a/b HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(c.Response().rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u);
  ASSERT_TRUE(c.Send("GET /a HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(c.Response().rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
}

TEST_F(EventServerTest, BadRequestsAreAnsweredAndClosed) {
  EventServerOptions o;
  o.max_head = 1024;
  Start(o);
  const std::pair<std::string, std::string> cases[] = {
      {"GET /a HTTP/1.1\r\nHost x\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n"},
      {"GET /a HTTP/2.0\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported\r\n"},
      {"GET /a HTTP/1.1\r\nX: " + std::string(2000, 'x'), "HTTP/1.1 431 Request Header Fields Too Large\r\n"},
  };
  for (const auto& [request, status] : cases) {
    Client c(port_);
    ASSERT_TRUE(c.Send(request));
    std::string r = c.Response();
    EXPECT_EQ(r.rfind(status, 0), 0u) << r;
    EXPECT_NE(r.find("Connection: close\r\n"), std::string::npos) << r;
    EXPECT_TRUE(c.ClosedByServer()) << status;
  }
  EXPECT_EQ(server_->GetStats().bad, 3u);
}

TEST_F(EventServerTest, HalfClosedClientIsStillAnswered) {
  Start();
  Client c(port_);
  ASSERT_TRUE(c.Send("GET /a HTTP/1.1\r\n\r\n"));
  ASSERT_EQ(::shutdown(c.fd(), SHUT_WR), 0);
  EXPECT_EQ(c.Response().rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(EventServerTest, SlowlorisIsClosedAtTheHeadDeadline) {
  EventServerOptions o;
  o.head_timeout_ms = 200;
  Start(o);
  Client c(port_);
  ASSERT_TRUE(c.Send("GET /a HT"));
  EXPECT_TRUE(c.ClosedByServer());
  EXPECT_EQ(c.unread(), "");  // closed without an answer
  EXPECT_EQ(server_->GetStats().timed_out, 1u);
}

// Issue 47: under a 60 s load of a new connection per scrape, 5 of 225,470
// were closed with no answer, the slowest taking 4.2 s. The head deadline ran
// from accept, so a client held up between its connect() and its send() for
// longer (a thread starved of CPU, a paused VM: `bench/http_fresh.sh STALL=3`
// shows it) was closed before it could ask. A connection with nothing sent is
// idle; the head deadline starts at its first byte.
TEST_F(EventServerTest, AClientLateToSendItsFirstByteIsAnswered) {
  EventServerOptions o;
  o.head_timeout_ms = 200;
  Start(o);
  Client c(port_);
  ASSERT_TRUE(c.connected());
  std::this_thread::sleep_for(std::chrono::milliseconds(3 * o.head_timeout_ms));  // late, not slow
  ASSERT_TRUE(c.Send("GET /a HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(c.Response().rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_EQ(server_->GetStats().timed_out, 0u);
}

// The other half of the same load: a loop that runs late (here a handler on
// the loop thread holds it) must not judge a deadline on what it has not
// read yet. The rest of the head arrives while the loop is held and past the
// head deadline; before the fix the deadline closed the connection with the
// request unread in its buffer, and the client saw a reset.
TEST_F(EventServerTest, ARequestThatCameWhileTheLoopWasHeldIsAnswered) {
  EventServerOptions o;
  o.head_timeout_ms = 200;
  Start(o);
  Client late(port_);
  ASSERT_TRUE(late.Send("GET /a HTTP/1.1\r\n"));  // its head deadline runs from here
  // The loop takes events in the order they came: once a later client is
  // answered, the begun head has been read.
  Client probe(port_);
  ASSERT_TRUE(probe.Send("GET /a HTTP/1.1\r\n\r\n"));
  ASSERT_FALSE(probe.Response().empty());
  Client stall(port_);
  ASSERT_TRUE(stall.Send("GET /stall HTTP/1.1\r\n\r\n"));
  stall_entered_.get_future().wait();  // the loop is inside the handler
  ASSERT_TRUE(late.Send("\r\n"));      // the head is complete, in the socket's buffer
  std::this_thread::sleep_for(std::chrono::milliseconds(3 * o.head_timeout_ms));
  stall_release_.set_value();
  EXPECT_NE(stall.Response().find("\r\n\r\nstall"), std::string::npos);
  EXPECT_EQ(late.Response().rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_EQ(server_->GetStats().timed_out, 0u);
}

// A connection with nothing sent is idle: closed at the idle deadline (and
// first to make room at the limit: AtTheLimitAnIdleConnectionMakesRoomElseA503).
TEST_F(EventServerTest, AConnectionThatSendsNothingClosesAtTheIdleDeadline) {
  EventServerOptions o;
  o.idle_timeout_ms = 200;
  Start(o);
  Client c(port_);
  ASSERT_TRUE(c.connected());
  EXPECT_TRUE(c.ClosedByServer());
  EXPECT_EQ(c.unread(), "");
  EXPECT_EQ(server_->GetStats().timed_out, 1u);
}

// A client that opens a connection per request and closes it after the
// answer leaves one stale idle-queue entry per request; the queue must not
// grow with them for the daemon's life (it did: only eviction at the
// connection limit ever took entries out).
TEST_F(EventServerTest, AConnectionPerRequestDoesNotGrowTheIdleQueue) {
  Start();
  constexpr int kRequests = 3000;
  for (int i = 0; i < kRequests; ++i) {
    Client c(port_);
    ASSERT_TRUE(c.Send("GET /a HTTP/1.1\r\n\r\n"));  // kept alive: the client closes
    ASSERT_FALSE(c.Response().empty()) << i;
  }
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBoundMs);
  while (server_->GetStats().open > 0 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EventServer::Stats s = server_->GetStats();
  EXPECT_EQ(s.open, 0u);
  EXPECT_EQ(s.requests, static_cast<uint64_t>(kRequests));
  EXPECT_LT(s.idle_entries, static_cast<size_t>(kRequests) / 2) << "stale entries are dropped past a bound";
}

// A client that asks for a large body and stops reading holds the
// connection only until the write deadline; the loop serves others meanwhile
// (it never blocks on one client's full socket buffer).
TEST_F(EventServerTest, AClientThatStopsReadingIsFreedAtTheWriteDeadline) {
  EventServerOptions o;
  o.write_timeout_ms = 300;
  Start(o);
  Client stuck(port_);
  ASSERT_TRUE(stuck.connected());
  int small = 4096;
  ::setsockopt(stuck.fd(), SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  ASSERT_TRUE(stuck.Send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n"));
  // The 32 MiB answer cannot fit in the socket buffers: the server waits to
  // write. Others are answered meanwhile, more than once.
  for (int i = 0; i < 3; ++i) {
    Client other(port_);
    ASSERT_TRUE(other.Send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n"));
    EXPECT_NE(other.Response().find("200 OK"), std::string::npos);
  }
  // The stuck client is closed at the write deadline, having read nothing.
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBoundMs);
  while (server_->GetStats().timed_out < 1 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EventServer::Stats st = server_->GetStats();
  EXPECT_EQ(st.timed_out, 1u);
  EXPECT_EQ(st.open, 0u) << "the stuck connection is gone";
  // Reset, not closed behind megabytes still queued for a window that never
  // opens: the client sees the end within the bound.
  EXPECT_TRUE(stuck.ClosedByServer());
  EXPECT_LT(stuck.unread().size(), 32u << 20) << "closed before the whole body was written";
}

TEST_F(EventServerTest, IdleKeptAliveConnectionCloses) {
  EventServerOptions o;
  o.idle_timeout_ms = 200;
  Start(o);
  Client c(port_);
  ASSERT_TRUE(c.Send("GET /a HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(c.Response().rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_TRUE(c.ClosedByServer());
}

TEST_F(EventServerTest, AtTheLimitAnIdleConnectionMakesRoomElseA503) {
  EventServerOptions o;
  o.max_connections = 3;
  Start(o);
  Client kept(port_);  // kept alive, idle after its answer
  ASSERT_TRUE(kept.Send("GET /a HTTP/1.1\r\n\r\n"));
  ASSERT_FALSE(kept.Response().empty());
  Client waiting1(port_);  // a head begun: not idle, never evicted
  Client waiting2(port_);
  ASSERT_TRUE(waiting1.Send("G"));
  ASSERT_TRUE(waiting2.Send("G"));
  Client newcomer(port_);  // takes the idle one's place, then starts another request
  ASSERT_TRUE(newcomer.Send("GET /a HTTP/1.1\r\n\r\nG"));
  EXPECT_EQ(newcomer.Response().rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_TRUE(kept.ClosedByServer());
  Client refused(port_);  // none of the three is idle: no room
  std::string r = refused.Response();
  EXPECT_EQ(r.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("Retry-After: 1\r\n"), std::string::npos) << r;
  EXPECT_TRUE(refused.ClosedByServer());
  EventServer::Stats s = server_->GetStats();
  EXPECT_EQ(s.evicted, 1u);
  EXPECT_EQ(s.refused, 1u);
  EXPECT_EQ(s.max_connections, 3u);
}

TEST_F(EventServerTest, SlowRouteRunsBesideFastOnes) {
  Start();
  Client slow(port_);
  ASSERT_TRUE(slow.Send("GET /slow HTTP/1.1\r\n\r\n"));
  entered_.get_future().wait();  // the worker is inside the slow handler now
  Client fast(port_);
  ASSERT_TRUE(fast.Send("GET /a HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(fast.Response().rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  Release();
  std::string r = slow.Response();
  EXPECT_NE(r.find("\r\n\r\nslow"), std::string::npos) << r;
}

TEST_F(EventServerTest, FullWorkerQueueIs503) {
  EventServerOptions o;
  o.worker_queue = 1;
  Start(o);
  Client first(port_);
  ASSERT_TRUE(first.Send("GET /slow HTTP/1.1\r\n\r\n"));
  entered_.get_future().wait();  // taken off the queue by the worker
  Client queued(port_);
  ASSERT_TRUE(queued.Send("HEAD /slow HTTP/1.1\r\n\r\n"));
  // The loop handles connections in order of their events; a fast request
  // after the queued one proves the queued one has been taken in.
  Client probe(port_);
  ASSERT_TRUE(probe.Send("GET /a HTTP/1.1\r\n\r\n"));
  ASSERT_FALSE(probe.Response().empty());
  Client over(port_);
  ASSERT_TRUE(over.Send("GET /slow HTTP/1.1\r\n\r\n"));
  std::string r = over.Response();
  EXPECT_EQ(r.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u) << r;
  Release();
  EXPECT_NE(first.Response().find("\r\n\r\nslow"), std::string::npos);
  std::string head = queued.Response(true);
  EXPECT_NE(head.find("Content-Length: 4\r\n"), std::string::npos) << head;
}

TEST_F(EventServerTest, AThousandIdleConnectionsDoNotStarveARequest) {
  rlimit nofile{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &nofile), 0);
  ASSERT_GE(nofile.rlim_max, 1300u) << "needs an open-files hard limit of 1300 (ulimit -Hn)";
  if (nofile.rlim_cur < 2400) {  // the test's 1000 ends and the server's 1000
    nofile.rlim_cur = std::min<rlim_t>(nofile.rlim_max, 4096);
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &nofile), 0);
  }
  Start();
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 1000; ++i) {
    idle.push_back(std::make_unique<Client>(port_));
    ASSERT_TRUE(idle.back()->connected()) << i;
  }
  Client c(port_);
  ASSERT_TRUE(c.Send("GET /a HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(c.Response().rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EventServer::Stats s = server_->GetStats();
  EXPECT_EQ(s.accepted, 1001u);
  EXPECT_EQ(s.refused, 0u);
}

// Out of descriptors, the loop stops watching the listening socket (it would
// spin); it must watch again once descriptors are free, even when none of its
// own connections closes: here the process's other descriptors were the ones.
TEST_F(EventServerTest, OutOfDescriptorsTheListenerComesBack) {
  Start();
  // Both of the server's threads running before the descriptors run out:
  // UBSan's check of a thread's start opens files (the sanitizer CI).
  Release();
  Client warm(port_);
  ASSERT_TRUE(warm.Send("GET /a HTTP/1.1\r\n\r\nGET /slow HTTP/1.1\r\n\r\n"));
  ASSERT_FALSE(warm.Response().empty());
  ASSERT_FALSE(warm.Response().empty());
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = 256;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<int> fillers;
  for (int fd; (fd = ::dup(0)) >= 0;) fillers.push_back(fd);
  ASSERT_FALSE(fillers.empty());
  ::close(fillers.back());  // one descriptor left: the client's
  fillers.pop_back();
  Client c(port_);
  ASSERT_TRUE(c.connected());  // the kernel's backlog holds it; accept4 fails with EMFILE
  ASSERT_TRUE(c.Send("GET /a HTTP/1.1\r\n\r\n"));
  ::usleep(200 * 1000);
  for (int fd : fillers) ::close(fd);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
  EXPECT_EQ(c.Response().rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
}

TEST(EventServer, AddressInUseSaysSo) {
  ListenAddress addr;
  ASSERT_OK(ParseListenAddress("127.0.0.1:0", &addr));
  std::unique_ptr<EventServer> first;
  ASSERT_OK(EventServer::Start(addr, {}, {}, &first));
  ASSERT_OK(ParseListenAddress(first->BoundAddress(), &addr));
  std::unique_ptr<EventServer> second;
  Status s = EventServer::Start(addr, {}, {}, &second);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("address already in use"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace bottleneckd::event_server_test
