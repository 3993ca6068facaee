#include "src/server/mcp_http.h"

#include <algorithm>
#include <random>

#include "src/common/json_text.h"

namespace engram {
namespace {

using nlohmann::json;

McpHttpAnswer JsonAnswer(int status, const json& body) {
  return McpHttpAnswer{status, DumpJson(body), "application/json", "", ""};
}

// A JSON-RPC error the transport answers itself; `id` null when the
// request's cannot be known (HTTP's status then tells the client).
McpHttpAnswer RpcError(int status, const json& id, int code, const std::string& message) {
  json body = {{"jsonrpc", "2.0"}, {"error", {{"code", code}, {"message", message}}}};
  if (!id.is_null()) body["id"] = id;
  return JsonAnswer(status, body);
}

std::string NewSessionId() {
  std::random_device random;
  std::string id;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 4; ++i) {
    uint32_t word = random();
    for (int j = 0; j < 8; ++j, word >>= 4) id += kHex[word & 0xf];
  }
  return id;
}

bool IsRequest(const json& message) {
  return message.is_object() && message.contains("method") && message.contains("id");
}

bool IsInitialize(const json& message) {
  return IsRequest(message) && message["method"] == "initialize";
}

}  // namespace

size_t McpHttpTransport::sessions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.size();
}

McpHttpAnswer McpHttpTransport::Handle(const McpHttpRequest& request) {
  if (request.method == "POST") return Post(request);
  if (request.method == "DELETE") {
    if (request.session_id.empty()) {
      return RpcError(400, nullptr, -32600, "Bad Request: DELETE needs an Mcp-Session-Id header");
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (sessions_.erase(request.session_id) == 0) {
      return RpcError(404, nullptr, -32001, "Session not found");
    }
    return McpHttpAnswer{200, "", "", "", ""};
  }
  McpHttpAnswer answer =
      RpcError(405, nullptr, -32000,
               "Method Not Allowed: this server opens no event stream; POST messages to /mcp");
  answer.allow = "POST, DELETE";
  return answer;
}

McpHttpAnswer McpHttpTransport::Post(const McpHttpRequest& request) {
  const auto& versions = McpProtocolVersions();
  if (!request.protocol_version.empty() &&
      std::find(versions.begin(), versions.end(), request.protocol_version) == versions.end()) {
    return RpcError(400, nullptr, -32600,
                    "Bad Request: MCP-Protocol-Version '" + request.protocol_version +
                        "' is not one this server speaks (" + versions.front() + " and older)");
  }
  // What the message is decides what the transport does with it; one that
  // does not parse goes to the server, which answers the id it shows.
  const McpFrame frame = ReadMcpFrame(request.body);
  const json message = frame.message.ok() ? *frame.message : json();
  const json id = IsRequest(message) ? message["id"] : json();
  std::shared_ptr<Session> session;
  std::string new_id;
  if (request.session_id.empty()) {
    if (!IsInitialize(message)) {
      return RpcError(400, id, -32600,
                      "Bad Request: no Mcp-Session-Id header; start a session with initialize");
    }
    new_id = Open(request.scopes, &session);
  } else {
    session = Find(request.session_id);
    if (session == nullptr) {
      return RpcError(404, id, -32001,
                      "Session not found: it ended or never began; initialize again");
    }
  }
  std::optional<std::string> reply;
  {
    std::lock_guard<std::mutex> lock(session->mu);
    session->last_used = std::chrono::steady_clock::now();
    reply = session->server.Answer(frame);
  }
  if (!reply) {
    // A notification or a response: accepted. A frame with no id to
    // answer: refused, so the client is not left waiting.
    if (frame.message.ok()) return McpHttpAnswer{202, "", "", "", ""};
    return RpcError(400, nullptr, -32700, frame.message.status().message());
  }
  McpHttpAnswer answer{200, std::move(*reply), "application/json", new_id, ""};
  return answer;
}

std::shared_ptr<McpHttpTransport::Session> McpHttpTransport::Find(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

std::string McpHttpTransport::Open(const McpScopes& scopes, std::shared_ptr<Session>* session) {
  auto made = std::make_shared<Session>(api_, scopes);
  made->last_used = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  while (sessions_.size() >= max_sessions_ && !sessions_.empty()) {
    auto oldest = sessions_.begin();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
      if (it->second->last_used < oldest->second->last_used) oldest = it;
    }
    sessions_.erase(oldest);
  }
  std::string id = NewSessionId();
  while (sessions_.count(id) > 0) id = NewSessionId();
  sessions_[id] = made;
  *session = std::move(made);
  return id;
}

}  // namespace engram
