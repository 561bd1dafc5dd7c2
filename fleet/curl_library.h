// libcurl, loaded (dlopen) when the fleet report first needs it rather than
// linked: the daemon never makes an HTTP request, and linking libcurl mapped
// its TLS, Kerberos and LDAP libraries into every daemon, 4.6 MB of its
// 21.5 MB resident at start on this VM (docs/performance-history.md "RSS"). Only the
// functions prom_client.cc calls, with libcurl's own signatures.
#pragma once

#include <curl/curl.h>

#include "base/status.h"

namespace bottleneckd {

struct CurlLibrary {
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL*);
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  const char* (*easy_strerror)(CURLcode);
  char* (*easy_escape)(CURL*, const char*, int);
  void (*free)(void*);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

// libcurl.so.4 (Debian libcurl4; libcurl-gnutls.so.4 of libcurl3-gnutls
// when that is all there is), loaded and curl_global_init'ed once per
// process; *out stays valid until exit. NotSupported when neither loads or a
// function is missing, saying which and what to install. Thread-safe.
Status LoadCurl(const CurlLibrary** out);

}  // namespace bottleneckd
