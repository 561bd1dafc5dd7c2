// WebSecurity: what the web config file (web_config.h) makes of the HTTP
// listener while the daemon runs: its TLS context, its basic-auth users and
// extra headers, re-read when the files change, and the password checks.
//
// Reload: the web config file and the certificate, key and CA files it names
// are compared by stat (device, inode, size, modification time) at most once
// a second, when a connection arrives (Current), never parsed per
// connection; a change is read, parsed and built whole, and replaces the
// configuration for the next connection (connections already open keep
// theirs). A change that fails (a broken file, a key that is not the
// certificate's, a half-written file) keeps the previous configuration and is
// logged once; so is a change that would switch TLS on or off, which only a
// restart does: the listener never falls back to plain HTTP or to no auth.
//
// Basic auth (RFC 7617): every route asks for it when basic_auth_users is
// set. CheckPassword runs bcrypt (libcrypt's crypt_r) and is slow by design
// (0.09 s at cost 10, 1.26 s at 14 on the CI's VM): the event loop calls it
// on a thread of its own, one at a time, and keeps the credentials that
// passed in a bounded cache (AuthCache) so a scrape does not pay for it each
// time. An unknown user costs one bcrypt at the largest cost among the
// users, as a wrong password does.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "exporters/http/tls_context.h"
#include "exporters/http/web_config.h"

namespace bottleneckd {

// Why a request was refused 401 (counted; the user name sent is never kept).
enum class AuthFailure { kMissing, kMalformed, kUnknownUser, kWrongPassword, kCount };
std::string_view AuthFailureName(AuthFailure f);  // "missing", "malformed", "unknown_user", "wrong_password"

// One loaded configuration: the parsed file and what was built from it.
struct WebSettings {
  WebConfig config;
  TlsContext tls;          // null: plain HTTP
  std::string headers;     // http_server_config.headers as "Name: value\r\n" lines
  std::string decoy_hash;  // an unknown user's check: a bcrypt hash at the users' largest cost
  bool auth() const { return !config.users.empty(); }
};

class WebSecurity {
 public:
  // Reads and builds everything (the daemon's start and --config.check):
  // any error is the daemon's to refuse to start with.
  static Status Load(const std::string& path, std::shared_ptr<WebSecurity>* out);

  // The configuration for a new connection or request, re-read first when a
  // file changed (at most one stat round a second). Loop thread.
  std::shared_ptr<const WebSettings> Current();
  bool tls() const { return tls_; }  // fixed at start
  const std::string& path() const { return path_; }

  // What reloads did, for the log and tests.
  uint64_t reloads() const;
  uint64_t failed_reloads() const;

 private:
  struct FileId {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = -1;
    int64_t mtime_ns = 0;
    bool operator==(const FileId& o) const {
      return dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns;
    }
  };
  static std::vector<FileId> Identify(const WebSettings& s, const std::string& path);
  static Status Build(const std::string& path, std::shared_ptr<WebSettings>* out);

  std::string path_;
  bool tls_ = false;
  std::shared_ptr<const WebSettings> current_;
  std::vector<FileId> ids_;         // of current_'s files
  std::vector<FileId> failed_ids_;  // of the last change that failed: not retried until they change again
  int64_t next_check_ns_ = 0;
  mutable Mutex mu_;
  uint64_t reloads_ GUARDED_BY(mu_) = 0;
  uint64_t failed_reloads_ GUARDED_BY(mu_) = 0;
};

// The user and password of an Authorization header's value ("Basic
// dXNlcjpwYXNz"); false when it is not Basic auth or not base64 of "u:p".
bool ParseBasicAuth(std::string_view header, std::string* user, std::string* password);

// bcrypt's verdict on user and password under `settings` (blocking: run it
// off the event loop). kCount when they pass.
AuthFailure CheckPassword(const WebSettings& settings, const std::string& user, const std::string& password);

// Credentials that passed, on the loop thread: a bounded LRU of SHA-256
// digests of (user, password, hash), so a changed hash or a removed user
// misses, and no password is kept.
class AuthCache {
 public:
  explicit AuthCache(size_t capacity = 256) : capacity_(capacity) {}
  bool Contains(const std::string& user, const std::string& password, const std::string& hash);
  void Insert(const std::string& user, const std::string& password, const std::string& hash);

 private:
  static std::string Key(const std::string& user, const std::string& password, const std::string& hash);
  size_t capacity_;
  std::list<std::string> order_;  // most recent first
  std::unordered_map<std::string, std::list<std::string>::iterator> entries_;
};

}  // namespace bottleneckd
