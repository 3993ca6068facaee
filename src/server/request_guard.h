// RequestGuard: what the HTTP API checks before any handler runs, so that a
// web page the user visits cannot write into or read from the memory
// (docs/ARCHITECTURE.md, "A server no web page can reach"):
//  - Host must name the address the server is bound to or a loopback name
//    (localhost, 127.0.0.1, [::1]), with or without the port: a page whose
//    domain was rebound to 127.0.0.1 sends its own name and is refused (DNS
//    rebinding). A server bound to every address (0.0.0.0, ::) needs a token
//    and accepts any Host.
//  - Origin, when sent, must be a loopback origin (http or https, any port),
//    the server's own origin (the Host the request was sent to, which
//    passed the check above: the memory browser's page served off
//    loopback, where a token is required) or one of `allowed_origins`: a
//    browser sends it with every cross-site request, so a foreign page is
//    refused even for "simple" requests that need no preflight. "null" is
//    refused.
//  - A POST, PUT or PATCH must say Content-Type: application/json (any
//    parameters, e.g. charset), whether or not it has a body: text/plain
//    and form posts, which a page can send without a preflight, are
//    refused.
// A refusal carries the HTTP status (403, or 415 for the body) and a message
// that names the header. Pure functions, thread-safe.
#ifndef ENGRAM_SRC_SERVER_REQUEST_GUARD_H_
#define ENGRAM_SRC_SERVER_REQUEST_GUARD_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

struct GuardRefusal {
  int http_status = 403;
  std::string code;  // "forbidden" or "unsupported_media_type"
  std::string message;
};

struct RequestGuardOptions {
  std::string bound_host;  // ServerOptions::host
  // Origins allowed besides loopback ones, exactly as browsers send them
  // ("https://app.example.com"); from server.allowed_origins.
  std::vector<std::string> allowed_origins;
};

// Splits "a, b,c" into {"a", "b", "c"} (server.allowed_origins).
std::vector<std::string> SplitOriginList(std::string_view list);

// `host`, `origin` and `content_type` are the header values, empty when
// absent; `method` the request's. CheckOrigin's `host` must have passed
// CheckHost.
std::optional<GuardRefusal> CheckHost(std::string_view host, const RequestGuardOptions& options);
std::optional<GuardRefusal> CheckOrigin(std::string_view origin, std::string_view host,
                                        const RequestGuardOptions& options);
std::optional<GuardRefusal> CheckContentType(std::string_view method,
                                             std::string_view content_type);

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_REQUEST_GUARD_H_
