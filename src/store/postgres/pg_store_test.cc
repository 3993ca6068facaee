// What only the PostgreSQL store does: a connection the server dropped is
// made again by the next statement outside a transaction, while a
// transaction that lost its connection fails and leaves nothing. (What
// every backend does: src/store/fact_store_test.cc and the engine's tests.)
#include "src/store/postgres/pg_store.h"

#include <gtest/gtest.h>

#include "src/store/postgres/testing/pg_database_test.h"
#include "tests/store_for_test.h"

namespace engram {
namespace {

class PgStoreTest : public testing::PgDatabaseTest {
 protected:
  void SetUp() override {
    PgDatabaseTest::SetUp();
    PgStoreOptions options;
    options.url = database_->Url();
    auto store = PgStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }
  // Ends every other connection to the test's database, as a server
  // restart or a network cut does.
  void DropTheStoresConnections() {
    auto ended = db_->Query(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
        "current_database() AND pid <> pg_backend_pid()");
    ASSERT_TRUE(ended.ok()) << ended.status().ToString();
    ASSERT_EQ(*ended->Int(0, 0), 1);
  }
  Status Put(const std::string& content) {
    return store_->Transact(
        [&] { return store_->facts().Insert(testing::FactRowForTest(content)).status(); });
  }

  std::unique_ptr<PgStore> store_;
};

TEST_F(PgStoreTest, ALostConnectionFailsOnceThenTheNextStatementReconnects) {
  ASSERT_TRUE(Put("before the cut").ok());
  DropTheStoresConnections();
  const auto lost = store_->facts().CountFacts();
  EXPECT_EQ(lost.status().code(), StatusCode::kUnavailable) << lost.status().ToString();
  const auto again = store_->facts().CountFacts();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->facts, 1);
}

TEST_F(PgStoreTest, ATransactionThatLosesItsConnectionFailsAndWritesNothing) {
  const Status cut = store_->Transact([&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(
        store_->facts().Insert(testing::FactRowForTest("written, then cut")).status());
    DropTheStoresConnections();
    return store_->facts().Insert(testing::FactRowForTest("after the cut")).status();
  });
  EXPECT_EQ(cut.code(), StatusCode::kUnavailable) << cut.ToString();
  // The next transaction runs on a new connection and sees nothing of it.
  ASSERT_TRUE(Put("after reconnecting").ok());
  const auto counts = store_->facts().CountFacts();
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(counts->facts, 1);
}

}  // namespace
}  // namespace engram
