#include "src/store/sqlite/wal_checkpointer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "src/store/sqlite/sqlite_db.h"
#include "tests/test_util.h"

namespace engram {
namespace {

// A database in WAL mode with one table of rows about a page each.
class WalCheckpointerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = SqliteDb::Open(path_, SqliteOpenMode::kCreate);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    ASSERT_TRUE(db_->Exec("PRAGMA journal_mode=WAL").ok());
    ASSERT_TRUE(db_->Exec("PRAGMA synchronous=NORMAL").ok());
    ASSERT_TRUE(db_->Exec("CREATE TABLE rows (body BLOB)").ok());
  }
  // One commit of one row.
  void Commit() {
    auto insert = db_->Prepare("INSERT INTO rows VALUES (zeroblob(3000))");
    ASSERT_TRUE(insert.ok());
    ASSERT_TRUE(insert->Run().ok());
    ++rows_;
  }

  testing::TempDir dir_;
  std::string path_ = dir_.File("log.db");
  std::unique_ptr<SqliteDb> db_;
  int64_t rows_ = 0;
};

// Waits (boundedly) until `checkpointer` has run `count` checkpoints.
bool WaitForCheckpoints(const WalCheckpointer& checkpointer, size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (checkpointer.Checkpoints() < count && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return checkpointer.Checkpoints() == count;
}

TEST_F(WalCheckpointerTest, CommitsNeverCheckpointAndNoThreadStartsBeforeOneIsDue) {
  WalCheckpointer checkpointer(path_, /*pages=*/1000000);
  checkpointer.Attach(db_->handle());
  // SQLite's own hook would have checkpointed at 1,000 pages, and the
  // commit after it would have started the log again from its first page.
  while (checkpointer.LogPages() <= 1500) Commit();
  EXPECT_FALSE(checkpointer.ThreadStarted());
  EXPECT_EQ(checkpointer.Checkpoints(), 0u);
  EXPECT_EQ(checkpointer.TakeProblem(), std::nullopt);
}

TEST_F(WalCheckpointerTest, ItsThreadFoldsTheLogBackOnceItIsDue) {
  constexpr int kPages = 100;
  WalCheckpointer checkpointer(path_, kPages);
  checkpointer.Attach(db_->handle());
  // Commits until one is due, then waits (boundedly) for the thread.
  while (checkpointer.LogPages() < kPages) Commit();
  EXPECT_TRUE(checkpointer.ThreadStarted());
  ASSERT_TRUE(WaitForCheckpoints(checkpointer, 1));
  // The whole log was copied, so the next commit starts it again.
  Commit();
  EXPECT_LT(checkpointer.LogPages(), kPages / 10);
  EXPECT_EQ(checkpointer.TakeProblem(), std::nullopt);
  // Every row is there, read by a connection of its own.
  auto reader = SqliteDb::Open(path_, SqliteOpenMode::kReadWrite);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(*(*reader)->QueryInt("SELECT count(*) FROM rows"), rows_);
}

// A reader on an old snapshot keeps the log from starting again; the
// checkpoint is due again only once the log has grown by as many pages.
TEST_F(WalCheckpointerTest, AnUnfinishedCheckpointIsDueAgainAfterAsManyPagesMore) {
  constexpr int kPages = 100;
  auto reader = SqliteDb::Open(path_, SqliteOpenMode::kReadWrite);
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE((*reader)->Exec("BEGIN").ok());
  ASSERT_TRUE((*reader)->QueryInt("SELECT count(*) FROM rows").ok());  // its snapshot

  WalCheckpointer checkpointer(path_, kPages);
  checkpointer.Attach(db_->handle());
  while (checkpointer.LogPages() < kPages) Commit();
  ASSERT_TRUE(WaitForCheckpoints(checkpointer, 1));
  const int first_due = checkpointer.LogPages();
  while (checkpointer.LogPages() < first_due + kPages - 5) Commit();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(checkpointer.Checkpoints(), 1u) << "not due after every commit";
  while (checkpointer.LogPages() < first_due + kPages) Commit();
  EXPECT_TRUE(WaitForCheckpoints(checkpointer, 2));
  ASSERT_TRUE((*reader)->Exec("COMMIT").ok());
}

TEST_F(WalCheckpointerTest, AFileItCannotOpenIsAProblemNotACrash) {
  WalCheckpointer checkpointer(dir_.File("elsewhere/missing.db"), /*pages=*/1);
  checkpointer.Attach(db_->handle());
  Commit();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::optional<std::string> problem;
  while (!problem && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    problem = checkpointer.TakeProblem();
  }
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("missing.db"), std::string::npos) << *problem;
  EXPECT_EQ(checkpointer.Checkpoints(), 0u);
}

}  // namespace
}  // namespace engram
