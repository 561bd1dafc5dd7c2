#include "exporters/http/web_security.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "base/clock.h"
#include "base/log.h"

namespace bottleneckd {
namespace {

constexpr int64_t kCheckEveryNs = 1000 * 1000 * 1000;

// A hash no password matches that costs what `cost` costs: the salt and
// digest are bcrypt's alphabet, the digest not one crypt_r computes for
// a salt of dots.
std::string DecoyHash(int cost) {
  std::string h = "$2b$";
  h += static_cast<char>('0' + cost / 10);
  h += static_cast<char>('0' + cost % 10);
  h += '$';
  h += std::string(22, '.');
  h += std::string(31, 'O');
  return h;
}

}  // namespace

std::string_view AuthFailureName(AuthFailure f) {
  switch (f) {
    case AuthFailure::kMissing: return "missing";
    case AuthFailure::kMalformed: return "malformed";
    case AuthFailure::kUnknownUser: return "unknown_user";
    case AuthFailure::kWrongPassword: return "wrong_password";
    case AuthFailure::kCount: break;
  }
  return "";
}

Status WebSecurity::Build(const std::string& path, std::shared_ptr<WebSettings>* out) {
  auto s = std::make_shared<WebSettings>();
  BN_RETURN_IF_ERROR(LoadWebConfigFile(path, &s->config));
  if (s->config.tls.Enabled()) {
    Status st = BuildTlsContext(s->config.tls, &s->tls);
    if (!st.ok()) return Status::InvalidArgument(path + ": " + st.message());
  }
  for (const auto& [name, value] : s->config.http.headers) s->headers += name + ": " + value + "\r\n";
  int cost = 4;
  for (const auto& [user, hash] : s->config.users) cost = std::max(cost, BcryptCost(hash));
  s->decoy_hash = DecoyHash(cost);
  *out = std::move(s);
  return Status::OK();
}

std::vector<WebSecurity::FileId> WebSecurity::Identify(const WebSettings& s, const std::string& path) {
  std::vector<FileId> ids;
  for (const std::string* f : {&path, &s.config.tls.cert_file, &s.config.tls.key_file, &s.config.tls.client_ca_file}) {
    FileId id;
    struct stat st;
    if (!f->empty() && ::stat(f->c_str(), &st) == 0) {
      id.dev = st.st_dev;
      id.ino = st.st_ino;
      id.size = st.st_size;
      id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    }
    ids.push_back(id);
  }
  return ids;
}

Status WebSecurity::Load(const std::string& path, std::shared_ptr<WebSecurity>* out) {
  std::shared_ptr<WebSettings> s;
  BN_RETURN_IF_ERROR(Build(path, &s));
  auto w = std::shared_ptr<WebSecurity>(new WebSecurity);
  w->path_ = path;
  w->tls_ = s->tls != nullptr;
  w->ids_ = Identify(*s, path);
  w->current_ = std::move(s);
  w->next_check_ns_ = MonotonicNanos() + kCheckEveryNs;
  *out = std::move(w);
  return Status::OK();
}

std::shared_ptr<const WebSettings> WebSecurity::Current() {
  const int64_t now = MonotonicNanos();
  if (now < next_check_ns_) return current_;
  next_check_ns_ = now + kCheckEveryNs;
  std::vector<FileId> ids = Identify(*current_, path_);
  if (ids == ids_ || ids == failed_ids_) return current_;
  std::shared_ptr<WebSettings> s;
  Status st = Build(path_, &s);
  if (st.ok() && (s->tls != nullptr) != tls_)
    st = Status::InvalidArgument(path_ + ": TLS " + (tls_ ? "off" : "on") +
                                 " takes a restart of the daemon (the listener's transport is fixed at start)");
  if (!st.ok()) {
    failed_ids_ = std::move(ids);
    {
      MutexLock l(&mu_);
      ++failed_reloads_;
    }
    Log(LogLevel::kWarn, "web config: a changed file was not taken; the previous configuration stays",
        {{"file", path_}, {"err", st.message()}});
    return current_;
  }
  ids_ = Identify(*s, path_);  // the new file may name other certificate files
  failed_ids_.clear();
  current_ = std::move(s);
  {
    MutexLock l(&mu_);
    ++reloads_;
  }
  Log(LogLevel::kInfo, "web config: reloaded", {{"file", path_}});
  return current_;
}

uint64_t WebSecurity::reloads() const {
  MutexLock l(&mu_);
  return reloads_;
}

uint64_t WebSecurity::failed_reloads() const {
  MutexLock l(&mu_);
  return failed_reloads_;
}

bool ParseBasicAuth(std::string_view header, std::string* user, std::string* password) {
  size_t i = 0;
  while (i < header.size() && header[i] == ' ') ++i;
  constexpr std::string_view kBasic = "basic";
  if (header.size() < i + kBasic.size() + 1) return false;
  for (size_t k = 0; k < kBasic.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(header[i + k])) != kBasic[k]) return false;
  i += kBasic.size();
  if (header[i] != ' ') return false;
  while (i < header.size() && header[i] == ' ') ++i;
  std::string_view b64 = header.substr(i);
  while (!b64.empty() && b64.back() == ' ') b64.remove_suffix(1);
  if (b64.empty() || b64.size() % 4 != 0 || b64.size() > 4096) return false;
  for (size_t k = 0; k < b64.size(); ++k) {
    const char c = b64[k];
    const bool pad = c == '=' && k + 2 >= b64.size();
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && !pad) return false;
  }
  std::string decoded(b64.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                                reinterpret_cast<const unsigned char*>(b64.data()), static_cast<int>(b64.size()));
  if (n < 0) return false;
  size_t len = static_cast<size_t>(n);
  // EVP_DecodeBlock counts the padding's bytes as zeros.
  if (b64.back() == '=') --len;
  if (b64.size() >= 2 && b64[b64.size() - 2] == '=') --len;
  decoded.resize(len);
  const size_t colon = decoded.find(':');
  if (colon == std::string::npos) return false;
  *user = decoded.substr(0, colon);
  *password = decoded.substr(colon + 1);
  return true;
}

AuthFailure CheckPassword(const WebSettings& settings, const std::string& user, const std::string& password) {
  const auto& users = settings.config.users;
  auto it = std::lower_bound(
      users.begin(), users.end(), user,
      [](const std::pair<std::string, std::string>& u, const std::string& name) { return u.first < name; });
  const bool known = it != users.end() && it->first == user;
  const std::string& hash = known ? it->second : settings.decoy_hash;
  crypt_data data;
  std::memset(&data, 0, sizeof(data));
  const char* got = crypt_r(password.c_str(), hash.c_str(), &data);
  const bool match = got != nullptr && got[0] != '*' && std::strlen(got) == hash.size() &&
                     CRYPTO_memcmp(got, hash.data(), hash.size()) == 0;
  if (!known) return AuthFailure::kUnknownUser;
  return match ? AuthFailure::kCount : AuthFailure::kWrongPassword;
}

std::string AuthCache::Key(const std::string& user, const std::string& password, const std::string& hash) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  for (const std::string* part : {&user, &password, &hash}) {
    EVP_DigestUpdate(ctx, part->data(), part->size());
    EVP_DigestUpdate(ctx, "", 1);  // a separator: ("ab", "c") is not ("a", "bc")
  }
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx, digest, &len);
  EVP_MD_CTX_free(ctx);
  return std::string(reinterpret_cast<const char*>(digest), len);
}

bool AuthCache::Contains(const std::string& user, const std::string& password, const std::string& hash) {
  auto it = entries_.find(Key(user, password, hash));
  if (it == entries_.end()) return false;
  order_.splice(order_.begin(), order_, it->second);
  return true;
}

void AuthCache::Insert(const std::string& user, const std::string& password, const std::string& hash) {
  std::string key = Key(user, password, hash);
  if (auto it = entries_.find(key); it != entries_.end()) {
    order_.splice(order_.begin(), order_, it->second);
    return;
  }
  order_.push_front(key);
  entries_.emplace(std::move(key), order_.begin());
  if (entries_.size() > capacity_) {
    entries_.erase(order_.back());
    order_.pop_back();
  }
}

}  // namespace bottleneckd
