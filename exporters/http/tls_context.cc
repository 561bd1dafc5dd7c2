#include "exporters/http/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstring>
#include <string_view>
#include <vector>

namespace bottleneckd {
namespace {

constexpr unsigned char kSessionContext[] = "bottleneckd";

// RequestClientCert and RequireAnyClientCert take any certificate (or, for
// the first, none): the chain is not judged.
int AcceptAnyCertificate(int /*preverify_ok*/, X509_STORE_CTX* /*ctx*/) { return 1; }

// Selects http/1.1 when the client offers it; h2 alone gets no ALPN answer.
int SelectAlpn(SSL* /*ssl*/, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
               unsigned int inlen, void* /*arg*/) {
  for (unsigned int i = 0; i < inlen;) {
    const unsigned int n = in[i];
    if (i + 1 + n > inlen) break;
    if (n == 8 && std::memcmp(in + i + 1, "http/1.1", 8) == 0) {
      *out = in + i + 1;
      *outlen = static_cast<unsigned char>(n);
      return SSL_TLSEXT_ERR_OK;
    }
    i += 1 + n;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

bool Tls13Suite(std::string_view name) {
  return name == "TLS_AES_128_GCM_SHA256" || name == "TLS_AES_256_GCM_SHA384" || name == "TLS_CHACHA20_POLY1305_SHA256";
}

// OpenSSL's names of Go's (IANA) cipher suite names, in the given order.
Status CipherList(const std::vector<std::string>& names, std::string* out) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> all(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!all || SSL_CTX_set_cipher_list(all.get(), "ALL:COMPLEMENTOFALL") != 1)
    return Status::IOError("tls: OpenSSL lists no cipher suites: " + OpenSslErrors());
  STACK_OF(SSL_CIPHER)* ciphers = SSL_CTX_get_ciphers(all.get());
  out->clear();
  for (const std::string& name : names) {
    if (Tls13Suite(name)) continue;  // not configurable, as in Go
    const char* found = nullptr;
    for (int i = 0; i < sk_SSL_CIPHER_num(ciphers) && found == nullptr; ++i) {
      const SSL_CIPHER* c = sk_SSL_CIPHER_value(ciphers, i);
      const char* standard = SSL_CIPHER_standard_name(c);
      if (standard != nullptr && name == standard) found = SSL_CIPHER_get_name(c);
    }
    if (found == nullptr)
      return Status::InvalidArgument("tls_server_config.cipher_suites: unknown cipher '" + name +
                                     "' (Go's names, as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)");
    if (!out->empty()) *out += ':';
    *out += found;
  }
  return Status::OK();
}

std::string GroupName(const std::string& curve) {
  if (curve == "CurveP256") return "P-256";
  if (curve == "CurveP384") return "P-384";
  if (curve == "CurveP521") return "P-521";
  return curve;  // X25519
}

}  // namespace

std::string OpenSslErrors() {
  std::string s;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!s.empty()) s += "; ";
    s += buf;
  }
  return s;
}

Status BuildTlsContext(const TlsServerConfig& c, TlsContext* out) {
  ERR_clear_error();
  TlsContext ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx) return Status::IOError("tls: SSL_CTX_new: " + OpenSslErrors());
  SSL_CTX* x = ctx.get();
  if (SSL_CTX_set_min_proto_version(x, c.min_version) != 1 || SSL_CTX_set_max_proto_version(x, c.max_version) != 1)
    return Status::InvalidArgument("tls_server_config: versions " + std::string(TlsVersionName(c.min_version)) + ".." +
                                   std::string(TlsVersionName(c.max_version)) +
                                   " refused by OpenSSL: " + OpenSslErrors());
  if (SSL_CTX_use_certificate_chain_file(x, c.cert_file.c_str()) != 1)
    return Status::InvalidArgument("tls_server_config.cert_file " + c.cert_file + ": " + OpenSslErrors());
  if (SSL_CTX_use_PrivateKey_file(x, c.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    const bool mismatch = ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH;
    return Status::InvalidArgument("tls_server_config.key_file " + c.key_file +
                                   (mismatch ? " is not the key of cert_file " + c.cert_file : std::string()) + ": " +
                                   OpenSslErrors());
  }
  if (SSL_CTX_check_private_key(x) != 1)
    return Status::InvalidArgument("tls_server_config: key_file " + c.key_file + " is not the key of cert_file " +
                                   c.cert_file + ": " + OpenSslErrors());
  if (!c.cipher_suites.empty()) {
    std::string list;
    BN_RETURN_IF_ERROR(CipherList(c.cipher_suites, &list));
    if (!list.empty() && SSL_CTX_set_cipher_list(x, list.c_str()) != 1)
      return Status::InvalidArgument("tls_server_config.cipher_suites: OpenSSL refused '" + list +
                                     "': " + OpenSslErrors());
  }
  if (!c.curve_preferences.empty()) {
    std::string groups;
    for (const std::string& curve : c.curve_preferences) groups += (groups.empty() ? "" : ":") + GroupName(curve);
    if (SSL_CTX_set1_groups_list(x, groups.c_str()) != 1)
      return Status::InvalidArgument("tls_server_config.curve_preferences: OpenSSL refused '" + groups +
                                     "': " + OpenSslErrors());
  }
  if (c.prefer_server_cipher_suites) SSL_CTX_set_options(x, SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_options(x, SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_mode(x, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_session_id_context(x, kSessionContext, sizeof(kSessionContext) - 1);
  SSL_CTX_set_alpn_select_cb(x, SelectAlpn, nullptr);
  if (!c.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(x, c.client_ca_file.c_str(), nullptr) != 1)
      return Status::InvalidArgument("tls_server_config.client_ca_file " + c.client_ca_file + ": " + OpenSslErrors());
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(c.client_ca_file.c_str());
    if (names == nullptr)
      return Status::InvalidArgument("tls_server_config.client_ca_file " + c.client_ca_file +
                                     ": no certificate in it: " + OpenSslErrors());
    SSL_CTX_set_client_CA_list(x, names);
  }
  switch (c.client_auth) {
    case ClientAuth::kNoClientCert: SSL_CTX_set_verify(x, SSL_VERIFY_NONE, nullptr); break;
    case ClientAuth::kRequestClientCert: SSL_CTX_set_verify(x, SSL_VERIFY_PEER, AcceptAnyCertificate); break;
    case ClientAuth::kRequireAnyClientCert:
      SSL_CTX_set_verify(x, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, AcceptAnyCertificate);
      break;
    case ClientAuth::kVerifyClientCertIfGiven: SSL_CTX_set_verify(x, SSL_VERIFY_PEER, nullptr); break;
    case ClientAuth::kRequireAndVerifyClientCert:
      SSL_CTX_set_verify(x, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
  }
  *out = std::move(ctx);
  return Status::OK();
}

}  // namespace bottleneckd
