#include "fleet/curl_library.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace bottleneckd {
namespace {

template <typename F>
bool Bind(void* lib, const char* name, F* fn, std::string* missing) {
  *fn = reinterpret_cast<F>(::dlsym(lib, name));
  if (*fn == nullptr && missing->empty()) *missing = name;
  return *fn != nullptr;
}

Status Load(CurlLibrary* api) {
  void* lib = nullptr;
  std::string why;
  for (const char* soname : {"libcurl.so.4", "libcurl-gnutls.so.4"}) {
    lib = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) break;
    if (why.empty()) why = ::dlerror();
  }
  if (lib == nullptr) return Status::NotSupported("the fleet report needs libcurl (Debian package libcurl4): " + why);
  std::string missing;
  CURLcode (*global_init)(long) = nullptr;
  Bind(lib, "curl_global_init", &global_init, &missing);
  Bind(lib, "curl_easy_init", &api->easy_init, &missing);
  Bind(lib, "curl_easy_cleanup", &api->easy_cleanup, &missing);
  Bind(lib, "curl_easy_setopt", &api->easy_setopt, &missing);
  Bind(lib, "curl_easy_perform", &api->easy_perform, &missing);
  Bind(lib, "curl_easy_getinfo", &api->easy_getinfo, &missing);
  Bind(lib, "curl_easy_strerror", &api->easy_strerror, &missing);
  Bind(lib, "curl_easy_escape", &api->easy_escape, &missing);
  Bind(lib, "curl_free", &api->free, &missing);
  Bind(lib, "curl_slist_append", &api->slist_append, &missing);
  Bind(lib, "curl_slist_free_all", &api->slist_free_all, &missing);
  if (!missing.empty())
    return Status::NotSupported("the fleet report needs libcurl 7.85 or later: the loaded one has no " + missing);
  if (global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    return Status::IOError("libcurl could not initialise (curl_global_init)");
  return Status::OK();
}

}  // namespace

Status LoadCurl(const CurlLibrary** out) {
  static CurlLibrary api;
  static Status loaded;
  static std::once_flag once;
  std::call_once(once, [] { loaded = Load(&api); });
  if (loaded.ok()) *out = &api;
  return loaded;
}

}  // namespace bottleneckd
