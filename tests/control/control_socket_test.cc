// The control socket live (control/control_socket.cc): a server in a scratch
// directory, ControlCall and raw clients that misbehave. Answers are
// asserted, never times. The wire format's tables are in
// control_protocol_test.cc.
#include "control/control_socket.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/listen_address.h"
#include "exporters/http/event_server.h"
#include "tests/support/test_util.h"

namespace bottleneckd::control_socket_test {
namespace {

// Records every request; answers from the request alone.
class Recorder {
 public:
  ControlHandler Handler() {
    return [this](const ControlRequest& r) {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(r);
      ControlResponse resp;
      resp.ok = true;
      if (r.verb == "start" && r.args[0] == "big") {
        resp.body.assign(4 << 20, 'b');  // far more than a socket buffer holds
      } else if (r.verb == "start") {
        resp.body = "started " + r.args[0] + "\n";
      } else if (r.verb == "stop" && r.args[0] == "missing") {
        resp.ok = false;
        resp.error = "no active run named 'missing'";
      } else if (r.verb == "stop") {
        resp.body = "stopped " + r.args[0] + "\n";
      } else {
        resp.body = "requests before this one: " + std::to_string(requests_.size() - 1) + "\n";
      }
      return resp;
    };
  }
  std::vector<ControlRequest> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  std::mutex mu_;
  std::vector<ControlRequest> requests_;
};

ControlRequest Req(std::string verb, std::vector<std::string> args = {}) {
  ControlRequest r;
  r.verb = std::move(verb);
  r.args = std::move(args);
  return r;
}

// A blocking raw client; connecting (while the listen backlog is full) and
// reads give up after 10 s so a bug cannot hang the suite.
int ConnectRaw(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

// `n` raw connections that send nothing; closed on destruction.
class SilentClients {
 public:
  SilentClients(const std::string& path, int n) {
    for (int i = 0; i < n; ++i) {
      int fd = ConnectRaw(path);
      if (fd < 0) {
        error_ = "silent client " + std::to_string(i) + " could not connect: " + std::strerror(errno);
        return;
      }
      fds_.push_back(fd);
    }
  }
  ~SilentClients() {
    for (int fd : fds_) ::close(fd);
  }
  const std::string& error() const { return error_; }
  std::vector<int>& fds() { return fds_; }

 private:
  std::vector<int> fds_;
  std::string error_;
};

bool SendAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

std::string ReadToEof(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

std::string EgidName() {
  group* g = ::getgrgid(::getegid());
  return g ? g->gr_name : "";
}

class ControlSocketTest : public ::testing::Test {
 protected:
  std::string SockPath() const { return dir_.path() + "/control.sock"; }
  std::unique_ptr<ControlServer> StartServer(double timeout = 5, std::string path = "") {
    ControlServerOptions o;
    o.path = path.empty() ? SockPath() : path;
    o.read_timeout_seconds = timeout;
    std::unique_ptr<ControlServer> s;
    Status st = ControlServer::Start(o, rec_.Handler(), &s);
    EXPECT_OK(st);
    return s;
  }
  // A status call that must succeed within `timeout`; returns its body.
  std::string StatusBody(double timeout = 10) {
    ControlResponse resp;
    Status st = ControlCall(SockPath(), Req("status"), &resp, timeout);
    EXPECT_OK(st);
    EXPECT_TRUE(resp.ok) << resp.error;
    return resp.body;
  }

  testing::TempDir dir_;
  Recorder rec_;
};

TEST_F(ControlSocketTest, StartStopStatusRoundTripWithPeerCredentials) {
  std::string path = dir_.path() + "/run/bottleneckd/control.sock";
  auto server = StartServer(5, path);
  ASSERT_TRUE(server);
  EXPECT_EQ(server->path(), path);
  struct stat st {};
  for (std::string d : {dir_.path() + "/run", dir_.path() + "/run/bottleneckd"}) {
    ASSERT_EQ(::stat(d.c_str(), &st), 0) << d;
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0755u) << d;
  }

  ControlResponse resp;
  ASSERT_OK(ControlCall(path, Req("start", {"echo 550M", "./udpecho --copies 32"}), &resp));
  EXPECT_TRUE(resp.ok);
  EXPECT_EQ(resp.body, "started echo 550M\n");
  ASSERT_OK(ControlCall(path, Req("status"), &resp));
  EXPECT_TRUE(resp.ok);
  EXPECT_EQ(resp.body, "requests before this one: 1\n");
  ASSERT_OK(ControlCall(path, Req("stop", {"echo 550M", "0"}), &resp));
  EXPECT_TRUE(resp.ok);
  EXPECT_EQ(resp.body, "stopped echo 550M\n");

  std::vector<ControlRequest> got = rec_.requests();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].verb, "start");
  EXPECT_EQ(got[0].args, (std::vector<std::string>{"echo 550M", "./udpecho --copies 32"}));
  EXPECT_EQ(got[1].verb, "status");
  EXPECT_TRUE(got[1].args.empty());
  EXPECT_EQ(got[2].verb, "stop");
  EXPECT_EQ(got[2].args, (std::vector<std::string>{"echo 550M", "0"}));
  for (const ControlRequest& r : got) {
    EXPECT_EQ(r.pid, ::getpid());
    EXPECT_EQ(r.uid, ::geteuid());
    EXPECT_EQ(r.gid, ::getegid());
  }
}

TEST_F(ControlSocketTest, HandlerErrorIsAnAnswerNotATransportFailure) {
  auto server = StartServer();
  ControlResponse resp;
  Status st = ControlCall(SockPath(), Req("stop", {"missing"}), &resp);
  ASSERT_OK(st);
  EXPECT_FALSE(resp.ok);
  EXPECT_EQ(resp.error, "no active run named 'missing'");
}

TEST_F(ControlSocketTest, ClientRejectsAnInvalidRequestBeforeConnecting) {
  auto server = StartServer();
  ControlResponse resp;
  Status st = ControlCall(SockPath(), Req("strat", {"x"}), &resp);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(), "unknown request 'strat': expected start, follow, stop, discard or status");
  EXPECT_TRUE(rec_.requests().empty());
}

TEST_F(ControlSocketTest, ServerAnswersAParseError) {
  auto server = StartServer();
  int fd = ConnectRaw(SockPath());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "strat\tx\n"));
  EXPECT_EQ(ReadToEof(fd), "error\tunknown request 'strat': expected start, follow, stop, discard or status\n");
  ::close(fd);
  EXPECT_TRUE(rec_.requests().empty());
}

TEST_F(ControlSocketTest, FileIsMode0660InTheRequestedGroup) {
  ControlServerOptions o;
  o.path = SockPath();
  o.group = EgidName();
  ASSERT_FALSE(o.group.empty());
  std::unique_ptr<ControlServer> server;
  ASSERT_OK(ControlServer::Start(o, rec_.Handler(), &server));
  struct stat st {};
  ASSERT_EQ(::lstat(o.path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0660u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  EXPECT_EQ(st.st_gid, ::getegid());
  server.reset();

  // Another group: root may give the file to any group ("daemon", gid from the
  // group database); anyone else only to a group they are in.
  group* other = ::getgrnam("daemon");
  ASSERT_NE(other, nullptr);
  gid_t other_gid = other->gr_gid;
  o.group = "daemon";
  Status s = ControlServer::Start(o, rec_.Handler(), &server);
  if (::geteuid() == 0) {
    ASSERT_OK(s);
    ASSERT_EQ(::lstat(o.path.c_str(), &st), 0);
    EXPECT_EQ(st.st_gid, other_gid);
    EXPECT_EQ(st.st_mode & 07777, 0660u);
  } else {
    EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
    EXPECT_NE(s.message().find("to group daemon"), std::string::npos) << s.message();
  }
}

TEST_F(ControlSocketTest, UnknownGroupIsNamed) {
  ControlServerOptions o;
  o.path = SockPath();
  o.group = "no-such-group-bn";
  std::unique_ptr<ControlServer> server;
  Status st = ControlServer::Start(o, rec_.Handler(), &server);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("unknown group 'no-such-group-bn'"), std::string::npos) << st.message();
  EXPECT_FALSE(server);
  struct stat sb {};
  EXPECT_NE(::lstat(o.path.c_str(), &sb), 0);
}

// Leaves a socket file with nobody listening, as a killed daemon does.
void MakeStaleSocket(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ::close(fd);
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  ASSERT_TRUE(S_ISSOCK(st.st_mode));
}

TEST_F(ControlSocketTest, StaleSocketIsReplaced) {
  MakeStaleSocket(SockPath());
  ControlResponse resp;
  Status call = ControlCall(SockPath(), Req("status"), &resp);
  EXPECT_TRUE(call.IsNotFound()) << call.ToString();  // ECONNREFUSED: no daemon
  auto server = StartServer();
  ASSERT_TRUE(server);
  EXPECT_EQ(StatusBody(), "requests before this one: 0\n");
}

TEST_F(ControlSocketTest, SomethingElseAtThePathIsKept) {
  dir_.Write("control.sock", "not mine");
  ControlServerOptions o;
  o.path = SockPath();
  std::unique_ptr<ControlServer> server;
  Status st = ControlServer::Start(o, rec_.Handler(), &server);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(SockPath() + " exists and is not a socket"), std::string::npos) << st.message();
  EXPECT_EQ(testing::ReadFileOrDie(SockPath()), "not mine");
}

TEST_F(ControlSocketTest, SecondServerOnTheSamePathFails) {
  auto first = StartServer();
  ASSERT_TRUE(first);
  ControlServerOptions o;
  o.path = SockPath();
  std::unique_ptr<ControlServer> second;
  Status st = ControlServer::Start(o, rec_.Handler(), &second);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "another bottleneckd is listening on " + SockPath());
  EXPECT_FALSE(second);
  // The first one keeps its file and serves on.
  EXPECT_EQ(StatusBody(), "requests before this one: 0\n");
}

TEST_F(ControlSocketTest, SilentClientIsDroppedAndTheNextOneServed) {
  auto server = StartServer(0.2);
  int silent = ConnectRaw(SockPath());
  ASSERT_GE(silent, 0);
  // Served beside the silent client, which is dropped on its own deadline.
  EXPECT_EQ(StatusBody(), "requests before this one: 0\n");
  EXPECT_EQ(ReadToEof(silent), "error\trequest timed out: no complete line within 0.2 s\n");
  ::close(silent);
  EXPECT_EQ(rec_.requests().size(), 1u);
}

// Issue 17: 40 clients that connect and say nothing (the server's timeout, 3 s,
// keeps them open longer than the call below may take) must not hold up a
// call that gives up after 1 s; each silent one still gets its refusal.
TEST_F(ControlSocketTest, CallIsServedWhileFortySilentClientsAreOpen) {
  auto server = StartServer(3);
  SilentClients silent(SockPath(), 40);
  ASSERT_EQ(silent.error(), "");
  EXPECT_EQ(StatusBody(1), "requests before this one: 0\n");
  for (int fd : silent.fds()) EXPECT_EQ(ReadToEof(fd), "error\trequest timed out: no complete line within 3 s\n");
  EXPECT_EQ(rec_.requests().size(), 1u);
}

// Issue 17: a client that writes its request one byte per 100 ms, and keeps
// at it until the call below is over, must not hold up that call (1 s);
// its own request is served once its newline arrives.
TEST_F(ControlSocketTest, CallIsServedWhileAnotherClientTricklesItsRequest) {
  auto server = StartServer(30);
  int slow = ConnectRaw(SockPath());
  ASSERT_GE(slow, 0);
  std::string sent = "s";  // before the call: the server has this connection first
  ASSERT_TRUE(SendAll(slow, sent));
  std::atomic<bool> done{false};
  std::thread trickler([&] {
    const std::string head = "start\t";
    // Stops at 190 bytes (a name of 184) at the latest: within the name limit.
    while (sent.size() < 190 && (sent.size() < head.size() + 1 || !done.load())) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::string next(1, sent.size() < head.size() ? head[sent.size()] : 't');
      if (!SendAll(slow, next)) return;
      sent += next;
    }
    SendAll(slow, "\n");
  });
  std::string body = StatusBody(1);
  done.store(true);
  trickler.join();
  EXPECT_EQ(body, "requests before this one: 0\n");
  EXPECT_EQ(ReadToEof(slow), "ok\nstarted " + sent.substr(6) + "\n");
  ::close(slow);
  ASSERT_EQ(rec_.requests().size(), 2u);
  EXPECT_EQ(rec_.requests()[1].verb, "start");
}

// At most 64 connections are served at once; the one after them is answered
// "busy" at once and closed, and a slot freed by an answered client is
// taken again.
TEST_F(ControlSocketTest, ConnectionBeyondTheCapIsAnsweredBusy) {
  auto server = StartServer(30);
  SilentClients silent(SockPath(), 64);
  ASSERT_EQ(silent.error(), "");
  ControlResponse resp;
  Status st = ControlCall(SockPath(), Req("status"), &resp, 10);
  ASSERT_OK(st);
  EXPECT_FALSE(resp.ok);
  EXPECT_EQ(resp.error, "busy: 64 connections are open; try again later");
  EXPECT_TRUE(rec_.requests().empty());

  // One of the 64 asks and reads its answer: the server has closed its side,
  // so its slot is free for the next call.
  int first = silent.fds()[0];
  ASSERT_TRUE(SendAll(first, "status\n"));
  EXPECT_EQ(ReadToEof(first), "ok\nrequests before this one: 0\n");
  EXPECT_EQ(StatusBody(), "requests before this one: 1\n");
}

TEST_F(ControlSocketTest, OversizeRequestGetsAnError) {
  auto server = StartServer(0.2);
  int fd = ConnectRaw(SockPath());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, std::string(10 * 1024, 'a')));
  EXPECT_EQ(ReadToEof(fd), "error\trequest longer than 4096 bytes\n");
  ::close(fd);
  // The limit counts the newline: 4097 bytes ending in one are refused too.
  fd = ConnectRaw(SockPath());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "start\tn\t" + std::string(4088, 'x') + "\n"));
  EXPECT_EQ(ReadToEof(fd), "error\trequest longer than 4096 bytes\n");
  ::close(fd);
  EXPECT_TRUE(rec_.requests().empty());
  EXPECT_EQ(StatusBody(), "requests before this one: 0\n");
}

TEST_F(ControlSocketTest, ClientsThatLeaveEarlyDoNotStopTheServer) {
  auto server = StartServer(0.2);
  int fd = ConnectRaw(SockPath());  // half a request, then gone
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "sta"));
  ::close(fd);
  fd = ConnectRaw(SockPath());  // nothing at all
  ASSERT_GE(fd, 0);
  ::close(fd);
  fd = ConnectRaw(SockPath());  // a request, gone before the answer
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "stop\tgone\n"));
  ::close(fd);
  fd = ConnectRaw(SockPath());  // asks for 4 MiB and never reads it
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "start\tbig\n"));

  ControlResponse resp;
  ASSERT_OK(ControlCall(SockPath(), Req("start", {"after"}), &resp));
  EXPECT_TRUE(resp.ok);
  EXPECT_EQ(resp.body, "started after\n");
  ::close(fd);
  std::vector<ControlRequest> got = rec_.requests();
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.back().args, std::vector<std::string>{"after"});
  for (const ControlRequest& r : got) EXPECT_NE(r.verb, "sta");
}

TEST_F(ControlSocketTest, MissingSocketIsNotFound) {
  ControlResponse resp;
  std::string path = dir_.path() + "/nope/control.sock";
  Status st = ControlCall(path, Req("status"), &resp);
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_EQ(st.message(), "no bottleneckd is listening on " + path + " (is the daemon running?)");
}

TEST_F(ControlSocketTest, PathLongerThanSunPathIsRejected) {
  std::string path = dir_.path() + "/" + std::string(120, 'p') + ".sock";
  ControlServerOptions o;
  o.path = path;
  std::unique_ptr<ControlServer> server;
  Status st = ControlServer::Start(o, rec_.Handler(), &server);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("at most 107"), std::string::npos) << st.message();
  ControlResponse resp;
  st = ControlCall(path, Req("status"), &resp);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
}

TEST_F(ControlSocketTest, DestructorRemovesOnlyItsOwnFile) {
  auto server = StartServer();
  ASSERT_TRUE(server);
  struct stat st {};
  ASSERT_EQ(::lstat(SockPath().c_str(), &st), 0);
  server.reset();
  EXPECT_NE(::lstat(SockPath().c_str(), &st), 0);
  EXPECT_EQ(errno, ENOENT);

  // A server whose file was replaced by a newer one leaves the newer one alone.
  auto old_server = StartServer();
  ASSERT_EQ(::unlink(SockPath().c_str()), 0);
  auto new_server = StartServer();
  ASSERT_TRUE(new_server);
  old_server.reset();
  EXPECT_EQ(::lstat(SockPath().c_str(), &st), 0);
  EXPECT_EQ(StatusBody(), "requests before this one: 0\n");
}

// A child forked while this process has one thread (before any server
// starts) that drops to `uid`, `gid` and `groups`, then makes one status call
// per path the parent sends and reports "<code>\t<ok>\t<message>".
class ForkedClient {
 public:
  ForkedClient(uid_t uid, gid_t gid, std::vector<gid_t> groups) {
    int to_child[2], from_child[2];
    if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) std::abort();
    pid_ = ::fork();
    if (pid_ < 0) std::abort();
    if (pid_ == 0) {
      ::close(to_child[1]);
      ::close(from_child[0]);
      RunChild(to_child[0], from_child[1], uid, gid, groups);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    to_ = to_child[1];
    from_ = from_child[0];
  }
  ~ForkedClient() {
    ::close(to_);
    ::close(from_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  std::string Call(const std::string& path) {
    std::string line = path + "\n";
    if (::write(to_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return "write failed";
    std::string out;
    char c;
    while (::read(from_, &c, 1) == 1 && c != '\n') out += c;
    return out;
  }

 private:
  [[noreturn]] static void RunChild(int in, int out, uid_t uid, gid_t gid, const std::vector<gid_t>& groups) {
    if (::setgroups(groups.size(), groups.data()) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0) {
      ssize_t n = ::write(out, "setup failed\n", 13);
      (void)n;
      ::_exit(1);
    }
    for (;;) {
      std::string path;
      char c;
      ssize_t n;
      while ((n = ::read(in, &c, 1)) == 1 && c != '\n') path += c;
      if (n != 1) ::_exit(0);
      ControlResponse resp;
      Status st = ControlCall(path, Req("status"), &resp, 10);
      std::string line =
          std::to_string(static_cast<int>(st.code())) + "\t" + (resp.ok ? "1" : "0") + "\t" + st.message() + "\n";
      if (::write(out, line.data(), line.size()) < 0) ::_exit(1);
    }
  }
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
};

TEST_F(ControlSocketTest, PeersOutsideUserAndGroupAreRefused) {
  if (::geteuid() != 0) {
    // Only root can become another user to test the refusal live; here the
    // credential check itself: a stranger is refused, a group member is not.
    EXPECT_NE(::geteuid(), 0u);
    uid_t stranger = ::geteuid() == 65534 ? 65533 : 65534;
    gid_t other = ::getegid() == 65534 ? 65533 : 65534;
    EXPECT_FALSE(PeerAllowed(stranger, other, {}, ::geteuid(), ::getegid()));
    EXPECT_TRUE(PeerAllowed(stranger, other, {::getegid()}, ::geteuid(), ::getegid()));
    EXPECT_TRUE(PeerAllowed(::geteuid(), other, {}, ::geteuid(), ::getegid()));
    return;
  }
  ForkedClient nobody(65534, 65534, {});
  ForkedClient member(65534, 65534, {::getegid()});  // nobody, plus the socket's group
  ASSERT_EQ(::chmod(dir_.path().c_str(), 0755), 0);
  auto server = StartServer();  // group: root's primary group
  ASSERT_TRUE(server);
  const std::string denied = std::to_string(static_cast<int>(Status::Code::kPermissionDenied));
  const std::string ok = std::to_string(static_cast<int>(Status::Code::kOk));

  // Mode 0660: the kernel keeps nobody out at connect.
  std::string got = nobody.Call(SockPath());
  EXPECT_EQ(got.substr(0, denied.size() + 3), denied + "\t0\t") << got;
  EXPECT_NE(got.find("permission denied connecting to " + SockPath()), std::string::npos) << got;

  // A member of the group passes both the file mode and SO_PEERGROUPS.
  EXPECT_EQ(member.Call(SockPath()), ok + "\t1\t");
  std::vector<ControlRequest> reqs = rec_.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].uid, 65534u);
  EXPECT_EQ(reqs[0].gid, 65534u);

  // Someone loosened the mode: the credential check still refuses nobody.
  ASSERT_EQ(::chmod(SockPath().c_str(), 0666), 0);
  got = nobody.Call(SockPath());
  EXPECT_EQ(got, denied +
                     "\t0\tpermission denied: uid 65534 is neither root nor the daemon's user and is not in group " +
                     EgidName() + " (" + SockPath() + ")");
  EXPECT_EQ(rec_.requests().size(), 1u);
}

// One loop, two protocols (issue 48): each listener speaks its own. An HTTP
// request on the control socket is a control request that does not parse,
// answered as one; the handler never sees it.
TEST_F(ControlSocketTest, HttpOnTheControlSocketIsAControlError) {
  auto server = StartServer();
  int fd = ConnectRaw(SockPath());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
  const std::string answer = ReadToEof(fd);
  ::close(fd);
  EXPECT_EQ(answer.rfind("error\t", 0), 0u) << answer;
  EXPECT_EQ(answer.find("HTTP/1.1"), std::string::npos) << answer;
  EXPECT_TRUE(rec_.requests().empty());
}

// ... and a control verb on the HTTP endpoint is a bad HTTP request (400),
// never a control request.
TEST(OneLoop, AControlVerbOnTheHttpPortIsABadRequest) {
  int served = 0;
  std::vector<HttpRoute> routes = {{"/metrics", false, [&](const HttpRequest&) {
                                      ++served;
                                      return HttpResponse();
                                    }}};
  ListenAddress addr;
  ASSERT_OK(ParseListenAddress("127.0.0.1:0", &addr));
  std::unique_ptr<EventServer> http;
  ASSERT_OK(EventServer::Start(addr, std::move(routes), EventServerOptions(), &http));
  const std::string bound = http->BoundAddress();
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(std::stoi(bound.substr(bound.rfind(':') + 1))));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_TRUE(SendAll(fd, "stop\tnightly\t0\n\n"));
  const std::string answer = ReadToEof(fd);
  ::close(fd);
  EXPECT_EQ(answer.rfind("HTTP/1.1 400 ", 0), 0u) << answer;
  EXPECT_EQ(served, 0);
}

// The handler runs off the loop thread: while it is held (a stop waiting on
// the run store's fsync), the loop still times out and answers a silent
// client. On a loop that ran the handler itself, the silent client's answer
// waited for the handler. Ordering only: the handler is released after the
// silent client has its answer.
TEST(OneLoop, ALongHandlerHoldsUpNoOtherConnection) {
  testing::TempDir dir;
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  ControlServerOptions o;
  o.path = dir.path() + "/control.sock";
  o.read_timeout_seconds = 0.2;
  std::unique_ptr<ControlServer> server;
  ASSERT_OK(ControlServer::Start(
      o,
      [&](const ControlRequest&) {
        std::unique_lock<std::mutex> l(mu);
        cv.wait_for(l, std::chrono::seconds(20), [&] { return release; });
        ControlResponse r;
        r.ok = true;
        return r;
      },
      &server));
  int held = ConnectRaw(o.path);
  ASSERT_GE(held, 0);
  ASSERT_TRUE(SendAll(held, "status\n"));
  int silent = ConnectRaw(o.path);
  ASSERT_GE(silent, 0);
  EXPECT_EQ(ReadToEof(silent), "error\trequest timed out: no complete line within 0.2 s\n");
  ::close(silent);
  {
    std::lock_guard<std::mutex> l(mu);
    release = true;
  }
  cv.notify_all();
  EXPECT_EQ(ReadToEof(held), "ok\n");
  ::close(held);
}

}  // namespace
}  // namespace bottleneckd::control_socket_test
