// McpHttpTransport: MCP's Streamable HTTP transport (specification
// 2025-06-18 and 2025-11-25, "Transports") over McpServer, for `engram
// serve` at /mcp. Transport logic only: HttpServer hands it each request's
// method, headers and body and sends what it answers; Origin, Host and the
// bearer token are checked before, as for the REST API.
//
//   POST   a JSON-RPC message. An `initialize` request without a session
//          starts one: the answer carries its id in Mcp-Session-Id, and
//          every later request must send it back (400 without it, 404 for
//          an id that is unknown or ended, after which the client starts
//          again). A request is answered with application/json; a
//          notification or a response is accepted with 202 and no body.
//          An MCP-Protocol-Version header naming a version this server
//          does not speak is 400.
//   GET    405: this server sends nothing unasked, so it opens no stream.
//   DELETE ends the session named by Mcp-Session-Id.
//
// Each session has its own McpServer (its negotiated protocol version) and
// the scopes fixed when it started; the oldest idle session is ended when
// more than `max_sessions` are open. Session ids are 128 random bits.
//
// Thread-safety: Handle may be called from many threads; the calls of one
// session run one at a time. Ownership: the MemoryApi must outlive it.
#ifndef ENGRAM_SRC_SERVER_MCP_HTTP_H_
#define ENGRAM_SRC_SERVER_MCP_HTTP_H_

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "src/server/mcp_server.h"
#include "src/server/memory_api.h"

namespace engram {

struct McpHttpRequest {
  std::string method;            // "POST", "GET", "DELETE", ...
  std::string session_id;        // Mcp-Session-Id; empty when absent
  std::string protocol_version;  // MCP-Protocol-Version; empty when absent
  std::string body;
  // The scopes a new session is bound to (src/server/mcp_tools.h).
  McpScopes scopes;
};

struct McpHttpAnswer {
  int status = 200;
  std::string body;          // empty: none
  std::string content_type;  // of the body
  std::string session_id;    // to send as Mcp-Session-Id; empty: none
  std::string allow;         // the Allow header of a 405
};

class McpHttpTransport {
 public:
  explicit McpHttpTransport(MemoryApi* api, size_t max_sessions = 1024)
      : api_(api), max_sessions_(max_sessions) {}

  McpHttpAnswer Handle(const McpHttpRequest& request);

  // Sessions open now.
  size_t sessions() const;  // NOLINT(readability-identifier-naming): accessor

 private:
  struct Session {
    explicit Session(MemoryApi* api, McpScopes scopes) : server(api, std::move(scopes)) {}
    std::mutex mu;  // one call of the session at a time
    McpServer server;
    std::chrono::steady_clock::time_point last_used;
  };

  McpHttpAnswer Post(const McpHttpRequest& request);
  std::shared_ptr<Session> Find(const std::string& id);
  std::string Open(const McpScopes& scopes, std::shared_ptr<Session>* session);

  MemoryApi* api_;
  size_t max_sessions_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Session>> sessions_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_MCP_HTTP_H_
