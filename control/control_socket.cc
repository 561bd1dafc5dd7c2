// The control socket's server (its socket file, the peer check and the
// handler; a line service of the event loop, exporters/http/event_server.h)
// and client. The wire format is in control_protocol.cc.
#include "control/control_socket.h"

#include <fcntl.h>
#include <grp.h>
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
using control_io::Seconds;
using control_io::WriteAll;

constexpr size_t kMaxAnswer = 4 << 20;  // the client's cap on an answer
constexpr int kListenBacklog = static_cast<int>(kControlMaxConnections);

std::string Refusal(const std::string& message) {
  ControlResponse r;
  r.error = message;
  return FormatControlResponse(r);
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

  s->path_ = o.path;
  s->socket_dev_ = st.st_dev;
  s->socket_ino_ = st.st_ino;
  s->handler_ = std::move(handler);
  ControlServer* srv = s.get();
  LineService service;
  service.name = "control socket";
  service.max_line = kControlMaxRequest;
  service.max_connections = kControlMaxConnections;
  service.timeout_ms = static_cast<int>(std::ceil(o.read_timeout_seconds * 1000));
  service.admit = [srv](const LinePeer& p) { return srv->Admit(p); };
  service.handle = [srv](std::string_view line, const LinePeer& p) { return srv->Handle(line, p); };
  service.busy = Refusal("busy: " + std::to_string(kControlMaxConnections) + " connections are open; try again later");
  service.timed_out = Refusal("request timed out: no complete line within " + Seconds(o.read_timeout_seconds));
  service.oversize = Refusal("request longer than " + std::to_string(kControlMaxRequest) + " bytes");
  service.incomplete = Refusal("incomplete request: the connection closed before the newline");
  Status started = EventServer::StartLines(std::move(fd), std::move(service), &s->loop_);
  if (!started.ok()) {
    ::unlink(o.path.c_str());
    return started.WithContext("the control socket " + o.path);
  }
  Log(LogLevel::kDebug, "control socket listening", {{"path", o.path}, {"group", s->group_name_}});
  *out = std::move(s);
  return Status::OK();
}

ControlServer::~ControlServer() {
  loop_.reset();  // stops the loop and its worker, closes the connections still open
  struct stat st {};
  if (!path_.empty() && ::lstat(path_.c_str(), &st) == 0 && st.st_dev == socket_dev_ && st.st_ino == socket_ino_)
    ::unlink(path_.c_str());
}

std::string ControlServer::Admit(const LinePeer& p) const {
  if (PeerAllowed(p.uid, p.gid, p.groups, ::geteuid(), group_)) return "";
  Log(LogLevel::kWarn, "control socket refused a peer",
      {{"uid", std::to_string(p.uid)}, {"pid", std::to_string(p.pid)}, {"group", group_name_}});
  return Refusal("permission denied: uid " + std::to_string(p.uid) +
                 " is neither root nor the daemon's user and is not in group " + group_name_);
}

std::string ControlServer::Handle(std::string_view line, const LinePeer& p) const {
  ControlRequest req;
  ControlResponse resp;
  Status st = ParseControlRequest(line, &req);
  if (!st.ok()) {
    resp.error = st.message();
  } else {
    req.pid = p.pid;
    req.uid = p.uid;
    req.gid = p.gid;
    // On the loop's line worker, never the loop thread: the daemon's handler
    // (HandleControlRequest) takes RunTracker's mutex, which the tick thread
    // holds while it writes a window to the SQLite run store, and a stop
    // finishes the run in the store (an fsync; a store locked by another
    // process waits up to its 5 s busy timeout). Meanwhile the loop goes on
    // reading, answering and timing out the other connections.
    resp = handler_(req);
  }
  return FormatControlResponse(resp);
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
