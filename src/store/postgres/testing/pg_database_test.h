// A gtest fixture for tests on PostgreSQL: each test gets a database of its
// own (pg_test_database.h) and a connection to it in `db_`; Connect() makes
// more.
#ifndef ENGRAM_SRC_STORE_POSTGRES_TESTING_PG_DATABASE_TEST_H_
#define ENGRAM_SRC_STORE_POSTGRES_TESTING_PG_DATABASE_TEST_H_

#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "src/store/postgres/pg_connection.h"
#include "src/store/postgres/testing/pg_test_database.h"

namespace engram::testing {

class PgDatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto database = PgTestDatabase::Create();
    ASSERT_TRUE(database.ok()) << database.status().ToString();
    database_ = std::move(*database);
    db_ = Connect();
    ASSERT_NE(db_, nullptr);
  }

  // A new connection to the test's database; null (and a failure) when
  // it cannot be made.
  std::unique_ptr<PgConnection> Connect() const {
    auto connection = PgConnection::Connect(database_->Url());
    EXPECT_TRUE(connection.ok()) << connection.status().ToString();
    return connection.ok() ? std::move(*connection) : nullptr;
  }

  std::unique_ptr<PgTestDatabase> database_;
  std::unique_ptr<PgConnection> db_;
};

}  // namespace engram::testing

#endif  // ENGRAM_SRC_STORE_POSTGRES_TESTING_PG_DATABASE_TEST_H_
