// `engram mcp` as an MCP client sees it: a child process spoken to over
// pipes, one JSON-RPC message per line. The handshake, every tool, the
// error objects, and a server that keeps going after bad input.
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "tests/cli_runner.h"

namespace engram {
namespace {

using nlohmann::json;

class McpClient {
 public:
  McpClient(testing::CliRunner& runner) : runner_(runner), child_(runner.StartPiped({"mcp"})) {}
  ~McpClient() { Close(); }

  void SendLine(const std::string& line) {
    const std::string data = line + "\n";
    ASSERT_EQ(write(child_.to_child, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  }
  void Send(const json& message) { SendLine(message.dump()); }
  json Request(const std::string& method, const json& params) {
    Send({{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", params}});
    return Receive();
  }
  // The next line the server writes, parsed; null after 60 s or at EOF.
  json Receive() {
    for (;;) {
      const size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        const std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        const json parsed = json::parse(line, nullptr, /*allow_exceptions=*/false);
        EXPECT_FALSE(parsed.is_discarded()) << "stdout carries only JSON-RPC: " << line;
        return parsed;
      }
      pollfd p{child_.from_child, POLLIN, 0};
      if (poll(&p, 1, 60000) <= 0) {
        ADD_FAILURE() << "no answer; stderr: " << runner_.Stderr();
        return nullptr;
      }
      char chunk[4096];
      const ssize_t n = read(child_.from_child, chunk, sizeof chunk);
      if (n <= 0) return nullptr;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }
  // Closes the server's input and returns its exit code.
  int Close() {
    if (child_.pid < 0) return -1;
    close(child_.to_child);
    int status = 0;
    waitpid(child_.pid, &status, 0);
    close(child_.from_child);
    child_.pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  int last_id() const { return id_; }

 private:
  testing::CliRunner& runner_;
  testing::CliRunner::Piped child_;
  std::string buffer_;
  int id_ = 0;
};

json ToolCall(McpClient& mcp, const std::string& name, const json& arguments) {
  return mcp.Request("tools/call", {{"name", name}, {"arguments", arguments}});
}

TEST(McpCliTest, HandshakeThenEveryToolOverPipes) {
  testing::CliRunner runner;
  McpClient mcp(runner);
  json r = mcp.Request("initialize", {{"protocolVersion", "2025-06-18"},
                                      {"capabilities", json::object()},
                                      {"clientInfo", {{"name", "test-client"}, {"version", "1"}}}});
  ASSERT_TRUE(r.contains("result")) << r;
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "engram");
  mcp.Send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  r = mcp.Request("ping", json::object());
  EXPECT_EQ(r["id"], mcp.last_id()) << "the notification got no answer: " << r;

  r = mcp.Request("tools/list", json::object());
  ASSERT_EQ(r["result"]["tools"].size(), 6u) << r;
  for (const json& tool : r["result"]["tools"]) {
    EXPECT_EQ(tool["inputSchema"]["type"], "object") << tool["name"];
  }

  for (const char* fact :
       {"The user prefers tabs over spaces in Go code", "Production deploys are frozen on Fridays",
        "The staging database listens on port 5433"}) {
    r = ToolCall(mcp, "memory_add", {{"content", fact}, {"tags", {"seed"}}});
    ASSERT_EQ(r["result"]["isError"], false) << r;
    EXPECT_EQ(r["result"]["structuredContent"]["added"], 1);
  }
  r = ToolCall(mcp, "memory_search",
               {{"query", "which port does the staging database use"}, {"k", 2}});
  ASSERT_EQ(r["result"]["isError"], false) << r;
  const json& hits = r["result"]["structuredContent"]["hits"];
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0]["fact"]["content"], "The staging database listens on port 5433");
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("port 5433"),
            std::string::npos);
  const std::string id = hits[0]["fact"]["id"];

  r = ToolCall(mcp, "memory_list", {{"tag", "seed"}, {"limit", 10}});
  EXPECT_EQ(r["result"]["structuredContent"]["count"], 3) << r;
  r = ToolCall(mcp, "memory_forget", {{"id", id}});
  EXPECT_EQ(r["result"]["structuredContent"]["forgotten"], 1) << r;
  r = ToolCall(mcp, "memory_list", json::object());
  EXPECT_EQ(r["result"]["structuredContent"]["count"], 2) << r;

  // An update: the new version is what a search returns; the old one is
  // kept, out of search and list, and comes back when asked for.
  r = ToolCall(mcp, "memory_search", {{"query", "when are production deploys frozen"}, {"k", 1}});
  const std::string frozen = r["result"]["structuredContent"]["hits"][0]["fact"]["id"];
  r = ToolCall(mcp, "memory_update",
               {{"id", frozen},
                {"content", "Production deploys are frozen on Thursdays"},
                {"tags", {"seed"}}});
  ASSERT_EQ(r["result"]["isError"], false) << r;
  EXPECT_EQ(r["result"]["structuredContent"]["superseded"]["id"], frozen);
  r = ToolCall(mcp, "memory_search", {{"query", "when are production deploys frozen"}, {"k", 5}});
  for (const json& h : r["result"]["structuredContent"]["hits"]) {
    EXPECT_NE(h["fact"]["id"], frozen) << "a replaced fact is not returned: " << r;
  }
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("Thursdays"),
            std::string::npos);
  r = ToolCall(mcp, "memory_list", {{"include_superseded", true}});
  EXPECT_EQ(r["result"]["structuredContent"]["count"], 3) << r;
  r = ToolCall(mcp, "memory_list", json::object());
  EXPECT_EQ(r["result"]["structuredContent"]["count"], 2) << r;
  EXPECT_EQ(mcp.Close(), 0) << runner.Stderr();

  // What the MCP server stored is in the store every command reads.
  const testing::CliResult listed = runner.Run({"list", "--tag", "seed"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("frozen on Thursdays"), std::string::npos) << listed.out;
  EXPECT_EQ(listed.out.find("frozen on Fridays"), std::string::npos) << "replaced";
  EXPECT_EQ(listed.out.find("port 5433"), std::string::npos) << "forgotten";
}

// The model reads the tool's text content and nothing else: a search that
// matched nothing says so there, and so does the recency fallback.
TEST(McpCliTest, NoMatchAndTheRecencyFallbackAreSaidInTheText) {
  for (const bool fallback : {false, true}) {
    testing::CliRunner runner;
    runner.SetEnv("ENGRAM_EMBED_PROVIDER", "null");
    if (fallback) runner.SetEnv("ENGRAM_FUSION_TEMPORAL_FALLBACK", "true");
    McpClient mcp(runner);
    json r =
        mcp.Request("initialize", {{"protocolVersion", "2025-06-18"},
                                   {"capabilities", json::object()},
                                   {"clientInfo", {{"name", "test-client"}, {"version", "1"}}}});
    ASSERT_TRUE(r.contains("result")) << r;
    mcp.Send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    r = ToolCall(mcp, "memory_add", {{"content", "The staging database listens on port 5433"}});
    ASSERT_EQ(r["result"]["isError"], false) << r;
    r = ToolCall(mcp, "memory_search", {{"query", "zebra quantum xylophone"}});
    ASSERT_EQ(r["result"]["isError"], false) << r;
    const std::string text = r["result"]["content"][0]["text"];
    EXPECT_EQ(text.rfind("No fact matches the query.", 0), 0u) << text;
    EXPECT_TRUE(r["result"]["structuredContent"]["no_match"].get<bool>());
    if (fallback) {
      EXPECT_NE(text.find("most recent facts of the scope, not matches"), std::string::npos)
          << text;
      EXPECT_NE(text.find("port 5433"), std::string::npos) << text;
      EXPECT_TRUE(r["result"]["structuredContent"]["temporal_fallback"].get<bool>());
    } else {
      EXPECT_EQ(text.find("port 5433"), std::string::npos) << text;
      EXPECT_TRUE(r["result"]["structuredContent"]["hits"].empty());
    }
    EXPECT_EQ(mcp.Close(), 0) << runner.Stderr();
  }
}

// Every filter of search and list, through the tools a model calls.
TEST(McpCliTest, FiltersNarrowSearchAndListAlike) {
  testing::CliRunner runner;
  runner.SetEnv("ENGRAM_EMBED_PROVIDER", "null");
  McpClient mcp(runner);
  json r = mcp.Request("initialize", {{"protocolVersion", "2025-06-18"},
                                      {"capabilities", json::object()},
                                      {"clientInfo", {{"name", "test-client"}, {"version", "1"}}}});
  ASSERT_TRUE(r.contains("result")) << r;
  mcp.Send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  const json facts = json::array({{{"content", "postgres listens on port 5433"},
                                   {"tags", {"db", "staging"}},
                                   {"metadata", {{"env", "staging"}}}},
                                  {{"content", "postgres listens on port 5432"},
                                   {"tags", {"db", "prod"}},
                                   {"metadata", {{"env", "prod"}}}},
                                  {{"content", "postgres upgrades need a review"},
                                   {"tags", {"process"}},
                                   {"kind", "lesson"}}});
  for (const json& f : facts) {
    r = ToolCall(mcp, "memory_add", f);
    ASSERT_EQ(r["result"]["isError"], false) << r;
  }
  // The contents a search and a list return under one filter; both must agree.
  const auto found = [&](const json& filter) {
    json search = filter;
    search["query"] = "postgres";
    const json s = ToolCall(mcp, "memory_search", search);
    EXPECT_EQ(s["result"]["isError"], false) << s;
    std::set<std::string> searched;
    for (const json& h : s["result"]["structuredContent"]["hits"]) {
      searched.insert(h["fact"]["content"].get<std::string>());
    }
    const json l = ToolCall(mcp, "memory_list", filter);
    EXPECT_EQ(l["result"]["isError"], false) << l;
    std::set<std::string> listed;
    for (const json& f : l["result"]["structuredContent"]["facts"]) {
      listed.insert(f["content"].get<std::string>());
    }
    EXPECT_EQ(searched, listed) << filter;
    return searched;
  };
  using Set = std::set<std::string>;
  EXPECT_EQ(found({{"tags_any", {"staging", "process"}}}),
            (Set{"postgres listens on port 5433", "postgres upgrades need a review"}));
  EXPECT_EQ(found({{"tags_all", {"db", "prod"}}}), (Set{"postgres listens on port 5432"}));
  EXPECT_EQ(found({{"kind", "lesson"}}), (Set{"postgres upgrades need a review"}));
  EXPECT_EQ(found({{"metadata", {{"env", "staging"}}}}), (Set{"postgres listens on port 5433"}));
  EXPECT_EQ(found({{"since", "1d"}}).size(), 3u);
  EXPECT_TRUE(found({{"until", "2000-01-01T00:00:00Z"}}).empty());
  EXPECT_TRUE(found({{"as_of", "2000-01-01T00:00:00Z"}}).empty()) << "nothing was current then";
  r = ToolCall(mcp, "memory_search", {{"query", "postgres"}, {"since", "last tuesday"}});
  ASSERT_TRUE(r.contains("error")) << "a time it cannot read is an error: " << r;
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("'since'"), std::string::npos) << r;
  EXPECT_EQ(mcp.Close(), 0) << runner.Stderr();
}

TEST(McpCliTest, BadMessagesGetErrorObjectsAndTheServerKeepsRunning) {
  testing::CliRunner runner;
  McpClient mcp(runner);
  // Up to 2025-06-18, arguments a tool refuses are JSON-RPC errors (from
  // 2025-11-25 they are tool results: McpServerTest covers both).
  const json init = mcp.Request("initialize", {{"protocolVersion", "2025-06-18"}});
  ASSERT_EQ(init["result"]["protocolVersion"], "2025-06-18") << init;
  mcp.SendLine("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": \"tools/list\"");
  json r = mcp.Receive();
  EXPECT_EQ(r["error"]["code"], -32700) << r;
  EXPECT_EQ(r["id"], 99) << "the id read from the frame cut short";
  mcp.SendLine("[]");  // no id to answer: nothing, and the next request is served
  r = mcp.Request("prompts/list", json::object());
  EXPECT_EQ(r["error"]["code"], -32601) << r;
  r = ToolCall(mcp, "memory_search", {{"query", ""}});
  EXPECT_EQ(r["error"]["code"], -32602) << r;
  EXPECT_NE(r["error"]["message"].get<std::string>().find("field 'query'"), std::string::npos);
  r = ToolCall(mcp, "memory_add", {{"content", "x"}, {"confidence", "high"}});
  EXPECT_EQ(r["error"]["code"], -32602) << r;
  r = ToolCall(mcp, "memory_drop_all", json::object());
  EXPECT_EQ(r["error"]["code"], -32602) << r;
  r = ToolCall(mcp, "memory_forget", {{"id", "0123456789ab"}});
  EXPECT_EQ(r["result"]["isError"], true) << "a tool that ran and failed: " << r;
  r = mcp.Request("ping", json::object());
  EXPECT_EQ(r["result"], json::object()) << "still serving";
  EXPECT_EQ(mcp.Close(), 0) << runner.Stderr();
}

}  // namespace
}  // namespace engram
