#include "src/engine/lexical_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "src/lexical/lexical_searcher.h"
#include "src/store/fact_id.h"
#include "tests/store_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

constexpr Timestamp kNow = 1'700'000'000'000;

class LexicalCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = testing::OpenStoreForTest(dir_.File("memory.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }

  static FactRow RowOf(const std::string& content, const std::vector<std::string>& tags = {}) {
    FactRow row;
    row.fact.id = FactId(content);
    row.fact.scope = "default";
    row.fact.content = content;
    row.fact.tags = tags;
    row.fact.created_at = kNow;
    row.fact.last_accessed = kNow;
    row.text = CountFactText(content, tags);
    return row;
  }

  void Add(const std::string& content, const std::vector<std::string>& tags = {}) {
    const Status s =
        store_->Transact([&] { return store_->facts().Insert(RowOf(content, tags)).status(); });
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Whether `store`'s snapshot got an index from the cache; when it did,
  // that its matches are the store's own.
  static bool AcquireAndCompare(Store& store, LexicalCache& cache) {
    bool leased = false;
    const Status s = store.ReadTransact([&]() -> Status {
      ENGRAM_ASSIGN_OR_RETURN(std::optional<LexicalCache::Lease> lease,
                              cache.Acquire(store.facts(), "default"));
      if (!lease) return Status::OK();
      leased = true;
      const std::vector<std::string> phrases = {"deploy", "window", "ops", "bill"};
      FactVisibility visibility;
      visibility.now = kNow;
      ENGRAM_ASSIGN_OR_RETURN(std::vector<FullTextMatch> expected,
                              store.facts().MatchFullText(phrases, false, {"default"}, visibility));
      const std::vector<FullTextMatch> got = lease->Index().Match(phrases, false, visibility);
      EXPECT_EQ(got.size(), expected.size());
      std::vector<int64_t> a;
      std::vector<int64_t> b;
      for (const FullTextMatch& m : got) a.push_back(m.rowid * 1000 + m.access_count);
      for (const FullTextMatch& m : expected) b.push_back(m.rowid * 1000 + m.access_count);
      std::sort(b.begin(), b.end());
      EXPECT_EQ(a, b);
      return Status::OK();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return leased;
  }

  testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
};

// Built on first use; accesses and added facts are applied; a deletion or
// new tags build it again.
TEST_F(LexicalCacheTest, BuildsOnceThenFollowsTheStoreByItsChanges) {
  LexicalCache cache;
  Add("deploy window opens at nine", {"ops"});
  Add("billing runs nightly");
  ASSERT_TRUE(AcquireAndCompare(*store_, cache));
  EXPECT_EQ(cache.Builds(), 1u);
  ASSERT_TRUE(AcquireAndCompare(*store_, cache));  // nothing changed
  EXPECT_EQ(cache.Builds(), 1u);
  EXPECT_EQ(cache.Updates(), 0u);

  const StoredFact deploy = *store_->facts().Get("default", FactId("deploy window opens at nine"));
  ASSERT_TRUE(store_
                  ->Transact([&] {
                    return store_->facts().RecordAccess(
                        {{"default", deploy.rowid, deploy.fact.id, 3, kNow + 1}});
                  })
                  .ok());
  Add("the deploy needs two approvals");
  ASSERT_TRUE(AcquireAndCompare(*store_, cache));
  EXPECT_EQ(cache.Builds(), 1u);
  EXPECT_EQ(cache.Updates(), 1u);

  ASSERT_TRUE(store_
                  ->Transact([&] {
                    return store_->facts().DeleteRowids({"default"}, {deploy.rowid}).status();
                  })
                  .ok());
  ASSERT_TRUE(AcquireAndCompare(*store_, cache));
  EXPECT_EQ(cache.Builds(), 2u);

  const StoredFact billing = *store_->facts().Get("default", FactId("billing runs nightly"));
  ASSERT_TRUE(store_
                  ->Transact([&] {
                    return store_->facts().UpdateTags("default", billing.rowid, {"ops"}, kNow, 1);
                  })
                  .ok());
  ASSERT_TRUE(AcquireAndCompare(*store_, cache));
  EXPECT_EQ(cache.Builds(), 3u);
}

// Facts that disagree with their scope's count build no index: the search
// reads the store's own until the count is right.
TEST_F(LexicalCacheTest, AScopeWhoseCountIsWrongReadsTheStoresOwnIndex) {
  LexicalCache cache;
  Add("deploy window opens at nine");
  Add("billing runs nightly");
  ASSERT_TRUE(store_->sqlite()->Exec("UPDATE scope_stats SET facts = 5").ok());
  EXPECT_FALSE(AcquireAndCompare(*store_, cache));
  EXPECT_FALSE(AcquireAndCompare(*store_, cache));
  EXPECT_EQ(cache.Builds(), 0u);
  ASSERT_TRUE(store_->sqlite()->Exec("UPDATE scope_stats SET facts = 2").ok());
  EXPECT_TRUE(AcquireAndCompare(*store_, cache));
  EXPECT_EQ(cache.Builds(), 1u);
}

// Deleting the fact with the scope's largest change number lowers that
// number: the index is built again for the later state, not taken for one
// ahead of it; an emptied scope has none.
TEST_F(LexicalCacheTest, DeletingTheLatestChangedFactIsALaterStateNotAnOlderOne) {
  LexicalCache cache;
  Add("deploy window opens at nine");
  Add("the deploy needs two approvals");
  ASSERT_TRUE(AcquireAndCompare(*store_, cache));
  const StoredFact latest =
      *store_->facts().Get("default", FactId("the deploy needs two approvals"));
  ASSERT_TRUE(store_
                  ->Transact([&] {
                    return store_->facts().DeleteRowids({"default"}, {latest.rowid}).status();
                  })
                  .ok());
  EXPECT_TRUE(AcquireAndCompare(*store_, cache));
  EXPECT_EQ(cache.Builds(), 2u);
  const StoredFact first = *store_->facts().Get("default", FactId("deploy window opens at nine"));
  ASSERT_TRUE(store_
                  ->Transact([&] {
                    return store_->facts().DeleteRowids({"default"}, {first.rowid}).status();
                  })
                  .ok());
  EXPECT_FALSE(AcquireAndCompare(*store_, cache));
  Add("billing runs nightly");
  EXPECT_TRUE(AcquireAndCompare(*store_, cache));
  EXPECT_EQ(cache.Builds(), 3u);
}

// A snapshot older than the index gets none, and reads the store's own.
TEST_F(LexicalCacheTest, ASnapshotOlderThanTheIndexGetsNone) {
  LexicalCache cache;
  Add("deploy window opens at nine");
  auto older = store_->OpenReader();
  auto newer = store_->OpenReader();
  ASSERT_TRUE(older.ok() && newer.ok());
  bool older_leased = true;
  const Status s = (*older)->ReadTransact([&]() -> Status {
    // The snapshot starts at its first read.
    ENGRAM_RETURN_IF_ERROR((*older)->facts().ChangesOf("default").status());
    Add("the deploy needs two approvals");
    EXPECT_TRUE(AcquireAndCompare(**newer, cache));
    ENGRAM_ASSIGN_OR_RETURN(std::optional<LexicalCache::Lease> lease,
                            cache.Acquire((*older)->facts(), "default"));
    older_leased = lease.has_value();
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(older_leased);
  EXPECT_TRUE(AcquireAndCompare(**newer, cache));
}

// Searches on connections of their own while facts are added and accessed:
// every index a search gets matches what its own snapshot matches.
TEST_F(LexicalCacheTest, SearchesBesideWritesGetIndexesOfTheirOwnSnapshot) {
  LexicalCache cache;
  for (int i = 0; i < 50; ++i) Add("deploy window " + std::to_string(i), {"ops"});
  std::atomic<bool> done{false};
  std::atomic<size_t> leased{0};
  std::vector<std::thread> searchers;
  for (int t = 0; t < 3; ++t) {
    searchers.emplace_back([&] {
      auto reader = store_->OpenReader();
      ASSERT_TRUE(reader.ok());
      while (!done.load()) {
        if (AcquireAndCompare(**reader, cache)) ++leased;
      }
    });
  }
  auto writer = store_->OpenWriter();
  ASSERT_TRUE(writer.ok());
  for (int i = 0; i < 60; ++i) {
    const Status s = (*writer)->Transact([&]() -> Status {
      ENGRAM_RETURN_IF_ERROR(
          (*writer)->facts().Insert(RowOf("billing deploy " + std::to_string(i))).status());
      const int64_t rowid = 1 + i % 40;
      ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> got,
                              (*writer)->facts().GetByRowids({"default"}, {rowid}));
      return (*writer)->facts().RecordAccess({{"default", rowid, got[0].fact.id, 1, kNow + i}});
    });
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  done = true;
  for (std::thread& t : searchers) t.join();
  EXPECT_GT(leased.load(), 0u);
  EXPECT_GE(cache.Updates() + cache.Builds(), 2u);
}

}  // namespace
}  // namespace engram
