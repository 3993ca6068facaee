// CurlTransport: HttpTransport on libcurl. TLS peer and host verification
// stay on; the proxy variables libcurl knows (http_proxy, https_proxy,
// HTTPS_PROXY, all_proxy, no_proxy) are honoured; redirects are not
// followed; only http and https URLs are accepted. Headers go out as given:
// libcurl adds no Content-Type or "Expect: 100-continue" of its own, and a
// header with a line break is refused (InvalidArgument). One easy handle per
// call, so calls from several threads are independent.
#ifndef ENGRAM_SRC_HTTP_CURL_TRANSPORT_H_
#define ENGRAM_SRC_HTTP_CURL_TRANSPORT_H_

#include <memory>

#include "src/http/http_transport.h"

namespace engram {

// The process's libcurl transport (libcurl is loaded and initialised when
// the first request is sent: src/http/curl_api.h).
std::shared_ptr<const HttpTransport> CurlTransport();

}  // namespace engram

#endif  // ENGRAM_SRC_HTTP_CURL_TRANSPORT_H_
