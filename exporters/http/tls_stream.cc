#include "exporters/http/tls_stream.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace bottleneckd {
namespace {

// A socket BIO that sends with MSG_NOSIGNAL: OpenSSL's own writes with
// write(2), and a peer gone mid-answer would raise SIGPIPE in whatever
// process links the loop (the daemon ignores it; its tests do not).
int SocketWrite(BIO* b, const char* data, int n) {
  BIO_clear_retry_flags(b);
  const ssize_t r = ::send(static_cast<int>(BIO_get_fd(b, nullptr)), data, static_cast<size_t>(n), MSG_NOSIGNAL);
  if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_write(b);
  return static_cast<int>(r);
}

int SocketRead(BIO* b, char* data, int n) {
  BIO_clear_retry_flags(b);
  const ssize_t r = ::recv(static_cast<int>(BIO_get_fd(b, nullptr)), data, static_cast<size_t>(n), 0);
  if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_read(b);
  return static_cast<int>(r);
}

long SocketCtrl(BIO* b, int cmd, long num, void* ptr) {
  switch (cmd) {
    case BIO_C_SET_FD:
      BIO_set_data(b, reinterpret_cast<void*>(static_cast<intptr_t>(*static_cast<int*>(ptr))));
      BIO_set_init(b, 1);
      (void)num;
      return 1;
    case BIO_C_GET_FD: {
      const int fd = static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(b)));
      if (ptr != nullptr) *static_cast<int*>(ptr) = fd;
      return fd;
    }
    case BIO_CTRL_FLUSH: return 1;
    default: return 0;
  }
}

BIO_METHOD* SocketMethod() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m =
        BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "bottleneckd socket");
    BIO_meth_set_write(m, SocketWrite);
    BIO_meth_set_read(m, SocketRead);
    BIO_meth_set_ctrl(m, SocketCtrl);
    return m;
  }();
  return method;
}

}  // namespace

TlsStream::~TlsStream() {
  if (ssl_ != nullptr) SSL_free(ssl_);
}

std::unique_ptr<TlsStream> TlsStream::OnSocket(const TlsContext& ctx, int fd) {
  std::unique_ptr<TlsStream> s(new TlsStream);
  s->ssl_ = SSL_new(ctx.get());
  if (s->ssl_ == nullptr) return nullptr;
  BIO* bio = BIO_new(SocketMethod());
  if (bio == nullptr) return nullptr;
  BIO_set_fd(bio, fd, BIO_NOCLOSE);
  SSL_set_bio(s->ssl_, bio, bio);
  SSL_set_accept_state(s->ssl_);
  return s;
}

std::unique_ptr<TlsStream> TlsStream::InMemory(const TlsContext& ctx) {
  std::unique_ptr<TlsStream> s(new TlsStream);
  s->ssl_ = SSL_new(ctx.get());
  if (s->ssl_ == nullptr) return nullptr;
  s->in_ = BIO_new(BIO_s_mem());
  s->out_ = BIO_new(BIO_s_mem());
  if (s->in_ == nullptr || s->out_ == nullptr) {
    BIO_free(s->in_);
    BIO_free(s->out_);
    return nullptr;
  }
  BIO_set_mem_eof_return(s->in_, -1);  // empty: "want read", not end of stream
  SSL_set_bio(s->ssl_, s->in_, s->out_);
  SSL_set_accept_state(s->ssl_);
  return s;
}

TlsStream::Io TlsStream::Result(int rc) {
  const int err = SSL_get_error(ssl_, rc);
  switch (err) {
    case SSL_ERROR_WANT_READ: return Io::kWantRead;
    case SSL_ERROR_WANT_WRITE: return Io::kWantWrite;
    case SSL_ERROR_ZERO_RETURN: return Io::kClosed;
    case SSL_ERROR_SYSCALL:
      if (ERR_peek_error() == 0 && errno == 0) return Io::kClosed;  // the peer's end without close_notify
      error_ = errno != 0 ? std::strerror(errno) : OpenSslErrors();
      ERR_clear_error();
      return Io::kError;
    default: {
      error_ = OpenSslErrors();
      if (error_.empty()) error_ = "SSL error " + std::to_string(err);
      return Io::kError;
    }
  }
}

TlsStream::Io TlsStream::Handshake() {
  ERR_clear_error();
  errno = 0;
  const int rc = SSL_do_handshake(ssl_);
  return rc == 1 ? Io::kOk : Result(rc);
}

TlsStream::Io TlsStream::Read(char* buf, size_t n, size_t* got) {
  ERR_clear_error();
  errno = 0;
  *got = 0;
  if (SSL_read_ex(ssl_, buf, n, got) == 1) return Io::kOk;
  // An unexpected EOF is the peer's end of the stream here: a scraper that
  // closes without close_notify has sent its last request.
  if (ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
    ERR_clear_error();
    return Io::kClosed;
  }
  return Result(0);
}

TlsStream::Io TlsStream::Write(const char* buf, size_t n, size_t* put) {
  ERR_clear_error();
  errno = 0;
  *put = 0;
  if (SSL_write_ex(ssl_, buf, n, put) == 1) return Io::kOk;
  return Result(0);
}

void TlsStream::Shutdown() {
  ERR_clear_error();
  if (SSL_is_init_finished(ssl_)) SSL_shutdown(ssl_);
  ERR_clear_error();
}

std::string TlsStream::Version() const { return SSL_get_version(ssl_); }

void TlsStream::FeedIn(const char* data, size_t n) {
  if (in_ != nullptr && n > 0) BIO_write(in_, data, static_cast<int>(n));
}

std::string TlsStream::TakeOut() {
  std::string s;
  if (out_ == nullptr) return s;
  char buf[4096];
  int n;
  while ((n = BIO_read(out_, buf, sizeof(buf))) > 0) s.append(buf, static_cast<size_t>(n));
  return s;
}

}  // namespace bottleneckd
