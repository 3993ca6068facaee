#include "src/http/curl_api.h"

#include "src/common/shared_library.h"

namespace engram {
namespace {

// libcurl's ABI name since 7.16 and Debian's package of it.
constexpr char kCurlSoname[] = "libcurl.so.4";
constexpr char kCurlPackage[] = "libcurl4";

Result<CurlApi> LoadCurl() {
  ENGRAM_ASSIGN_OR_RETURN(SharedLibrary library, SharedLibrary::Open(kCurlSoname, kCurlPackage));
  CurlApi api;
  ENGRAM_RETURN_IF_ERROR(library.Find("curl_global_init", &api.global_init));
  ENGRAM_RETURN_IF_ERROR(library.Find("curl_easy_init", &api.easy_init));
  ENGRAM_RETURN_IF_ERROR(library.Find("curl_easy_setopt", &api.easy_setopt));
  ENGRAM_RETURN_IF_ERROR(library.Find("curl_easy_perform", &api.easy_perform));
  ENGRAM_RETURN_IF_ERROR(library.Find("curl_easy_getinfo", &api.easy_getinfo));
  ENGRAM_RETURN_IF_ERROR(library.Find("curl_easy_cleanup", &api.easy_cleanup));
  ENGRAM_RETURN_IF_ERROR(library.Find("curl_easy_strerror", &api.easy_strerror));
  ENGRAM_RETURN_IF_ERROR(library.Find("curl_slist_append", &api.slist_append));
  ENGRAM_RETURN_IF_ERROR(library.Find("curl_slist_free_all", &api.slist_free_all));
  // Never cleaned up: libcurl stays initialised for the life of the process.
  if (const CURLcode code = api.global_init(CURL_GLOBAL_DEFAULT); code != CURLE_OK) {
    return Internal(std::string("libcurl init: ") + api.easy_strerror(code));
  }
  return api;
}

}  // namespace

Result<const CurlApi*> Curl() { return LoadedOnce<CurlApi, LoadCurl>(); }

}  // namespace engram
