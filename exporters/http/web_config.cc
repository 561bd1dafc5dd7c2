#include "exporters/http/web_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "base/config_fields.h"
#include "base/config_reader.h"

namespace bottleneckd {
namespace {

struct Named {
  std::string_view name;
  uint16_t value;
};
constexpr std::array<Named, 4> kVersions = {
    {{"TLS10", 0x0301}, {"TLS11", 0x0302}, {"TLS12", 0x0303}, {"TLS13", 0x0304}}};
constexpr std::array<std::string_view, 4> kCurves = {"CurveP256", "CurveP384", "CurveP521", "X25519"};

struct Policy {
  std::string_view name;
  ClientAuth value;
};
constexpr std::array<Policy, 6> kPolicies = {{
    {"NoClientCert", ClientAuth::kNoClientCert},
    {"RequestClientCert", ClientAuth::kRequestClientCert},
    {"RequireAnyClientCert", ClientAuth::kRequireAnyClientCert},
    {"RequireClientCert", ClientAuth::kRequireAnyClientCert},  // the toolkit's older name
    {"VerifyClientCertIfGiven", ClientAuth::kVerifyClientCertIfGiven},
    {"RequireAndVerifyClientCert", ClientAuth::kRequireAndVerifyClientCert},
}};

// The headers the toolkit lets a file set, and the values it allows ({} any).
struct HeaderRule {
  std::string_view name;
  std::array<std::string_view, 2> values;
};
constexpr std::array<HeaderRule, 5> kHeaders = {{
    {"Strict-Transport-Security", {}},
    {"X-Content-Type-Options", {"nosniff", ""}},
    {"X-Frame-Options", {"deny", "sameorigin"}},
    {"X-XSS-Protection", {}},
    {"Content-Security-Policy", {}},
}};

// Keys of later exporter-toolkit releases than node_exporter 1.5.0's.
Status LaterKey(const ConfigReader& r, const YAML::Node& section, std::string_view what,
                std::initializer_list<std::string_view> keys) {
  if (!section.IsMap()) return Status::OK();
  for (const auto& kv : section) {
    const std::string key = kv.first.Scalar();
    if (std::find(keys.begin(), keys.end(), key) != keys.end())
      return At(r.file(), kv.first.Mark(),
                std::string(what) + key +
                    " is a key of later exporter-toolkit releases, not of the format bottleneckd reads "
                    "(node_exporter 1.5.0's, Debian 12; docs/web-config.md)");
  }
  return Status::OK();
}

Status Scalar(const ConfigReader& r, const YAML::Node& v, std::string_view key, std::string* out) {
  if (!v.IsScalar()) return At(r.file(), v.Mark(), std::string(key) + " must be a string");
  *out = v.Scalar();
  return Status::OK();
}

Status Version(const ConfigReader& r, const YAML::Node& v, std::string_view key, uint16_t* out) {
  std::string s;
  BN_RETURN_IF_ERROR(Scalar(r, v, key, &s));
  for (const Named& n : kVersions)
    if (n.name == s) {
      *out = n.value;
      return Status::OK();
    }
  return At(r.file(), v.Mark(), std::string(key) + " must be TLS10, TLS11, TLS12 or TLS13, got '" + s + "'");
}

Status ParseTls(const ConfigReader& r, const YAML::Node& n, TlsServerConfig* t) {
  BN_RETURN_IF_ERROR(LaterKey(r, n, "tls_server_config.", {"cert", "key", "client_ca", "client_allowed_sans"}));
  static const FieldTable<TlsServerConfig> kTls = {
      LineField("cert_file", &TlsServerConfig::cert_file),
      LineField("key_file", &TlsServerConfig::key_file),
      CustomField<TlsServerConfig>("client_auth_type",
                                   [](const ConfigReader& r, const YAML::Node& v, TlsServerConfig* t) {
                                     std::string s;
                                     BN_RETURN_IF_ERROR(Scalar(r, v, "client_auth_type", &s));
                                     for (const Policy& p : kPolicies)
                                       if (p.name == s) {
                                         t->client_auth = p.value;
                                         t->client_auth_name = s;
                                         return Status::OK();
                                       }
                                     return At(r.file(), v.Mark(),
                                               "client_auth_type must be NoClientCert, RequestClientCert, "
                                               "RequireAnyClientCert, VerifyClientCertIfGiven or "
                                               "RequireAndVerifyClientCert, got '" +
                                                   s + "'");
                                   }),
      LineField("client_ca_file", &TlsServerConfig::client_ca_file),
      NamesField("cipher_suites", &TlsServerConfig::cipher_suites),
      CustomField<TlsServerConfig>("curve_preferences",
                                   [](const ConfigReader& r, const YAML::Node& v, TlsServerConfig* t) {
                                     if (v.IsNull()) return Status::OK();
                                     if (!v.IsSequence())
                                       return At(r.file(), v.Mark(), "curve_preferences must be a list of curves");
                                     BN_RETURN_IF_ERROR(r.ListSize(v, "curve_preferences"));
                                     t->curve_preferences.clear();
                                     for (const auto& item : v) {
                                       const std::string s = item.IsScalar() ? item.Scalar() : "";
                                       if (std::find(kCurves.begin(), kCurves.end(), s) == kCurves.end())
                                         return At(r.file(), item.Mark(),
                                                   "unknown curve '" + s +
                                                       "' (known: CurveP256, CurveP384, CurveP521, X25519)");
                                       t->curve_preferences.push_back(s);
                                     }
                                     return Status::OK();
                                   }),
      CustomField<TlsServerConfig>("min_version",
                                   [](const ConfigReader& r, const YAML::Node& v, TlsServerConfig* t) {
                                     return Version(r, v, "min_version", &t->min_version);
                                   }),
      CustomField<TlsServerConfig>("max_version",
                                   [](const ConfigReader& r, const YAML::Node& v, TlsServerConfig* t) {
                                     return Version(r, v, "max_version", &t->max_version);
                                   }),
      BoolField("prefer_server_cipher_suites", &TlsServerConfig::prefer_server_cipher_suites),
  };
  BN_RETURN_IF_ERROR(kTls.Parse(r, n, "tls_server_config", t));
  if (!t->Enabled()) return Status::OK();
  const YAML::Mark at = n.Mark();
  if (t->cert_file.empty()) return At(r.file(), at, "tls_server_config: cert_file is missing (key_file needs it)");
  if (t->key_file.empty()) return At(r.file(), at, "tls_server_config: key_file is missing (cert_file needs it)");
  if (t->min_version > t->max_version)
    return At(r.file(), at,
              "tls_server_config: min_version " + std::string(TlsVersionName(t->min_version)) +
                  " is above max_version " + std::string(TlsVersionName(t->max_version)));
  const bool asks = t->client_auth != ClientAuth::kNoClientCert;
  const bool verifies = t->client_auth == ClientAuth::kVerifyClientCertIfGiven ||
                        t->client_auth == ClientAuth::kRequireAndVerifyClientCert;
  if (!t->client_ca_file.empty() && !asks)
    return At(r.file(), at,
              "tls_server_config: client_ca_file is set but client_auth_type asks for no certificate "
              "(the toolkit's \"client CA's have been configured without a Client Auth Policy\")");
  if (verifies && t->client_ca_file.empty())
    return At(r.file(), at,
              "tls_server_config: client_auth_type " + t->client_auth_name +
                  " verifies client certificates: client_ca_file names the CAs it trusts");
  return Status::OK();
}

Status ParseHttp(const ConfigReader& r, const YAML::Node& n, HttpServerConfig* h) {
  static const FieldTable<HttpServerConfig> kHttp = {
      BoolField("http2", &HttpServerConfig::http2),
      CustomField<HttpServerConfig>(
          "headers",
          [](const ConfigReader& r, const YAML::Node& v, HttpServerConfig* h) {
            if (v.IsNull()) return Status::OK();
            if (!v.IsMap()) return At(r.file(), v.Mark(), "headers must be a mapping of header names to values");
            h->headers.clear();
            for (const auto& kv : v) {
              const std::string name = kv.first.Scalar();
              const HeaderRule* rule = nullptr;
              for (const HeaderRule& hr : kHeaders)
                if (hr.name == name) rule = &hr;
              if (rule == nullptr)
                return At(r.file(), kv.first.Mark(),
                          "HTTP header '" + name +
                              "' can not be configured (known: Strict-Transport-Security, X-Content-Type-Options, "
                              "X-Frame-Options, X-XSS-Protection, Content-Security-Policy)");
              std::string value;
              BN_RETURN_IF_ERROR(Scalar(r, kv.second, name, &value));
              for (char ch : value)
                if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
                  return At(r.file(), kv.second.Mark(), name + ": a control byte in the value");
              if (!rule->values[0].empty() &&
                  std::find(rule->values.begin(), rule->values.end(), value) == rule->values.end()) {
                std::string allowed;
                for (std::string_view a : rule->values)
                  if (!a.empty()) allowed += (allowed.empty() ? "" : ", ") + std::string(a);
                return At(r.file(), kv.second.Mark(),
                          "invalid value for " + name + ": expected one of " + allowed + ", got '" + value + "'");
              }
              h->headers.emplace_back(name, value);
            }
            return Status::OK();
          }),
  };
  return kHttp.Parse(r, n, "http_server_config", h);
}

Status ParseUsers(const ConfigReader& r, const YAML::Node& n, WebConfig* c) {
  if (n.IsNull()) return Status::OK();
  if (!n.IsMap()) return At(r.file(), n.Mark(), "basic_auth_users must be a mapping of user names to bcrypt hashes");
  BN_RETURN_IF_ERROR(r.ListSize(n, "basic_auth_users"));
  for (const auto& kv : n) {
    const std::string user = kv.first.Scalar();
    if (user.empty() || user.find(':') != std::string::npos)
      return At(r.file(), kv.first.Mark(), "basic_auth_users: a user name must be non-empty and hold no ':'");
    std::string hash;
    BN_RETURN_IF_ERROR(Scalar(r, kv.second, user, &hash));
    const int cost = BcryptCost(hash);
    if (cost < 0)
      return At(r.file(), kv.second.Mark(),
                "basic_auth_users: " + user + "'s password must be a bcrypt hash ($2a$, $2b$ or $2y$, 60 characters)");
    if (cost > kMaxBcryptCost)
      return At(r.file(), kv.second.Mark(),
                "basic_auth_users: " + user + "'s bcrypt cost " + std::to_string(cost) + " is over " +
                    std::to_string(kMaxBcryptCost) + " (each uncached scrape would wait for it)");
    c->users.emplace_back(user, hash);
  }
  std::sort(c->users.begin(), c->users.end());
  return Status::OK();
}

std::string JoinDir(std::string_view file, const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  const size_t slash = file.rfind('/');
  if (slash == std::string_view::npos) return path;
  return std::string(file.substr(0, slash + 1)) + path;
}

}  // namespace

bool TlsServerConfig::Enabled() const {
  return !cert_file.empty() || !key_file.empty() || !client_ca_file.empty() || client_auth != ClientAuth::kNoClientCert;
}

std::string_view TlsVersionName(uint16_t version) {
  for (const Named& n : kVersions)
    if (n.value == version) return n.name;
  return "";
}

int BcryptCost(std::string_view hash) {
  // $2b$NN$ then 22 characters of salt and 31 of hash, from bcrypt's alphabet.
  if (hash.size() != 60 || hash.substr(0, 2) != "$2" || hash[3] != '$' || hash[6] != '$') return -1;
  if (hash[2] != 'a' && hash[2] != 'b' && hash[2] != 'y') return -1;
  if (!std::isdigit(static_cast<unsigned char>(hash[4])) || !std::isdigit(static_cast<unsigned char>(hash[5])))
    return -1;
  for (char ch : hash.substr(7))
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '/') return -1;
  const int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
  return cost >= 4 && cost <= 31 ? cost : -1;
}

Status ParseWebConfig(std::string_view yaml, std::string_view filename, WebConfig* out) {
  if (yaml.size() > kMaxWebConfigBytes) return ConfigTooLarge(filename, "web config", yaml.size(), kMaxWebConfigBytes);
  YAML::Node root;
  BN_RETURN_IF_ERROR(LoadYaml(yaml, filename, &root));
  ConfigReader r(filename, yaml);
  WebConfig c;
  c.file = std::string(filename);
  try {
    if (!root.IsNull()) {
      BN_RETURN_IF_ERROR(r.UniqueKeys(root));
      BN_RETURN_IF_ERROR(LaterKey(r, root, "", {"rate_limit"}));
      static const FieldTable<WebConfig> kTop = {
          CustomField<WebConfig>("tls_server_config", [](const ConfigReader& r, const YAML::Node& v,
                                                         WebConfig* c) { return ParseTls(r, v, &c->tls); }),
          CustomField<WebConfig>("http_server_config", [](const ConfigReader& r, const YAML::Node& v,
                                                          WebConfig* c) { return ParseHttp(r, v, &c->http); }),
          CustomField<WebConfig>("basic_auth_users", ParseUsers),
      };
      BN_RETURN_IF_ERROR(kTop.Parse(r, root, "the web config", &c));
    }
  } catch (const YAML::Exception& e) {
    return At(filename, e.mark, e.msg);
  }
  c.tls.cert_file = JoinDir(filename, c.tls.cert_file);
  c.tls.key_file = JoinDir(filename, c.tls.key_file);
  c.tls.client_ca_file = JoinDir(filename, c.tls.client_ca_file);
  *out = std::move(c);
  return Status::OK();
}

Status LoadWebConfigFile(const std::string& path, WebConfig* out) {
  std::string text;
  BN_RETURN_IF_ERROR(ReadConfigText(path, "web config", kMaxWebConfigBytes, &text));
  return ParseWebConfig(text, path, out);
}

}  // namespace bottleneckd
