// A served store for the server tests: a real store (a SQLite file, or a
// PostgreSQL database of its own on the test cluster), an engine, a
// MemoryApi and (for HTTP) a real server on a loopback address, with a
// client that speaks JSON to it.
#ifndef ENGRAM_SRC_SERVER_SERVER_TEST_UTIL_H_
#define ENGRAM_SRC_SERVER_SERVER_TEST_UTIL_H_

#include <httplib.h>

#include <memory>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engram/engine.h"
#include "src/embed/hash_embedder.h"
#include "src/server/http_server.h"
#include "src/server/memory_api.h"
#include "src/store/testing/store_backends.h"
#include "tests/test_util.h"

namespace engram::testing {

// An answer of the server: status and parsed body (null when not JSON).
struct JsonReply {
  int status = 0;
  nlohmann::json body;
  std::string raw;
};

class ServedStore {
 public:
  // A SQLite store; `embedder` may be null (keyword-only).
  explicit ServedStore(
      std::shared_ptr<const Embedder> embedder = std::make_shared<HashEmbedder>(64)) {
    options_.db_path = dir_.File("memory.db");
    options_.embedder = std::move(embedder);
    options_.vector.background_backfill = false;
  }
  // A store of `backend` (a test program of PostgreSQL is registered
  // POSTGRES).
  explicit ServedStore(Backend backend, std::shared_ptr<const Embedder> embedder =
                                            std::make_shared<HashEmbedder>(64))
      : ServedStore(std::move(embedder)) {
    auto place = StorePlace::Create(backend);
    EXPECT_TRUE(place.ok()) << place.status().ToString();
    if (!place.ok()) return;
    place_ = std::move(*place);
    place_->Apply(&options_);
  }

  EngineOptions& engine_options() { return options_; }
  RequestLimits& limits() { return limits_; }
  // The server's options besides host, port, token and limits; 16 threads.
  ServerOptions& server_options() { return server_options_; }
  void SetLoader(ConfigLoader loader) { loader_ = std::move(loader); }

  // Opens the engine and the API; call after adjusting the options.
  MemoryApi& Api() {
    if (api_ == nullptr) {
      auto engine = Engine::Open(options_);
      EXPECT_TRUE(engine.ok()) << engine.status().ToString();
      engine_ = std::move(*engine);
      ServingConfig config;
      config.engine = options_;
      config.settings = {{"embed.provider", {{"value", "hash"}, {"source", "default"}}}};
      api_ = std::make_unique<MemoryApi>(engine_.get(), limits_, config, loader_);
    }
    return *api_;
  }
  Engine& engine() {
    Api();
    return *engine_;
  }

  // Starts an HTTP server on `host` at a free port.
  void Serve(const std::string& host = "127.0.0.1", const std::string& token = "") {
    ServerOptions o = server_options_;
    o.host = host;
    o.port = 0;
    o.token = token;
    o.limits = limits_;
    auto server = HttpServer::Create(&Api(), o);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    ASSERT_TRUE(server_->Start().ok());
    host_ = host;
  }
  HttpServer& server() { return *server_; }

  // A client of the server; `token` sent as a bearer token when set.
  std::unique_ptr<httplib::Client> Client(const std::string& token = "") const {
    auto client = std::make_unique<httplib::Client>(host_, server_->port());
    client->set_read_timeout(30, 0);
    if (!token.empty()) client->set_bearer_token_auth(token);
    return client;
  }

  JsonReply Call(const std::string& method, const std::string& path, const std::string& body = "",
                 const std::string& token = "") const {
    auto client = Client(token);
    httplib::Result r = method == "GET"      ? client->Get(path)
                        : method == "DELETE" ? client->Delete(path)
                        : method == "PUT"    ? client->Put(path, body, "application/json")
                                             : client->Post(path, body, "application/json");
    JsonReply reply;
    if (!r) {
      ADD_FAILURE() << method << " " << path << ": " << httplib::to_string(r.error());
      return reply;
    }
    reply.status = r->status;
    reply.raw = r->body;
    reply.body = nlohmann::json::parse(r->body, nullptr, /*allow_exceptions=*/false);
    return reply;
  }
  JsonReply Post(const std::string& path, const nlohmann::json& body) const {
    return Call("POST", path, body.dump());
  }
  JsonReply Get(const std::string& path) const { return Call("GET", path); }

 private:
  TempDir dir_;
  std::unique_ptr<StorePlace> place_;  // goes after the engine
  EngineOptions options_;
  RequestLimits limits_;
  ServerOptions server_options_ = [] {
    ServerOptions o;
    o.threads = 16;
    return o;
  }();
  ConfigLoader loader_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<MemoryApi> api_;
  std::unique_ptr<HttpServer> server_;
  std::string host_ = "127.0.0.1";
};

}  // namespace engram::testing

#endif  // ENGRAM_SRC_SERVER_SERVER_TEST_UTIL_H_
