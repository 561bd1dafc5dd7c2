// Certificates and bcrypt hashes made by the tests themselves (OpenSSL's and
// libcrypt's APIs), never committed keys: a CA, certificates it signs for
// 127.0.0.1/localhost (servers) or a client name, written as PEM files, and
// a bcrypt hash of a password at a given cost. Each key is P-256; each
// certificate valid from an hour ago for a day.
#pragma once

#include <crypt.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

namespace bottleneckd::test {

struct TestKeyPair {
  std::shared_ptr<EVP_PKEY> key;
  std::shared_ptr<X509> cert;
};

inline bool AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// A certificate for `cn`, signed by `ca` (null: self-signed, a CA). A server
// certificate names 127.0.0.1 and localhost.
inline TestKeyPair MakeTestCert(const std::string& cn, const TestKeyPair* ca, bool server, long serial = 1) {
  TestKeyPair out;
  out.key.reset(EVP_EC_gen("P-256"), EVP_PKEY_free);
  out.cert.reset(X509_new(), X509_free);
  X509* x = out.cert.get();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 24 * 3600);
  X509_set_pubkey(x, out.key.get());
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509* issuer = ca != nullptr ? ca->cert.get() : x;
  X509_set_issuer_name(x, X509_get_subject_name(issuer));
  if (ca == nullptr) {
    AddExtension(x, issuer, NID_basic_constraints, "critical,CA:TRUE");
    AddExtension(x, issuer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else if (server) {
    AddExtension(x, issuer, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
    AddExtension(x, issuer, NID_ext_key_usage, "serverAuth");
  } else {
    AddExtension(x, issuer, NID_ext_key_usage, "clientAuth");
  }
  X509_sign(x, ca != nullptr ? ca->key.get() : out.key.get(), EVP_sha256());
  return out;
}

inline bool WritePem(const std::string& path, const TestKeyPair& kp, bool key) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  const int ok = key ? PEM_write_PrivateKey(f, kp.key.get(), nullptr, nullptr, 0, nullptr, nullptr)
                     : PEM_write_X509(f, kp.cert.get());
  std::fclose(f);
  return ok == 1;
}

// A bcrypt ($2b$) hash of `password` at `cost`, from libcrypt.
inline std::string TestBcrypt(const std::string& password, int cost) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2b$", static_cast<unsigned long>(cost), nullptr, 0, salt, sizeof(salt)) == nullptr) return "";
  crypt_data data;
  std::memset(&data, 0, sizeof(data));
  const char* h = crypt_r(password.c_str(), salt, &data);
  return h != nullptr && h[0] != '*' ? h : "";
}

}  // namespace bottleneckd::test
