// What only the PostgreSQL store does: a connection the server dropped is
// made again by the next statement outside a transaction, while a
// transaction that lost its connection fails and leaves nothing; writers of
// one scope on several connections commit vector labels in the order they
// drew them; an update and a forget of one fact on two connections both
// commit; each scope's vector version moves with its own writes only;
// and a database of schema version 1 is migrated. (What every backend
// does: src/store/fact_store_test.cc and the engine's tests.)
#include "src/store/postgres/pg_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <ostream>
#include <thread>
#include <vector>

#include "src/store/postgres/pg_schema.h"
#include "src/store/postgres/testing/pg_database_test.h"
#include "tests/store_for_test.h"

namespace engram {

void PrintTo(const VectorsVersion& v, std::ostream* out) {
  *out << "{added " << v.added << ", removed " << v.removed << ", space created at "
       << v.space_created_at << "}";
}

namespace {

// When the tests' embedding space is created.
constexpr Timestamp kSpaceCreatedAt = 1700000000000;

class PgStoreTest : public testing::PgDatabaseTest {
 protected:
  void SetUp() override {
    PgDatabaseTest::SetUp();
    store_ = Open();
    ASSERT_NE(store_, nullptr);
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
  // Another store on the test's database; null (and a failure) when it
  // cannot be opened.
  std::unique_ptr<PgStore> Open() const {
    PgStoreOptions options;
    options.url = database_->Url();
    auto store = PgStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }
  // Inserts a fact of `scope` with `content`; its label, 0 (and a failure)
  // when it could not be written.
  int64_t PutFact(const std::string& content, const std::string& scope = "default") {
    int64_t label = 0;
    const Status put = store_->Transact([&]() -> Status {
      ENGRAM_ASSIGN_OR_RETURN(label,
                              store_->facts().Insert(testing::FactRowForTest(content, scope)));
      return Status::OK();
    });
    EXPECT_TRUE(put.ok()) << put.ToString();
    return put.ok() ? label : 0;
  }
  // Whether a connection to the test's database comes to wait for a row
  // lock before `done` is set (or 30 s pass).
  bool WaitsForALock(const std::atomic<bool>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done && std::chrono::steady_clock::now() < deadline) {
      auto r = db_->Query(
          "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
          "wait_event_type = 'Lock'");
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) return false;
      if (*r->Int(0, 0) > 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }
  int64_t Space() {
    int64_t space = 0;
    EXPECT_TRUE(store_
                    ->Transact([&]() -> Status {
                      ENGRAM_ASSIGN_OR_RETURN(
                          space, store_->vectors().EnsureSpace({"test", "x", 2}, kSpaceCreatedAt));
                      return Status::OK();
                    })
                    .ok());
    return space;
  }
  // Gives fact `content` (at `label` of `scope`) a vector through `store`,
  // in a transaction of its own.
  static Status PutVector(PgStore& store, int64_t space, int64_t label, const std::string& content,
                          const std::string& scope = "default") {
    const std::vector<float> v = {1.0f, 0.0f};
    return store.Transact([&]() -> Status {
      return store.vectors().Put(space, scope, label, FactId(content), v).status();
    });
  }
  // The vector labels of `scope` that a new snapshot sees, by label.
  std::vector<int64_t> VisibleLabels(const std::string& scope = "default") {
    auto r = db_->Query("SELECT label FROM fact_vectors WHERE scope = $1 ORDER BY label",
                        {PgParam::Text(scope)});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<int64_t> labels;
    for (int i = 0; r.ok() && i < r->Rows(); ++i) labels.push_back(*r->Int(i, 0));
    return labels;
  }
  static VectorsVersion VersionOf(PgStore& store, int64_t space, const std::string& scope) {
    auto versions = store.vectors().Versions(space, {scope});
    EXPECT_TRUE(versions.ok()) << versions.status().ToString();
    return versions.ok() ? versions->front() : VectorsVersion{-1, -1};
  }

  std::unique_ptr<PgStore> store_;
};

TEST_F(PgStoreTest, ALostConnectionFailsOnceThenTheNextStatementReconnects) {
  ASSERT_NE(PutFact("before the cut"), 0);
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
  ASSERT_NE(PutFact("after reconnecting"), 0);
  const auto counts = store_->facts().CountFacts();
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(counts->facts, 1);
}

// A reader that has seen a scope's labels up to L reads only those above L
// next (VectorCache's incremental sync). That holds only if no label of
// the scope commits after a larger one: here the first writer draws a
// label and holds its transaction open, and the second writer of the same
// scope must wait for it rather than draw a larger label and commit first.
TEST_F(PgStoreTest, WritersOfOneScopeCommitVectorLabelsInTheOrderTheyDrewThem) {
  const int64_t first_fact = PutFact("held open");
  const int64_t second_fact = PutFact("committed second");
  const int64_t space = Space();
  std::unique_ptr<PgStore> other = Open();
  ASSERT_NE(other, nullptr);

  std::promise<void> drawn;
  std::promise<void> release;
  std::thread first([&] {
    const Status held = other->Transact([&]() -> Status {
      ENGRAM_RETURN_IF_ERROR(PutVector(*other, space, first_fact, "held open"));
      drawn.set_value();
      release.get_future().wait();
      return Status::OK();
    });
    EXPECT_TRUE(held.ok()) << held.ToString();
  });
  drawn.get_future().wait();
  std::atomic<bool> second_done{false};
  std::thread second([&] {
    EXPECT_TRUE(PutVector(*store_, space, second_fact, "committed second").ok());
    second_done = true;
  });
  // The second writer either commits (the defect) or waits for the first's
  // lock.
  EXPECT_TRUE(WaitsForALock(second_done))
      << "the second writer of the scope did not wait for the first";
  EXPECT_TRUE(VisibleLabels().empty());
  release.set_value();
  first.join();
  second.join();
  const std::vector<int64_t> labels = VisibleLabels();
  ASSERT_EQ(labels.size(), 2u);
  auto of = db_->Query("SELECT label FROM fact_vectors WHERE fact_label = $1",
                       {PgParam::Int(first_fact)});
  ASSERT_TRUE(of.ok());
  EXPECT_EQ(*of->Int(0, 0), labels.front()) << "the first to commit drew the smaller label";
}

// An update writes the new version (its insert locks the scope's totals)
// and then marks the old fact superseded; a forget of that fact on another
// server locked the fact and then the totals, and one of the two failed
// with a deadlock (40P01, a 503). Every write now takes a scope's totals
// before its facts (pg_lock_order.h), so the forget waits and then goes on.
TEST_F(PgStoreTest, AnUpdateAndAForgetOfTheSameFactBothCommit) {
  const int64_t old = PutFact("the standup is at 9:30");
  std::unique_ptr<PgStore> other = Open();
  ASSERT_NE(other, nullptr);
  const FactRow replacement = testing::FactRowForTest("the standup moved to 10:15");

  std::promise<void> inserted;
  std::promise<void> release;
  std::thread updater([&] {
    const Status updated = other->Transact([&]() -> Status {
      ENGRAM_RETURN_IF_ERROR(other->facts().Insert(replacement).status());
      inserted.set_value();
      release.get_future().wait();
      return other->facts().SetSuperseded("default", old, replacement.fact.id, 2000);
    });
    EXPECT_TRUE(updated.ok()) << updated.ToString();
  });
  inserted.get_future().wait();
  std::atomic<bool> forgotten{false};
  std::thread forgetter([&] {
    const Status forgot =
        store_->Transact([&] { return store_->facts().DeleteRowids({"default"}, {old}).status(); });
    EXPECT_TRUE(forgot.ok()) << forgot.ToString();
    forgotten = true;
  });
  EXPECT_TRUE(WaitsForALock(forgotten)) << "the forget did not wait for the update";
  release.set_value();
  updater.join();
  forgetter.join();
  auto left = db_->Query("SELECT content FROM facts ORDER BY label");
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  ASSERT_EQ(left->Rows(), 1);
  EXPECT_EQ(left->Text(0, 0), "the standup moved to 10:15");
  auto totals = db_->Query("SELECT facts FROM scope_stats WHERE scope = 'default'");
  ASSERT_TRUE(totals.ok());
  EXPECT_EQ(*totals->Int(0, 0), 1);
}

TEST_F(PgStoreTest, AScopesVectorVersionMovesWithItsOwnVectorsOnly) {
  const int64_t mine = PutFact("in my scope", "mine");
  const int64_t theirs = PutFact("in their scope", "theirs");
  const int64_t space = Space();
  std::unique_ptr<PgStore> other = Open();
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(VersionOf(*store_, space, "never written"), (VectorsVersion{0, 0, kSpaceCreatedAt}));
  const VectorsVersion before = VersionOf(*store_, space, "mine");
  EXPECT_EQ(before.space_created_at, kSpaceCreatedAt);

  ASSERT_TRUE(PutVector(*other, space, theirs, "in their scope", "theirs").ok());
  EXPECT_EQ(VersionOf(*store_, space, "mine"), before) << "another scope's write";
  ASSERT_TRUE(PutVector(*other, space, mine, "in my scope", "mine").ok());
  const VectorsVersion added = VersionOf(*store_, space, "mine");
  EXPECT_GT(added.added, before.added);
  EXPECT_EQ(added.removed, 0);

  // Replacing a vector removes one and adds one; forgetting the scope's
  // last fact removes its vector, and no version comes back.
  ASSERT_TRUE(PutVector(*other, space, mine, "in my scope", "mine").ok());
  const VectorsVersion replaced = VersionOf(*store_, space, "mine");
  EXPECT_GT(replaced.added, added.added);
  EXPECT_EQ(replaced.removed, 1);
  ASSERT_TRUE(
      other->Transact([&] { return other->facts().DeleteRowids({"mine"}, {mine}).status(); }).ok());
  const VectorsVersion forgotten = VersionOf(*store_, space, "mine");
  EXPECT_EQ(forgotten.removed, 2);
  for (const VectorsVersion& earlier : {before, added, replaced}) EXPECT_NE(forgotten, earlier);
  EXPECT_EQ(VersionOf(*store_, space, "theirs").removed, 0);
  // The emptied scope is listed nowhere, and the store checks out.
  EXPECT_EQ(store_->facts().CountFacts()->scopes.size(), 1u);
  std::vector<std::string> problems;
  std::vector<std::string> skipped;
  ASSERT_TRUE(store_->CheckIntegrity(&problems, &skipped).ok());
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST_F(PgStoreTest, ADatabaseOfSchemaVersionOneIsMigrated) {
  store_.reset();
  ASSERT_TRUE(db_->Exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public").ok());
  ASSERT_TRUE(EnsurePgSchema(*db_, 1).ok());
  ASSERT_TRUE(db_->Exec("INSERT INTO facts (scope, id, content, created_at, updated_at, "
                        "last_accessed) VALUES ('default', 'f1', 'one', 1, 1, 1); "
                        "INSERT INTO embedding_spaces (provider, model, dimension, created_at) "
                        "VALUES ('test', 'x', 2, 0); "
                        "INSERT INTO fact_vectors (scope, space_id, fact_label, vector) "
                        "SELECT 'default', 1, label, '\\x0000803f00000000' FROM facts")
                  .ok());
  auto reopened = Open();
  ASSERT_NE(reopened, nullptr);
  store_ = std::move(reopened);
  auto version = db_->Query("SELECT value FROM engram_meta WHERE key = 'schema_version'");
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(version->Text(0, 0), std::to_string(kPgSchemaVersion));
  // The vector already there keeps its label and counts in the version;
  // the next is labelled by the trigger, above it.
  const std::vector<int64_t> first = VisibleLabels();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(VersionOf(*store_, 1, "default"), (VectorsVersion{first[0], 0}));
  const int64_t two = PutFact("two");
  ASSERT_TRUE(PutVector(*store_, 1, two, "two").ok());
  const std::vector<int64_t> both = VisibleLabels();
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(VersionOf(*store_, 1, "default"), (VectorsVersion{both[1], 0}));
}

}  // namespace
}  // namespace engram
