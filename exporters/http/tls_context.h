// The OpenSSL server context of the HTTP listener, built from the web
// config's tls_server_config (web_config.h) as the exporter toolkit builds
// Go's tls.Config from it:
//   - the certificate chain and key from cert_file and key_file (PEM), the
//     key checked against the certificate;
//   - min_version / max_version as the protocol bounds;
//   - cipher_suites, Go's (IANA) names, matched to OpenSSL's own through
//     SSL_CIPHER_standard_name over every suite this OpenSSL knows, for TLS
//     1.2 and below; TLS 1.3's suites are not configurable, as in Go (named
//     ones are accepted and change nothing);
//   - curve_preferences (CurveP256 -> P-256 ...) as the groups list;
//   - prefer_server_cipher_suites as SSL_OP_CIPHER_SERVER_PREFERENCE;
//   - client_auth_type: NoClientCert asks for nothing; RequestClientCert
//     asks and accepts whatever comes (or nothing); RequireAnyClientCert
//     requires one and does not verify it; VerifyClientCertIfGiven verifies
//     one when sent; RequireAndVerifyClientCert requires and verifies, against
//     client_ca_file's CAs (also sent as the acceptable CA list).
// ALPN: http/1.1 is selected when offered; a client offering only h2 gets no
// ALPN answer (h2 is not served, whatever http2 says). Buffers of idle
// connections are released (SSL_MODE_RELEASE_BUFFERS).
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "exporters/http/web_config.h"

struct ssl_ctx_st;

namespace bottleneckd {

using TlsContext = std::shared_ptr<ssl_ctx_st>;

// Builds the context; InvalidArgument names the file or key and OpenSSL's
// reason ("cert_file /etc/x.crt: no certificate (PEM: no start line)").
Status BuildTlsContext(const TlsServerConfig& config, TlsContext* out);

// OpenSSL's queued errors as one line ("" when none), the queue cleared.
std::string OpenSslErrors();

}  // namespace bottleneckd
