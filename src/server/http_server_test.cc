// The HTTP API end to end: a real server on a loopback address, a real
// SQLite store, a real HTTP client. Every route, its errors, the limits,
// the bearer token on a non-default address, reload under load, and the
// drain on stop.
#include "src/server/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "src/embed/remote_embedder_test_util.h"
#include "src/server/api_json.h"
#include "src/server/server_test_util.h"

namespace engram {
namespace {

using nlohmann::json;
using testing::JsonReply;
using testing::ServedStore;

// A socket connected to 127.0.0.1:port; -1 when it cannot connect.
int ConnectLoopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  close(fd);
  return -1;
}

// Sends `request` as is to 127.0.0.1:port and returns all it gets back.
std::string RawExchange(int port, const std::string& request) {
  const int fd = ConnectLoopback(port);
  std::string answer;
  if (fd >= 0 &&
      send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size())) {
    char buf[4096];
    for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;)
      answer.append(buf, static_cast<size_t>(n));
  }
  if (fd >= 0) close(fd);
  return answer;
}

std::string ErrorCode(const JsonReply& r) { return r.body["error"].value("code", ""); }
std::string ErrorMessage(const JsonReply& r) { return r.body["error"].value("message", ""); }

// The API's behaviour, on each store.
class HttpServerTest : public ::testing::TestWithParam<testing::Backend> {
 protected:
  void SetUp() override { store_.Serve(); }
  ServedStore store_{GetParam()};
};

TEST_P(HttpServerTest, HealthzAnswersOk) {
  const JsonReply r = store_.Get("/healthz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body["status"], "ok");
}

TEST_P(HttpServerTest, AddGetListSearchDeleteOneFact) {
  JsonReply r = store_.Post("/v1/facts", {{"content", "The staging database listens on port 5433"},
                                          {"tags", {"db", "Staging"}}});
  ASSERT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(r.body["added"], 1);
  const std::string id = r.body["facts"][0]["id"];
  EXPECT_EQ(id.size(), 24u);

  r = store_.Post("/v1/facts", {{"content", "the staging  database listens on port 5433"}});
  EXPECT_EQ(r.status, 200) << "the same text merges";
  EXPECT_EQ(r.body["merged"], 1);

  r = store_.Get("/v1/facts/" + id);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["content"], "The staging database listens on port 5433");
  EXPECT_EQ(r.body["tags"], json({"db", "staging"}));

  r = store_.Get("/v1/facts/" + id.substr(0, 8));
  EXPECT_EQ(r.status, 200) << "an id prefix works";

  r = store_.Get("/v1/facts?limit=10");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["count"], 1);
  EXPECT_EQ(r.body["facts"][0]["id"], id);

  r = store_.Post("/v1/search",
                  {{"query", "which port does the staging database use"}, {"explain", true}});
  ASSERT_EQ(r.status, 200) << r.raw;
  ASSERT_EQ(r.body["hits"].size(), 1u);
  EXPECT_EQ(r.body["hits"][0]["fact"]["id"], id);
  EXPECT_TRUE(r.body["hits"][0]["signals"]["lexical"]["present"]);
  EXPECT_EQ(r.body["mode"], "blended");

  r = store_.Call("DELETE", "/v1/facts/" + id);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["forgotten"], 1);
  r = store_.Get("/v1/facts/" + id);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(ErrorCode(r), "not_found");
  r = store_.Call("DELETE", "/v1/facts/" + id);
  EXPECT_EQ(r.status, 404);
}

TEST_P(HttpServerTest, UpdateHistoryFiltersAndForgetOfAChain) {
  JsonReply r = store_.Post("/v1/facts", {{"content", "Standup is at 9:30"}, {"tags", {"team"}}});
  ASSERT_EQ(r.status, 201) << r.raw;
  const std::string old_id = r.body["facts"][0]["id"];
  r = store_.Call("PUT", "/v1/facts/" + old_id.substr(0, 8),
                  json({{"content", "Standup is at 10:15"}, {"tags", {"team"}}}).dump());
  ASSERT_EQ(r.status, 201) << r.raw;
  const std::string new_id = r.body["fact"]["id"];
  EXPECT_EQ(r.body["superseded"]["id"], old_id);
  EXPECT_EQ(r.body["superseded"]["superseded_by"], new_id);
  // POST on the fact is an update too; the old one cannot be updated again.
  r = store_.Post("/v1/facts/" + old_id, {{"content", "Standup is at 11:00"}});
  EXPECT_EQ(r.status, 409) << r.raw;

  r = store_.Get("/v1/facts/" + new_id + "/history");
  ASSERT_EQ(r.status, 200) << r.raw;
  ASSERT_EQ(r.body["count"], 2);
  EXPECT_EQ(r.body["facts"][0]["id"], old_id);
  EXPECT_EQ(r.body["facts"][1]["id"], new_id);
  EXPECT_EQ(store_.Get("/v1/facts").body["count"], 1);
  EXPECT_EQ(store_.Get("/v1/facts?include_superseded=true").body["count"], 2);
  r = store_.Post("/v1/search",
                  {{"query", "standup"}, {"tags_all", {"team"}}, {"as_of", "2000-01-01"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_TRUE(r.body["hits"].empty()) << "nothing was current in 2000";
  r = store_.Post("/v1/search", {{"query", "standup"}, {"tags_any", {"team"}}});
  ASSERT_EQ(r.body["hits"].size(), 1u) << r.raw;
  EXPECT_EQ(r.body["hits"][0]["fact"]["id"], new_id);

  r = store_.Call("DELETE", "/v1/facts/" + new_id);
  EXPECT_EQ(r.status, 409) << "older versions would be left without a current one: " << r.raw;
  r = store_.Call("DELETE", "/v1/facts/" + new_id + "?history=restore");
  ASSERT_EQ(r.status, 200) << r.raw;
  r = store_.Get("/v1/facts");
  ASSERT_EQ(r.body["count"], 1);
  EXPECT_EQ(r.body["facts"][0]["id"], old_id);
  EXPECT_TRUE(r.body["facts"][0]["superseded_by"].is_null()) << "current again";
}

TEST_P(HttpServerTest, ExportGivesEveryVersionOfTheScopesAsImportReadsThem) {
  JsonReply r = store_.Post("/v1/facts?scope=alice", {{"content", "Standup is at 9:30"}});
  ASSERT_EQ(r.status, 201);
  const std::string old_id = r.body["facts"][0]["id"];
  ASSERT_EQ(store_.Post("/v1/facts?scope=alice", {{"content", "Alice likes tea"}}).status, 201);
  ASSERT_EQ(store_.Post("/v1/facts?scope=bob", {{"content", "Bob likes coffee"}}).status, 201);
  ASSERT_EQ(store_
                .Call("PUT", "/v1/facts/" + old_id + "?scope=alice",
                      json({{"content", "Standup is at 10:00"}}).dump())
                .status,
            201);

  auto client = store_.Client();
  auto res = client->Get("/v1/export?scope=alice");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/x-ndjson");
  EXPECT_NE(res->get_header_value("Content-Disposition").find("attachment"), std::string::npos);
  std::vector<json> lines;
  std::istringstream in(res->body);
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), 3u) << "two current facts and the replaced version: " << res->body;
  const json listed = store_.Get("/v1/facts?scope=alice&include_superseded=true&limit=10").body;
  std::set<std::string> exported_ids;
  std::set<std::string> listed_ids;
  for (const json& f : lines) {
    EXPECT_EQ(f["scope"], "alice");
    exported_ids.insert(f["id"].get<std::string>());
  }
  for (const json& f : listed["facts"]) listed_ids.insert(f["id"].get<std::string>());
  EXPECT_EQ(exported_ids, listed_ids);
  EXPECT_TRUE(exported_ids.count(old_id)) << "the replaced version is exported too";

  res = client->Get("/v1/export?scope=alice&scope=bob");
  ASSERT_TRUE(res);
  EXPECT_EQ(std::count(res->body.begin(), res->body.end(), '\n'), 4);
  res = client->Get("/v1/export");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "") << "the default scope holds nothing";
  EXPECT_EQ(store_.Get("/v1/export?scope=").status, 400);
  EXPECT_EQ(store_.Post("/v1/export", json::object()).status, 405);
}

TEST_P(HttpServerTest, BatchAddIsAllOrNothing) {
  JsonReply r = store_.Post(
      "/v1/facts", {{"facts", {{{"content", "one"}}, {{"content", " "}}, {{"content", "three"}}}}});
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(ErrorMessage(r).find("facts[1]"), std::string::npos) << r.raw;
  EXPECT_EQ(store_.Get("/v1/facts").body["count"], 0) << "nothing stored";

  r = store_.Post("/v1/facts", {{"scope", "team"},
                                {"facts",
                                 {{{"content", "Deploys happen on Tuesdays"}, {"tags", {"ops"}}},
                                  {{"content", "Code review needs two approvals"}}}}});
  ASSERT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(r.body["added"], 2);
  EXPECT_EQ(r.body["facts"][0]["scope"], "team");
  EXPECT_EQ(store_.Get("/v1/facts?scope=team").body["count"], 2);

  r = store_.Post("/v1/facts",
                  {{"scope", "team"}, {"facts", {{{"content", "x y z"}, {"scope", "other"}}}}});
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(ErrorMessage(r).find("differs"), std::string::npos) << r.raw;
}

TEST_P(HttpServerTest, ScopesIsolate) {
  ASSERT_EQ(store_.Post("/v1/facts?scope=alice", {{"content", "Alice prefers dark mode"}}).status,
            201);
  ASSERT_EQ(
      store_.Post("/v1/facts", {{"content", "Bob prefers light mode"}, {"scope", "bob"}}).status,
      201);
  JsonReply r = store_.Post("/v1/search", {{"query", "prefers mode"}, {"scope", "alice"}});
  ASSERT_EQ(r.status, 200) << r.raw;
  ASSERT_EQ(r.body["hits"].size(), 1u);
  EXPECT_EQ(r.body["hits"][0]["fact"]["scope"], "alice");
  r = store_.Post("/v1/search", {{"query", "prefers mode"}, {"scope", {"alice", "bob"}}});
  EXPECT_EQ(r.body["hits"].size(), 2u);
  r = store_.Post("/v1/search", {{"query", "prefers mode"}});
  EXPECT_EQ(r.body["hits"].size(), 0u) << "the default scope holds neither";
  EXPECT_EQ(r.body["missing_scopes"], json({"default"}));
  const std::string id = store_.Get("/v1/facts?scope=alice").body["facts"][0]["id"];
  EXPECT_EQ(store_.Get("/v1/facts/" + id + "?scope=bob").status, 404);
  EXPECT_EQ(store_.Post("/v1/facts?scope=bob", {{"content", "c"}, {"scope", "alice"}}).status, 400);
}

TEST_P(HttpServerTest, BadRequestsNameWhatIsWrong) {
  struct Case {
    std::string method, path, body, code, needle;
  };
  const std::string long_query(store_.limits().max_query_bytes + 1, 'q');
  const std::vector<Case> cases = {
      {"POST", "/v1/search", "{\"query\": \"x\",", "invalid_argument", "malformed JSON at byte"},
      {"POST", "/v1/search", "", "invalid_argument", "empty"},
      {"POST", "/v1/search", "[1, 2]", "invalid_argument", "expected a JSON object"},
      {"POST", "/v1/search", R"({"k": 3})", "invalid_argument", "field 'query': is required"},
      {"POST", "/v1/search", R"({"query": "x", "k": 0})", "invalid_argument", "field 'k'"},
      {"POST", "/v1/search", R"({"query": "x", "k": "ten"})", "invalid_argument", "field 'k'"},
      {"POST", "/v1/search", R"({"query": "x", "mode": "fuzzy"})", "invalid_argument",
       "field 'mode'"},
      {"POST", "/v1/search", R"({"query": "x", "colour": 1})", "invalid_argument",
       "unknown field 'colour'"},
      {"POST", "/v1/search", R"({"query": "x", "scope": ""})", "invalid_argument", "field 'scope'"},
      {"POST", "/v1/search", json({{"query", long_query}}).dump(), "invalid_argument",
       "field 'query': is 8193 bytes; the limit is 8192"},
      {"POST", "/v1/facts", R"({"content": 42})", "invalid_argument", "field 'content'"},
      {"POST", "/v1/facts", R"({"text": "a", "colour": "red"})", "invalid_argument",
       "unknown field 'colour'"},
      {"POST", "/v1/facts", R"({"content": "a", "confidence": 7})", "invalid_argument",
       "confidence"},
      {"POST", "/v1/facts", R"({"facts": []})", "invalid_argument", "field 'facts': is empty"},
      {"POST", "/v1/facts", "{\"content\": \"\xff\"}", "invalid_argument", "malformed JSON"},
      // Inputs that once crashed a process or answered 500.
      {"POST", "/v1/facts", R"({"content": "x", "confidence": 1e999})", "invalid_argument",
       "request body: number out of range at byte 36"},
      {"POST", "/v1/search", R"({"query": "x", "k": 99999999999999999999})", "invalid_argument",
       "request body: integer 99999999999999999999 is outside the 64-bit range at $.k"},
      {"POST", "/v1/facts", R"({"content": "x", "content": "y"})", "invalid_argument",
       "request body: key \"content\" appears twice at $.content"},
      {"POST", "/v1/facts",
       "{\"content\": \"x\", \"metadata\": " + std::string(50000, '[') + std::string(50000, ']') +
           "}",
       "invalid_argument", "nesting deeper than 64 levels"},
      {"GET", "/v1/facts?limit=many", "", "invalid_argument", "field 'limit'"},
      {"GET", "/v1/facts?limit=0", "", "invalid_argument", "field 'limit'"},
      {"GET", "/v1/facts?size=3", "", "invalid_argument", "unknown field 'size'"},
      {"DELETE", "/v1/facts/abcd?tag=x", "", "invalid_argument", "exactly one"},
  };
  for (const Case& c : cases) {
    const JsonReply r = store_.Call(c.method, c.path, c.body);
    EXPECT_EQ(r.status, 400) << c.method << " " << c.path << " " << c.body << " -> " << r.raw;
    EXPECT_EQ(ErrorCode(r), c.code) << r.raw;
    EXPECT_NE(ErrorMessage(r).find(c.needle), std::string::npos)
        << "'" << c.needle << "' not in " << r.raw;
  }
}

TEST_P(HttpServerTest, UnknownRoutesAndWrongMethodsAnswerJson) {
  JsonReply r = store_.Get("/v1/nothing");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(ErrorCode(r), "not_found");
  r = store_.Get("/v1/search");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(ErrorCode(r), "method_not_allowed");
  r = store_.Call("PUT", "/v1/facts", "{}");
  EXPECT_EQ(r.status, 405);
  EXPECT_NE(ErrorMessage(r).find("GET, POST"), std::string::npos);
  const std::string bare = RawExchange(
      store_.server().port(),
      "POST /v1/reload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Connection: close\r\n\r\n");
  EXPECT_EQ(bare.rfind("HTTP/1.1 400", 0), 0u) << bare;
  EXPECT_NE(bare.find("needs a Content-Length"), std::string::npos) << bare;
}

TEST(HttpServerLimitsTest, BodyOverTheLimitIs413AndStoresNothing) {
  ServedStore store;
  store.limits().max_body_bytes = 4096;
  store.limits().max_batch = 3;
  store.Serve();
  const std::string big(5000, 'a');
  JsonReply r = store.Post("/v1/facts", {{"content", big}});
  EXPECT_EQ(r.status, 413) << r.raw;
  EXPECT_EQ(ErrorCode(r), "payload_too_large");
  EXPECT_NE(ErrorMessage(r).find("4096"), std::string::npos);
  r = store.Post(
      "/v1/facts",
      {{"facts",
        {{{"content", "a"}}, {{"content", "b"}}, {{"content", "c"}}, {{"content", "d"}}}}});
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(ErrorMessage(r).find("has 4 facts; the limit is 3"), std::string::npos) << r.raw;
  EXPECT_EQ(store.Get("/v1/facts").body["count"], 0);
  // The server is still serving.
  EXPECT_EQ(store.Post("/v1/facts", {{"content", "small"}}).status, 201);
}

TEST(HttpServerLimitsTest, ChunkedCompressedAndDeeplyNestedBodiesAreRefused) {
  ServedStore store;
  store.limits().max_body_bytes = 4096;
  store.Serve();
  // A chunked body: its length cannot be checked against the limit up
  // front. Sent whole on a raw socket, since the server answers before it
  // reads the body.
  const std::string chunked =
      "POST /v1/facts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
      "11\r\n{\"content\": \"ab\"}\r\n0\r\n\r\n";
  const std::string answer = RawExchange(store.server().port(), chunked);
  EXPECT_EQ(answer.rfind("HTTP/1.1 411", 0), 0u) << answer;
  EXPECT_NE(answer.find("length_required"), std::string::npos) << answer;
  auto client = store.Client();
  const httplib::Headers gzip = {{"Content-Encoding", "gzip"}};
  auto r = client->Post("/v1/facts", gzip, "\x1f\x8b", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415) << r->body;
  std::string deep = "{\"content\": \"x\", \"metadata\": {\"a\": ";
  deep += std::string(1500, '[') + std::string(1500, ']') + "}}";
  const JsonReply nested = store.Call("POST", "/v1/facts", deep);
  EXPECT_EQ(nested.status, 400);
  EXPECT_NE(ErrorMessage(nested).find("nesting deeper than 64 levels"), std::string::npos)
      << nested.raw;
  EXPECT_EQ(store.Get("/v1/facts").body["count"], 0);
}

TEST(WithoutAbsolutePathsTest, AClientLearnsWhichFileNotWhere) {
  EXPECT_EQ(WithoutAbsolutePaths("store: open '/home/ana/.engram/memory.db': disk I/O error"),
            "store: open 'memory.db': disk I/O error");
  EXPECT_EQ(WithoutAbsolutePaths("/var/lib/engram/index/: not writable"), "index: not writable");
  EXPECT_EQ(WithoutAbsolutePaths("cannot read (/a/b.bin), nor path=/c/d.txt; done"),
            "cannot read (b.bin), nor path=d.txt; done");
  EXPECT_EQ(WithoutAbsolutePaths("http: POST https://api.example/v1/embed: timeout"),
            "http: POST https://api.example/v1/embed: timeout")
      << "a URL is not a file path";
  EXPECT_EQ(WithoutAbsolutePaths("a/b and / alone"), "a/b and / alone");
}

TEST(HttpServerLimitsTest, ContentOverTheEngineLimitIs400) {
  ServedStore store;
  store.engine_options().limits.max_content_bytes = 100;
  store.Serve();
  const JsonReply r = store.Post("/v1/facts", {{"content", std::string(101, 'x')}});
  EXPECT_EQ(r.status, 400) << r.raw;
  EXPECT_NE(ErrorMessage(r).find("content"), std::string::npos) << r.raw;
}

TEST_P(HttpServerTest, ConfigShowsSettingsSearchDefaultsAndStore) {
  ASSERT_EQ(store_.Post("/v1/facts", {{"content", "a fact to count"}}).status, 201);
  const JsonReply r = store_.Get("/v1/config");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["settings"]["embed.provider"]["value"], "hash");
  EXPECT_EQ(r.body["search"]["k"], 10);
  EXPECT_EQ(r.body["store"]["facts"], 1);
  EXPECT_EQ(r.body["store"]["embedding"]["provider"], "hash");
}

INSTANTIATE_TEST_SUITE_P(Backends, HttpServerTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

TEST(HttpServerAuthTest, RefusesAnotherAddressWithoutAToken) {
  ServedStore store;
  ServerOptions o;
  o.host = "127.0.0.2";
  auto server = HttpServer::Create(&store.Api(), o);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(server.status().message().find("without a bearer token"), std::string::npos);
}

TEST(HttpServerAuthTest, AnotherAddressNeedsTheTokenOnEveryRequest) {
  const std::string token = "s3cret-token-value";
  ServedStore store;
  store.Serve("127.0.0.2", token);
  for (const char* path : {"/healthz", "/v1/facts", "/v1/config", "/v1/nothing"}) {
    JsonReply r = store.Call("GET", path);
    EXPECT_EQ(r.status, 401) << path;
    EXPECT_EQ(ErrorCode(r), "unauthenticated");
    EXPECT_NE(ErrorMessage(r).find("missing"), std::string::npos);
    r = store.Call("GET", path, "", "s3cret-token-valuf");
    EXPECT_EQ(r.status, 401) << path;
    EXPECT_NE(ErrorMessage(r).find("wrong"), std::string::npos);
    EXPECT_EQ(r.raw.find(token), std::string::npos) << "the token is never echoed";
  }
  EXPECT_EQ(store.Call("POST", "/v1/facts", R"({"content": "x"})", "wrong").status, 401);
  EXPECT_EQ(store.Get("/v1/facts").body.value("count", -1), -1);
  EXPECT_EQ(store.Call("POST", "/v1/facts", R"({"content": "let in"})", token).status, 201);
  auto lower = store.Client();
  auto ok = lower->Get("/v1/facts", {{"Authorization", "bearer " + token}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << "the scheme is case-insensitive";
  JsonReply r = store.Call("GET", "/v1/facts", "", token);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body["count"], 1);
  auto client = store.Client();
  auto res = client->Get("/healthz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->get_header_value("WWW-Authenticate"), "Bearer realm=\"engram\"");
}

// An embedder that takes its time, to hold a request in flight.
class SlowEmbedder final : public Embedder {
 public:
  explicit SlowEmbedder(int ms) : inner_(8), ms_(ms) {}
  const EmbeddingSpace& Space() const override { return inner_.Space(); }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                EmbedPurpose purpose) const override {
    started_ = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    return inner_.Embed(texts, purpose);
  }
  // Waits until a call has begun.
  void WaitForCall() const {
    while (!started_) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

 private:
  HashEmbedder inner_;
  int ms_;
  mutable std::atomic<bool> started_{false};
};

// Slow clients, as a slowloris attack sends them: each opens a
// connection and sends one more header line every `interval`, never
// ending its headers, until the test ends.
class SlowClients {
 public:
  SlowClients(int port, int count, std::chrono::milliseconds interval) {
    for (int i = 0; i < count; ++i) {
      const int fd = ConnectLoopback(port);
      EXPECT_GE(fd, 0);
      if (fd < 0) continue;
      SendLine(fd, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      fds_.push_back(fd);
    }
    trickle_ = std::thread([this, interval] {
      while (!stop_.load()) {
        std::this_thread::sleep_for(interval);
        for (int fd : fds_) SendLine(fd, "X-Slow: 1\r\n");
      }
    });
  }
  ~SlowClients() {
    stop_ = true;
    trickle_.join();
    for (int fd : fds_) close(fd);
  }
  // How many of the connections the server has closed, waiting up to
  // `deadline` for all of them.
  size_t ClosedWithin(std::chrono::milliseconds deadline) const {
    const auto end = std::chrono::steady_clock::now() + deadline;
    std::set<int> open(fds_.begin(), fds_.end());
    while (!open.empty() && std::chrono::steady_clock::now() < end) {
      for (auto it = open.begin(); it != open.end();) {
        char byte;
        const ssize_t n = recv(*it, &byte, 1, MSG_DONTWAIT);
        const bool ended = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
        it = ended ? open.erase(it) : std::next(it);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return fds_.size() - open.size();
  }

 private:
  static void SendLine(int fd, const std::string& line) {
    (void)send(fd, line.data(), line.size(), MSG_NOSIGNAL);
  }
  std::vector<int> fds_;
  std::atomic<bool> stop_{false};
  std::thread trickle_;
};

// The case a health check met: 70 slow clients for 64 threads. Each holds
// a thread while it trickles; the health check must not wait for them.
TEST(HttpServerSlowClientsTest, SlowClientsNeitherStarveOthersNorStayPastTheHeaderTimeout) {
  ServedStore store;
  store.server_options().threads = 64;
  store.server_options().header_timeout_ms = 5000;
  store.Serve();
  const auto opened = std::chrono::steady_clock::now();
  SlowClients slow(store.server().port(), 70, std::chrono::milliseconds(500));
  // Let every thread be taken and the slow ones age past the 1 s after
  // which queued connections make them go.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));

  const auto asked = std::chrono::steady_clock::now();
  const JsonReply health = store.Get("/healthz");
  const auto waited = std::chrono::steady_clock::now() - asked;
  EXPECT_EQ(health.status, 200);
  // Without the watchdog it waits for a slow client to give up (never,
  // here: the client's 30 s read timeout ends it). With it, a thread is
  // freed within a scan or two.
  EXPECT_LT(waited, std::chrono::seconds(4));

  // Every slow client is gone once the header timeout has passed.
  const auto left = std::chrono::milliseconds(5000 + 3000) -
                    std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - opened);
  EXPECT_EQ(slow.ClosedWithin(left), 70U);
  // And the server serves on.
  EXPECT_EQ(store.Get("/healthz").status, 200);
}

// A client that keeps a connection open and idle between requests is
// left alone while it stays under the header timeout and nobody queues.
TEST(HttpServerSlowClientsTest, AKeptAliveConnectionUnderTheTimeoutStaysOpen) {
  ServedStore store;
  store.server_options().header_timeout_ms = 3000;
  store.Serve();
  const int fd = ConnectLoopback(store.server().port());
  ASSERT_GE(fd, 0);
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(send(fd, request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()))
        << "request " << i << ": the connection was closed";
    // The whole answer, which may come in several segments: headers, then
    // Content-Length bytes of body.
    std::string answer;
    size_t want = std::string::npos;
    while (answer.size() < want) {
      char buf[4096];
      const ssize_t n = recv(fd, buf, sizeof buf, 0);
      ASSERT_GT(n, 0) << "request " << i << ": the connection was closed";
      answer.append(buf, static_cast<size_t>(n));
      const size_t head_end = answer.find("\r\n\r\n");
      const size_t length = answer.find("Content-Length: ");
      if (head_end != std::string::npos && length != std::string::npos && length < head_end) {
        want = head_end + 4 + std::stoul(answer.substr(length + 16));
      }
    }
    EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0U) << answer;
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  }
  close(fd);
}

TEST(HttpServerStopTest, StopLetsARequestInFlightFinish) {
  auto slow = std::make_shared<SlowEmbedder>(600);
  ServedStore store(slow);
  store.Serve();
  JsonReply in_flight;
  std::thread search([&] { in_flight = store.Post("/v1/search", {{"query", "anything"}}); });
  slow->WaitForCall();
  store.server().Stop();
  search.join();
  EXPECT_EQ(in_flight.status, 200) << in_flight.raw;
  auto client = store.Client();
  client->set_connection_timeout(1, 0);
  EXPECT_FALSE(client->Get("/healthz")) << "no longer accepting";
}

TEST(HttpServerReloadTest, ServerSettingsChangedByAReloadAreNamedAsPendingARestart) {
  ServedStore store;
  store.SetLoader([&store]() -> Result<ServingConfig> {
    ServingConfig c;
    c.engine = store.engine_options();
    c.settings = {{"embed.provider", {{"value", "hash"}, {"source", "default"}}},
                  {"server.max_batch", {{"value", "5"}, {"source", "file"}}}};
    return c;
  });
  store.Serve();
  const JsonReply r = store.Post("/v1/reload", json::object());
  ASSERT_EQ(r.status, 200) << r.raw;
  ASSERT_EQ(r.body["warnings"].size(), 1u) << r.raw;
  EXPECT_NE(r.body["warnings"][0].get<std::string>().find("server.max_batch changed"),
            std::string::npos);
}

TEST(HttpServerReloadTest, FailedReloadKeepsTheConfigurationInForce) {
  ServedStore store;
  store.SetLoader([]() -> Result<ServingConfig> {
    return InvalidArgument("config: read 'x.toml': expected '=' at line 3");
  });
  store.Serve();
  JsonReply r = store.Post("/v1/reload", json::object());
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(ErrorMessage(r).find("reload: config: read 'x.toml'"), std::string::npos) << r.raw;
  ASSERT_EQ(store.Post("/v1/facts", {{"content", "still works"}}).status, 201);
  EXPECT_EQ(store.Get("/v1/config").body["store"]["embedding"]["provider"], "hash");
}

// Reload switches the embedding provider between the in-process hash
// embedder and an OpenAI-compatible server on loopback while clients
// search and add: no request fails, every added fact is there, and the
// store ends in the last provider's space.
TEST(HttpServerReloadTest, SwitchingProviderMidRunFailsNoRequest) {
  testing::LoopbackServer openai([](const testing::ReceivedRequest& req) {
    const json body = json::parse(req.body);
    json data = json::array();
    for (size_t i = 0; i < body["input"].size(); ++i) {
      data.push_back({{"index", i},
                      {"embedding", testing::VectorFor(body["input"][i].get<std::string>(), 8)}});
    }
    testing::CannedResponse answer;
    answer.body = json({{"data", data}}).dump();
    return answer;
  });
  ServedStore store;
  store.engine_options().vector.background_backfill = true;
  std::atomic<int> reloads{0};
  store.SetLoader([&]() -> Result<ServingConfig> {
    ServingConfig c;
    c.engine = store.engine_options();
    if (reloads.fetch_add(1) % 2 == 0) {
      EmbedderOptions o = testing::OptionsFor(openai);
      o.remote.api_key = "sk-test";
      o.dimensions = 8;
      ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> e, CreateEmbedder("openai", o));
      c.engine.embedder = std::move(e);
    } else {
      c.engine.embedder = std::make_shared<HashEmbedder>(64);
    }
    return c;
  });
  store.Serve();

  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, searches{0};
  std::vector<std::string> added;
  std::mutex added_mutex;
  std::vector<std::thread> clients;
  for (int t = 0; t < 3; ++t) {
    clients.emplace_back([&, t] {
      for (int i = 0; !stop; ++i) {
        if (t == 0) {
          const std::string content = "fact number " + std::to_string(i) + " about deploys";
          const JsonReply r = store.Post("/v1/facts", {{"content", content}});
          if (r.status != 201) {
            ++failures;
            ADD_FAILURE() << r.status << " " << r.raw;
          }
          std::lock_guard lock(added_mutex);
          added.push_back(content);
        } else {
          const JsonReply r = store.Post("/v1/search", {{"query", "deploys fact"}, {"k", 5}});
          if (r.status != 200) {
            ++failures;
            ADD_FAILURE() << r.status << " " << r.raw;
          }
          ++searches;
        }
      }
    });
  }
  for (int i = 0; i < 6; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    const JsonReply r = store.Post("/v1/reload", json::object());
    EXPECT_EQ(r.status, 200) << r.raw;  // not ASSERT: the clients must be joined
    EXPECT_EQ(r.body["embedding"], i % 2 == 0 ? "openai:text-embedding-3-small:8" : "hash:fnv1a:64")
        << r.raw;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  stop = true;
  for (auto& c : clients) c.join();
  EXPECT_EQ(failures, 0);
  EXPECT_GT(searches, 10);
  EXPECT_FALSE(openai.Requests().empty()) << "the OpenAI provider was used";
  for (const std::string& c : added) {
    const JsonReply r = store.Get("/v1/facts/" + ComputeFactId(c));
    EXPECT_EQ(r.status, 200) << c;
    EXPECT_EQ(r.body.value("content", ""), c);
  }
  EXPECT_EQ(store.Get("/v1/config").body["store"]["embedding"]["provider"], "hash");
}

}  // namespace
}  // namespace engram
