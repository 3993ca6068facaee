// HttpServer: the JSON API of `engram serve` over HTTP/1.1 (cpp-httplib).
//
//   POST   /v1/facts        add one fact or a batch      201 when one is new, else 200
//   GET    /v1/facts        list (scope, tag, kind, limit, offset as query parameters)
//   GET    /v1/facts/{id}   one fact (?scope=)
//   DELETE /v1/facts/{id}   forget it (?scope=, ?history=restore|delete)
//   PUT    /v1/facts/{id}   update: a new version, the old one kept (POST too)
//   GET    /v1/facts/{id}/history  every version, oldest first
//   POST   /v1/search       {query, k, scope, mode, explain, record, hyde}
//   GET    /v1/export       every fact of ?scope= (repeatable), every version, as
//                           the JSONL `engram export` writes
//   GET    /v1/config       settings with their sources, store counts
//   POST   /v1/reload       resolve the configuration again and put it in force
//   GET    /healthz         {status: "ok"}
//   POST   /mcp             MCP over Streamable HTTP (src/server/mcp_http.h);
//   DELETE /mcp             ends a session; GET is 405
//   GET    /                the memory browser (src/server/web_assets.h), and
//   GET    /ui/{file}       its files, with a Content-Security-Policy that
//                           allows no inline script; served without the
//                           token, as they hold no memory
//
// Every answer of the API is JSON (an export is JSON lines). Errors read
// {"error": {"code", "message"}} with 400 (bad argument, or JSON that
// src/common/json_text.h refuses), 401 (missing or wrong token), 404, 405,
// 409, 411 (a chunked body: Content-Length is required), 413 (body over
// limits.max_body_bytes), 415 (a compressed body), 500 or 503. With a token
// set, every request but the page's files, /healthz included, must carry
// "Authorization: Bearer <token>"; the comparison takes the same time
// whatever the guess.
//
// Slow and idle connections: each connection holds one of `threads` while
// open; one that takes over header_timeout_ms to send a request's headers
// (or its body, at under 64 KiB/s) is closed, and while connections queue
// for a thread those idle or slow for over 1 s are closed to make room
// (src/server/connection_watchdog.h), so no number of slow clients delays
// a request by much more than a second.
//
// Thread-safety: Start and Stop from one controlling thread; requests are
// served by `threads` workers. Stop stops accepting, lets requests in
// flight finish, then returns. Ownership: the MemoryApi must outlive it.
#ifndef ENGRAM_SRC_SERVER_HTTP_SERVER_H_
#define ENGRAM_SRC_SERVER_HTTP_SERVER_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "engram/status.h"
#include "src/server/connection_watchdog.h"
#include "src/server/mcp_http.h"
#include "src/server/memory_api.h"
#include "src/server/server_options.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace engram {

class HttpServer {
 public:
  // InvalidArgument when `options.host` is not the default loopback and
  // no token is set, or an option is out of range.
  static Result<std::unique_ptr<HttpServer>> Create(MemoryApi* api, ServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds host:port and starts serving in the background. IOError when the
  // address cannot be bound (in use, not local).
  Status Start();
  // The port bound (the chosen one when options.port was 0); 0 before Start.
  int port() const { return port_; }  // NOLINT(readability-identifier-naming): accessor
  // Stops accepting connections, waits for requests in flight, returns.
  // Idempotent.
  void Stop();

 private:
  HttpServer(MemoryApi* api, ServerOptions options);
  void Route();
  // With a token set: answers 401 and returns true unless `req` carries it.
  bool Refused(const httplib::Request& req, httplib::Response& res) const;
  // The body as JSON (an error naming the byte when it is not); tells the
  // watchdog the body is in and the handler runs.
  Result<nlohmann::json> BodyJson(const httplib::Request& req);

  // Answers /mcp: the scopes from the options, else from the URL.
  void ServeMcp(const httplib::Request& req, httplib::Response& res);

  MemoryApi* api_;
  ServerOptions options_;
  McpHttpTransport mcp_;
  std::unique_ptr<httplib::Server> server_;
  std::shared_ptr<std::atomic<size_t>> queued_;  // connections waiting for a thread
  ConnectionWatchdog watchdog_;
  std::thread listener_;
  std::atomic<bool> listener_ended_{false};  // listen_after_bind returned
  int listen_fd_ = -1;                       // the listening socket, once created
  int port_ = 0;
};

// True when `host` is the loopback address the server may use without a
// token: 127.0.0.1, ::1 or localhost. Any other, 127.0.0.2 included, counts
// as reachable by others.
bool IsDefaultLoopback(const std::string& host);

// The HTTP status for an error of `code`.
int HttpStatusFor(StatusCode code);

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_HTTP_SERVER_H_
