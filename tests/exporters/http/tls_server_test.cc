// The HTTP listener under a web config (exporters/http/web_security.h):
// EventServer over real sockets on 127.0.0.1, spoken to by an OpenSSL client
// in the test (certificates made by the test, tests/support/test_tls.h): the
// version bounds, the five client-certificate policies, basic auth (401s by
// reason, the cache), plain HTTP to the TLS port, a handshake that stalls, a
// certificate renewed on disk and a broken one that is not taken.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "base/unique_fd.h"
#include "exporters/http/event_server.h"
#include "exporters/http/http_server.h"
#include "exporters/http/web_security.h"
#include "tests/support/test_tls.h"
#include "tests/support/test_util.h"

namespace bottleneckd::tls_server_test {
namespace {

constexpr int kBoundMs = 5000;  // "within a generous bound": never a measured figure

struct ClientOptions {
  int min_version = 0;  // 0: OpenSSL's default
  int max_version = 0;
  const test::TestKeyPair* cert = nullptr;  // the client certificate, if any
};

UniqueFd Connect(int port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) return UniqueFd();
  timeval tv{kBoundMs / 1000, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  return fd;
}

// A blocking TLS client that trusts the test CA.
class TlsClient {
 public:
  TlsClient(int port, const test::TestKeyPair& ca, const ClientOptions& o) : fd_(Connect(port)) {
    ctx_.reset(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
    X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx_.get()), ca.cert.get());
    SSL_CTX_set_verify(ctx_.get(), SSL_VERIFY_PEER, nullptr);
    if (o.min_version) SSL_CTX_set_min_proto_version(ctx_.get(), o.min_version);
    if (o.max_version) SSL_CTX_set_max_proto_version(ctx_.get(), o.max_version);
    if (o.cert) {
      SSL_CTX_use_certificate(ctx_.get(), o.cert->cert.get());
      SSL_CTX_use_PrivateKey(ctx_.get(), o.cert->key.get());
    }
    ssl_.reset(SSL_new(ctx_.get()), SSL_free);
    SSL_set_fd(ssl_.get(), fd_.get());
    SSL_set1_host(ssl_.get(), "127.0.0.1");
    connected_ = fd_.valid() && SSL_connect(ssl_.get()) == 1;
    ERR_clear_error();
  }
  bool connected() const { return connected_; }
  std::string Version() const { return SSL_get_version(ssl_.get()); }
  long PeerSerial() const {
    X509* peer = SSL_get1_peer_certificate(ssl_.get());
    if (peer == nullptr) return -1;
    long serial = ASN1_INTEGER_get(X509_get0_serialNumber(peer));
    X509_free(peer);
    return serial;
  }

  // One request and its whole answer; "" when the server closed or failed
  // the session first (TLS 1.3 reports a refused client certificate here,
  // after the client's side of the handshake finished).
  std::string Get(const std::string& path, const std::string& extra = "") {
    std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + "\r\n";
    if (SSL_write(ssl_.get(), req.data(), static_cast<int>(req.size())) <= 0) return "";
    std::string in;
    char buf[16384];
    for (;;) {
      size_t end = in.find("\r\n\r\n");
      if (end != std::string::npos) {
        size_t cl = in.find("Content-Length: ");
        size_t len = cl != std::string::npos && cl < end ? std::stoul(in.substr(cl + 16)) : 0;
        if (in.size() >= end + 4 + len) return in.substr(0, end + 4 + len);
      }
      int n = SSL_read(ssl_.get(), buf, sizeof(buf));
      if (n <= 0) {
        ERR_clear_error();
        return "";
      }
      in.append(buf, static_cast<size_t>(n));
    }
  }

 private:
  UniqueFd fd_;
  std::shared_ptr<SSL_CTX> ctx_;
  std::shared_ptr<SSL> ssl_;
  bool connected_ = false;
};

std::string Basic(const std::string& user, const std::string& password) {
  std::string plain = user + ":" + password;
  std::string out(4 * ((plain.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(plain.data()), static_cast<int>(plain.size()));
  out.resize(static_cast<size_t>(n));
  return "Authorization: Basic " + out + "\r\n";
}

int Code(const std::string& answer) { return answer.size() > 12 ? std::stoi(answer.substr(9, 3)) : 0; }

class TlsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ca_ = test::MakeTestCert("test ca", nullptr, false);
    other_ca_ = test::MakeTestCert("another ca", nullptr, false);
    server_ = test::MakeTestCert("localhost", &ca_, true, 2);
    client_ = test::MakeTestCert("prometheus", &ca_, false, 3);
    stranger_ = test::MakeTestCert("stranger", &other_ca_, false, 4);
    ASSERT_TRUE(test::WritePem(dir_.path() + "/server.crt", server_, false));
    ASSERT_TRUE(test::WritePem(dir_.path() + "/server.key", server_, true));
    ASSERT_TRUE(test::WritePem(dir_.path() + "/ca.crt", ca_, false));
    hash_ = test::TestBcrypt("s3cret", 4);
    ASSERT_FALSE(hash_.empty());
  }

  // Starts a server with `yaml` as its web config (in the test's folder).
  void Start(const std::string& yaml, int head_timeout_ms = 2000, size_t max_connections = 0) {
    server_obj_.reset();
    dir_.Write("web.yml", yaml);
    Status s = WebSecurity::Load(dir_.path() + "/web.yml", &security_);
    ASSERT_TRUE(s.ok()) << s.message();
    HttpRoute route{"/x", false, [](const HttpRequest&) {
                      HttpResponse r;
                      r.body = std::make_shared<const std::string>("hello\n");
                      return r;
                    }};
    EventServerOptions o;
    o.security = security_;
    o.head_timeout_ms = head_timeout_ms;
    o.max_connections = max_connections;  // 0: the default
    ListenAddress a;
    ASSERT_TRUE(ParseListenAddress("127.0.0.1:0", &a).ok());
    ASSERT_TRUE(EventServer::Start(a, {route}, o, &server_obj_).ok());
    port_ = std::stoi(server_obj_->BoundAddress().substr(server_obj_->BoundAddress().rfind(':') + 1));
  }
  static std::string Tls(const std::string& more = "") {
    return "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n" + more;
  }
  // Whether a client with `o` gets "/x" answered 200.
  bool Served(const ClientOptions& o) {
    TlsClient c(port_, ca_, o);
    return c.connected() && Code(c.Get("/x")) == 200;
  }

  testing::TempDir dir_;
  test::TestKeyPair ca_, other_ca_, server_, client_, stranger_;
  std::string hash_;
  std::shared_ptr<WebSecurity> security_;
  std::unique_ptr<EventServer> server_obj_;
  int port_ = 0;
};

TEST_F(TlsServerTest, BasicAuthOverTlsRefusesByReasonAndCachesWhatPassed) {
  Start(Tls("basic_auth_users:\n  prom: " + hash_ + "\n"));
  TlsClient c(port_, ca_, {});
  ASSERT_TRUE(c.connected());
  std::string none = c.Get("/x");
  EXPECT_EQ(Code(none), 401);
  EXPECT_NE(none.find("WWW-Authenticate: Basic realm=\"bottleneckd\""), std::string::npos) << none;
  EXPECT_EQ(Code(c.Get("/x", Basic("prom", "wrong"))), 401);
  EXPECT_EQ(Code(c.Get("/x", Basic("nobody", "s3cret"))), 401);
  EXPECT_EQ(Code(c.Get("/x", "Authorization: Basic !!!!\r\n")), 401);
  EXPECT_EQ(Code(c.Get("/nowhere", Basic("prom", "wrong"))), 401);  // every path asks
  std::string ok = c.Get("/x", Basic("prom", "s3cret"));
  EXPECT_EQ(Code(ok), 200) << ok;
  EXPECT_NE(ok.find("hello"), std::string::npos);
  EventServer::Stats before = server_obj_->GetStats();
  EXPECT_EQ(Code(c.Get("/x", Basic("prom", "s3cret"))), 200);  // kept alive, and cached
  EventServer::Stats after = server_obj_->GetStats();
  EXPECT_EQ(after.auth_checks, before.auth_checks) << "a cached credential ran bcrypt again";
  EXPECT_EQ(after.auth_checks, 4u);  // wrong, nobody, wrong, the first right one
  EXPECT_EQ(after.auth_failed[static_cast<int>(AuthFailure::kMissing)], 1u);
  EXPECT_EQ(after.auth_failed[static_cast<int>(AuthFailure::kMalformed)], 1u);
  EXPECT_EQ(after.auth_failed[static_cast<int>(AuthFailure::kUnknownUser)], 1u);
  EXPECT_EQ(after.auth_failed[static_cast<int>(AuthFailure::kWrongPassword)], 2u);
}

TEST_F(TlsServerTest, VersionBoundsAreTheProtocolsBounds) {
  Start(Tls("  min_version: TLS13\n"));
  EXPECT_FALSE(Served({0, TLS1_2_VERSION, nullptr})) << "TLS 1.2 served under min_version TLS13";
  TlsClient c13(port_, ca_, {});
  ASSERT_TRUE(c13.connected());
  EXPECT_EQ(c13.Version(), "TLSv1.3");
  EXPECT_GE(server_obj_->GetStats().tls_failed, 1u);

  Start(Tls("  max_version: TLS12\n"));
  EXPECT_FALSE(Served({TLS1_3_VERSION, 0, nullptr})) << "TLS 1.3 served under max_version TLS12";
  TlsClient c12(port_, ca_, {});
  ASSERT_TRUE(c12.connected());
  EXPECT_EQ(c12.Version(), "TLSv1.2");
}

TEST_F(TlsServerTest, TheFiveClientCertificatePolicies) {
  const std::string ca = "  client_ca_file: ca.crt\n";
  Start(Tls("  client_auth_type: RequireAndVerifyClientCert\n" + ca));
  EXPECT_TRUE(Served({0, 0, &client_}));
  EXPECT_FALSE(Served({0, 0, nullptr})) << "no certificate";
  EXPECT_FALSE(Served({0, 0, &stranger_})) << "a certificate of another CA";
  EXPECT_FALSE(Served({0, TLS1_2_VERSION, nullptr})) << "no certificate, TLS 1.2";

  Start(Tls("  client_auth_type: VerifyClientCertIfGiven\n" + ca));
  EXPECT_TRUE(Served({0, 0, &client_}));
  EXPECT_TRUE(Served({0, 0, nullptr}));
  EXPECT_FALSE(Served({0, 0, &stranger_}));

  Start(Tls("  client_auth_type: RequireAnyClientCert\n"));
  EXPECT_TRUE(Served({0, 0, &stranger_})) << "any certificate, not verified";
  EXPECT_FALSE(Served({0, 0, nullptr}));

  Start(Tls("  client_auth_type: RequestClientCert\n"));
  EXPECT_TRUE(Served({0, 0, &stranger_}));
  EXPECT_TRUE(Served({0, 0, nullptr}));

  Start(Tls("  client_auth_type: NoClientCert\n"));
  EXPECT_TRUE(Served({0, 0, nullptr}));
}

TEST_F(TlsServerTest, PlainHttpToTheTlsPortIsToldSo) {
  Start(Tls());
  UniqueFd fd = Connect(port_);
  ASSERT_TRUE(fd.valid());
  const std::string req = "GET /x HTTP/1.1\r\nHost: a\r\n\r\n";
  ASSERT_EQ(::send(fd.get(), req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  std::string in;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd.get(), buf, sizeof(buf), 0)) > 0) in.append(buf, static_cast<size_t>(n));
  EXPECT_EQ(in.substr(0, 24), "HTTP/1.0 400 Bad Request");
  EXPECT_NE(in.find("Client sent an HTTP request to an HTTPS server."), std::string::npos) << in;
}

TEST_F(TlsServerTest, AHandshakeThatStallsIsClosedAtTheHeadDeadline) {
  Start(Tls(), 300);
  UniqueFd fd = Connect(port_);
  ASSERT_TRUE(fd.valid());
  const char partial[] = {0x16, 0x03, 0x01, 0x02, 0x00};  // a ClientHello's record header, and no more
  ASSERT_EQ(::send(fd.get(), partial, sizeof(partial), MSG_NOSIGNAL), 5);
  pollfd p{fd.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, kBoundMs), 1) << "not closed";
  char b;
  EXPECT_LE(::recv(fd.get(), &b, 1, 0), 0);
  EXPECT_EQ(server_obj_->GetStats().timed_out, 1u);
  EXPECT_TRUE(Served({})) << "the server went on";
}

// At the connection limit a newcomer takes the slot of a connection whose
// client has sent nothing, as a plain listener's newcomer takes an idle
// one's; a handshake under way keeps its slot. Before, every TLS connection
// held its slot to the head deadline: http_connection_fuzz's fresh session
// was closed unanswered behind its script's dead connections, accepted in
// one batch before their EOFs were read.
TEST_F(TlsServerTest, ASilentConnectionYieldsItsSlotAndAHandshakeUnderWayKeepsIt) {
  Start(Tls(), 10000, 2);
  UniqueFd started = Connect(port_);
  ASSERT_TRUE(started.valid());
  const char partial[] = {0x16, 0x03, 0x01, 0x02, 0x00};  // a ClientHello's record header, and no more
  ASSERT_EQ(::send(started.get(), partial, sizeof(partial), MSG_NOSIGNAL), 5);
  UniqueFd silent = Connect(port_);
  ASSERT_TRUE(silent.valid());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBoundMs);
  while (server_obj_->GetStats().open < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(server_obj_->GetStats().open, 2u);
  EXPECT_TRUE(Served({})) << "the newcomer was not served";
  EXPECT_EQ(server_obj_->GetStats().evicted, 1u);
  char b;
  EXPECT_EQ(::recv(silent.get(), &b, 1, 0), 0) << "the silent connection was not the one closed";
  pollfd p{started.get(), POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 0), 0) << "the handshake under way lost its slot";
  // Both slots under way: the newcomer is closed unanswered (a plain-text
  // 503 would be a broken record to it), the two are kept.
  while (server_obj_->GetStats().open > 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  UniqueFd second = Connect(port_);
  ASSERT_TRUE(second.valid());
  ASSERT_EQ(::send(second.get(), partial, sizeof(partial), MSG_NOSIGNAL), 5);
  while (server_obj_->GetStats().open < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  UniqueFd newcomer = Connect(port_);
  ASSERT_TRUE(newcomer.valid());
  EXPECT_LE(::recv(newcomer.get(), &b, 1, 0), 0) << "the newcomer was not closed";
  EXPECT_EQ(server_obj_->GetStats().refused, 1u);
  EXPECT_EQ(::poll(&p, 1, 0), 0);
}

TEST_F(TlsServerTest, ARenewedCertificateIsServedOnTheNextConnectionAndABrokenOneIsNot) {
  Start(Tls());
  {
    TlsClient c(port_, ca_, {});
    ASSERT_TRUE(c.connected());
    EXPECT_EQ(c.PeerSerial(), 2);
  }
  test::TestKeyPair renewed = test::MakeTestCert("localhost", &ca_, true, 7);
  ASSERT_TRUE(test::WritePem(dir_.path() + "/server.key.new", renewed, true));
  ASSERT_TRUE(test::WritePem(dir_.path() + "/server.crt.new", renewed, false));
  ASSERT_EQ(::rename((dir_.path() + "/server.key.new").c_str(), (dir_.path() + "/server.key").c_str()), 0);
  ASSERT_EQ(::rename((dir_.path() + "/server.crt.new").c_str(), (dir_.path() + "/server.crt").c_str()), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // files are compared at most once a second
  {
    TlsClient c(port_, ca_, {});
    ASSERT_TRUE(c.connected());
    EXPECT_EQ(c.PeerSerial(), 7);
    EXPECT_EQ(Code(c.Get("/x")), 200);
  }
  EXPECT_EQ(security_->reloads(), 1u);
  dir_.Write("server.crt", "-----BEGIN CERTIFICATE-----\nhalf written");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  {
    TlsClient c(port_, ca_, {});
    ASSERT_TRUE(c.connected()) << "a broken certificate on disk stopped the server";
    EXPECT_EQ(c.PeerSerial(), 7) << "the previous configuration stays";
  }
  EXPECT_EQ(security_->failed_reloads(), 1u);
  // A web config rewritten to plain HTTP is not taken either: TLS is fixed at start.
  ASSERT_TRUE(test::WritePem(dir_.path() + "/server.crt", renewed, false));
  dir_.Write("web.yml", "basic_auth_users: {}\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_TRUE(Served({}));
  EXPECT_EQ(security_->failed_reloads(), 2u);
}

TEST_F(TlsServerTest, UsersWithoutTlsAskOverPlainHttpWithTheFilesHeaders) {
  Start("http_server_config:\n  headers: {X-Content-Type-Options: nosniff}\nbasic_auth_users:\n  prom: " + hash_ +
        "\n");
  EXPECT_FALSE(security_->tls());
  for (const std::string& extra : {std::string(), Basic("prom", "s3cret")}) {
    UniqueFd fd = Connect(port_);
    ASSERT_TRUE(fd.valid());
    const std::string req = "GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n" + extra + "\r\n";
    ASSERT_EQ(::send(fd.get(), req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
    std::string in;
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(fd.get(), buf, sizeof(buf), 0)) > 0) in.append(buf, static_cast<size_t>(n));
    EXPECT_EQ(Code(in), extra.empty() ? 401 : 200) << in;
    EXPECT_NE(in.find("X-Content-Type-Options: nosniff\r\n"), std::string::npos) << in;
  }
}

// The daemon's endpoint (HttpServer) under the web config: its /metrics
// carries the listener's counters after the snapshot's families.
TEST_F(TlsServerTest, MetricsCountHandshakeFailuresAndRefusalsByReason) {
  dir_.Write("web.yml", Tls("basic_auth_users:\n  prom: " + hash_ + "\n"));
  ASSERT_TRUE(WebSecurity::Load(dir_.path() + "/web.yml", &security_).ok());
  SnapshotStore store;
  store.Publish(std::make_shared<Snapshot>());
  ListenAddress a;
  ASSERT_TRUE(ParseListenAddress("127.0.0.1:0", &a).ok());
  std::unique_ptr<HttpServer> http;
  ASSERT_TRUE(HttpServer::Start(a, &store, &http, {}, security_).ok());
  port_ = std::stoi(http->BoundAddress().substr(http->BoundAddress().rfind(':') + 1));
  EXPECT_FALSE(TlsClient(port_, other_ca_, {}).connected()) << "a client that does not trust the certificate";
  {
    TlsClient c(port_, ca_, {});
    ASSERT_TRUE(c.connected());
    EXPECT_EQ(Code(c.Get("/metrics")), 401);
    EXPECT_EQ(Code(c.Get("/metrics", Basic("prom", "nope"))), 401);
    EXPECT_EQ(Code(c.Get("/metrics", Basic("prom", "nope2"))), 401);
    EXPECT_EQ(Code(c.Get("/metrics", Basic("who", "nope"))), 401);
  }
  store.Publish(std::make_shared<Snapshot>());  // a new tick: the body is built again
  TlsClient c(port_, ca_, {});
  ASSERT_TRUE(c.connected());
  std::string m = c.Get("/metrics", Basic("prom", "s3cret"));
  ASSERT_EQ(Code(m), 200) << m;
  EXPECT_NE(m.find("# TYPE bottleneckd_http_auth_failures_total counter\n"), std::string::npos) << m;
  EXPECT_NE(m.find("bottleneckd_http_auth_failures_total{reason=\"missing\"} 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("bottleneckd_http_auth_failures_total{reason=\"wrong_password\"} 2\n"), std::string::npos) << m;
  EXPECT_NE(m.find("bottleneckd_http_auth_failures_total{reason=\"unknown_user\"} 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("bottleneckd_http_auth_failures_total{reason=\"malformed\"} 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("bottleneckd_http_auth_checks_total 4\n"), std::string::npos) << m;  // 3 refused, this one
  EXPECT_NE(m.find("bottleneckd_http_tls_handshake_failures_total 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("bottleneckd_web_config_reloads_total{result=\"taken\"} 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("bottleneckd_build_info"), std::string::npos);
}

TEST(BasicAuth, TheHeaderIsParsedAsRfc7617SaysAndNothingElse) {
  std::string user, password;
  ASSERT_TRUE(ParseBasicAuth("Basic cHJvbTpzM2NyZXQ=", &user, &password));
  EXPECT_EQ(user, "prom");
  EXPECT_EQ(password, "s3cret");
  ASSERT_TRUE(ParseBasicAuth("basic  YTpiOmM=", &user, &password));  // the scheme case-insensitive
  EXPECT_EQ(user, "a");
  EXPECT_EQ(password, "b:c");  // the first colon splits
  ASSERT_TRUE(ParseBasicAuth("Basic Og==", &user, &password));
  EXPECT_EQ(user, "");
  EXPECT_EQ(password, "");
  EXPECT_FALSE(ParseBasicAuth("Bearer cHJvbTpzM2NyZXQ=", &user, &password));
  EXPECT_FALSE(ParseBasicAuth("Basic", &user, &password));
  EXPECT_FALSE(ParseBasicAuth("Basic cHJvbQ==", &user, &password));  // "prom": no colon
  EXPECT_FALSE(ParseBasicAuth("Basic cHJvbTpz=M2NyZXQ", &user, &password));
  EXPECT_FALSE(ParseBasicAuth("Basic abc", &user, &password));
}

TEST(BasicAuth, AnUnknownUserRunsBcryptAsAWrongPasswordDoes) {
  WebSettings s;
  s.config.users = {{"prom", test::TestBcrypt("s3cret", 5)}};
  s.decoy_hash = "$2b$05$" + std::string(22, '.') + std::string(31, 'O');
  EXPECT_EQ(CheckPassword(s, "prom", "s3cret"), AuthFailure::kCount);
  EXPECT_EQ(CheckPassword(s, "prom", "s3cre"), AuthFailure::kWrongPassword);
  EXPECT_EQ(CheckPassword(s, "who", "s3cret"), AuthFailure::kUnknownUser);
  EXPECT_EQ(CheckPassword(s, "who", ""), AuthFailure::kUnknownUser);
  // The decoy is a hash crypt_r computes in full, not one it refuses at once.
  crypt_data data{};
  const char* got = crypt_r("anything", s.decoy_hash.c_str(), &data);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(std::string(got).substr(0, 29), s.decoy_hash.substr(0, 29));
}

TEST(BasicAuth, TheCacheIsBoundedAndKeyedOnTheHash) {
  AuthCache cache(2);
  cache.Insert("a", "p", "h1");
  EXPECT_TRUE(cache.Contains("a", "p", "h1"));
  EXPECT_FALSE(cache.Contains("a", "p", "h2")) << "a changed hash must miss";
  EXPECT_FALSE(cache.Contains("a", "q", "h1"));
  EXPECT_FALSE(cache.Contains("ap", "", "h1"));  // ("a", "p") is not ("ap", "")
  cache.Insert("b", "p", "h1");
  EXPECT_TRUE(cache.Contains("a", "p", "h1"));  // a is now the most recent
  cache.Insert("c", "p", "h1");                 // evicts b
  EXPECT_FALSE(cache.Contains("b", "p", "h1"));
  EXPECT_TRUE(cache.Contains("a", "p", "h1"));
  EXPECT_TRUE(cache.Contains("c", "p", "h1"));
}

}  // namespace
}  // namespace bottleneckd::tls_server_test
