// PgConnection against a real PostgreSQL server: the throw-away cluster
// `make test` starts (testing/pg_test_database.h), a database per test.
#include "src/store/postgres/pg_connection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "src/store/postgres/testing/pg_database_test.h"
#include "src/store/postgres/testing/pg_test_database.h"

namespace engram {
namespace {

using PgConnectionTest = testing::PgDatabaseTest;

TEST_F(PgConnectionTest, ValuesGoInAsParametersAndComeBackExactly) {
  ASSERT_TRUE(db_->Exec("CREATE TABLE t (id bigint PRIMARY KEY, name text, score double "
                        "precision, blob bytea)")
                  .ok());
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte.push_back(static_cast<char>(b));
  const std::string tricky = "it's; DROP TABLE t; -- \"quoted\" ção \\x00";
  const std::vector<double> scores = {0.1, -1e-300, 1.0 / 3.0, std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::denorm_min()};
  for (size_t i = 0; i < scores.size(); ++i) {
    auto inserted = db_->Query("INSERT INTO t VALUES ($1, $2, $3, $4)",
                               {PgParam::Int(static_cast<int64_t>(i) - 2), PgParam::Text(tricky),
                                PgParam::Double(scores[i]), PgParam::Bytes(every_byte)});
    ASSERT_TRUE(inserted.ok()) << inserted.status().ToString();
    EXPECT_EQ(inserted->AffectedRows(), 1);
  }
  ASSERT_TRUE(db_->Query("INSERT INTO t VALUES ($1, $2, $3, $4)",
                         {PgParam::Int(std::numeric_limits<int64_t>::min()), PgParam::Null(),
                          PgParam::Null(), PgParam::Bytes("")})
                  .ok());

  auto rows = db_->Query("SELECT id, name, score, blob FROM t ORDER BY id");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->Rows(), 6);
  ASSERT_EQ(rows->Columns(), 4);
  EXPECT_EQ(*rows->Int(0, 0), std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(rows->IsNull(0, 1));
  EXPECT_TRUE(rows->IsNull(0, 2));
  EXPECT_EQ(*rows->Bytes(0, 3), "");
  for (int r = 1; r < 6; ++r) {
    EXPECT_EQ(*rows->Int(r, 0), r - 3);
    EXPECT_EQ(rows->Text(r, 1), tricky);
    EXPECT_EQ(*rows->Double(r, 2), scores[static_cast<size_t>(r - 1)]) << "row " << r;
    EXPECT_EQ(*rows->Bytes(r, 3), every_byte);
  }
  // The table is still there: the text went in as a value.
  EXPECT_EQ(*db_->Query("SELECT count(*) FROM t")->Int(0, 0), 6);
}

TEST_F(PgConnectionTest, AValueOfAnotherTypeIsAnErrorNamingWhereItIs) {
  auto rows = db_->Query("SELECT 'abc'::text, NULL::bigint, '\\xzz'::text");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  const Status not_int = rows->Int(0, 0).status();
  EXPECT_EQ(not_int.code(), StatusCode::kInternal);
  EXPECT_NE(not_int.message().find("row 0 column 0 holds 'abc', not an integer"), std::string::npos)
      << not_int.message();
  EXPECT_NE(rows->Int(0, 1).status().message().find("holds NULL"), std::string::npos);
  EXPECT_EQ(rows->Bytes(0, 2).status().code(), StatusCode::kInternal);
}

TEST_F(PgConnectionTest, ServerErrorsBecomeStatusesByTheirSqlstate) {
  ASSERT_TRUE(db_->Exec("CREATE TABLE u (k text PRIMARY KEY)").ok());
  ASSERT_TRUE(db_->Query("INSERT INTO u VALUES ($1)", {PgParam::Text("a")}).ok());
  const Status duplicate = db_->Query("INSERT INTO u VALUES ($1)", {PgParam::Text("a")}).status();
  EXPECT_EQ(duplicate.code(), StatusCode::kAlreadyExists) << duplicate.ToString();
  EXPECT_NE(duplicate.message().find("(SQLSTATE 23505)"), std::string::npos);
  EXPECT_NE(duplicate.message().find("duplicate key"), std::string::npos);

  EXPECT_EQ(db_->Query("SELECT 1 / 0").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(db_->Query("SELEC 1").status().code(), StatusCode::kIOError);
  // A transaction that lost a serialization race or a deadlock may succeed
  // when run again.
  for (const char* sqlstate : {"40001", "40P01", "57P01"}) {
    const Status raised =
        db_->Exec(std::string("DO $$ BEGIN RAISE EXCEPTION 'raised' USING ERRCODE = '") + sqlstate +
                  "'; END $$");
    EXPECT_EQ(raised.code(), StatusCode::kUnavailable) << raised.ToString();
    EXPECT_TRUE(raised.retryable());
  }
  // After each error the connection still answers.
  EXPECT_FALSE(db_->Lost());
  EXPECT_EQ(*db_->Query("SELECT count(*) FROM u")->Int(0, 0), 1);
}

TEST_F(PgConnectionTest, ALostConnectionIsUnavailableAndSaysSo) {
  const int64_t pid = *db_->Query("SELECT pg_backend_pid()")->Int(0, 0);
  auto admin = PgConnection::Connect(database_->ClusterUrl());
  ASSERT_TRUE(admin.ok()) << admin.status().ToString();
  ASSERT_TRUE((*admin)->Query("SELECT pg_terminate_backend($1)", {PgParam::Int(pid)}).ok());

  const Status after = db_->Query("SELECT 1").status();
  EXPECT_EQ(after.code(), StatusCode::kUnavailable) << after.ToString();
  EXPECT_TRUE(db_->Lost());
  EXPECT_EQ(db_->Exec("SELECT 1").code(), StatusCode::kUnavailable);
}

TEST(PgConnectTest, AUrlOfAnotherKindIsInvalidArgumentWithoutItsPassword) {
  for (const char* url : {"mysql://engram:s3cret@db/memory", "/var/lib/engram/memory.db",
                          "host=db password=s3cret"}) {
    const Status status = PgConnection::Connect(url).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << url;
    EXPECT_NE(status.message().find("not a PostgreSQL URL"), std::string::npos) << url;
    EXPECT_EQ(status.message().find("s3cret"), std::string::npos) << status.message();
  }
}

TEST(PgConnectTest, AServerThatIsNotThereIsUnavailableWithoutThePassword) {
  const Status status =
      PgConnection::Connect("postgresql://engram:s3cret@/memory?host=/nonexistent-engram-dir",
                            PgConnectOptions{2})
          .status();
  EXPECT_EQ(status.code(), StatusCode::kUnavailable) << status.ToString();
  EXPECT_NE(status.message().find("cannot connect to postgresql:///memory"), std::string::npos)
      << status.message();
  EXPECT_EQ(status.message().find("s3cret"), std::string::npos) << status.message();
}

TEST(PgConnectTest, WithoutAClusterTheHelperSaysHowToGetOne) {
  // What a test run outside ctest meets.
  const char* saved_state = std::getenv("ENGRAM_TEST_POSTGRES_STATE");
  const std::string state = saved_state == nullptr ? "" : saved_state;
  ::unsetenv("ENGRAM_TEST_POSTGRES_STATE");
  const char* saved_url = std::getenv("ENGRAM_TEST_POSTGRES_URL");
  const std::string url = saved_url == nullptr ? "" : saved_url;
  ::unsetenv("ENGRAM_TEST_POSTGRES_URL");
  const Status status = testing::PgTestDatabase::Create().status();
  if (!state.empty()) ::setenv("ENGRAM_TEST_POSTGRES_STATE", state.c_str(), 1);
  if (!url.empty()) ::setenv("ENGRAM_TEST_POSTGRES_URL", url.c_str(), 1);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("scripts/pg_cluster.sh start"), std::string::npos);
}

}  // namespace
}  // namespace engram
