// Fuzz target: the HTTP listener's TLS (exporters/http/tls_stream.h) on
// memory BIOs. The first byte picks the mode:
//   even: the bytes go raw to a server session's handshake (a hostile or
//         broken client: garbage records, a hello cut anywhere), then to its
//         reads; nothing may crash, and a session that never finished its
//         handshake may not hand out application data;
//   odd:  a real in-process client (OpenSSL, trusting the test CA) completes
//         a handshake with the server session, sends the bytes as its
//         request through TLS, and the server must read exactly those bytes;
//         they then go to the request-head parser and, when a head is
//         complete, its Authorization value to the basic-auth parser, as the
//         event loop does (event_server.h); the server's answer must reach
//         the client whole.
// The certificates are made at start by tests/support/test_tls.h.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "exporters/http/request_head.h"
#include "exporters/http/tls_context.h"
#include "exporters/http/tls_stream.h"
#include "exporters/http/web_security.h"
#include "tests/support/test_tls.h"

namespace {

using bottleneckd::TlsStream;

struct Fixture {
  bottleneckd::TlsContext server;
  SSL_CTX* client = nullptr;
};

const Fixture& Get() {
  static const Fixture f = [] {
    Fixture f;
    char dir[] = "/tmp/tls_session_fuzz.XXXXXX";
    if (::mkdtemp(dir) == nullptr) std::abort();
    bottleneckd::test::TestKeyPair ca = bottleneckd::test::MakeTestCert("fuzz ca", nullptr, false);
    bottleneckd::test::TestKeyPair server = bottleneckd::test::MakeTestCert("localhost", &ca, true, 2);
    bottleneckd::TlsServerConfig c;
    c.cert_file = std::string(dir) + "/server.crt";
    c.key_file = std::string(dir) + "/server.key";
    if (!bottleneckd::test::WritePem(c.cert_file, server, false) ||
        !bottleneckd::test::WritePem(c.key_file, server, true))
      std::abort();
    if (!bottleneckd::BuildTlsContext(c, &f.server).ok()) std::abort();
    ::unlink(c.cert_file.c_str());
    ::unlink(c.key_file.c_str());
    ::rmdir(dir);
    f.client = SSL_CTX_new(TLS_client_method());
    X509_STORE_add_cert(SSL_CTX_get_cert_store(f.client), ca.cert.get());
    SSL_CTX_set_verify(f.client, SSL_VERIFY_PEER, nullptr);
    return f;
  }();
  return f;
}

// Moves what each side wrote to the other; false when nothing moved.
bool Pump(TlsStream* server, BIO* client_in, BIO* client_out) {
  bool moved = false;
  std::string s = server->TakeOut();
  if (!s.empty()) {
    BIO_write(client_in, s.data(), static_cast<int>(s.size()));
    moved = true;
  }
  char buf[16384];
  int n;
  while ((n = BIO_read(client_out, buf, sizeof(buf))) > 0) {
    server->FeedIn(buf, static_cast<size_t>(n));
    moved = true;
  }
  return moved;
}

void RawHandshake(const uint8_t* data, size_t size) {
  std::unique_ptr<TlsStream> s = TlsStream::InMemory(Get().server);
  if (!s) std::abort();
  s->FeedIn(reinterpret_cast<const char*>(data), size);
  const TlsStream::Io io = s->Handshake();
  s->TakeOut();
  char buf[4096];
  size_t got = 0;
  const TlsStream::Io r = s->Read(buf, sizeof(buf), &got);
  if (io != TlsStream::Io::kOk && r == TlsStream::Io::kOk && got > 0) std::abort();  // data before a handshake
  ERR_clear_error();
}

void Session(const uint8_t* data, size_t size) {
  std::unique_ptr<TlsStream> server = TlsStream::InMemory(Get().server);
  SSL* client = SSL_new(Get().client);
  BIO* client_in = BIO_new(BIO_s_mem());
  BIO* client_out = BIO_new(BIO_s_mem());
  if (!server || client == nullptr || client_in == nullptr || client_out == nullptr) std::abort();
  BIO_set_mem_eof_return(client_in, -1);
  SSL_set_bio(client, client_in, client_out);
  SSL_set1_host(client, "localhost");
  SSL_set_connect_state(client);
  bool server_done = false, client_done = false;
  for (int round = 0; round < 16 && !(server_done && client_done); ++round) {
    if (!client_done) client_done = SSL_do_handshake(client) == 1;
    Pump(server.get(), client_in, client_out);
    if (!server_done) server_done = server->Handshake() == TlsStream::Io::kOk;
    Pump(server.get(), client_in, client_out);
  }
  if (!server_done || !client_done) std::abort();  // two good ends must agree

  const std::string request(reinterpret_cast<const char*>(data), size);
  if (!request.empty() && SSL_write(client, request.data(), static_cast<int>(request.size())) <= 0) std::abort();
  Pump(server.get(), client_in, client_out);
  std::string in;
  char buf[4096];
  for (;;) {
    size_t got = 0;
    const TlsStream::Io io = server->Read(buf, sizeof(buf), &got);
    if (io != TlsStream::Io::kOk) break;
    in.append(buf, got);
  }
  if (in != request) std::abort();  // TLS delivered other bytes than were sent

  bottleneckd::RequestHead head;
  int status = 0;
  std::string error;
  if (bottleneckd::ParseRequestHead(in, 8192, &head, &status, &error) == bottleneckd::HeadParse::kComplete &&
      !head.authorization.empty()) {
    std::string user, password;
    if (bottleneckd::ParseBasicAuth(head.authorization, &user, &password) && user.find(':') != std::string::npos)
      std::abort();  // the first colon splits: a user never holds one
  }

  const std::string answer = "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n" + std::string(size % 20000, 'x');
  size_t sent = 0;
  while (sent < answer.size()) {
    size_t put = 0;
    if (server->Write(answer.data() + sent, answer.size() - sent, &put) != TlsStream::Io::kOk) std::abort();
    sent += put;
  }
  Pump(server.get(), client_in, client_out);
  std::string back;
  int n;
  while ((n = SSL_read(client, buf, sizeof(buf))) > 0) back.append(buf, static_cast<size_t>(n));
  if (back != answer) std::abort();
  SSL_free(client);
  ERR_clear_error();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    RawHandshake(data + 1, size - 1);
  } else {
    Session(data + 1, size - 1);
  }
  return 0;
}
