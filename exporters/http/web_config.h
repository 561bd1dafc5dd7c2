// The web configuration file (--web.config.file, web.config_file): TLS,
// client certificates, basic auth and response headers of the HTTP listener,
// in the format of Prometheus's exporter toolkit as the node_exporter in
// Debian 12 (1.5.0, exporter-toolkit 0.8) reads it, key for key, so a site's
// existing file serves bottleneckd unchanged (docs/web-config.md):
//
//   tls_server_config:
//     cert_file: server.crt            # relative paths: from the file's folder
//     key_file: server.key
//     client_auth_type: RequireAndVerifyClientCert
//     client_ca_file: clients-ca.crt
//     min_version: TLS12               # TLS10..TLS13; default TLS12, max TLS13
//     cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]   # TLS 1.2 and below
//     curve_preferences: [X25519, CurveP256]
//     prefer_server_cipher_suites: true
//   http_server_config:
//     http2: true                      # accepted; h2 is not offered (said)
//     headers: {Strict-Transport-Security: max-age=31536000}
//   basic_auth_users:
//     prometheus: $2b$12$...          # bcrypt ($2a$, $2b$, $2y$)
//
// Refused, at the file's line and column as the daemon's config: an unknown
// key (the keys later toolkit releases added, `cert`, `key`, `client_ca`,
// `client_allowed_sans` and `rate_limit`, by name: node_exporter 1.5.0
// refuses them too), an unknown version, policy, curve or header, a header
// value the toolkit refuses, min_version above max_version, a client CA
// without a policy that asks for a certificate (and a verifying policy
// without one), cert_file without key_file or the reverse, a password hash
// that is not bcrypt or costs more than kMaxBcryptCost. Whether the files
// hold a certificate and its key, and the cipher names, are checked where
// OpenSSL reads them (tls_context.h), at start and by --config.check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace bottleneckd {

// The toolkit's client_auth_type policies (Go's tls.ClientAuthType).
enum class ClientAuth {
  kNoClientCert,                // no certificate asked for
  kRequestClientCert,           // asked for, not required, not verified
  kRequireAnyClientCert,        // required, not verified ("RequireClientCert" too, as the toolkit)
  kVerifyClientCertIfGiven,     // not required; verified against client_ca_file when sent
  kRequireAndVerifyClientCert,  // required and verified against client_ca_file
};

struct TlsServerConfig {
  std::string cert_file, key_file, client_ca_file;  // joined to the web config's folder when relative
  ClientAuth client_auth = ClientAuth::kNoClientCert;
  std::string client_auth_name = "NoClientCert";  // as written
  std::vector<std::string> cipher_suites;         // IANA names as Go writes them, for TLS 1.2 and below
  std::vector<std::string> curve_preferences;     // CurveP256, CurveP384, CurveP521, X25519
  uint16_t min_version = 0x0303;                  // TLS12 (the wire's version numbers: 0x0301 TLS10 .. 0x0304 TLS13)
  uint16_t max_version = 0x0304;                  // TLS13
  bool prefer_server_cipher_suites = true;
  // TLS is on when any of the certificate, key, CA or policy is given (the
  // toolkit's rule: a file with only basic_auth_users serves plain HTTP).
  bool Enabled() const;
};

struct HttpServerConfig {
  bool http2 = true;                                         // accepted; HTTP/1.1 only is served
  std::vector<std::pair<std::string, std::string>> headers;  // added to every answer, in the file's order
};

struct WebConfig {
  std::string file;  // where it was read from
  TlsServerConfig tls;
  HttpServerConfig http;
  std::vector<std::pair<std::string, std::string>> users;  // name, bcrypt hash; sorted by name
};

// The largest bcrypt cost accepted: 2^14 rounds took 1.26 s a check on the
// 2-CPU VM of the CI (2^12 0.29 s, 2^10 0.09 s; libcrypt's crypt_r), and a
// check runs on every scrape whose credentials are not cached.
inline constexpr int kMaxBcryptCost = 14;
// Largest web config accepted.
inline constexpr size_t kMaxWebConfigBytes = 64 * 1024;

// Parses the file's text; `filename` labels errors and is the folder
// relative paths are taken from. *out is left unchanged on any error.
Status ParseWebConfig(std::string_view yaml, std::string_view filename, WebConfig* out);
// Reads (at most kMaxWebConfigBytes) and parses a web config file.
Status LoadWebConfigFile(const std::string& path, WebConfig* out);

// The version's name as the file writes it ("TLS12"); "" when none.
std::string_view TlsVersionName(uint16_t version);

// The cost of a bcrypt hash ("$2b$12$..." is 12); -1 when it is not one.
int BcryptCost(std::string_view hash);

}  // namespace bottleneckd
