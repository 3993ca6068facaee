// McpServer: engram as a Model Context Protocol server on stdio.
//
// JSON-RPC 2.0: Handle answers one message (the Streamable HTTP transport
// of src/server/http_server.h calls it per POST); Serve reads one message
// per line (the stdio transport). Methods:
// `initialize` (the protocol version is negotiated: the client's when this
// server speaks it, else the newest this server speaks), `ping`,
// `tools/list`, `tools/call`; notifications, and responses from the client,
// are read and not answered.
// Tools: memory_search, memory_add, memory_forget, memory_list, each with
// a JSON Schema for its input, each a thin mapping onto MemoryApi.
//
// Errors follow JSON-RPC, with the request's id: -32700 for JSON that
// src/common/json_text.h refuses (the id recovered from the text when it
// shows one: MCP allows no null id, so a frame whose id cannot be read gets
// no answer), -32600 for a message that is not a request (or a line
// over limits.max_body_bytes, refused as it is read, so no more than the
// limit of it is ever held in memory),
// -32601 for an unknown method, -32602 for an unknown tool or malformed
// params, -32603 for an internal failure. Arguments the tool's schema or
// limits refuse (the message names the field) are -32602 up to protocol
// 2025-06-18 and, as 2025-11-25 says, a tool result with isError true from
// then on. A tool that runs and fails (an id that does not exist, a store
// error) answers a result with isError true. Nothing a client sends stops
// the server; it ends when its input does. A lone UTF-16 surrogate escape
// in a string (a client that cut an emoji in half) is read as U+FFFD.
//
// Thread-safety: one Serve loop per instance. Ownership: the MemoryApi
// must outlive it.
#ifndef ENGRAM_SRC_SERVER_MCP_SERVER_H_
#define ENGRAM_SRC_SERVER_MCP_SERVER_H_

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/server/mcp_tools.h"
#include "src/server/memory_api.h"

namespace engram {

// Protocol versions this server speaks, newest first.
const std::vector<std::string>& McpProtocolVersions();

// One message as read: its JSON (lone surrogates read as U+FFFD), or why
// it does not parse and the id its text shows (null when none).
struct McpFrame {
  Result<nlohmann::json> message;
  nlohmann::json id;
};
McpFrame ReadMcpFrame(std::string_view text);

class McpServer {
 public:
  // `scopes`: the scopes the host opened (src/server/mcp_tools.h).
  explicit McpServer(MemoryApi* api, McpScopes scopes = {})
      : api_(api), scopes_(std::move(scopes)) {}

  // Answers one message; nullopt when none is due (a notification, or a
  // batch of them, or a frame with no id to answer).
  std::optional<std::string> Handle(std::string_view message) {
    return Answer(ReadMcpFrame(message));
  }
  // The same for a message already read (the HTTP transport reads it first
  // to see what it is).
  std::optional<std::string> Answer(const McpFrame& frame);

  // Reads messages line by line from `in` until it ends; writes each answer
  // as one line to `out` and flushes it.
  void Serve(std::istream& in, std::ostream& out);

  // The negotiated protocol version; empty before `initialize`.
  // NOLINTNEXTLINE(readability-identifier-naming): accessor
  const std::string& protocol_version() const { return protocol_version_; }

 private:
  // One request or notification (an element of a batch included).
  std::optional<nlohmann::json> HandleOne(const nlohmann::json& message);
  Result<nlohmann::json> Dispatch(const std::string& method, const nlohmann::json& params);
  Result<nlohmann::json> Initialize(const nlohmann::json& params);
  Result<nlohmann::json> CallTool(const nlohmann::json& params);
  nlohmann::json ToolList() const;

  MemoryApi* api_;
  McpScopes scopes_;
  std::string protocol_version_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_MCP_SERVER_H_
