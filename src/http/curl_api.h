// libcurl's functions, looked up when the first HTTP request is made
// (src/common/shared_library.h says why): a process that talks to no
// provider never loads libcurl. curl_global_init has run once when the
// table is returned.
#ifndef ENGRAM_SRC_HTTP_CURL_API_H_
#define ENGRAM_SRC_HTTP_CURL_API_H_

#include <curl/curl.h>

#include "engram/status.h"

namespace engram {

struct CurlApi {
  decltype(&::curl_global_init) global_init = nullptr;
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_setopt) easy_setopt = nullptr;
  decltype(&::curl_easy_perform) easy_perform = nullptr;
  decltype(&::curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&::curl_easy_strerror) easy_strerror = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
};

// The process's table, loaded and initialised on the first call; the same
// error on every call when libcurl cannot be loaded or initialised (named,
// with the package to install).
Result<const CurlApi*> Curl();

}  // namespace engram

#endif  // ENGRAM_SRC_HTTP_CURL_API_H_
