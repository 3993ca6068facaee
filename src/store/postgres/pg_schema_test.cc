// The PostgreSQL schema on a real server: made once, keyed by scope, and a
// newer one refused.
#include "src/store/postgres/pg_schema.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "src/store/postgres/pg_connection.h"
#include "src/store/postgres/testing/pg_database_test.h"

namespace engram {
namespace {

using PgSchemaTest = testing::PgDatabaseTest;

TEST_F(PgSchemaTest, AnEmptyDatabaseGetsTheSchemaOnceAndAgainChangesNothing) {
  auto first = EnsurePgSchema(*db_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, 0);
  auto second = EnsurePgSchema(*db_);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, kPgSchemaVersion);
  auto version = db_->Query("SELECT value FROM engram_meta WHERE key = 'schema_version'");
  ASSERT_TRUE(version.ok());
  ASSERT_EQ(version->Rows(), 1);
  EXPECT_EQ(version->Text(0, 0), std::to_string(kPgSchemaVersion));
}

TEST_F(PgSchemaTest, EveryTableOfMemoriesIsKeyedByScopeFirst) {
  ASSERT_TRUE(EnsurePgSchema(*db_).ok());
  // Each table and the first column of its primary key.
  auto keys = db_->Query(
      "SELECT c.relname, a.attname FROM pg_index i "
      "JOIN pg_class c ON c.oid = i.indrelid "
      "JOIN pg_namespace n ON n.oid = c.relnamespace "
      "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0] "
      "WHERE i.indisprimary AND n.nspname = current_schema() ORDER BY c.relname");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  // The global tables: the schema version, what a space id means, the
  // HyDE cache (LLM answers to query texts, as on SQLite) and the attached
  // files, which belong to the store rather than to a scope.
  const std::set<std::string> reference_tables = {
      "context_attachments", "context_chunks", "context_files",  "context_vectors",
      "embedding_spaces",    "engram_meta",    "hyde_hypotheses"};
  std::set<std::string> tables;
  for (int r = 0; r < keys->Rows(); ++r) {
    const std::string table(keys->Text(r, 0));
    tables.insert(table);
    if (reference_tables.count(table) == 0) {
      EXPECT_EQ(keys->Text(r, 1), "scope") << table << "'s primary key starts elsewhere";
    }
  }
  // Every table has a primary key, and these are all of them.
  auto all = db_->Query("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all->Int(0, 0), static_cast<int64_t>(tables.size()));
  EXPECT_EQ(tables, std::set<std::string>({"context_attachments", "context_chunks", "context_files",
                                           "context_vectors", "embedding_spaces", "engram_meta",
                                           "fact_vectors", "fact_versions", "facts",
                                           "hyde_hypotheses", "scope_stats"}));
}

TEST_F(PgSchemaTest, ASchemaFromANewerBuildIsRefusedAndLeftAlone) {
  ASSERT_TRUE(EnsurePgSchema(*db_).ok());
  ASSERT_TRUE(db_->Exec("UPDATE engram_meta SET value = '99' WHERE key = 'schema_version'").ok());
  const Status refused = EnsurePgSchema(*db_).status();
  EXPECT_EQ(refused.code(), StatusCode::kNotSupported) << refused.ToString();
  EXPECT_NE(refused.message().find("schema version 99, newer than this build's " +
                                   std::to_string(kPgSchemaVersion)),
            std::string::npos)
      << refused.message();
  // The transaction was rolled back, and the connection still works.
  EXPECT_EQ(db_->Query("SELECT value FROM engram_meta")->Text(0, 0), "99");
}

// Of servers starting together, one makes the schema while the others
// wait for it: a server holding the schema lock keeps another's
// EnsurePgSchema waiting until it commits.
TEST_F(PgSchemaTest, AServerMakingTheSchemaHoldsTheOthersUntilItCommits) {
  std::unique_ptr<PgConnection> other = Connect();
  ASSERT_NE(other, nullptr);
  ASSERT_TRUE(db_->Exec("BEGIN").ok());
  ASSERT_TRUE(db_->Query("SELECT pg_advisory_xact_lock($1)", {PgParam::Int(kPgSchemaLock)}).ok());
  std::atomic<bool> done{false};
  Result<int> found(-1);
  std::thread waiting([&] {
    found = EnsurePgSchema(*other);
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(done) << "EnsurePgSchema did not wait for the schema lock";
  ASSERT_TRUE(db_->Exec("COMMIT").ok());
  waiting.join();
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, 0);
}

TEST_F(PgSchemaTest, ServersStartingTogetherAllSucceedAndMakeItOnce) {
  constexpr int kServers = 4;
  std::vector<std::unique_ptr<PgConnection>> connections;
  for (int i = 0; i < kServers; ++i) {
    connections.push_back(Connect());
    ASSERT_NE(connections.back(), nullptr);
  }
  std::vector<Result<int>> found(kServers, Result<int>(-1));
  std::vector<std::thread> threads;
  for (int i = 0; i < kServers; ++i) {
    threads.emplace_back([&, i] { found[i] = EnsurePgSchema(*connections[i]); });
  }
  for (std::thread& t : threads) t.join();
  int created = 0;
  for (const Result<int>& f : found) {
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    if (*f == 0) ++created;
  }
  EXPECT_EQ(created, 1);
}

}  // namespace
}  // namespace engram
