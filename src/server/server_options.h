// ServerOptions: what `engram serve` and `engram mcp` take besides the
// engine's own options (src/config fills them from the server.* keys).
#ifndef ENGRAM_SRC_SERVER_SERVER_OPTIONS_H_
#define ENGRAM_SRC_SERVER_SERVER_OPTIONS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace engram {

// Limits on what one request may ask; a request over one is refused with
// an error that names the field (HTTP 400, or 413 for the body).
struct RequestLimits {
  // Largest request body in bytes; default 8 MiB (a batch of facts of the
  // default 1 MiB limit each still fits a few; raise it for bulk loads).
  size_t max_body_bytes = 8 << 20;
  // Most facts in one add; default 1000 (one transaction each).
  size_t max_batch = 1000;
  // Largest search query in bytes; default 8192 (a query is a question,
  // not a document; longer ones cost analysis time for nothing).
  size_t max_query_bytes = 8192;
  // Most results of one search or list; default 1000.
  size_t max_results = 1000;
  // Longest scope name in bytes; default 256.
  size_t max_scope_bytes = 256;
};

struct ServerOptions {
  // Address to listen on; default 127.0.0.1. Any address but 127.0.0.1,
  // ::1 or localhost needs `token`.
  std::string host = "127.0.0.1";
  // TCP port; default 7411; 0 picks a free one (tests).
  int port = 7411;
  // Bearer token every request must carry when set; default none. A
  // secret: never logged or printed.
  std::string token;
  // Threads serving connections; default 64. Each keep-alive connection
  // holds one while it is open, so this bounds concurrent clients.
  int threads = 64;
  // Longest wait for the next bytes of a request, in ms; default 10000. It
  // bounds each read; header_timeout_ms bounds the whole request.
  int read_timeout_ms = 10000;
  // Time an idle keep-alive connection stays open, in ms; default 5000.
  int keep_alive_timeout_ms = 5000;
  // Time a connection has to send a request's headers, from when it opens
  // or from its last answer, in ms; default 5000. A body gets this plus
  // its length at 64 KiB/s. Slower connections are closed, and while
  // connections queue for a thread, those waiting over 1 s are closed to
  // make room (src/server/connection_watchdog.h).
  int header_timeout_ms = 5000;
  // Browser origins allowed to call the API besides loopback pages,
  // comma-separated, exactly as sent ("https://app.example.com"); default
  // none. Requests from any other Origin get 403 (src/server/request_guard.h).
  std::string allowed_origins;
  RequestLimits limits;
  // The scope MCP sessions over HTTP (/mcp) are bound to, and the scopes
  // they may also read (src/server/mcp_tools.h, McpScopes); default none:
  // a session is bound by its URL (/mcp?scope=NAME&read_scope=OTHER), or
  // to no scope at all.
  std::string mcp_scope;
  std::vector<std::string> mcp_read_scopes;
};

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_SERVER_OPTIONS_H_
