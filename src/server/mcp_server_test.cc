// The MCP server's JSON-RPC handling, message by message: the handshake
// and version negotiation, every tool, and the error objects for what a
// client can get wrong. The same over real pipes: tests/mcp_cli_test.cc.
#include "src/server/mcp_server.h"

#include <gtest/gtest.h>

#include <sstream>

#include "src/server/server_test_util.h"

namespace engram {
namespace {

using nlohmann::json;

class McpServerTest : public ::testing::Test {
 protected:
  json Call(const json& message) {
    auto answer = mcp_.Handle(message.dump());
    if (!answer) return nullptr;
    return json::parse(*answer);
  }
  json Request(const std::string& method, const json& params) {
    return Call({{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", params}});
  }
  // Runs the stdio loop over `in`; one answer per line written.
  std::vector<json> ServeLines(std::istream* in) {
    std::ostringstream out;
    mcp_.Serve(*in, out);
    std::istringstream lines(out.str());
    std::vector<json> answers;
    for (std::string line; std::getline(lines, line);) answers.push_back(json::parse(line));
    return answers;
  }
  json Tool(const std::string& name, const json& arguments) {
    return Request("tools/call", {{"name", name}, {"arguments", arguments}});
  }

  testing::ServedStore store_;
  McpServer mcp_{&store_.Api()};
  int id_ = 0;
};

TEST_F(McpServerTest, NegotiatesTheProtocolVersion) {
  json r = Request("initialize", {{"protocolVersion", "2025-03-26"},
                                  {"capabilities", json::object()},
                                  {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-03-26") << r;
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "engram");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  r = Request("initialize", {{"protocolVersion", "1999-01-01"}});
  EXPECT_EQ(r["result"]["protocolVersion"], McpProtocolVersions().front());
  EXPECT_EQ(Call({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}), nullptr);
  EXPECT_EQ(Request("ping", json::object())["result"], json::object());
}

TEST_F(McpServerTest, ListsFourToolsEachWithAnInputSchema) {
  const json r = Request("tools/list", json::object());
  std::vector<std::string> names;
  for (const json& t : r["result"]["tools"]) {
    names.push_back(t["name"]);
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t;
    EXPECT_FALSE(t["description"].get<std::string>().empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"memory_search", "memory_add", "memory_update",
                                             "memory_forget", "memory_list"}));
}

TEST_F(McpServerTest, ToolsAddSearchListForget) {
  Request("initialize", {{"protocolVersion", "2025-06-18"}});
  json r =
      Tool("memory_add", {{"content", "The user prefers tabs in Go code"}, {"tags", {"style"}}});
  ASSERT_EQ(r["result"]["isError"], false) << r;
  const std::string id = r["result"]["structuredContent"]["facts"][0]["id"];
  r = Tool("memory_search", {{"query", "tabs or spaces in Go"}});
  ASSERT_EQ(r["result"]["isError"], false) << r;
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("prefers tabs"),
            std::string::npos);
  EXPECT_EQ(r["result"]["structuredContent"]["hits"][0]["fact"]["id"], id);
  r = Tool("memory_list", {{"tag", "style"}});
  EXPECT_EQ(r["result"]["structuredContent"]["count"], 1) << r;
  r = Tool("memory_forget", {{"id", id}});
  EXPECT_EQ(r["result"]["structuredContent"]["forgotten"], 1) << r;
  r = Tool("memory_forget", {{"id", id}});
  EXPECT_EQ(r["result"]["isError"], true) << "a tool that runs and fails: " << r;
}

TEST_F(McpServerTest, OlderProtocolsGetTextOnly) {
  Request("initialize", {{"protocolVersion", "2024-11-05"}});
  const json r = Tool("memory_add", {{"content", "x y z"}});
  EXPECT_FALSE(r["result"].contains("structuredContent")) << r;
  EXPECT_EQ(r["result"]["content"][0]["type"], "text");
}

TEST_F(McpServerTest, ErrorsAreJsonRpcErrorObjects) {
  auto answer = mcp_.Handle("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ");
  ASSERT_TRUE(answer);
  json r = json::parse(*answer);
  EXPECT_EQ(r["error"]["code"], -32700);
  EXPECT_TRUE(r["id"].is_null());

  r = Call({{"jsonrpc", "1.0"}, {"id", 2}, {"method", "ping"}});
  EXPECT_EQ(r["error"]["code"], -32600);
  r = Call(json::array());
  EXPECT_EQ(r["error"]["code"], -32600);
  r = Call({{"jsonrpc", "2.0"}, {"id", json::object()}, {"method", "ping"}});
  EXPECT_EQ(r["error"]["code"], -32600);
  r = Request("resources/list", json::object());
  EXPECT_EQ(r["error"]["code"], -32601);
  EXPECT_EQ(r["id"], id_);
  r = Request("initialize", json::object());
  EXPECT_EQ(r["error"]["code"], -32602);
  r = Tool("memory_delete_everything", json::object());
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("Unknown tool"), std::string::npos);
  r = Tool("memory_search", {{"k", 3}});
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("field 'query'"), std::string::npos);
  r = Tool("memory_search", {{"query", "x"}, {"k", "three"}});
  EXPECT_EQ(r["error"]["code"], -32602);
  r = Tool("memory_add", {{"content", "x"}, {"facts", json::array()}});
  EXPECT_EQ(r["error"]["code"], -32602);
  r = Request("tools/call", {{"name", "memory_list"}, {"arguments", "no"}});
  EXPECT_EQ(r["error"]["code"], -32602);
  // Still serving.
  EXPECT_EQ(Request("ping", json::object())["result"], json::object());
}

TEST_F(McpServerTest, FromProtocol20251125BadArgumentsAreToolErrors) {
  Request("initialize", {{"protocolVersion", "2025-11-25"}});
  json r = Tool("memory_search", {{"k", 3}});
  EXPECT_EQ(r["result"]["isError"], true) << r;
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("field 'query'"),
            std::string::npos);
  r = Tool("memory_delete_everything", json::object());
  EXPECT_EQ(r["error"]["code"], -32602) << "an unknown tool stays a protocol error: " << r;
}

TEST_F(McpServerTest, DeeplyNestedJsonIsRefusedNotACrash) {
  std::string deep = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":";
  deep += std::string(100000, '[') + std::string(100000, ']') + "}}";
  auto answer = mcp_.Handle(deep);
  ASSERT_TRUE(answer);
  const json r = json::parse(*answer);
  EXPECT_EQ(r["error"]["code"], -32700);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("nesting deeper than 64 levels"),
            std::string::npos);
  EXPECT_EQ(Request("ping", json::object())["result"], json::object());
}

// This frame once ended the server with SIGABRT (an uncaught out_of_range).
TEST_F(McpServerTest, ANumberBeyondADoubleIsAParseErrorNotACrash) {
  auto answer = mcp_.Handle(R"({"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":1e999}})");
  ASSERT_TRUE(answer);
  const json r = json::parse(*answer);
  EXPECT_EQ(r["error"]["code"], -32700) << r;
  EXPECT_TRUE(r["id"].is_null()) << r;
  EXPECT_EQ(r["error"]["message"], "Parse error: number out of range at byte 59") << r;
  EXPECT_EQ(Request("ping", json::object())["result"], json::object());
}

TEST_F(McpServerTest, ALineOverTheLimitIsRefusedAndTheNextOneServed) {
  const size_t limit = store_.Api().limits().max_body_bytes;
  std::istringstream in(std::string(limit + 10, ' ') + "x\n" +
                        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n" +
                        std::string(limit + 1, 'y'));
  const std::vector<json> answers = ServeLines(&in);
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(answers[0]["error"]["code"], -32600);
  EXPECT_EQ(answers[0]["error"]["message"], "Invalid Request: message of " +
                                                std::to_string(limit + 11) +
                                                " bytes; the limit is " + std::to_string(limit));
  EXPECT_EQ(answers[1]["id"], 7);
  EXPECT_EQ(answers[2]["error"]["code"], -32600) << "a last line without a newline counts too";
}

TEST_F(McpServerTest, BatchesAnswerEachRequestButNoNotification) {
  const json r = Call(json::array({{{"jsonrpc", "2.0"}, {"id", "a"}, {"method", "ping"}},
                                   {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                                   {{"jsonrpc", "2.0"}, {"id", "b"}, {"method", "nope"}}}));
  ASSERT_TRUE(r.is_array()) << r;
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0]["id"], "a");
  EXPECT_EQ(r[1]["error"]["code"], -32601);
}

TEST_F(McpServerTest, ServeReadsLinesUntilTheInputEnds) {
  std::istringstream in(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
      "\n"
      "not json\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n");
  const std::vector<json> answers = ServeLines(&in);
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_EQ(answers[0]["id"], 1);
  EXPECT_EQ(answers[1]["error"]["code"], -32700);
  EXPECT_EQ(answers[2]["id"], 2);
}

}  // namespace
}  // namespace engram
