#include "exporters/http/event_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <thread>
#include <unordered_map>
#include <utility>

#include "base/clock.h"
#include "base/log.h"
#include "base/mutex.h"
#include "base/unique_fd.h"
#include "exporters/http/request_head.h"
#include "exporters/http/tls_stream.h"
#include "exporters/http/web_security.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59  // Linux 4.13
#endif

namespace bottleneckd {
namespace {

constexpr uint64_t kListenId = 0;
constexpr uint64_t kWakeId = 1;
constexpr int64_t kNanosPerMs = 1000000;
// A lingering close: after an answer that leaves unread input (a body not
// read, bytes past a 400), the write side is shut and input discarded for up
// to this long before the close, so the client reads the answer rather than a
// reset (RFC 9112 section 9.6).
constexpr int kLingerMs = 1000;
constexpr size_t kLingerBytes = 64 * 1024;
constexpr size_t kReadChunk = 4096;

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

std::shared_ptr<const std::string> Text(std::string s) { return std::make_shared<const std::string>(std::move(s)); }

HttpResponse TextResponse(int status, std::string body, std::string headers = "") {
  HttpResponse r;
  r.status = status;
  r.headers = std::move(headers);
  r.body = Text(std::move(body));
  return r;
}

size_t DefaultMaxConnections() {
  rlimit nofile{};
  size_t limit = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY)
    limit = static_cast<size_t>(nofile.rlim_cur);
  else if (nofile.rlim_cur == RLIM_INFINITY)
    limit = 1 << 20;
  size_t room = limit > 144 ? limit - 128 : 16;
  return std::clamp<size_t>(room, 16, 4096);
}

}  // namespace

class EventServer::Loop {
 public:
  Loop(std::vector<HttpRoute> routes, const EventServerOptions& options, std::string address)
      : routes_(std::move(routes)), options_(options), address_(std::move(address)) {
    if (options_.max_connections == 0) options_.max_connections = DefaultMaxConnections();
    MutexLock l(&stats_mu_);
    stats_.max_connections = options_.max_connections;
  }

  // A loop serving a line protocol only (StartLines).
  Loop(LineService service, std::string address) : address_(std::move(address)), line_(std::move(service)) {
    options_.max_connections = line_->max_connections;
    MutexLock l(&stats_mu_);
    stats_.max_connections = options_.max_connections;
  }

  Status Init(UniqueFd listen_fd) {
    listen_ = std::move(listen_fd);
    epoll_ = UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
    if (!epoll_.valid()) return Status::FromErrno(errno, "http: epoll_create1");
    wake_ = UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!wake_.valid()) return Status::FromErrno(errno, "http: eventfd");
    if (!Watch(listen_.get(), kListenId, EPOLLIN, EPOLL_CTL_ADD) ||
        !Watch(wake_.get(), kWakeId, EPOLLIN, EPOLL_CTL_ADD))
      return Status::FromErrno(errno, "http: epoll_ctl");
    loop_thread_ = std::thread([this] { Run(); });
    worker_thread_ = std::thread([this] { Work(); });
    if (options_.security) auth_thread_ = std::thread([this] { CheckPasswords(); });
    return Status::OK();
  }

  ~Loop() {
    {
      MutexLock l(&mu_);
      stopping_ = true;
      jobs_cv_.NotifyAll();
      auth_cv_.NotifyAll();
    }
    Wake();
    if (loop_thread_.joinable()) loop_thread_.join();
    if (worker_thread_.joinable()) worker_thread_.join();
    if (auth_thread_.joinable()) auth_thread_.join();
  }

  const std::string& address() const { return address_; }

  Stats GetStats() const {
    MutexLock l(&stats_mu_);
    return stats_;
  }

 private:
  enum class State { kHandshake, kHead, kIdle, kWorking, kWriting, kLinger };

  struct Conn {
    UniqueFd fd;
    uint64_t id = 0;
    State state = State::kHead;
    std::string in;
    std::string out_head;
    std::shared_ptr<const std::string> out_body;
    size_t out_sent = 0;  // of out_head then out_body
    bool close_after = false;
    bool head_only = false;
    bool http10_keep_alive = false;  // answer "Connection: keep-alive" to an HTTP/1.0 client
    bool peer_closed = false;        // the client shut its side: answer what is in, then close
    size_t lingered = 0;
    uint64_t seq = 0;  // bumped on every deadline or idle-queue entry; older entries are stale
    uint32_t events = 0;
    LinePeer peer;                   // line protocol: who connected
    bool linger_until = false;       // line protocol: after the answer, drop what it sends until the deadline
    std::unique_ptr<TlsStream> tls;  // the web config's TLS: every byte in and out goes through it
    RequestHead pending;             // a request waiting for its password check
    bool tls_started = false;        // its first byte came (and was not plain HTTP)
  };

  struct Deadline {
    int64_t at_ns;
    uint64_t id;
    uint64_t seq;
    bool operator>(const Deadline& o) const { return at_ns > o.at_ns; }
  };

  struct Job {
    uint64_t id;
    const HttpRoute* route;
    HttpRequest request;
  };

  struct Done {
    uint64_t id;
    HttpResponse response;
  };

  struct LineJob {
    uint64_t id;
    std::string line;
    LinePeer peer;
  };

  struct LineDone {
    uint64_t id;
    std::string answer;
  };

  struct AuthJob {
    uint64_t id;
    std::shared_ptr<const WebSettings> web;
    std::string user, password;
    AuthFailure result = AuthFailure::kCount;  // kCount: they passed
  };

  bool Watch(int fd, uint64_t id, uint32_t events, int op) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = id;
    return ::epoll_ctl(epoll_.get(), op, fd, &ev) == 0;
  }

  void Wake() {
    uint64_t one = 1;
    ssize_t n = ::write(wake_.get(), &one, sizeof(one));
    (void)n;  // a full counter already wakes the loop
  }

  void SetInterest(Conn* c, uint32_t events) {
    if (c->events == events) return;
    c->events = events;
    Watch(c->fd.get(), c->id, events, EPOLL_CTL_MOD);
  }

  void SetDeadline(Conn* c, int ms) {
    ++c->seq;
    if (ms <= 0) return;
    deadlines_.push({MonotonicNanos() + ms * kNanosPerMs, c->id, c->seq});
    // Superseded entries leave only when their time comes (up to the 60 s
    // idle limit): a busy kept-alive client leaves three per request. Past
    // a bound the heap keeps only the current ones.
    if (deadlines_.size() > 8 * conns_.size() + 4096) {
      std::vector<Deadline> live;
      while (!deadlines_.empty()) {
        const Deadline& d = deadlines_.top();
        // c itself may not be in conns_ yet (a connection being accepted).
        auto it = d.id == c->id ? conns_.end() : conns_.find(d.id);
        const uint64_t current = d.id == c->id ? c->seq : it != conns_.end() ? it->second->seq : 0;
        if (d.seq == current) live.push_back(d);
        deadlines_.pop();
      }
      for (const Deadline& d : live) deadlines_.push(d);
    }
  }

  template <typename F>
  void Count(F f) {
    MutexLock l(&stats_mu_);
    f(&stats_);
    stats_.open = conns_.size();
    stats_.deadlines = deadlines_.size();
    stats_.idle_entries = idle_.size();
  }

  void Run() {
    pthread_setname_np(pthread_self(), "bnd-http");
    std::vector<epoll_event> events(256);
    for (;;) {
      {
        MutexLock l(&mu_);
        if (stopping_) break;
      }
      int timeout = -1;
      int64_t next = deadlines_.empty() ? -1 : deadlines_.top().at_ns;
      if (listen_paused_ && (next < 0 || resume_listen_ns_ < next)) next = resume_listen_ns_;
      if (next >= 0) {
        int64_t left = next - MonotonicNanos();
        timeout = left <= 0 ? 0 : static_cast<int>(std::min<int64_t>((left + kNanosPerMs - 1) / kNanosPerMs, 60000));
      }
      int n = ::epoll_wait(epoll_.get(), events.data(), static_cast<int>(events.size()), timeout);
      if (n < 0 && errno != EINTR) {
        Log(LogLevel::kError, "http: epoll_wait failed; the endpoint stops", {{"err", std::strerror(errno)}});
        break;
      }
      for (int i = 0; i < n; ++i) {
        uint64_t id = events[i].data.u64;
        if (id == kListenId) {
          Accept();
        } else if (id == kWakeId) {
          uint64_t v;
          while (::read(wake_.get(), &v, sizeof(v)) > 0) {
          }
          FinishJobs();
        } else {
          OnEvent(id, events[i].events);
        }
      }
      Expire();
    }
    conns_.clear();
  }

  void Accept() {
    for (int i = 0; i < 64; ++i) {  // then let the other connections have a turn
      int fd = ::accept4(listen_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE) {
          int64_t now = MonotonicNanos();
          if (now - last_fd_log_ns_ > 60 * 1000 * kNanosPerMs) {
            last_fd_log_ns_ = now;
            Log(LogLevel::kWarn, "http: out of file descriptors; new connections wait in the backlog", {});
          }
          NoteFdShortage();
        }
        return;  // EAGAIN, or a connection reset before it was accepted
      }
      UniqueFd conn_fd(fd);
      if (line_) {
        AcceptLine(std::move(conn_fd));
        continue;
      }
      if (conns_.size() >= options_.max_connections && !EvictIdle()) {
        Refuse(std::move(conn_fd));
        continue;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      auto c = std::make_unique<Conn>();
      if (options_.security && options_.security->tls()) {
        // The configuration of the moment (re-read when its files changed):
        // this connection keeps it to its end.
        c->tls = TlsStream::OnSocket(options_.security->Current()->tls, fd);
        if (!c->tls) continue;  // out of memory: closed
      }
      c->fd = std::move(conn_fd);
      c->id = next_id_++;
      c->events = EPOLLIN;
      if (!Watch(fd, c->id, c->events, EPOLL_CTL_ADD)) continue;
      Conn* raw = c.get();
      conns_.emplace(raw->id, std::move(c));
      Count([](Stats* s) { ++s->accepted; });
      if (raw->tls) {
        // The handshake is bounded as a request head is. Until its first
        // byte it is as idle as a plain connection that sent nothing, and
        // as evictable: without that, a burst of silent connections (or
        // ones their clients already closed, accepted before their EOF is
        // read) held every slot of a TLS listener until the head deadline
        // and each newcomer was closed unanswered (http_connection_fuzz).
        raw->state = State::kHandshake;
        SetDeadline(raw, options_.head_timeout_ms);
        idle_.push_back({raw->id, raw->seq});
        continue;
      }
      // Nothing sent yet: idle, as between two requests of a kept-alive
      // connection. The head deadline starts at the first byte; a client
      // delayed between its connect() and its send() (starved of CPU, or a
      // paused VM: the 3 s stall of issue 47's load) is not closed unanswered.
      Idle(raw);
    }
  }

  // A line-protocol newcomer: busy past the cap; its credentials read and
  // judged (admit); the line due within timeout_ms of now.
  void AcceptLine(UniqueFd fd) {
    if (conns_.size() >= line_->max_connections) {
      SendAndClose(std::move(fd), line_->busy);
      Count([](Stats* s) { ++s->refused; });
      int64_t now = MonotonicNanos();
      if (now - last_refusal_log_ns_ > 60 * 1000 * kNanosPerMs) {
        last_refusal_log_ns_ = now;
        Log(LogLevel::kWarn, line_->name + ": connection cap reached; answering busy",
            {{"connections", std::to_string(conns_.size())}});
      }
      return;
    }
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return;
    auto c = std::make_unique<Conn>();
    c->peer.pid = cred.pid;
    c->peer.uid = cred.uid;
    c->peer.gid = cred.gid;
    c->peer.groups = PeerGroups(fd.get());
    c->fd = std::move(fd);
    c->id = next_id_++;
    c->events = EPOLLIN;
    if (!Watch(c->fd.get(), c->id, c->events, EPOLL_CTL_ADD)) return;
    Conn* raw = c.get();
    conns_.emplace(raw->id, std::move(c));
    raw->state = State::kHead;
    SetDeadline(raw, line_->timeout_ms);
    Count([](Stats* s) { ++s->accepted; });
    if (std::string refusal = line_->admit ? line_->admit(raw->peer) : ""; !refusal.empty())
      AnswerLine(raw, std::move(refusal), /*linger_until_deadline=*/true, /*fresh_deadline=*/false);
  }

  // Writes `text` to a socket that gets nothing else (best effort: a fresh
  // socket's buffer takes it), drops what the peer already sent (so the
  // close does not reset the answer away), and closes it.
  static void SendAndClose(UniqueFd fd, const std::string& text) {
    ssize_t n = ::send(fd.get(), text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)n;
    ::shutdown(fd.get(), SHUT_WR);
    char buf[kReadChunk];
    while (::recv(fd.get(), buf, sizeof(buf), MSG_DONTWAIT) > 0) {
    }
  }

  static std::vector<gid_t> PeerGroups(int fd) {
    std::vector<gid_t> groups(64);
    for (int attempt = 0; attempt < 2; ++attempt) {
      socklen_t len = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
      if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &len) == 0) {
        groups.resize(len / sizeof(gid_t));
        return groups;
      }
      if (errno != ERANGE) break;
      groups.resize(len / sizeof(gid_t) + 1);
    }
    return {};
  }

  // The answer to a line-protocol connection; it closes after it (at once,
  // or once the deadline has passed or the peer closed when
  // linger_until_deadline: a refusal the peer must get to read).
  // fresh_deadline: the answer and what follows get timeout_ms from now;
  // else the deadline already set stands (a refusal at accept).
  void AnswerLine(Conn* c, std::string text, bool linger_until_deadline, bool fresh_deadline = true) {
    c->out_head = std::move(text);
    c->out_body.reset();
    c->out_sent = 0;
    c->close_after = true;
    c->linger_until = linger_until_deadline;
    c->state = State::kWriting;
    if (fresh_deadline) SetDeadline(c, line_->timeout_ms);
    SetInterest(c, EPOLLOUT);
    Write(c);
  }

  // Reads what has arrived on c, handing each chunk to `take` (false: stop
  // reading now); *eof at the peer's end. False when the socket failed and
  // c is closed.
  template <typename Take>
  bool ReadAvailable(Conn* c, bool* eof, Take take) {
    char buf[kReadChunk];
    if (c->tls) return ReadTls(c, eof, take, buf);
    for (;;) {
      ssize_t n = ::recv(c->fd.get(), buf, sizeof(buf), 0);
      if (n == 0) {
        *eof = true;
        return true;
      }
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
        if (errno == EINTR) continue;
        Close(c->id);
        return false;
      }
      if (!take(buf, static_cast<size_t>(n)) || static_cast<size_t>(n) < sizeof(buf)) return true;
    }
  }

  // ReadAvailable through TLS: records are read until the stream wants the
  // socket again (a short read does not mean the socket is drained: OpenSSL
  // may hold the rest of a record, which epoll cannot see).
  template <typename Take>
  bool ReadTls(Conn* c, bool* eof, Take take, char* buf) {
    for (;;) {
      size_t got = 0;
      switch (c->tls->Read(buf, kReadChunk, &got)) {
        case TlsStream::Io::kOk:
          if (!take(buf, got)) return true;
          continue;
        case TlsStream::Io::kWantRead: SetInterest(c, EPOLLIN); return true;
        case TlsStream::Io::kWantWrite:  // a key update or ticket to send first
          SetInterest(c, EPOLLIN | EPOLLOUT);
          return true;
        case TlsStream::Io::kClosed: *eof = true; return true;
        case TlsStream::Io::kError:
          Count([](Stats* s) { ++s->tls_failed; });
          Close(c->id);
          return false;
      }
    }
  }

  // A TLS connection's handshake, as far as the socket lets it go. A client
  // that speaks plain HTTP to it (its first byte a letter, where a TLS
  // record starts with 0x16) is told so, as Go's servers tell it, and closed.
  void Handshake(Conn* c) {
    char first = 0;
    if (!c->tls_started) {
      const ssize_t n = ::recv(c->fd.get(), &first, 1, MSG_PEEK);
      if (n == 1 && first >= 'A' && first <= 'Z') {
        static constexpr char kPlain[] =
            "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
            "Client sent an HTTP request to an HTTPS server.\n";
        Count([](Stats* s) { ++s->tls_failed; });
        UniqueFd fd = std::move(c->fd);
        Close(c->id);
        SendAndClose(std::move(fd), kPlain);
        return;
      }
      c->tls_started = n == 1;
    }
    switch (c->tls->Handshake()) {
      case TlsStream::Io::kOk:
        Idle(c);
        SetInterest(c, EPOLLIN);
        Read(c);  // the request may have come with the handshake's last flight
        return;
      case TlsStream::Io::kWantRead: SetInterest(c, EPOLLIN); return;
      case TlsStream::Io::kWantWrite: SetInterest(c, EPOLLOUT); return;
      case TlsStream::Io::kClosed:
      case TlsStream::Io::kError: break;
    }
    Count([](Stats* s) { ++s->tls_failed; });
    Log(LogLevel::kDebug, "http: TLS handshake failed", {{"err", c->tls->Error()}});
    Close(c->id);
  }

  // What a line-protocol connection sent: its line goes to the worker.
  void ReadLine(Conn* c) {
    bool eof = false;
    const size_t cap = line_->max_line + 1;  // one byte past: oversize
    if (!ReadAvailable(c, &eof, [&](const char* buf, size_t n) {
          c->in.append(buf, std::min(n, cap - std::min(c->in.size(), cap)));
          return c->in.size() < cap;
        }))
      return;
    const size_t nl = c->in.find('\n');
    if (nl != std::string::npos && nl < line_->max_line) {
      std::string line = c->in.substr(0, nl);
      c->in.erase(0, nl + 1);  // anything after the line is not a request
      Count([](Stats* s) { ++s->requests; });
      {
        MutexLock l(&mu_);
        line_jobs_.push_back({c->id, std::move(line), c->peer});
        jobs_cv_.NotifyOne();
      }
      c->state = State::kWorking;
      SetDeadline(c, 0);
      SetInterest(c, 0);
      return;
    }
    if (c->in.size() > line_->max_line) {
      Count([](Stats* s) { ++s->bad; });
      c->in.clear();
      AnswerLine(c, line_->oversize, /*linger_until_deadline=*/true);
      return;
    }
    if (eof) {
      if (c->in.empty()) {
        Close(c->id);  // closed before sending anything
        return;
      }
      c->in.clear();
      c->peer_closed = true;
      AnswerLine(c, line_->incomplete, false);
    }
  }

  // At EMFILE the listening socket stays readable: stop watching it until a
  // connection closes or a second has passed (the descriptors may be held
  // elsewhere in the daemon), or the loop would spin.
  void NoteFdShortage() {
    resume_listen_ns_ = MonotonicNanos() + 1000 * kNanosPerMs;
    if (!listen_paused_ && Watch(listen_.get(), kListenId, 0, EPOLL_CTL_MOD)) listen_paused_ = true;
  }

  void ResumeListening() {
    if (listen_paused_ && Watch(listen_.get(), kListenId, EPOLLIN, EPOLL_CTL_MOD)) listen_paused_ = false;
  }

  // Whether an idle-queue entry (id, seq) still names a connection that
  // holds nothing under way: idle between requests, or a TLS connection
  // whose client has sent no byte yet.
  static bool Evictable(const Conn& c, uint64_t seq) {
    return c.seq == seq && (c.state == State::kIdle || (c.state == State::kHandshake && !c.tls_started));
  }

  bool EvictIdle() {
    while (!idle_.empty()) {
      auto [id, seq] = idle_.front();
      idle_.pop_front();
      auto it = conns_.find(id);
      if (it == conns_.end() || !Evictable(*it->second, seq)) continue;
      Count([](Stats* s) { ++s->evicted; });  // before the close a client can see
      Close(id);
      return true;
    }
    return false;
  }

  void Refuse(UniqueFd fd) {
    if (options_.security && options_.security->tls()) {
      // A TLS client would read a plain-text 503 as a broken record: closed.
      Count([](Stats* s) { ++s->refused; });
      return;
    }
    static constexpr char kBusy[] =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 21\r\n"
        "Retry-After: 1\r\nConnection: close\r\n\r\ntoo many connections\n";
    ssize_t n = ::send(fd.get(), kBusy, sizeof(kBusy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)n;  // best effort: a fresh socket's buffer takes 150 bytes
    Count([](Stats* s) { ++s->refused; });
    int64_t now = MonotonicNanos();
    if (now - last_refusal_log_ns_ > 60 * 1000 * kNanosPerMs) {
      last_refusal_log_ns_ = now;
      Log(LogLevel::kWarn, "http: connection limit reached; new connections are answered 503",
          {{"max_connections", std::to_string(options_.max_connections)}});
    }
  }

  // A connection with no request under way: closed at the idle deadline,
  // first to go when a newcomer needs room (EvictIdle).
  void Idle(Conn* c) {
    c->state = State::kIdle;
    SetDeadline(c, options_.idle_timeout_ms);
    idle_.push_back({c->id, c->seq});
    // An entry goes stale when its connection leaves idle or closes; only
    // EvictIdle pops the front. Past a bound only the current ones are kept,
    // or a client that opens a connection per request grows the queue by one
    // entry per request for the daemon's life.
    if (idle_.size() > 2 * conns_.size() + 1024) {
      std::deque<std::pair<uint64_t, uint64_t>> live;
      for (const auto& [id, seq] : idle_) {
        auto it = conns_.find(id);
        if (it != conns_.end() && Evictable(*it->second, seq)) live.push_back({id, seq});
      }
      idle_.swap(live);
    }
  }

  void Close(uint64_t id) {
    conns_.erase(id);  // the fd's close removes it from the epoll set
    Count([](Stats*) {});
    ResumeListening();
  }

  void OnEvent(uint64_t id, uint32_t events) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    Conn* c = it->second.get();
    if ((events & (EPOLLERR | EPOLLHUP)) && c->state != State::kLinger) {
      // A client that gives up mid-handshake resets the connection when it
      // leaves the server's flight unread (one refusing the certificate
      // does): a failed handshake, as its alert or a plain close is in
      // Handshake(). Uncounted, TlsServerTest.MetricsCount... read 0
      // failures one run in three.
      if (c->state == State::kHandshake) Count([](Stats* s) { ++s->tls_failed; });
      Close(id);
      return;
    }
    switch (c->state) {
      case State::kHandshake: Handshake(c); break;
      case State::kHead:
      case State::kIdle: line_ ? ReadLine(c) : Read(c); break;
      case State::kWriting: Write(c); break;
      case State::kLinger: Drain(c); break;
      case State::kWorking: break;  // nothing is watched; an error or hang-up closed it above
    }
  }

  void Read(Conn* c) {
    bool newline = false, eof = false;
    if (!ReadAvailable(c, &eof, [&](const char* buf, size_t n) {
          if (c->state == State::kIdle) {
            c->state = State::kHead;
            SetDeadline(c, options_.head_timeout_ms);
          }
          c->in.append(buf, n);
          if (std::memchr(buf, '\n', n) != nullptr) newline = true;
          if (c->in.size() < options_.max_head) return true;
          newline = true;  // parse now: 431 unless the head is already in
          return false;
        }))
      return;
    if (eof) {
      c->peer_closed = true;
      newline = true;  // answer a complete request sent before the close
    }
    if (newline) Process(c);
  }

  // Parses what has arrived and answers one request; called again after the
  // answer for pipelined bytes.
  void Process(Conn* c) {
    RequestHead head;
    int status = 0;
    std::string error;
    switch (ParseRequestHead(c->in, options_.max_head, &head, &status, &error)) {
      case HeadParse::kIncomplete:
        if (c->peer_closed) Close(c->id);
        return;
      case HeadParse::kError:
        Count([](Stats* s) { ++s->bad; });
        Respond(c, TextResponse(status, "bad request: " + error + "\n"), false, true);
        return;
      case HeadParse::kComplete: break;
    }
    c->in.erase(0, head.size);
    Count([](Stats* s) { ++s->requests; });
    if (options_.security && !Authorized(c, &head)) return;
    Dispatch(c, std::move(head));
  }

  // Whether the request's credentials pass (or none are asked for); false
  // when it was answered 401 or waits for the password thread.
  bool Authorized(Conn* c, RequestHead* head) {
    std::shared_ptr<const WebSettings> web = options_.security->Current();
    if (!web->auth()) return true;
    std::string user, password;
    if (head->authorization.empty()) {
      Unauthorized(c, *head, AuthFailure::kMissing);
      return false;
    }
    if (!ParseBasicAuth(head->authorization, &user, &password)) {
      Unauthorized(c, *head, AuthFailure::kMalformed);
      return false;
    }
    const auto& users = web->config.users;
    auto it = std::lower_bound(
        users.begin(), users.end(), user,
        [](const std::pair<std::string, std::string>& u, const std::string& name) { return u.first < name; });
    if (it != users.end() && it->first == user && auth_cache_.Contains(user, password, it->second)) return true;
    {
      MutexLock l(&mu_);
      if (auth_jobs_.size() >= options_.auth_queue) {
        Count([](Stats* s) { ++s->refused; });
        Respond(c, TextResponse(503, "busy: try again\n", "Retry-After: 1\r\n"), head->method == "HEAD", true);
        return false;
      }
      auth_jobs_.push_back({c->id, std::move(web), std::move(user), std::move(password)});
      auth_cv_.NotifyOne();
    }
    c->pending = std::move(*head);
    c->state = State::kWorking;
    SetDeadline(c, 0);
    SetInterest(c, 0);
    return false;
  }

  void Unauthorized(Conn* c, const RequestHead& head, AuthFailure why) {
    Count([why](Stats* s) { ++s->auth_failed[static_cast<int>(why)]; });
    const bool close = !head.keep_alive || head.has_body || c->peer_closed;
    c->http10_keep_alive = head.minor_version == 0 && !close;
    Respond(c,
            TextResponse(401, "unauthorized\n", "WWW-Authenticate: Basic realm=\"bottleneckd\", charset=\"UTF-8\"\r\n"),
            head.method == "HEAD", close);
  }

  // The password thread: bcrypt, one check at a time, off the loop.
  void CheckPasswords() {
    pthread_setname_np(pthread_self(), "bnd-http-auth");
    for (;;) {
      AuthJob job;
      {
        MutexLock l(&mu_);
        while (auth_jobs_.empty() && !stopping_) auth_cv_.Wait(&mu_);
        if (stopping_) return;
        job = std::move(auth_jobs_.front());
        auth_jobs_.pop_front();
      }
      job.result = CheckPassword(*job.web, job.user, job.password);
      Count([](Stats* s) { ++s->auth_checks; });
      {
        MutexLock l(&mu_);
        auth_done_.push_back(std::move(job));
      }
      Wake();
    }
  }

  // A request whose credentials passed (or were not asked for).
  void Dispatch(Conn* c, RequestHead head) {
    bool close = !head.keep_alive || head.has_body || c->peer_closed;
    c->http10_keep_alive = head.minor_version == 0 && !close;
    bool is_head = head.method == "HEAD";
    if (head.method != "GET" && !is_head) {
      Respond(c, TextResponse(405, "method not allowed\n", "Allow: GET, HEAD\r\n"), false, true);
      return;
    }
    const HttpRoute* route = nullptr;
    for (const HttpRoute& r : routes_)
      if (r.path == head.path) route = &r;
    if (route == nullptr) {
      Respond(c, TextResponse(404, "not found: try /metrics\n"), is_head, close);
      return;
    }
    HttpRequest req{head.path, std::move(head.accept_encoding), is_head};
    c->close_after = close;
    c->head_only = is_head;
    if (!route->slow) {
      Respond(c, route->handler(req), is_head, close);
      return;
    }
    {
      MutexLock l(&mu_);
      if (jobs_.size() >= options_.worker_queue) {
        Count([](Stats* s) { ++s->refused; });
        Respond(c, TextResponse(503, "busy: try again\n", "Retry-After: 1\r\n"), is_head, true);
        return;
      }
      jobs_.push_back({c->id, route, std::move(req)});
      jobs_cv_.NotifyOne();
    }
    c->state = State::kWorking;
    SetDeadline(c, 0);
    SetInterest(c, 0);
  }

  void FinishJobs() {
    std::deque<Done> done;
    std::deque<LineDone> lines;
    std::deque<AuthJob> checked;
    {
      MutexLock l(&mu_);
      done.swap(done_);
      lines.swap(line_done_);
      checked.swap(auth_done_);
    }
    for (AuthJob& a : checked) {
      auto it = conns_.find(a.id);
      if (it == conns_.end() || it->second->state != State::kWorking) continue;
      Conn* c = it->second.get();
      RequestHead head = std::move(c->pending);
      if (a.result != AuthFailure::kCount) {
        Unauthorized(c, head, a.result);
        continue;
      }
      const auto& users = a.web->config.users;
      for (const auto& [user, hash] : users)
        if (user == a.user) auth_cache_.Insert(a.user, a.password, hash);
      Dispatch(c, std::move(head));
    }
    for (LineDone& d : lines) {
      auto it = conns_.find(d.id);
      if (it == conns_.end() || it->second->state != State::kWorking) continue;
      AnswerLine(it->second.get(), std::move(d.answer), false);
    }
    for (Done& d : done) {
      auto it = conns_.find(d.id);
      if (it == conns_.end() || it->second->state != State::kWorking) continue;
      Conn* c = it->second.get();
      Respond(c, std::move(d.response), c->head_only, c->close_after);
    }
  }

  // The worker: a slow route's request, or a line service's line, off the
  // loop thread (a control request may wait on the run store's fsync), one
  // at a time; the loop is woken with the answer.
  void Work() {
    pthread_setname_np(pthread_self(), line_ ? "bnd-line-work" : "bnd-http-work");
    for (;;) {
      std::optional<Job> job;
      std::optional<LineJob> line;
      {
        MutexLock l(&mu_);
        while (jobs_.empty() && line_jobs_.empty() && !stopping_) jobs_cv_.Wait(&mu_);
        if (stopping_) return;
        if (!jobs_.empty()) {
          job = std::move(jobs_.front());
          jobs_.pop_front();
        } else {
          line = std::move(line_jobs_.front());
          line_jobs_.pop_front();
        }
      }
      if (job) {
        HttpResponse r = job->route->handler(job->request);
        MutexLock l(&mu_);
        done_.push_back({job->id, std::move(r)});
      } else {
        std::string answer = line_->handle(line->line, line->peer);
        MutexLock l(&mu_);
        line_done_.push_back({line->id, std::move(answer)});
      }
      Wake();
    }
  }

  void Respond(Conn* c, HttpResponse r, bool head_only, bool close) {
    size_t length = r.body ? r.body->size() : 0;
    std::string& h = c->out_head;
    h.clear();
    h += "HTTP/1.1 ";
    h += std::to_string(r.status);
    h += ' ';
    h += Reason(r.status);
    h += "\r\nContent-Type: ";
    h += r.content_type;
    h += "\r\nContent-Length: ";
    h += std::to_string(length);
    h += "\r\nCache-Control: no-store\r\n";
    h += r.headers;
    if (options_.security) h += options_.security->Current()->headers;
    if (close) {
      h += "Connection: close\r\n";
    } else if (c->http10_keep_alive) {
      h += "Connection: keep-alive\r\n";
    }
    h += "\r\n";
    c->out_body = head_only ? nullptr : std::move(r.body);
    c->out_sent = 0;
    c->close_after = close;
    c->state = State::kWriting;
    SetDeadline(c, options_.write_timeout_ms);
    Write(c);
  }

  // Sends what the TLS stream takes of c's answer; false when it must wait
  // for the socket (interest set) or c was closed.
  bool WriteTls(Conn* c, size_t total) {
    const std::string* body = c->out_body.get();
    while (c->out_sent < total) {
      const bool in_head = c->out_sent < c->out_head.size();
      const char* at = in_head ? c->out_head.data() + c->out_sent : body->data() + (c->out_sent - c->out_head.size());
      size_t left = in_head ? c->out_head.size() - c->out_sent : total - c->out_sent;
      size_t put = 0;
      switch (c->tls->Write(at, std::min<size_t>(left, 16384), &put)) {
        case TlsStream::Io::kOk: c->out_sent += put; continue;
        case TlsStream::Io::kWantWrite: SetInterest(c, EPOLLOUT); return false;
        case TlsStream::Io::kWantRead: SetInterest(c, EPOLLIN); return false;
        case TlsStream::Io::kClosed:
        case TlsStream::Io::kError: Close(c->id); return false;
      }
    }
    return true;
  }

  void Write(Conn* c) {
    for (;;) {
      const std::string* body = c->out_body.get();
      size_t body_size = body ? body->size() : 0;
      size_t total = c->out_head.size() + body_size;
      if (c->tls) {
        if (!WriteTls(c, total)) return;
        break;
      }
      if (c->out_sent >= total) break;
      iovec iov[2];
      int n_iov = 0;
      if (c->out_sent < c->out_head.size()) {
        iov[n_iov++] = {c->out_head.data() + c->out_sent, c->out_head.size() - c->out_sent};
        if (body_size > 0) iov[n_iov++] = {const_cast<char*>(body->data()), body_size};
      } else {
        size_t off = c->out_sent - c->out_head.size();
        iov[n_iov++] = {const_cast<char*>(body->data()) + off, body_size - off};
      }
      msghdr msg{};
      msg.msg_iov = iov;
      msg.msg_iovlen = static_cast<size_t>(n_iov);
      ssize_t n = ::sendmsg(c->fd.get(), &msg, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          SetInterest(c, EPOLLOUT);
          return;
        }
        Close(c->id);
        return;
      }
      c->out_sent += static_cast<size_t>(n);
    }
    c->out_body.reset();
    if (c->close_after) {
      if (c->tls) c->tls->Shutdown();  // close_notify: the answer ended here, not cut
      if ((c->in.empty() && !c->linger_until) || c->peer_closed) {
        Close(c->id);
        return;
      }
      ::shutdown(c->fd.get(), SHUT_WR);
      c->state = State::kLinger;
      c->in.clear();
      if (!c->linger_until) SetDeadline(c, kLingerMs);  // else the deadline set before the answer stands
      SetInterest(c, EPOLLIN);
      Drain(c);
      return;
    }
    Idle(c);
    SetInterest(c, EPOLLIN);
    if (!c->in.empty()) {  // pipelined: the next request may be in already
      c->state = State::kHead;
      SetDeadline(c, options_.head_timeout_ms);
      Process(c);
    }
  }

  void Drain(Conn* c) {
    char buf[kReadChunk];
    for (;;) {
      ssize_t n = ::recv(c->fd.get(), buf, sizeof(buf), 0);
      if (n > 0) {
        c->lingered += static_cast<size_t>(n);
        if (c->lingered < kLingerBytes) continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
      } else if (n < 0 && errno == EINTR) {
        continue;
      }
      Close(c->id);  // the client closed, failed, or sent too much
      return;
    }
  }

  void Expire() {
    int64_t now = MonotonicNanos();
    if (listen_paused_ && now >= resume_listen_ns_) ResumeListening();
    while (!deadlines_.empty() && deadlines_.top().at_ns <= now) {
      Deadline d = deadlines_.top();
      deadlines_.pop();
      auto it = conns_.find(d.id);
      if (it == conns_.end() || it->second->seq != d.seq) continue;
      if (it->second->state == State::kHead || it->second->state == State::kIdle) {
        // Bytes that came after the last epoll_wait are read before the
        // deadline is judged: a loop that ran late (a slow handler, a paused
        // VM) would otherwise close a connection whose request is waiting in
        // its socket buffer (the client sees a reset).
        Conn* c = it->second.get();
        line_ ? ReadLine(c) : Read(c);
        it = conns_.find(d.id);
        if (it == conns_.end() || it->second->seq != d.seq) continue;  // answered, closed, or a new deadline
        if (line_) {                                                   // no line in time: said, then closed
          Count([](Stats* s) { ++s->timed_out; });
          it->second->in.clear();
          AnswerLine(it->second.get(), line_->timed_out, false);
          continue;
        }
      }
      if (it->second->state != State::kLinger) Count([](Stats* s) { ++s->timed_out; });  // before the close
      if (it->second->state == State::kWriting) {
        // An answer the client stopped reading: reset, so the kernel drops
        // what is still queued (megabytes of a /metrics body) at once,
        // rather than a close that keeps sending it to a window that never
        // opens.
        linger l{1, 0};
        ::setsockopt(it->second->fd.get(), SOL_SOCKET, SO_LINGER, &l, sizeof(l));
      }
      Close(d.id);
    }
  }

  std::vector<HttpRoute> routes_;
  EventServerOptions options_;
  std::string address_;
  std::optional<LineService> line_;  // StartLines: the only protocol of this loop
  UniqueFd listen_;
  UniqueFd epoll_;
  UniqueFd wake_;
  bool listen_paused_ = false;
  int64_t resume_listen_ns_ = 0;
  uint64_t next_id_ = 2;
  std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns_;
  std::priority_queue<Deadline, std::vector<Deadline>, std::greater<Deadline>> deadlines_;
  std::deque<std::pair<uint64_t, uint64_t>> idle_;  // kept-alive connections, oldest first
  int64_t last_refusal_log_ns_ = 0;
  int64_t last_fd_log_ns_ = 0;

  Mutex mu_;
  CondVar jobs_cv_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::deque<Job> jobs_ GUARDED_BY(mu_);
  std::deque<Done> done_ GUARDED_BY(mu_);
  std::deque<LineJob> line_jobs_ GUARDED_BY(mu_);
  std::deque<LineDone> line_done_ GUARDED_BY(mu_);
  CondVar auth_cv_;
  std::deque<AuthJob> auth_jobs_ GUARDED_BY(mu_);
  std::deque<AuthJob> auth_done_ GUARDED_BY(mu_);
  AuthCache auth_cache_;  // loop thread only

  mutable Mutex stats_mu_;
  Stats stats_ GUARDED_BY(stats_mu_);

  std::thread loop_thread_;
  std::thread worker_thread_;
  std::thread auth_thread_;
};

EventServer::EventServer(std::unique_ptr<Loop> loop) : loop_(std::move(loop)) {}
EventServer::~EventServer() = default;

Status EventServer::Start(const ListenAddress& address, std::vector<HttpRoute> routes,
                          const EventServerOptions& options, std::unique_ptr<EventServer>* out) {
  UniqueFd fd;
  int port = 0;
  Status s = ListenOn(address, options.listen_backlog, &fd, &port);
  if (!s.ok()) return s;
  ListenAddress bound = address;
  bound.port = port;
  auto loop = std::make_unique<Loop>(std::move(routes), options, bound.ToString());
  s = loop->Init(std::move(fd));
  if (!s.ok()) return s;
  out->reset(new EventServer(std::move(loop)));
  return Status::OK();
}

Status EventServer::StartLines(UniqueFd listener, LineService service, std::unique_ptr<EventServer>* out) {
  if (!listener.valid()) return Status::InvalidArgument(service.name + ": no listening socket");
  if (!service.handle) return Status::InvalidArgument(service.name + ": no handler");
  std::string name = service.name;
  auto loop = std::make_unique<Loop>(std::move(service), std::move(name));
  Status s = loop->Init(std::move(listener));
  if (!s.ok()) return s;
  out->reset(new EventServer(std::move(loop)));
  return Status::OK();
}

std::string EventServer::BoundAddress() const { return loop_->address(); }

EventServer::Stats EventServer::GetStats() const {
  Stats s = loop_->GetStats();
  return s;
}

}  // namespace bottleneckd
