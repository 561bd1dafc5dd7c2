// Control socket: how `bottleneckd run` and scripts start and stop runs in
// the running daemon: control only on a Unix socket, never on the network
// (docs/control-socket.md, which is also the protocol).
//
// One request per connection: the client writes one line, the server answers
// and closes. Request: fields separated by TAB, ended by "\n":
//   start<TAB>NAME[<TAB>COMMAND]      begin a run named NAME
//   stop<TAB>NAME[<TAB>EXIT_CODE]     end it; the answer carries its verdict
//   status                            the active runs and the live verdict
// Answer: "ok" or "error<TAB>MESSAGE" on the first line, then the body.
// Names and commands are UTF-8 without control characters; a name is at
// most 200 bytes, a request at most 4096.
//
// The socket file is mode 0660, owned by the daemon's user and the configured
// group; a peer whose uid is neither root nor the daemon's and whose groups
// do not include that group is refused (SO_PEERCRED / SO_PEERGROUPS), in case
// the file's mode was loosened.
//
// The server is a line service of the event loop that serves HTTP
// (exporters/http/event_server.h, StartLines): up to kControlMaxConnections
// connections at once, each with its own deadline from its accept (the read
// timeout) to send its line and a fresh one to take its answer, so a client
// that is silent, trickles its bytes or never reads holds up nobody but
// itself; it is answered "request timed out" and dropped. A connection
// beyond the cap is answered "busy" at once and closed. The handler runs on
// the service's own worker thread, never the loop's and never behind the
// HTTP endpoint's report workers.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "exporters/http/event_server.h"

namespace bottleneckd {

inline constexpr size_t kControlMaxRequest = 4096;
inline constexpr size_t kControlMaxName = 200;
inline constexpr size_t kControlMaxConnections = 64;

struct ControlRequest {
  std::string verb;               // "start", "stop", "status"
  std::vector<std::string> args;  // the fields after the verb
  // Peer credentials (server side).
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

struct ControlResponse {
  bool ok = false;
  std::string error;  // when !ok
  std::string body;   // after the first line
};

// Parses one request line (without or with its trailing "\n"). Checks the
// verb, the field count per verb, the name's length and characters, and the
// exit code's syntax; InvalidArgument says which.
Status ParseControlRequest(std::string_view line, ControlRequest* out);
std::string FormatControlRequest(const ControlRequest& r);
// Finds the request in what a connection has sent so far, however the bytes
// were split across reads: kLine when a newline is within the first
// kControlMaxRequest bytes (*line_len: the request with its newline; what
// follows is ignored), kOversize when the first kControlMaxRequest + 1 bytes
// hold none, kPartial otherwise (more may come). Once a prefix of the bytes
// is kLine or kOversize, any longer prefix gives the same.
enum class RequestFrame { kPartial, kLine, kOversize };
RequestFrame FrameControlRequest(std::string_view buffered, size_t* line_len);
std::string FormatControlResponse(const ControlResponse& r);
// Parses an answer as read up to EOF. Corruption when the first line is
// neither "ok" nor "error<TAB>MESSAGE" (MESSAGE non-empty, no control
// character but TAB) or the answer is empty.
Status ParseControlResponse(std::string_view text, ControlResponse* out);

// The server's credential check (pure): a peer may talk to the daemon when it
// is root, runs as the daemon's user, or has the socket's group as its primary
// or one of its supplementary groups.
bool PeerAllowed(uid_t uid, gid_t gid, const std::vector<gid_t>& groups, uid_t daemon_uid, gid_t group);

using ControlHandler = std::function<ControlResponse(const ControlRequest&)>;

struct ControlServerOptions {
  std::string path;   // socket file; its directory is created (0755) when missing
  std::string group;  // group allowed besides the owner; "" the daemon's primary group
  double read_timeout_seconds = 2;
};

class ControlServer {
 public:
  // Binds and listens; a stale socket file (nobody listening) is replaced, a
  // live one is an error (another daemon). Errors name the path.
  // The handler runs on the service's worker thread, one call at a time, as
  // soon as a connection's line is in; meanwhile the loop goes on reading,
  // answering and timing out the other connections.
  // The read timeout bounds, per connection, reading its request and,
  // afresh, writing its answer.
  static Status Start(const ControlServerOptions& o, ControlHandler handler, std::unique_ptr<ControlServer>* out);
  // Stops the loop (after the handler call in progress, if any), closes the
  // connections still open, unanswered, and removes the socket file unless
  // another server has replaced it since.
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;
  const std::string& path() const { return path_; }

 private:
  ControlServer() = default;
  // The line service's halves: the peer check at accept ("" admits), and a
  // request line's answer.
  std::string Admit(const LinePeer& p) const;
  std::string Handle(std::string_view line, const LinePeer& p) const;
  std::string path_;
  std::string group_name_;  // for messages
  dev_t socket_dev_ = 0;    // the socket file we bound, so that the
  ino_t socket_ino_ = 0;    // destructor removes ours only
  gid_t group_ = 0;
  ControlHandler handler_;
  std::unique_ptr<EventServer> loop_;
};

// Client: one request, the answer. NotFound when nothing listens at
// `path` (no daemon), PermissionDenied when the socket refuses us (the file's
// mode or the server's credential check; *out holds the server's answer in
// the latter case); the timeout bounds connect, write and read.
// InvalidArgument, before connecting, when `req` would not parse. Any other
// "error" answer is OK here with out->ok false: the transport worked.
Status ControlCall(const std::string& path, const ControlRequest& req, ControlResponse* out,
                   double timeout_seconds = 10);

}  // namespace bottleneckd
