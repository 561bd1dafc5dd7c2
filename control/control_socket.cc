// The control socket's server (one thread, connections multiplexed with
// poll()) and client. The wire format is in control_protocol.cc.
#include "control/control_socket.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <utility>

#include "base/log.h"
#include "base/parse_util.h"
#include "base/unique_fd.h"
#include "base/unix_group.h"
#include "control/control_io.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59  // Linux 4.13
#endif

namespace bottleneckd {
namespace {

using control_io::After;
using control_io::Clock;
using control_io::Io;
using control_io::MakeAddress;
using control_io::ReadToEof;
using control_io::RecvSome;
using control_io::Seconds;
using control_io::SendSome;
using control_io::WriteAll;

constexpr size_t kMaxAnswer = 4 << 20;  // the client's cap on an answer
constexpr size_t kMaxDrain = 64 << 10;  // bytes the server discards after an error
constexpr int kListenBacklog = static_cast<int>(kControlMaxConnections);
constexpr double kAcceptPauseSeconds = 0.1;  // after EMFILE and the like: do not spin

std::vector<gid_t> PeerGroups(int fd) {
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

// mkdir -p of the socket's directory; directories it creates are 0755.
Status MakeParentDirs(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return Status::OK();
  std::string dir = path.substr(0, slash);
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string prefix = dir.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0755) == 0) {
      ::chmod(prefix.c_str(), 0755);  // whatever the umask
    } else if (errno != EEXIST) {
      return Status::FromErrno(errno, "cannot create " + prefix + " for the control socket " + path);
    }
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status::IOError("cannot create the control socket " + path + ": " + dir + " is not a directory");
  return Status::OK();
}

// Removes a socket file nobody listens on; a live one is an error.
Status ClearStaleSocket(const std::string& path, const sockaddr_un& addr) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::OK();
    return Status::FromErrno(errno, "cannot check the control socket " + path);
  }
  if (!S_ISSOCK(st.st_mode))
    return Status::IOError(path + " exists and is not a socket: remove it or choose another control socket path");
  UniqueFd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (probe.get() < 0) return Status::FromErrno(errno, "socket");
  if (::connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0 || errno == EAGAIN)
    return Status::IOError("another bottleneckd is listening on " + path);
  if (errno != ECONNREFUSED) return Status::FromErrno(errno, "cannot check the control socket " + path);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return Status::FromErrno(errno, "cannot remove the stale control socket " + path);
  Log(LogLevel::kInfo, "removed a stale control socket", {{"path", path}});
  return Status::OK();
}

}  // namespace

Status ControlServer::Start(const ControlServerOptions& o, ControlHandler handler,
                            std::unique_ptr<ControlServer>* out) {
  sockaddr_un addr;
  BN_RETURN_IF_ERROR(MakeAddress(o.path, &addr));
  if (!handler) return Status::InvalidArgument("control socket " + o.path + ": no handler");
  if (!(o.read_timeout_seconds > 0) || !std::isfinite(o.read_timeout_seconds))
    return Status::InvalidArgument("control socket read timeout must be a positive number of seconds");
  std::unique_ptr<ControlServer> s(new ControlServer());
  BN_RETURN_IF_ERROR(ResolveGroup(o.group, &s->group_, &s->group_name_).WithContext("the control socket"));
  BN_RETURN_IF_ERROR(MakeParentDirs(o.path));
  BN_RETURN_IF_ERROR(ClearStaleSocket(o.path, addr));

  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return Status::FromErrno(errno, "socket");
  // Created 0600, so nobody else gets in before the chown and chmod. The umask
  // is process-wide: Start belongs to start-up, before threads create files.
  mode_t old_mask = ::umask(0177);
  int rc = ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  int bind_errno = errno;
  ::umask(old_mask);
  if (rc != 0) return Status::FromErrno(bind_errno, "cannot bind the control socket " + o.path);
  // After bind, a failure removes the file again; errno is taken first.
  auto fail = [&](int err, const char* what) {
    ::unlink(o.path.c_str());
    return Status::FromErrno(err, std::string(what) + " the control socket " + o.path);
  };
  if (::chown(o.path.c_str(), static_cast<uid_t>(-1), s->group_) != 0) {
    int err = errno;
    ::unlink(o.path.c_str());
    return Status::FromErrno(err, "cannot give the control socket " + o.path + " to group " + s->group_name_);
  }
  if (::chmod(o.path.c_str(), 0660) != 0) return fail(errno, "cannot chmod");
  struct stat st {};
  if (::lstat(o.path.c_str(), &st) != 0) return fail(errno, "cannot stat");
  if (::listen(fd.get(), kListenBacklog) != 0) return fail(errno, "cannot listen on");
  int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) return fail(errno, "cannot create the wake-up eventfd for");

  s->path_ = o.path;
  s->socket_dev_ = st.st_dev;
  s->socket_ino_ = st.st_ino;
  s->listen_fd_ = fd.release();
  s->wake_fd_ = wake;
  s->read_timeout_ = o.read_timeout_seconds;
  s->handler_ = std::move(handler);
  s->thread_ = std::thread([srv = s.get()] { srv->Serve(); });
  Log(LogLevel::kDebug, "control socket listening", {{"path", o.path}, {"group", s->group_name_}});
  *out = std::move(s);
  return Status::OK();
}

ControlServer::~ControlServer() {
  stop_.store(true);
  if (wake_fd_ >= 0) {
    uint64_t one = 1;
    ssize_t n = ::write(wake_fd_, &one, sizeof(one));
    (void)n;
  }
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  struct stat st {};
  if (!path_.empty() && ::lstat(path_.c_str(), &st) == 0 && st.st_dev == socket_dev_ && st.st_ino == socket_ino_)
    ::unlink(path_.c_str());
}

// One client from accept to close. kRead: its request is arriving; kWrite:
// its answer is going out; kDrain: after the answer (SHUT_WR), what it still
// sends is read and discarded, so that closing does not reset a connection
// whose answer the peer has not read yet. Each phase ends by its deadline.
struct ControlServer::Connection {
  enum class Phase { kRead, kWrite, kDrain, kDone };
  // After the answer: close, discard what has arrived already, or discard up
  // to kMaxDrain bytes until EOF or the answer's deadline.
  enum class Then { kClose, kDrainArrived, kDrainUntilDeadline };

  explicit Connection(int f) : fd(f) {}
  short events() const { return phase == Phase::kWrite ? POLLOUT : POLLIN; }

  void Answer(const ControlResponse& r, Clock::time_point by, Then after) {
    out = FormatControlResponse(r);
    unsent = out;
    deadline = by;
    then = after;
    phase = Phase::kWrite;
    Write();
  }
  void Refuse(const std::string& message, Clock::time_point by, Then after) {
    ControlResponse r;
    r.error = message;
    Answer(r, by, after);
  }
  void Write() {
    Io w = SendSome(fd.get(), &unsent);
    if (w == Io::kAgain) return;
    if (w != Io::kDone || then == Then::kClose) {
      if (w == Io::kDone) ::shutdown(fd.get(), SHUT_WR);
      phase = Phase::kDone;
      return;
    }
    ::shutdown(fd.get(), SHUT_WR);  // the client's read ends here
    phase = Phase::kDrain;
    if (then == Then::kDrainArrived) deadline = Clock::now();
    Drain();
  }
  void Drain() {
    std::string sink;
    Io r = RecvSome(fd.get(), &sink, drain_left);
    drain_left -= sink.size();
    if (r != Io::kAgain) phase = Phase::kDone;  // EOF, kMaxDrain bytes, or an error
  }

  UniqueFd fd;
  ucred cred{};
  Phase phase = Phase::kRead;
  Clock::time_point deadline;  // of the current phase
  std::string in;              // kRead: what has arrived of the request
  std::string out;             // the answer
  std::string_view unsent;     // what of `out` is still to be sent
  Then then = Then::kClose;
  size_t drain_left = kMaxDrain;
};

void ControlServer::Serve() {
  std::vector<std::unique_ptr<Connection>> open;  // closed on return, unanswered
  std::vector<pollfd> p;
  Clock::time_point accept_paused_until{};
  while (!stop_.load()) {
    Clock::time_point now = Clock::now();
    bool accepting = now >= accept_paused_until;
    Clock::time_point wake_by = accepting ? Clock::time_point::max() : accept_paused_until;
    p.assign({{wake_fd_, POLLIN, 0}, {accepting ? listen_fd_ : -1, POLLIN, 0}});
    for (const auto& c : open) {
      p.push_back({c->fd.get(), c->events(), 0});
      wake_by = std::min(wake_by, c->deadline);
    }
    int timeout = -1;
    if (wake_by != Clock::time_point::max())
      timeout = static_cast<int>(
          std::clamp<long long>(std::chrono::ceil<std::chrono::milliseconds>(wake_by - now).count(), 0, 1 << 30));
    if (::poll(p.data(), p.size(), timeout) < 0) {
      if (errno == EINTR) continue;
      Log(LogLevel::kError, "control socket: poll failed", {{"err", std::strerror(errno)}});
      return;
    }
    if (p[0].revents) return;
    if (p[1].revents & (POLLERR | POLLNVAL)) {
      Log(LogLevel::kError, "control socket: listening socket failed", {{"path", path_}});
      return;
    }
    // Bytes first, deadlines after: what arrived while the handler ran for
    // another connection still counts as in time.
    for (size_t i = 0; i < open.size(); ++i) {
      if (!p[i + 2].revents) continue;
      Connection* c = open[i].get();
      switch (c->phase) {
        case Connection::Phase::kRead: OnRequestBytes(c); break;
        case Connection::Phase::kWrite: c->Write(); break;
        case Connection::Phase::kDrain: c->Drain(); break;
        case Connection::Phase::kDone: break;
      }
    }
    now = Clock::now();
    for (const auto& c : open)
      if (c->phase != Connection::Phase::kDone && now >= c->deadline) OnDeadline(c.get());
    open.erase(
        std::remove_if(open.begin(), open.end(), [](const auto& c) { return c->phase == Connection::Phase::kDone; }),
        open.end());
    if (open.size() < kControlMaxConnections) warned_busy_ = false;
    if ((p[1].revents & POLLIN) && !Accept(&open)) accept_paused_until = After(kAcceptPauseSeconds);
  }
}

bool ControlServer::Accept(std::vector<std::unique_ptr<Connection>>* open) {
  // A bounded round, so that a flood of connects cannot starve the open ones.
  for (size_t round = 0; round < kControlMaxConnections; ++round) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        Log(LogLevel::kWarn, "control socket: cannot accept", {{"err", std::strerror(errno)}});
        return false;
      }
      return true;  // EAGAIN: none left; ECONNABORTED and the like: the next one
    }
    auto c = std::make_unique<Connection>(fd);
    if (open->size() >= kControlMaxConnections) {
      if (!warned_busy_)
        Log(LogLevel::kWarn, "control socket: connection cap reached; answering busy",
            {{"connections", std::to_string(open->size())}});
      warned_busy_ = true;
      c->Refuse("busy: " + std::to_string(kControlMaxConnections) + " connections are open; try again later",
                Clock::now(), Connection::Then::kDrainArrived);
      continue;  // closed here, whatever is left of its answer
    }
    socklen_t len = sizeof(c->cred);
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c->cred, &len) != 0) continue;
    const ucred& cred = c->cred;
    c->deadline = After(read_timeout_);
    if (!PeerAllowed(cred.uid, cred.gid, PeerGroups(fd), ::geteuid(), group_)) {
      Log(LogLevel::kWarn, "control socket refused a peer",
          {{"uid", std::to_string(cred.uid)}, {"pid", std::to_string(cred.pid)}, {"group", group_name_}});
      c->Refuse("permission denied: uid " + std::to_string(cred.uid) +
                    " is neither root nor the daemon's user and is not in group " + group_name_,
                c->deadline, Connection::Then::kDrainUntilDeadline);
    }
    if (c->phase != Connection::Phase::kDone) open->push_back(std::move(c));
  }
  return true;
}

void ControlServer::OnRequestBytes(Connection* c) {
  Io r = RecvSome(c->fd.get(), &c->in, kControlMaxRequest + 1);
  size_t len = 0;
  switch (FrameControlRequest(c->in, &len)) {
    case RequestFrame::kOversize:
      c->Refuse("request longer than " + std::to_string(kControlMaxRequest) + " bytes", After(read_timeout_),
                Connection::Then::kDrainUntilDeadline);
      return;
    case RequestFrame::kPartial:
      if (r == Io::kEof && !c->in.empty())
        c->Refuse("incomplete request: the connection closed before the newline", Clock::now(),
                  Connection::Then::kClose);
      else if (r != Io::kAgain)
        c->phase = Connection::Phase::kDone;  // closed before sending anything, or failed
      return;
    case RequestFrame::kLine: break;
  }
  ControlRequest req;
  ControlResponse resp;
  Status st = ParseControlRequest(std::string_view(c->in).substr(0, len), &req);  // the rest is ignored
  if (!st.ok()) {
    resp.error = st.message();
  } else {
    req.pid = c->cred.pid;
    req.uid = c->cred.uid;
    req.gid = c->cred.gid;
    // The handler runs here, on the poll thread. The daemon's
    // (HandleControlRequest) can block: it takes RunTracker's mutex, which
    // the tick thread holds while it writes a window to the SQLite run store,
    // and a stop finishes the run in the store (an fsync; a store locked by
    // another process waits up to its 5 s busy timeout). Meanwhile other
    // connections wait, their deadlines running. Handler threads would not
    // help: the tracker's mutex serialises the requests anyway.
    resp = handler_(req);
  }
  c->in.clear();
  c->Answer(resp, After(read_timeout_), Connection::Then::kDrainArrived);
}

void ControlServer::OnDeadline(Connection* c) {
  if (c->phase != Connection::Phase::kRead) {
    c->phase = Connection::Phase::kDone;  // its answer or drain ran out of time
    return;
  }
  Log(LogLevel::kDebug, "control socket: dropped a silent client", {{"pid", std::to_string(c->cred.pid)}});
  c->Refuse("request timed out: no complete line within " + Seconds(read_timeout_), Clock::now(),
            Connection::Then::kClose);
}

Status ControlCall(const std::string& path, const ControlRequest& req, ControlResponse* out, double timeout_seconds) {
  *out = ControlResponse();
  sockaddr_un addr;
  BN_RETURN_IF_ERROR(MakeAddress(path, &addr));
  if (!(timeout_seconds > 0) || !std::isfinite(timeout_seconds))
    return Status::InvalidArgument("control call timeout must be a positive number of seconds");
  std::string line = FormatControlRequest(req);
  ControlRequest check;
  BN_RETURN_IF_ERROR(ParseControlRequest(line, &check));
  auto deadline = After(timeout_seconds);

  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return Status::FromErrno(errno, "socket");
  // A blocking connect waits while the backlog is full, bounded by SO_SNDTIMEO.
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout_seconds);
  tv.tv_usec = static_cast<suseconds_t>((timeout_seconds - static_cast<double>(tv.tv_sec)) * 1e6);
  if (tv.tv_sec == 0 && tv.tv_usec == 0) tv.tv_usec = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  int rc;
  do {
    rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  } while (rc != 0 && errno == EINTR && Clock::now() < deadline);
  if (rc != 0) {
    switch (errno) {
      case ENOENT:
      case ECONNREFUSED:
      case ENOTDIR: return Status::NotFound("no bottleneckd is listening on " + path + " (is the daemon running?)");
      case EACCES:
      case EPERM:
        return Status::PermissionDenied("permission denied connecting to " + path +
                                        ": your user must be in the socket's group (ls -l " + path +
                                        " shows it) or be root");
      case EAGAIN:
      case EINPROGRESS:
        return Status::IOError("timed out connecting to " + path + " after " + Seconds(timeout_seconds) +
                               ": the daemon is busy");
      default: return Status::FromErrno(errno, "cannot connect to " + path);
    }
  }
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) | O_NONBLOCK);

  Io w = WriteAll(fd.get(), line, deadline);
  if (w == Io::kTimeout) return Status::IOError("timed out sending the request to " + path);
  if (w == Io::kError) return Status::FromErrno(errno, "cannot send the request to " + path);
  // kClosed: the server answered early (a refusal); read what it said.
  ::shutdown(fd.get(), SHUT_WR);

  std::string text;
  Io r = ReadToEof(fd.get(), &text, kMaxAnswer, deadline);
  if (r == Io::kTimeout)
    return Status::IOError("no answer from bottleneckd on " + path + " within " + Seconds(timeout_seconds));
  if (r == Io::kOversize)
    return Status::IOError("the answer from " + path + " is longer than " + std::to_string(kMaxAnswer) + " bytes");
  if (r == Io::kError) return Status::FromErrno(errno, "cannot read the answer from " + path);
  Status st = ParseControlResponse(text, out);
  if (!st.ok()) return st.WithContext("bottleneckd on " + path);
  if (!out->ok && StartsWith(out->error, "permission denied"))
    return Status::PermissionDenied(out->error + " (" + path + ")");
  return Status::OK();
}

}  // namespace bottleneckd
