// One server-side TLS connection for the event loop (event_server.h): on a
// non-blocking socket, or on memory BIOs (the fuzzer drives a real session
// through them, tests/fuzz/). Every call returns at once; kWantRead and
// kWantWrite say which readiness of the socket lets the call go on (a read
// can want to write: TLS 1.3 sends its session tickets and key updates
// whenever it can).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>

#include "exporters/http/tls_context.h"

struct ssl_st;
struct bio_st;

namespace bottleneckd {

class TlsStream {
 public:
  enum class Io {
    kOk,         // done (handshake) or bytes moved
    kWantRead,   // call again when the socket is readable
    kWantWrite,  // call again when the socket is writable
    kClosed,     // the peer's close_notify, or its end of the socket
    kError,      // a protocol or socket error: close the connection (Error() says it)
  };

  ~TlsStream();

  // A session on `fd` (non-blocking; the caller keeps and closes it).
  static std::unique_ptr<TlsStream> OnSocket(const TlsContext& ctx, int fd);
  // A session on memory BIOs: FeedIn gives it the peer's bytes, TakeOut
  // what it wrote.
  static std::unique_ptr<TlsStream> InMemory(const TlsContext& ctx);

  Io Handshake();
  // Up to n bytes of application data into buf; *got the count (kOk).
  Io Read(char* buf, size_t n, size_t* got);
  // Up to n bytes of buf; *put the count taken (kOk, maybe fewer than n).
  Io Write(const char* buf, size_t n, size_t* put);
  // Sends close_notify, best effort (never waits).
  void Shutdown();

  // The last kError's reason, one line.
  const std::string& Error() const { return error_; }
  // The negotiated version ("TLSv1.3"), after the handshake.
  std::string Version() const;

  // Memory BIOs only.
  void FeedIn(const char* data, size_t n);
  std::string TakeOut();

 private:
  TlsStream() = default;
  Io Result(int rc);
  ssl_st* ssl_ = nullptr;
  bio_st* in_ = nullptr;   // memory BIOs (owned by ssl_)
  bio_st* out_ = nullptr;  // memory BIOs (owned by ssl_)
  std::string error_;
};

}  // namespace bottleneckd
