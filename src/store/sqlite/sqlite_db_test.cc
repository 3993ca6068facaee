#include "src/store/sqlite/sqlite_db.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace engram {
namespace {

class SqliteDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = SqliteDb::Open(dir_.File("t.db"), SqliteOpenMode::kCreate);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    ASSERT_TRUE(db_->Exec("CREATE TABLE t(v INTEGER); INSERT INTO t VALUES (1), (2), (3)").ok());
  }

  testing::TempDir dir_;
  std::unique_ptr<SqliteDb> db_;
};

TEST_F(SqliteDbTest, AStatementIsReusedWithItsBindingsCleared) {
  sqlite3_stmt* first = nullptr;
  {
    auto s = db_->Prepare("SELECT ?1");
    ASSERT_TRUE(s.ok());
    first = s->get();
    s->BindInt(1, 42);
    ASSERT_TRUE(*s->Step());
    EXPECT_EQ(s->ColumnInt(0), 42);
  }
  EXPECT_EQ(db_->IdleStatements(), 1u);
  auto again = db_->Prepare("SELECT ?1");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), first);
  EXPECT_EQ(db_->IdleStatements(), 0u);
  ASSERT_TRUE(*again->Step());
  EXPECT_TRUE(again->ColumnIsNull(0)) << "the binding of its last use is gone";
}

TEST_F(SqliteDbTest, AStatementLeftMidStepComesBackReset) {
  {
    auto s = db_->Prepare("SELECT v FROM t ORDER BY v");
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(*s->Step());
    EXPECT_NE(sqlite3_stmt_busy(s->get()), 0);
  }
  auto again = db_->Prepare("SELECT v FROM t ORDER BY v");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(sqlite3_stmt_busy(again->get()), 0);
  ASSERT_TRUE(*again->Step());
  EXPECT_EQ(again->ColumnInt(0), 1) << "starts from the first row";
}

TEST_F(SqliteDbTest, TwoLiveStatementsOfOneTextAreDistinctAndBothKept) {
  {
    auto a = db_->Prepare("SELECT count(*) FROM t");
    auto b = db_->Prepare("SELECT count(*) FROM t");
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NE(a->get(), b->get());
    ASSERT_TRUE(*a->Step());
    ASSERT_TRUE(*b->Step());
    EXPECT_EQ(a->ColumnInt(0), 3);
    EXPECT_EQ(b->ColumnInt(0), 3);
  }
  EXPECT_EQ(db_->IdleStatements(), 2u);
}

TEST_F(SqliteDbTest, AKeptStatementSeesASchemaChange) {
  { ASSERT_TRUE(db_->Prepare("SELECT * FROM t").ok()); }
  ASSERT_TRUE(db_->Exec("ALTER TABLE t ADD COLUMN w TEXT DEFAULT 'x'").ok());
  auto s = db_->Prepare("SELECT * FROM t");
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(*s->Step());
  EXPECT_EQ(sqlite3_column_count(s->get()), 2);
  EXPECT_EQ(s->ColumnText(1), "x");
}

TEST_F(SqliteDbTest, AFailedStepLeavesTheStatementUsable) {
  ASSERT_TRUE(db_->Exec("CREATE TABLE u(k INTEGER PRIMARY KEY)").ok());
  const std::string insert = "INSERT INTO u(k) VALUES (?1)";
  std::vector<Status> runs;
  for (const int64_t k : {7, 7}) {
    auto s = db_->Prepare(insert);
    ASSERT_TRUE(s.ok());
    s->BindInt(1, k);
    runs.push_back(s->Run());
  }
  EXPECT_TRUE(runs[0].ok());
  EXPECT_EQ(runs[1].code(), StatusCode::kInvalidArgument) << "a duplicate key";
  auto s = db_->Prepare(insert);
  ASSERT_TRUE(s.ok());
  s->BindInt(1, 8);
  EXPECT_TRUE(s->Run().ok());
  EXPECT_EQ(*db_->QueryInt("SELECT count(*) FROM u"), 2);
}

TEST_F(SqliteDbTest, AtMostTheLimitOfStatementsWait) {
  {
    std::vector<SqliteStatement> held;
    for (size_t i = 0; i < SqliteDb::kMaxIdleStatements + 6; ++i) {
      auto s = db_->Prepare("SELECT " + std::to_string(i));
      ASSERT_TRUE(s.ok());
      held.push_back(std::move(*s));
    }
  }
  EXPECT_EQ(db_->IdleStatements(), SqliteDb::kMaxIdleStatements);
}

TEST_F(SqliteDbTest, ErrorsNameTheFileAndNoStatementIsRefused) {
  auto bad = db_->Prepare("SELEC 1");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.db"), std::string::npos);
  EXPECT_NE(bad.status().message().find("syntax error"), std::string::npos);
  auto empty = db_->Prepare("  -- nothing");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no statement"), std::string::npos);
}

}  // namespace
}  // namespace engram
