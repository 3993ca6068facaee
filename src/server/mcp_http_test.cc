// MCP's Streamable HTTP transport message by message (McpHttpTransport),
// then through the real HTTP server: sessions, what each method answers,
// and the Origin and token checks /mcp shares with the REST API. The
// official SDK as a client: tests/node/mcp_session.mjs.
#include "src/server/mcp_http.h"

#include <gtest/gtest.h>

#include "src/server/http_server.h"
#include "src/server/server_test_util.h"

namespace engram {
namespace {

using nlohmann::json;

std::string Message(int id, const std::string& method, const json& params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

McpHttpRequest Post(std::string body, std::string session = "") {
  McpHttpRequest r;
  r.method = "POST";
  r.session_id = std::move(session);
  r.body = std::move(body);
  return r;
}

class McpHttpTest : public ::testing::Test {
 protected:
  // Starts a session; its id.
  std::string Initialize(McpHttpTransport& transport, McpScopes scopes = {}) {
    McpHttpRequest r = Post(Message(1, "initialize", {{"protocolVersion", "2025-06-18"}}));
    r.scopes = std::move(scopes);
    const McpHttpAnswer a = transport.Handle(r);
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.content_type, "application/json");
    EXPECT_EQ(a.session_id.size(), 32u) << "128 random bits, in hex";
    EXPECT_EQ(json::parse(a.body)["result"]["protocolVersion"], "2025-06-18") << a.body;
    return a.session_id;
  }

  testing::ServedStore store_;
  McpHttpTransport transport_{&store_.Api()};
};

TEST_F(McpHttpTest, ASessionBeginsWithInitializeAndIsNamedOnEveryRequest) {
  const std::string session = Initialize(transport_);
  McpHttpAnswer a = transport_.Handle(Post(Message(2, "tools/list"), session));
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(json::parse(a.body)["result"]["tools"].size(), 6u);
  EXPECT_TRUE(a.session_id.empty()) << "the id is sent once, at initialize";

  a = transport_.Handle(Post(Message(3, "tools/list")));
  EXPECT_EQ(a.status, 400) << "no session header";
  EXPECT_EQ(json::parse(a.body)["id"], 3) << a.body;
  a = transport_.Handle(Post(Message(4, "tools/list"), "0123456789abcdef0123456789abcdef"));
  EXPECT_EQ(a.status, 404) << "an unknown session: the client initializes again";
  EXPECT_EQ(json::parse(a.body)["id"], 4) << a.body;

  a = transport_.Handle(Post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", session));
  EXPECT_EQ(a.status, 202);
  EXPECT_TRUE(a.body.empty());
  a = transport_.Handle(Post(R"({"jsonrpc":"2.0","id":9,"result":{}})", session));
  EXPECT_EQ(a.status, 202) << "a response from the client is accepted too";

  McpHttpRequest del;
  del.method = "DELETE";
  del.session_id = session;
  EXPECT_EQ(transport_.Handle(del).status, 200);
  EXPECT_EQ(transport_.Handle(del).status, 404);
  EXPECT_EQ(transport_.Handle(Post(Message(5, "ping"), session)).status, 404);
  EXPECT_EQ(transport_.sessions(), 0u);
}

TEST_F(McpHttpTest, WhatIsNotAPostIsAnsweredPlainly) {
  McpHttpRequest get;
  get.method = "GET";
  McpHttpAnswer a = transport_.Handle(get);
  EXPECT_EQ(a.status, 405) << "no event stream is offered";
  EXPECT_EQ(a.allow, "POST, DELETE");
  McpHttpRequest del;
  del.method = "DELETE";
  EXPECT_EQ(transport_.Handle(del).status, 400) << "DELETE of no session";

  const std::string session = Initialize(transport_);
  McpHttpRequest r = Post(Message(2, "ping"), session);
  r.protocol_version = "1999-01-01";
  a = transport_.Handle(r);
  EXPECT_EQ(a.status, 400);
  EXPECT_NE(a.body.find("MCP-Protocol-Version '1999-01-01'"), std::string::npos) << a.body;
  r.protocol_version = "2025-06-18";
  EXPECT_EQ(transport_.Handle(r).status, 200);

  a = transport_.Handle(Post("{not json", session));
  EXPECT_EQ(a.status, 400) << "no id to answer: HTTP says it, the client does not wait";
  a = transport_.Handle(Post(R"({"jsonrpc":"2.0","id":6,"method":)", session));
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(json::parse(a.body)["id"], 6) << "the id read from the frame: " << a.body;
  EXPECT_EQ(json::parse(a.body)["error"]["code"], -32700);
}

TEST_F(McpHttpTest, SessionsKeepTheirOwnVersionAndScopesAndTheOldestIdleEnds) {
  McpHttpTransport transport(&store_.Api(), /*max_sessions=*/2);
  const std::string alice = Initialize(transport, McpScopes{"alice", {}});
  McpHttpRequest old = Post(Message(1, "initialize", {{"protocolVersion", "2024-11-05"}}));
  const std::string bob = transport.Handle(old).session_id;
  const auto add = [&transport](const std::string& session) {
    const McpHttpAnswer a = transport.Handle(
        Post(Message(2, "tools/call", {{"name", "memory_add"}, {"arguments", {{"content", "x"}}}}),
             session));
    return json::parse(a.body)["result"];
  };
  const json to_alice = add(alice);
  EXPECT_EQ(to_alice["structuredContent"]["facts"][0]["scope"], "alice") << to_alice;
  const json to_bob = add(bob);
  EXPECT_FALSE(to_bob.contains("structuredContent")) << "bob's session speaks 2024-11-05";
  EXPECT_NE(to_bob["content"][0]["text"].get<std::string>().find("scope default"),
            std::string::npos)
      << to_bob;

  add(bob);  // alice is now the oldest idle session
  const std::string carol = Initialize(transport);
  EXPECT_EQ(transport.sessions(), 2u);
  EXPECT_EQ(transport.Handle(Post(Message(3, "ping"), alice)).status, 404);
  EXPECT_EQ(transport.Handle(Post(Message(3, "ping"), bob)).status, 200);
  EXPECT_EQ(transport.Handle(Post(Message(3, "ping"), carol)).status, 200);
}

// /mcp behind the same door as /v1: the Origin of a web page and a missing
// token are refused before any message is read.
TEST(McpHttpServerTest, McpSharesTheOriginAndTokenChecksOfTheApi) {
  const std::string token = "s3cret-token-value";
  testing::ServedStore store;
  store.Serve("127.0.0.2", token);
  const std::string init = Message(1, "initialize", {{"protocolVersion", "2025-06-18"}});
  auto client = store.Client();
  auto r = client->Post("/mcp", init, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401) << "no token";
  httplib::Headers evil = {{"Origin", "https://evil.example"},
                           {"Authorization", "Bearer " + token}};
  r = client->Post("/mcp", evil, init, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403) << "a web page's Origin";
  r = client->Post("/mcp", {{"Authorization", "Bearer " + token}}, init, "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415) << "what a page can post without asking";
  r = client->Post("/mcp", {{"Authorization", "Bearer " + token}}, init, "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::string session = r->get_header_value("Mcp-Session-Id");
  EXPECT_EQ(session.size(), 32u);
  r = client->Post("/mcp", {{"Authorization", "Bearer " + token}, {"Mcp-Session-Id", session}},
                   Message(2, "tools/list"), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["result"]["tools"].size(), 6u) << r->body;
}

}  // namespace
}  // namespace engram
