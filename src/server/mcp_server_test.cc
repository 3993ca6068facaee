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

// The MCP server's behaviour, on each store.
class McpServerTest : public ::testing::TestWithParam<testing::Backend> {
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

  testing::ServedStore store_{GetParam()};
  McpServer mcp_{&store_.Api()};
  int id_ = 0;
};

TEST_P(McpServerTest, NegotiatesTheProtocolVersion) {
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

// As the MCP reference servers define theirs: a title, the hints a host
// uses to decide whether to ask first, an input schema and (from
// 2025-06-18) an output schema, and a description that tells a model when
// to call the tool.
TEST_P(McpServerTest, ListsEveryToolWithTitleAnnotationsAndSchemas) {
  Request("initialize", {{"protocolVersion", "2025-06-18"}});
  const json r = Request("tools/list", json::object());
  std::vector<std::string> names;
  for (const json& t : r["result"]["tools"]) {
    names.push_back(t["name"]);
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t;
    EXPECT_EQ(t["outputSchema"]["type"], "object") << t;
    EXPECT_FALSE(t["title"].get<std::string>().empty()) << t;
    for (const char* hint : {"readOnlyHint", "destructiveHint", "idempotentHint"}) {
      EXPECT_TRUE(t["annotations"][hint].is_boolean()) << hint << " of " << t;
    }
    const std::string description = t["description"];
    EXPECT_GT(description.size(), 120u) << t;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"memory_search", "memory_add", "memory_update",
                                             "memory_forget", "memory_list", "memory_scopes"}));
  const json& tools = r["result"]["tools"];
  EXPECT_TRUE(tools[0]["annotations"]["readOnlyHint"]) << "search reads";
  EXPECT_TRUE(tools[3]["annotations"]["destructiveHint"]) << "forget deletes";
  const std::string search = tools[0]["description"];
  EXPECT_NE(search.find("Call it before answering"), std::string::npos) << "when to call it";
  EXPECT_NE(search.find("Phrase the query"), std::string::npos) << "how to phrase a query";
  EXPECT_NE(search.find("An empty result means"), std::string::npos) << "what empty means";

  Request("initialize", {{"protocolVersion", "2025-03-26"}});
  const json older = Request("tools/list", json::object());
  for (const json& t : older["result"]["tools"]) {
    EXPECT_FALSE(t.contains("outputSchema")) << "no structured output before 2025-06-18: " << t;
  }
}

TEST_P(McpServerTest, ALoneSurrogateIsReadAsTheReplacementCharacter) {
  Request("initialize", {{"protocolVersion", "2025-06-18"}});
  // A client cut "\ud83d\ude00" in half.
  const std::string frame =
      R"({"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"memory_add",)"
      R"("arguments":{"content":"party time \ud83d","tags":["x\udc00y"]}}})";
  auto answer = mcp_.Handle(frame);
  ASSERT_TRUE(answer);
  json r = json::parse(*answer);
  EXPECT_EQ(r["id"], 41);
  ASSERT_EQ(r["result"]["isError"], false) << r;
  r = Tool("memory_list", json::object());
  const json& fact = r["result"]["structuredContent"]["facts"][0];
  EXPECT_EQ(fact["content"], "party time \xEF\xBF\xBD") << r;
  EXPECT_EQ(fact["tags"][0], "x\xEF\xBF\xBDy") << r;
  // A whole pair, and an escaped backslash before "u", are left as they are.
  answer =
      mcp_.Handle(R"({"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"memory_add",)"
                  R"("arguments":{"content":"smile \ud83d\ude00 and C:\\ud83d"}}})");
  ASSERT_TRUE(answer);
  r = Tool("memory_search", {{"query", "smile"}});
  EXPECT_EQ(r["result"]["structuredContent"]["hits"][0]["fact"]["content"],
            "smile \xF0\x9F\x98\x80 and C:\\ud83d")
      << r;
}

TEST_P(McpServerTest, NullIsAbsentAndAWholeFloatIsAnInteger) {
  Request("initialize", {{"protocolVersion", "2025-06-18"}});
  Tool("memory_add", {{"content", "the kettle is in the attic"}});
  Tool("memory_add", {{"content", "the lantern is in the attic"}});
  json r = Tool("memory_search", {{"query", "attic"},
                                  {"k", 1.0},
                                  {"scope", nullptr},
                                  {"mode", nullptr},
                                  {"tags_any", nullptr}});
  ASSERT_EQ(r["result"]["isError"], false) << r;
  EXPECT_EQ(r["result"]["structuredContent"]["hits"].size(), 1u) << r;
  r = Tool("memory_list", {{"limit", 5.0}, {"offset", 1.0}});
  EXPECT_EQ(r["result"]["structuredContent"]["count"], 1) << r;
  r = Tool("memory_search", {{"query", "attic"}, {"k", 1.5}});
  EXPECT_EQ(r["error"]["code"], -32602) << "a fraction is not an integer: " << r;
}

TEST_P(McpServerTest, StructuredContentIsTheTextsJsonAndTheTextShowsScopeKindAndDates) {
  Request("initialize", {{"protocolVersion", "2025-06-18"}});
  Tool("memory_add", {{"content", "Deploys go out on Tuesdays"}, {"kind", "lesson"}});
  const json r = Tool("memory_search", {{"query", "when do deploys go out"}});
  const json& content = r["result"]["content"];
  ASSERT_EQ(content.size(), 2u) << r;
  EXPECT_EQ(json::parse(content[1]["text"].get<std::string>()), r["result"]["structuredContent"]);
  const std::string text = content[0]["text"];
  EXPECT_NE(text.find("scope default, kind lesson, created 20"), std::string::npos) << text;
  EXPECT_NE(text.find(", updated 20"), std::string::npos) << text;
  const json empty = Tool("memory_search", {{"query", "zebra migration routes"}});
  EXPECT_NE(empty["result"]["content"][0]["text"].get<std::string>().find("No fact matches"),
            std::string::npos)
      << empty;
}

TEST(McpServerScopesTest, APinnedScopeTakesEveryWriteAndReadOnlyScopesAreRead) {
  testing::ServedStore store;
  McpServer open(&store.Api());
  McpServer pinned(&store.Api(), McpScopes{"alice", {"team"}});
  int id = 0;
  const auto tool = [&id](McpServer& server, const std::string& name, const json& arguments) {
    const json message = {{"jsonrpc", "2.0"},
                          {"id", ++id},
                          {"method", "tools/call"},
                          {"params", {{"name", name}, {"arguments", arguments}}}};
    return json::parse(*server.Handle(message.dump()))["result"];
  };
  for (McpServer* s : {&open, &pinned}) {
    s->Handle(R"({"jsonrpc":"2.0","id":0,"method":"initialize",)"
              R"("params":{"protocolVersion":"2025-11-25"}})");
  }
  tool(open, "memory_add", {{"content", "the team meets on Mondays"}, {"scope", "team"}});
  tool(open, "memory_add", {{"content", "bob likes green tea"}, {"scope", "bob"}});
  json r = tool(pinned, "memory_add", {{"content", "alice likes black coffee"}});
  EXPECT_EQ(r["structuredContent"]["facts"][0]["scope"], "alice") << r;
  r = tool(pinned, "memory_add", {{"content", "x"}, {"scope", "team"}});
  EXPECT_EQ(r["isError"], true) << "read-only: " << r;
  EXPECT_NE(r["content"][0]["text"].get<std::string>().find("'team' is not open"),
            std::string::npos)
      << r;
  r = tool(pinned, "memory_search", {{"query", "bob tea"}, {"scope", "bob"}});
  EXPECT_EQ(r["isError"], true) << r;
  r = tool(pinned, "memory_list", json::object());
  EXPECT_EQ(r["structuredContent"]["count"], 2) << "alice's and the team's: " << r;
  r = tool(pinned, "memory_scopes", json::object());
  EXPECT_EQ(r["structuredContent"]["scopes"],
            json::parse(R"([{"name":"alice","facts":1,"writable":true},)"
                        R"({"name":"team","facts":1,"writable":false}])"))
      << r;
  r = tool(open, "memory_scopes", json::object());
  EXPECT_EQ(r["structuredContent"]["scopes"].size(), 3u) << r;
}

TEST_P(McpServerTest, ToolsAddSearchListForget) {
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

TEST_P(McpServerTest, OlderProtocolsGetTextOnly) {
  Request("initialize", {{"protocolVersion", "2024-11-05"}});
  const json r = Tool("memory_add", {{"content", "x y z"}});
  EXPECT_FALSE(r["result"].contains("structuredContent")) << r;
  EXPECT_EQ(r["result"]["content"][0]["type"], "text");
}

TEST_P(McpServerTest, ErrorsAreJsonRpcErrorObjects) {
  // The id is read from a frame cut short: MCP allows no null id, and a
  // client waits for the answer to its own.
  auto answer = mcp_.Handle("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ");
  ASSERT_TRUE(answer);
  json r = json::parse(*answer);
  EXPECT_EQ(r["error"]["code"], -32700);
  EXPECT_EQ(r["id"], 1);
  answer = mcp_.Handle(R"({"method": "ping", "params": {"a": [1, {"id": 5}]}, "id": "x-1", "b": )");
  ASSERT_TRUE(answer);
  EXPECT_EQ(json::parse(*answer)["id"], "x-1") << "the top-level id, not a nested one";
  EXPECT_FALSE(mcp_.Handle("not json")) << "no id to answer: no answer";

  r = Call({{"jsonrpc", "1.0"}, {"id", 2}, {"method", "ping"}});
  EXPECT_EQ(r["error"]["code"], -32600);
  EXPECT_EQ(Call(json::array()), nullptr) << "an empty batch has no id to answer";
  EXPECT_EQ(Call({{"jsonrpc", "2.0"}, {"id", json::object()}, {"method", "ping"}}), nullptr);
  EXPECT_EQ(Call({{"jsonrpc", "2.0"}, {"id", nullptr}, {"method", "ping"}}), nullptr);
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

TEST_P(McpServerTest, FromProtocol20251125BadArgumentsAreToolErrors) {
  Request("initialize", {{"protocolVersion", "2025-11-25"}});
  json r = Tool("memory_search", {{"k", 3}});
  EXPECT_EQ(r["result"]["isError"], true) << r;
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("field 'query'"),
            std::string::npos);
  r = Tool("memory_delete_everything", json::object());
  EXPECT_EQ(r["error"]["code"], -32602) << "an unknown tool stays a protocol error: " << r;
}

TEST_P(McpServerTest, DeeplyNestedJsonIsRefusedNotACrash) {
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
TEST_P(McpServerTest, ANumberBeyondADoubleIsAParseErrorNotACrash) {
  auto answer = mcp_.Handle(R"({"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":1e999}})");
  ASSERT_TRUE(answer);
  const json r = json::parse(*answer);
  EXPECT_EQ(r["error"]["code"], -32700) << r;
  EXPECT_EQ(r["id"], 2) << r;
  EXPECT_EQ(r["error"]["message"], "Parse error: number out of range at byte 59") << r;
  EXPECT_EQ(Request("ping", json::object())["result"], json::object());
}

TEST_P(McpServerTest, ALineOverTheLimitIsRefusedAndTheNextOneServed) {
  const size_t limit = store_.Api().limits().max_body_bytes;
  const std::string big = R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"x":")" +
                          std::string(limit, 'a') + "\"}}";
  std::istringstream in(big + "\n" + std::string(limit + 10, ' ') + "x\n" +
                        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n" + "{\"id\":8," +
                        std::string(limit, 'y'));
  const std::vector<json> answers = ServeLines(&in);
  ASSERT_EQ(answers.size(), 3u) << "a line without an id gets no answer";
  EXPECT_EQ(answers[0]["id"], 5);
  EXPECT_EQ(answers[0]["error"]["code"], -32600);
  EXPECT_EQ(answers[0]["error"]["message"], "Invalid Request: message of " +
                                                std::to_string(big.size()) +
                                                " bytes; the limit is " + std::to_string(limit));
  EXPECT_EQ(answers[1]["id"], 7);
  EXPECT_EQ(answers[2]["id"], 8) << "a last line without a newline counts too";
  EXPECT_EQ(answers[2]["error"]["code"], -32600);
}

TEST_P(McpServerTest, BatchesAnswerEachRequestButNoNotification) {
  const json r = Call(json::array({{{"jsonrpc", "2.0"}, {"id", "a"}, {"method", "ping"}},
                                   {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                                   {{"jsonrpc", "2.0"}, {"id", "b"}, {"method", "nope"}}}));
  ASSERT_TRUE(r.is_array()) << r;
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0]["id"], "a");
  EXPECT_EQ(r[1]["error"]["code"], -32601);
}

TEST_P(McpServerTest, ServeReadsLinesUntilTheInputEnds) {
  std::istringstream in(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
      "\n"
      "not json\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n");
  const std::vector<json> answers = ServeLines(&in);
  ASSERT_EQ(answers.size(), 2u) << "\"not json\" has no id to answer";
  EXPECT_EQ(answers[0]["id"], 1);
  EXPECT_EQ(answers[1]["id"], 2);
}

INSTANTIATE_TEST_SUITE_P(Backends, McpServerTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
