// The web config file (exporters/http/web_config.h): node_exporter 1.5.0's
// format key for key. What it refuses was checked against the real
// prometheus-node-exporter 1.5.0 of Debian 12 on this VM (2026-12-06): the
// later toolkit keys (cert, key, client_ca, client_allowed_sans, rate_limit),
// an arbitrary header, X-Frame-Options other than deny/sameorigin, a short
// bcrypt hash, a client CA without a policy.
#include "exporters/http/web_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "exporters/http/tls_context.h"
#include "tests/support/test_tls.h"
#include "tests/support/test_util.h"

namespace bottleneckd::web_config_test {
namespace {

std::string Error(const std::string& yaml) {
  WebConfig c;
  Status s = ParseWebConfig(yaml, "/etc/bottleneckd/web.yml", &c);
  return s.ok() ? "" : s.message();
}

TEST(WebConfig, NodeExportersFormatKeyForKey) {
  const std::string hash = test::TestBcrypt("secret", 4);
  ASSERT_FALSE(hash.empty());
  WebConfig c;
  ASSERT_TRUE(ParseWebConfig("tls_server_config:\n"
                             "  cert_file: server.crt\n"
                             "  key_file: /etc/ssl/private/server.key\n"
                             "  client_auth_type: RequireAndVerifyClientCert\n"
                             "  client_ca_file: ca.crt\n"
                             "  min_version: TLS13\n"
                             "  max_version: TLS13\n"
                             "  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]\n"
                             "  curve_preferences: [X25519, CurveP256]\n"
                             "  prefer_server_cipher_suites: false\n"
                             "http_server_config:\n"
                             "  http2: false\n"
                             "  headers:\n"
                             "    Strict-Transport-Security: max-age=31536000\n"
                             "    X-Frame-Options: deny\n"
                             "basic_auth_users:\n"
                             "  zed: " +
                                 hash + "\n  amy: " + hash + "\n",
                             "/etc/bottleneckd/web.yml", &c)
                  .ok());
  EXPECT_TRUE(c.tls.Enabled());
  EXPECT_EQ(c.tls.cert_file, "/etc/bottleneckd/server.crt");  // relative: from the file's folder
  EXPECT_EQ(c.tls.key_file, "/etc/ssl/private/server.key");
  EXPECT_EQ(c.tls.client_ca_file, "/etc/bottleneckd/ca.crt");
  EXPECT_EQ(c.tls.client_auth, ClientAuth::kRequireAndVerifyClientCert);
  EXPECT_EQ(c.tls.min_version, 0x0304);
  EXPECT_EQ(c.tls.max_version, 0x0304);
  EXPECT_EQ(c.tls.curve_preferences, (std::vector<std::string>{"X25519", "CurveP256"}));
  EXPECT_FALSE(c.tls.prefer_server_cipher_suites);
  EXPECT_FALSE(c.http.http2);
  ASSERT_EQ(c.http.headers.size(), 2u);
  EXPECT_EQ(c.http.headers[1].first, "X-Frame-Options");
  ASSERT_EQ(c.users.size(), 2u);
  EXPECT_EQ(c.users[0].first, "amy");  // sorted: looked up by name
  EXPECT_EQ(c.users[0].second, hash);
}

TEST(WebConfig, DefaultsAreTheToolkitsAndAnEmptyFileIsPlainHttp) {
  WebConfig c;
  ASSERT_TRUE(ParseWebConfig("", "w.yml", &c).ok());
  EXPECT_FALSE(c.tls.Enabled());
  EXPECT_TRUE(c.users.empty());
  EXPECT_EQ(TlsVersionName(c.tls.min_version), "TLS12");
  EXPECT_EQ(TlsVersionName(c.tls.max_version), "TLS13");
  EXPECT_TRUE(c.tls.prefer_server_cipher_suites);
  EXPECT_TRUE(c.http.http2);
  // Users alone: basic auth over plain HTTP, as the toolkit serves it.
  ASSERT_TRUE(ParseWebConfig("basic_auth_users:\n  a: " + test::TestBcrypt("x", 4) + "\n", "w.yml", &c).ok());
  EXPECT_FALSE(c.tls.Enabled());
  EXPECT_EQ(c.users.size(), 1u);
}

TEST(WebConfig, UnknownAndLaterKeysAreRefusedAtTheirLineAndColumn) {
  EXPECT_EQ(Error("tls_server_config:\n  cert_file: a\n  key_file: b\n  certfile: c\n"),
            "/etc/bottleneckd/web.yml:4:3: unknown key 'certfile' in tls_server_config (known: cert_file, key_file, "
            "client_auth_type, client_ca_file, cipher_suites, curve_preferences, min_version, max_version, "
            "prefer_server_cipher_suites)");
  for (const char* later : {"cert", "key", "client_ca", "client_allowed_sans"}) {
    EXPECT_EQ(Error(std::string("tls_server_config:\n  cert_file: a\n  key_file: b\n  ") + later + ": x\n"),
              std::string("/etc/bottleneckd/web.yml:4:3: tls_server_config.") + later +
                  " is a key of later exporter-toolkit releases, not of the format bottleneckd reads "
                  "(node_exporter 1.5.0's, Debian 12; docs/web-config.md)")
        << later;
  }
  EXPECT_NE(Error("rate_limit: {burst: 1}\n").find(":1:1: rate_limit is a key of later exporter-toolkit"),
            std::string::npos);
  EXPECT_NE(Error("http_server_config: {http3: true}\n").find(":1:22: unknown key 'http3' in http_server_config"),
            std::string::npos);
  EXPECT_NE(Error("tls_server_config:\n  cert_file: a\n  cert_file: b\n").find(":3:3: duplicate key 'cert_file'"),
            std::string::npos);
}

TEST(WebConfig, ValuesTheToolkitRefusesAreRefused) {
  const std::string tls = "tls_server_config:\n  cert_file: a\n  key_file: b\n";
  EXPECT_EQ(Error(tls + "  min_version: TLS14\n"),
            "/etc/bottleneckd/web.yml:4:16: min_version must be TLS10, TLS11, TLS12 or TLS13, got 'TLS14'");
  EXPECT_NE(Error(tls + "  min_version: TLS13\n  max_version: TLS12\n")
                .find("min_version TLS13 is above max_version "
                      "TLS12"),
            std::string::npos);
  EXPECT_NE(Error(tls + "  client_auth_type: Sometimes\n").find(":4:21: client_auth_type must be NoClientCert"),
            std::string::npos);
  EXPECT_NE(Error(tls + "  client_ca_file: ca.pem\n")
                .find("client_ca_file is set but client_auth_type asks for no "
                      "certificate"),
            std::string::npos);
  EXPECT_NE(Error(tls + "  client_auth_type: VerifyClientCertIfGiven\n").find("client_ca_file names the CAs it trusts"),
            std::string::npos);
  EXPECT_NE(Error("tls_server_config:\n  cert_file: a\n").find("key_file is missing"), std::string::npos);
  EXPECT_NE(Error("tls_server_config:\n  key_file: a\n").find("cert_file is missing"), std::string::npos);
  EXPECT_NE(Error(tls + "  curve_preferences: [CurveP999]\n").find(":4:23: unknown curve 'CurveP999'"),
            std::string::npos);
  EXPECT_NE(Error("http_server_config:\n  headers:\n    X-Foo: bar\n")
                .find(":3:5: HTTP header 'X-Foo' can not be "
                      "configured"),
            std::string::npos);
  EXPECT_NE(Error("http_server_config:\n  headers:\n    X-Frame-Options: bad\n")
                .find(":3:22: invalid value for X-Frame-Options: expected one of deny, sameorigin, got 'bad'"),
            std::string::npos);
  EXPECT_NE(Error("basic_auth_users:\n  a: $2y$10$abc\n")
                .find(":2:6: basic_auth_users: a's password must be a bcrypt "
                      "hash"),
            std::string::npos);
  EXPECT_NE(Error("basic_auth_users:\n  a: plaintext\n").find("must be a bcrypt hash"), std::string::npos);
  EXPECT_NE(Error("basic_auth_users:\n  \"a:b\": " + test::TestBcrypt("x", 4) + "\n").find("hold no ':'"),
            std::string::npos);
  EXPECT_NE(Error("tls_server_config: [a]\n").find(":1:20: tls_server_config must be a mapping"), std::string::npos);
  EXPECT_NE(Error("tls_server_config:\n\tcert_file: a\n").find(":2:1: a tab in the indentation"), std::string::npos);
}

TEST(WebConfig, ABcryptCostOverTheCapIsRefused) {
  // $2b$15$ and 53 characters of salt and digest: only the cost is read.
  const std::string costly = "$2b$15$" + std::string(22, 'a') + std::string(31, 'b');
  EXPECT_EQ(BcryptCost(costly), 15);
  EXPECT_EQ(Error("basic_auth_users:\n  a: " + costly + "\n"),
            "/etc/bottleneckd/web.yml:2:6: basic_auth_users: a's bcrypt cost 15 is over 14 (each uncached scrape "
            "would wait for it)");
  EXPECT_EQ(BcryptCost("$2b$14$" + std::string(53, 'x')), 14);
  EXPECT_EQ(BcryptCost("$2x$10$" + std::string(53, 'x')), -1);  // not one libcrypt's bcrypt is asked of
  EXPECT_EQ(BcryptCost("$2b$1x$" + std::string(53, 'x')), -1);
  EXPECT_EQ(BcryptCost("$2b$10$" + std::string(52, 'x') + "!"), -1);
}

TEST(WebConfig, ATooLargeFileIsRefusedBeforeItIsParsed) {
  const std::string big(kMaxWebConfigBytes + 1, '#');
  EXPECT_EQ(Error(big), "/etc/bottleneckd/web.yml: the web config is 65537 bytes, over the limit of 65536 bytes");
  testing::TempDir dir;
  WebConfig c;
  Status s = LoadWebConfigFile(dir.path() + "/missing.yml", &c);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("web config file " + dir.path() + "/missing.yml"), std::string::npos) << s.message();
}

// What OpenSSL checks when it reads the files (tls_context.h).
TEST(TlsContext, TheFilesAndNamesAreCheckedWhereOpenSslReadsThem) {
  testing::TempDir dir;
  test::TestKeyPair ca = test::MakeTestCert("test ca", nullptr, false);
  test::TestKeyPair server = test::MakeTestCert("localhost", &ca, true, 2);
  test::TestKeyPair other = test::MakeTestCert("other", &ca, true, 3);
  ASSERT_TRUE(test::WritePem(dir.path() + "/server.crt", server, false));
  ASSERT_TRUE(test::WritePem(dir.path() + "/server.key", server, true));
  ASSERT_TRUE(test::WritePem(dir.path() + "/other.key", other, true));
  dir.Write("garbage.crt", "not a certificate\n");
  TlsServerConfig t;
  t.cert_file = dir.path() + "/server.crt";
  t.key_file = dir.path() + "/server.key";
  TlsContext ctx;
  EXPECT_TRUE(BuildTlsContext(t, &ctx).ok());
  EXPECT_NE(ctx, nullptr);

  TlsServerConfig bad = t;
  bad.key_file = dir.path() + "/other.key";
  Status s = BuildTlsContext(bad, &ctx);
  EXPECT_NE(s.message().find("other.key is not the key of cert_file " + dir.path() + "/server.crt"), std::string::npos)
      << s.message();
  bad = t;
  bad.cert_file = dir.path() + "/garbage.crt";
  s = BuildTlsContext(bad, &ctx);
  EXPECT_NE(s.message().find("tls_server_config.cert_file " + dir.path() + "/garbage.crt: "), std::string::npos)
      << s.message();
  bad = t;
  bad.cert_file = dir.path() + "/none.crt";
  EXPECT_FALSE(BuildTlsContext(bad, &ctx).ok());
  bad = t;
  bad.cipher_suites = {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_NULL_NONSENSE"};
  s = BuildTlsContext(bad, &ctx);
  EXPECT_NE(s.message().find("unknown cipher 'TLS_RSA_WITH_NULL_NONSENSE'"), std::string::npos) << s.message();
  bad.cipher_suites = {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"};  // 1.3's: accepted
  EXPECT_TRUE(BuildTlsContext(bad, &ctx).ok());
  bad = t;
  bad.client_auth = ClientAuth::kRequireAndVerifyClientCert;
  bad.client_ca_file = dir.path() + "/garbage.crt";
  s = BuildTlsContext(bad, &ctx);
  EXPECT_NE(s.message().find("client_ca_file"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace bottleneckd::web_config_test

namespace bottleneckd::web_config_test {
namespace {

// The example the package ships (etc/web-config.example.yml) is the format
// this parser reads: every key in it, commented or not, is one it knows.
TEST(WebConfig, TheShippedExampleParsesWithItsCommentedKeysOn) {
  const std::string path = std::string(BOTTLENECKD_SOURCE_DIR) + "/etc/web-config.example.yml";
  std::string text = testing::ReadFileOrDie(path);
  WebConfig c;
  Status s = ParseWebConfig(text, path, &c);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(c.tls.Enabled());
  // Uncomment the option lines ("  # key: value", "# section:"), keep the prose.
  std::string on;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    const size_t hash = line.find("# ");
    if (hash != std::string::npos && line.find_first_not_of(' ') == hash) {
      const std::string rest = line.substr(hash + 2);
      const std::string word = rest.substr(std::min(rest.size(), rest.find_first_not_of(' ')));
      const bool option = !word.empty() && word.find(':') != std::string::npos && word.find(' ') > word.find(':') &&
                          std::islower(static_cast<unsigned char>(word[0]));
      const bool header = word.rfind("Strict-Transport-Security:", 0) == 0;
      if (option || header) line = line.substr(0, hash) + rest;
    }
    on += line + "\n";
  }
  // The hash placeholder is not a hash: a real one in its place.
  const size_t dots = on.find("$2b$10$...");
  ASSERT_NE(dots, std::string::npos);
  on.replace(dots, 10, test::TestBcrypt("x", 4));
  s = ParseWebConfig(on, path, &c);
  ASSERT_TRUE(s.ok()) << s.message() << "\n" << on;
  EXPECT_EQ(c.tls.client_auth, ClientAuth::kRequireAndVerifyClientCert);
  EXPECT_EQ(c.tls.cipher_suites.size(), 2u);
  EXPECT_EQ(c.http.headers.size(), 1u);
  EXPECT_EQ(c.users.size(), 1u);
}

}  // namespace
}  // namespace bottleneckd::web_config_test
