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
// most `limit` bytes in memory: the bytes past it are counted into
// `*bytes` and dropped. False at the end of input with nothing read.
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
  if (*bytes > limit) line->clear();
  return any;
}

}  // namespace

const std::vector<std::string>& McpProtocolVersions() {
  static const std::vector<std::string> versions = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                    "2024-11-05"};
  return versions;
}

std::optional<std::string> McpServer::Handle(std::string_view message) {
  auto read = ParseJson(message, "Parse error");
  if (!read.ok()) return DumpJson(ErrorMessage(nullptr, kParseError, read.status().message()));
  const json& parsed = *read;
  if (parsed.is_array()) {
    if (parsed.empty()) {
      return DumpJson(ErrorMessage(nullptr, kInvalidRequest, "Invalid Request: empty batch"));
    }
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
  // invalid, and then the error's id is null.
  json id = nullptr;
  const bool has_id = message.is_object() && message.contains("id");
  if (has_id && (message["id"].is_string() || message["id"].is_number())) id = message["id"];
  if (!message.is_object() || message.value("jsonrpc", json()) != "2.0" ||
      !message.contains("method") || !message["method"].is_string() || (has_id && id.is_null())) {
    if (message.is_object() && !has_id && message.contains("method")) return std::nullopt;
    return ErrorMessage(id, kInvalidRequest,
                        "Invalid Request: expected a JSON-RPC 2.0 request object with "
                        "\"jsonrpc\": \"2.0\", a string \"method\" and a string or number \"id\"");
  }
  const std::string method = message["method"].get<std::string>();
  const json params = message.value("params", json::object());
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
               "keep a short fact, lesson or preference worth remembering."}};
}

json McpServer::ToolList() const { return McpToolDefinitions(api_->limits()); }

Result<json> McpServer::CallTool(const json& params) {
  const auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    return InvalidArgument("Invalid params: tools/call needs a string \"name\"");
  }
  const json arguments = params.value("arguments", json::object());
  if (!arguments.is_object()) {
    return InvalidArgument("Invalid params: \"arguments\" must be an object");
  }
  const std::string tool = name->get<std::string>();
  if (!IsMcpTool(tool)) return InvalidArgument("Unknown tool: " + tool);
  auto answer = CallMcpTool(api_, tool, arguments);
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
  json result = {
      {"content", json::array({{{"type", "text"}, {"text", McpToolText(tool, *answer)}}})},
      {"isError", false}};
  if (HasStructuredContent(protocol_version_)) result["structuredContent"] = std::move(*answer);
  return result;
}

void McpServer::Serve(std::istream& in, std::ostream& out) {
  const size_t limit = api_->limits().max_body_bytes;
  std::string line;
  size_t line_bytes = 0;
  while (ReadBoundedLine(in, limit, &line, &line_bytes)) {
    if (line_bytes > limit) {
      out << DumpJson(ErrorMessage(nullptr, kInvalidRequest,
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
