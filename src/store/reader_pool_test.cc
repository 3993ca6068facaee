#include "src/store/reader_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

#include "src/store/fact_id.h"
#include "tests/store_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

FactRow Row(const std::string& content) {
  FactRow row;
  row.fact.id = FactId(content);
  row.fact.scope = "default";
  row.fact.content = content;
  row.fact.created_at = row.fact.updated_at = row.fact.last_accessed = 1000;
  return row;
}

// The SQLite connection under a store this test opened.
SqliteDb& Db(Store& store) { return *static_cast<SqliteStore&>(store).sqlite(); }

int64_t CountFacts(Store& store) { return *Db(store).QueryInt("SELECT count(*) FROM facts"); }

class ReaderPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = SqliteStore::Open(options_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    writer_ = std::move(*store);
    Put("the first fact");
  }
  void Put(const std::string& content) {
    ASSERT_TRUE(
        writer_->Transact([&] { return writer_->facts().Insert(Row(content)).status(); }).ok());
  }

  testing::TempDir dir_;
  const SqliteStoreOptions options_ = testing::StoreOptionsForTest(dir_.File("memory.db"));
  std::unique_ptr<SqliteStore> writer_;
};

TEST_F(ReaderPoolTest, ReadsItsOwnSnapshotWhileTheWriterCommits) {
  ReaderPool pool(writer_.get(), 2);
  auto lease = pool.Acquire();
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  Store& reader = lease->store();
  Status read = reader.ReadTransact([&]() -> Status {
    EXPECT_EQ(CountFacts(reader), 1);
    Put("written while the reader reads");  // the writer is not blocked
    EXPECT_EQ(CountFacts(reader), 1);       // the snapshot does not move
    return Status::OK();
  });
  ASSERT_TRUE(read.ok()) << read.ToString();
  EXPECT_EQ(CountFacts(reader), 2);  // the next read sees the commit
  // The reader's FTS5 tokenizer is registered: a MATCH works on it.
  EXPECT_EQ(*Db(reader).QueryInt("SELECT count(*) FROM facts_fts WHERE facts_fts MATCH 'fact'"), 1);
}

TEST_F(ReaderPoolTest, AReaderCannotWrite) {
  ReaderPool pool(writer_.get(), 1);
  auto lease = pool.Acquire();
  ASSERT_TRUE(lease.ok());
  Store& reader = lease->store();
  Status wrote = reader.Transact(
      [&] { return reader.facts().Insert(Row("a write through a reader")).status(); });
  EXPECT_FALSE(wrote.ok());
  EXPECT_EQ(CountFacts(*writer_), 1);
}

TEST_F(ReaderPoolTest, LendsEachConnectionToOneHolderAndWaitsAtTheLimit) {
  ReaderPool pool(writer_.get(), 2);
  auto a = pool.Acquire();
  auto b = pool.Acquire();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(&a->store(), &b->store());
  EXPECT_EQ(pool.Open(), 2u);

  // A third borrower waits until one comes back, and gets that one.
  std::atomic<bool> got{false};
  Store* returned = &a->store();
  Store* third_store = nullptr;
  std::thread third([&] {
    auto c = pool.Acquire();
    ASSERT_TRUE(c.ok());
    third_store = &c->store();
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(got.load());       // still waiting: both are lent
  { auto done = std::move(*a); }  // a's connection goes back
  third.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(third_store, returned);
  EXPECT_EQ(pool.Open(), 2u);  // no third connection was opened
}

TEST(ReaderPoolOpenTest, AFileThatCannotBeOpenedIsTheBorrowersErrorAndNamesIt) {
  testing::TempDir dir;
  const std::string path = dir.File("gone.db");
  auto origin = testing::OpenStoreForTest(path);
  ASSERT_TRUE(origin.ok()) << origin.status().ToString();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  ReaderPool pool(origin->get(), 1);
  auto lease = pool.Acquire();
  ASSERT_FALSE(lease.ok());
  EXPECT_NE(lease.status().message().find("reader"), std::string::npos);
  EXPECT_NE(lease.status().message().find(path), std::string::npos);
  EXPECT_EQ(pool.Open(), 0u);  // the slot is free again
  auto again = pool.Acquire();
  EXPECT_FALSE(again.ok());  // tried again, not stuck waiting
}

}  // namespace
}  // namespace engram
