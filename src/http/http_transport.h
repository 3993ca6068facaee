// HttpTransport: the seam for the network. One request out, one response
// back, no retries (HttpClient adds them). The production transport is
// libcurl (curl_transport.h); unit tests may put a fake behind this seam,
// integration tests talk to a real server on 127.0.0.1.
//
// Thread-safety: Send may be called from several threads at once.
#ifndef ENGRAM_SRC_HTTP_HTTP_TRANSPORT_H_
#define ENGRAM_SRC_HTTP_HTTP_TRANSPORT_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/status.h"

namespace engram {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// The value of the first header named `name` (case-insensitive).
std::optional<std::string> FindHeader(const HttpHeaders& headers, std::string_view name);

struct HttpRequest {
  std::string method = "POST";
  std::string url;  // absolute: scheme://host[:port]/path[?query]
  HttpHeaders headers;
  std::string body;
  // Values that must never appear in a log line or an error: API keys,
  // tokens, signatures. Whoever adds a secret to the request adds it here.
  std::vector<std::string> secrets;
};

struct HttpResponse {
  int status = 0;  // HTTP status code
  HttpHeaders headers;
  std::string body;
};

struct HttpTimeouts {
  int connect_ms = 5000;  // to establish the connection; default 5,000
  int total_ms = 30000;   // for the whole exchange; default 30,000
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Any answer from the server, whatever its status code, is a response.
  // Errors: Unavailable when no answer came (refused, reset, DNS, TLS);
  // DeadlineExceeded when a timeout fired; InvalidArgument for a malformed
  // URL. Messages carry none of the request's secrets.
  virtual Result<HttpResponse> Send(const HttpRequest& request,
                                    const HttpTimeouts& timeouts) const = 0;
};

}  // namespace engram

#endif  // ENGRAM_SRC_HTTP_HTTP_TRANSPORT_H_
