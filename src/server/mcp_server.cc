#include "src/server/mcp_server.h"

#include <algorithm>
#include <exception>
#include <istream>
#include <ostream>

#include "engram/version.h"
#include "src/server/api_json.h"
#include "src/server/mcp_tools.h"

namespace engram {
namespace {

using nlohmann::json;

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;

json ErrorMessage(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

// Structured tool output (structuredContent) arrived in 2025-06-18.
bool HasStructuredContent(const std::string& version) { return version >= "2025-06-18"; }

// Arguments a tool refuses became tool execution errors in 2025-11-25.
bool ArgumentErrorsAreToolErrors(const std::string& version) { return version >= "2025-11-25"; }

// Reads one line of `in` (without its newline) into `*line`, keeping at
// most `limit` bytes in memory (the line's first ones, where its id
// usually is): the bytes past it are counted into `*bytes` and dropped. False at the end of input
// with nothing read.
bool ReadBoundedLine(std::istream& in, size_t limit, std::string* line, size_t* bytes) {
  line->clear();
  *bytes = 0;
  std::streambuf* buf = in.rdbuf();
  bool any = false;
  for (int c = buf->sbumpc(); c != std::char_traits<char>::eof(); c = buf->sbumpc()) {
    any = true;
    if (c == '\n') return true;
    if (++*bytes <= limit) line->push_back(static_cast<char>(c));
  }
  in.setstate(std::ios::eofbit);
  return any;
}

// The top-level "id" of a frame that does not parse, when its text shows
// one (a string or a number); null otherwise. Scans the top-level object's
// members, skipping strings and nested values, without building anything.
json RecoverId(std::string_view text) {
  size_t depth = 0;
  bool expect_key = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      size_t end = i + 1;
      while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
      if (end >= text.size()) return nullptr;
      const std::string_view key = text.substr(i, end - i + 1);
      i = end;
      if (depth != 1 || !expect_key) continue;
      expect_key = false;
      if (key != "\"id\"") continue;
      size_t at = text.find_first_not_of(" \t\r\n", end + 1);
      if (at == std::string_view::npos || text[at] != ':') return nullptr;
      at = text.find_first_not_of(" \t\r\n", at + 1);
      if (at == std::string_view::npos) return nullptr;
      size_t stop = at;
      if (text[at] == '"') {
        stop = at + 1;
        while (stop < text.size() && text[stop] != '"') stop += text[stop] == '\\' ? 2 : 1;
        ++stop;
      } else {
        stop = text.find_first_of(",} \t\r\n", at);
      }
      if (stop == std::string_view::npos || stop > text.size()) return nullptr;
      auto id = ParseJson(text.substr(at, stop - at), "");
      if (id.ok() && (id->is_string() || id->is_number())) return *id;
      return nullptr;
    }
    if (c == '{' || c == '[') {
      ++depth;
      expect_key = c == '{' && depth == 1;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return nullptr;
      --depth;
    } else if (c == ',' && depth == 1) {
      expect_key = true;
    }
  }
  return nullptr;
}

}  // namespace

const std::vector<std::string>& McpProtocolVersions() {
  static const std::vector<std::string> versions = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                    "2024-11-05"};
  return versions;
}

McpFrame ReadMcpFrame(std::string_view text) {
  const std::string replaced = ReplaceLoneSurrogateEscapes(text);
  McpFrame frame{ParseJson(replaced, "Parse error"), nullptr};
  if (!frame.message.ok()) frame.id = RecoverId(replaced);
  return frame;
}

std::optional<std::string> McpServer::Answer(const McpFrame& frame) {
  if (!frame.message.ok()) {
    if (frame.id.is_null()) return std::nullopt;  // MCP allows no null id: nothing to answer
    return DumpJson(ErrorMessage(frame.id, kParseError, frame.message.status().message()));
  }
  const json& parsed = *frame.message;
  if (parsed.is_array()) {
    if (parsed.empty()) return std::nullopt;  // no request in it, no id to answer
    json answers = json::array();
    for (const json& m : parsed) {
      if (auto a = HandleOne(m)) answers.push_back(std::move(*a));
    }
    if (answers.empty()) return std::nullopt;
    return DumpJson(answers);
  }
  auto answer = HandleOne(parsed);
  if (!answer) return std::nullopt;
  return DumpJson(*answer);
}

std::optional<json> McpServer::HandleOne(const json& message) {
  // A request's id is a string or a number; anything else makes it
  // invalid, and it gets no answer (MCP allows no null id).
  json id = nullptr;
  const bool has_id = message.is_object() && message.contains("id");
  // A response from the client (to a request this server never sends):
  // read, not answered.
  if (has_id && !message.contains("method") &&
      (message.contains("result") || message.contains("error"))) {
    return std::nullopt;
  }
  if (has_id && (message["id"].is_string() || message["id"].is_number())) id = message["id"];
  if (!message.is_object() || message.value("jsonrpc", json()) != "2.0" ||
      !message.contains("method") || !message["method"].is_string() || (has_id && id.is_null())) {
    if (id.is_null()) return std::nullopt;
    return ErrorMessage(id, kInvalidRequest,
                        "Invalid Request: expected a JSON-RPC 2.0 request object with "
                        "\"jsonrpc\": \"2.0\", a string \"method\" and a string or number \"id\"");
  }
  const std::string method = message["method"].get<std::string>();
  json params = message.value("params", json::object());
  if (params.is_null()) params = json::object();
  if (!has_id) return std::nullopt;  // a notification: nothing to answer
  if (!params.is_object()) {
    return ErrorMessage(id, kInvalidParams, "Invalid params: \"params\" must be an object");
  }
  Result<json> result = Internal("no answer");
  try {
    result = Dispatch(method, params);
  } catch (const std::exception& e) {
    result = Internal("Internal error: " + std::string(e.what()));
  }
  if (result.ok()) return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(*result)}};
  const StatusCode code = result.status().code();
  const int rpc_code = code == StatusCode::kNotSupported      ? kMethodNotFound
                       : code == StatusCode::kInvalidArgument ? kInvalidParams
                                                              : kInternalError;
  return ErrorMessage(id, rpc_code, result.status().message());
}

Result<json> McpServer::Dispatch(const std::string& method, const json& params) {
  if (method == "initialize") return Initialize(params);
  if (method == "ping") return json::object();
  if (method == "tools/list") return json{{"tools", ToolList()}};
  if (method == "tools/call") return CallTool(params);
  return NotSupported("Method not found: " + method);
}

Result<json> McpServer::Initialize(const json& params) {
  const auto requested = params.find("protocolVersion");
  if (requested == params.end() || !requested->is_string()) {
    return InvalidArgument("Invalid params: initialize needs a string \"protocolVersion\"");
  }
  const auto& versions = McpProtocolVersions();
  const std::string wanted = requested->get<std::string>();
  protocol_version_ = std::find(versions.begin(), versions.end(), wanted) != versions.end()
                          ? wanted
                          : versions.front();
  return json{{"protocolVersion", protocol_version_},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"serverInfo", {{"name", "engram"}, {"version", ENGRAM_VERSION_STRING}}},
              {"instructions",
               "engram is a long-term memory. Call memory_search before answering questions "
               "that may depend on what the user said or decided before; call memory_add to "
               "keep a short fact, lesson or preference worth remembering, and memory_update "
               "when one has changed. An empty search means nothing stored matches."}};
}

json McpServer::ToolList() const {
  return McpToolDefinitions(api_->limits(), scopes_, HasStructuredContent(protocol_version_));
}

Result<json> McpServer::CallTool(const json& params) {
  const auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    return InvalidArgument("Invalid params: tools/call needs a string \"name\"");
  }
  json arguments = params.value("arguments", json::object());
  if (arguments.is_null()) arguments = json::object();
  if (!arguments.is_object()) {
    return InvalidArgument("Invalid params: \"arguments\" must be an object");
  }
  const std::string tool = name->get<std::string>();
  if (!IsMcpTool(tool)) return InvalidArgument("Unknown tool: " + tool);
  auto answer = CallMcpTool(api_, scopes_, tool, arguments);
  if (!answer.ok()) {
    const Status& s = answer.status();
    // Arguments the tool refuses: a protocol error up to 2025-06-18; from
    // 2025-11-25 a tool error, which the model reads and can correct.
    if (s.code() == StatusCode::kInvalidArgument &&
        !ArgumentErrorsAreToolErrors(protocol_version_)) {
      return InvalidArgument("Invalid params: " + s.message());
    }
    // The tool ran and failed: a result the model can read.
    return json{{"content", json::array({{{"type", "text"}, {"text", s.message()}}})},
                {"isError", true}};
  }
  json content = json::array({{{"type", "text"}, {"text", McpToolText(tool, *answer)}}});
  if (!HasStructuredContent(protocol_version_)) {
    return json{{"content", std::move(content)}, {"isError", false}};
  }
  // Structured output, and the same JSON as text for hosts that read only
  // the content (as the specification asks).
  content.push_back({{"type", "text"}, {"text", DumpJson(*answer)}});
  return json{{"content", std::move(content)},
              {"structuredContent", std::move(*answer)},
              {"isError", false}};
}

void McpServer::Serve(std::istream& in, std::ostream& out) {
  const size_t limit = api_->limits().max_body_bytes;
  std::string line;
  size_t line_bytes = 0;
  while (ReadBoundedLine(in, limit, &line, &line_bytes)) {
    if (line_bytes > limit) {
      const json id = RecoverId(line);
      if (id.is_null()) continue;  // no id to answer
      out << DumpJson(ErrorMessage(id, kInvalidRequest,
                                   "Invalid Request: message of " + std::to_string(line_bytes) +
                                       " bytes; the limit is " + std::to_string(limit)))
          << "\n";
      out.flush();
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (auto answer = Handle(line)) {
      out << *answer << "\n";
      out.flush();
    }
  }
}

}  // namespace engram
