// The HTTP API on a PostgreSQL store whose connection the server drops (a
// database restart): the request that meets it is a 503 with Retry-After,
// never a wrong answer, and the next one is served again.
#include <gtest/gtest.h>

#include <memory>

#include "src/server/server_test_util.h"
#include "src/store/postgres/pg_connection.h"
#include "src/store/testing/store_backends.h"

namespace engram {
namespace {

TEST(HttpServerPostgresTest, ALostDatabaseIsA503WithRetryAfterAndTheNextRequestIsServed) {
  auto place = testing::StorePlace::Create(testing::Backend::kPostgres);
  ASSERT_TRUE(place.ok()) << place.status().ToString();
  testing::ServedStore store;
  (*place)->Apply(&store.engine_options());
  store.engine_options().readers = 0;  // one connection: the one dropped
  store.Serve();
  ASSERT_EQ(
      store.Post("/v1/facts", {{"content", "The staging database listens on port 5433"}}).status,
      201);
  const nlohmann::json query = {{"query", "staging database port"}, {"mode", "lexical"}};
  ASSERT_EQ(store.Post("/v1/search", query).status, 200);

  // Every connection of the engine to its database ends, as in a restart.
  EngineOptions where;
  (*place)->Apply(&where);
  auto admin = PgConnection::Connect(where.store_url);
  ASSERT_TRUE(admin.ok()) << admin.status().ToString();
  auto ended = (*admin)->Query(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
      "current_database() AND pid <> pg_backend_pid()");
  ASSERT_TRUE(ended.ok()) << ended.status().ToString();
  ASSERT_GE(*ended->Int(0, 0), 1);

  auto client = store.Client();
  auto lost = client->Post("/v1/search", query.dump(), "application/json");
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->status, 503) << lost->body;
  EXPECT_EQ(lost->get_header_value("Retry-After"), "1");
  EXPECT_NE(lost->body.find("unavailable"), std::string::npos) << lost->body;

  const testing::JsonReply again = store.Post("/v1/search", query);
  ASSERT_EQ(again.status, 200) << again.raw;
  ASSERT_EQ(again.body["hits"].size(), 1u) << again.raw;
}

}  // namespace
}  // namespace engram
