#include "src/store/version_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "src/store/fact_id.h"
#include "src/store/sqlite/sqlite_version_store.h"
#include "src/store/testing/store_backends.h"

namespace engram {
namespace {

class VersionStoreTest : public ::testing::TestWithParam<testing::Backend> {
 protected:
  void SetUp() override {
    auto made = testing::StoreForTest::Create(GetParam());
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    made_ = std::move(*made);
    store_ = &made_->store();
    for (const char* content : {"one", "two", "three"}) Add(content);
  }
  // Inserts a fact of `scope` and keeps its row in rowids_.
  void Add(const std::string& content, const std::string& scope = kDefaultScope) {
    FactRow row;
    row.fact.id = FactId(content);
    row.fact.scope = scope;
    row.fact.content = content;
    Result<int64_t> rowid = Internal("not inserted");
    ASSERT_TRUE(store_
                    ->Transact([&] {
                      rowid = store_->facts().Insert(row);
                      return rowid.status();
                    })
                    .ok());
    rowids_.push_back(*rowid);
  }
  Status Put(const VersionLink& link, const std::string& scope = kDefaultScope) {
    return store_->Transact([&] { return store_->versions().Put(scope, link); });
  }
  std::vector<VersionLink> All() { return store_->versions().All().value(); }

  std::unique_ptr<testing::StoreForTest> made_;
  Store* store_ = nullptr;
  std::vector<int64_t> rowids_;
};

TEST_P(VersionStoreTest, AnExplicitLinkReplacesAFoundOneAndNeverTheReverse) {
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 0.7, false}).ok());
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 0.8, false}).ok());
  ASSERT_EQ(All().size(), 1u);
  EXPECT_DOUBLE_EQ(All()[0].cosine, 0.7) << "a found link keeps the first";
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 1.0, true}).ok());
  EXPECT_TRUE(All()[0].explicit_update);
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 0.5, false}).ok());
  EXPECT_TRUE(All()[0].explicit_update) << "found later, still explicit";
}

TEST_P(VersionStoreTest, NewerThanListsLinksByOlderFactAndLinksGoWithTheirFacts) {
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 0.7, false}).ok());
  ASSERT_TRUE(Put({rowids_[1], rowids_[2], 0.9, true}).ok());
  auto newer = store_->versions().NewerThan({kDefaultScope}, {rowids_[1], rowids_[1], rowids_[2]});
  ASSERT_TRUE(newer.ok());
  ASSERT_EQ(newer->size(), 1u);
  EXPECT_EQ((*newer)[0].newer_rowid, rowids_[2]);
  ASSERT_TRUE(store_
                  ->Transact([&] {
                    return store_->facts().DeleteRowids({kDefaultScope}, {rowids_[1]}).status();
                  })
                  .ok());
  EXPECT_TRUE(All().empty()) << "both links named the deleted fact";
}

// A link joins two facts of the scope it is put in, or is not stored.
TEST_P(VersionStoreTest, ALinkIsKeptOnlyBetweenFactsOfItsScope) {
  Add("elsewhere", "other");
  const int64_t elsewhere = rowids_.back();
  ASSERT_TRUE(Put({rowids_[0], elsewhere, 0.9, true}).ok());
  ASSERT_TRUE(Put({rowids_[0], elsewhere, 0.9, true}, "other").ok());
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 0.9, true}, "other").ok());
  EXPECT_TRUE(All().empty());
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 0.9, true}).ok());
  EXPECT_EQ(All().size(), 1u);
}

// Rowids whose range holds few links are read in one walk of it, others a
// lookup each; both give exactly the links of the rowids asked for, in
// order.
TEST_P(VersionStoreTest, DenseAndSparseRowidsGiveTheSameLinks) {
  for (int i = 0; i < 40; ++i) Add("fact " + std::to_string(i));
  for (size_t i = 0; i + 2 < rowids_.size(); i += 3) {
    ASSERT_TRUE(Put({rowids_[i], rowids_[i + 1], 0.8, false}).ok());
    ASSERT_TRUE(Put({rowids_[i], rowids_[i + 2], 0.9, true}).ok());
  }
  const std::vector<VersionLink> all = All();
  const auto expected = [&](const std::vector<int64_t>& asked) {
    std::vector<VersionLink> out;
    for (const VersionLink& l : all) {
      if (std::find(asked.begin(), asked.end(), l.older_rowid) != asked.end()) out.push_back(l);
    }
    return out;
  };
  const auto same = [](const std::vector<VersionLink>& a, const std::vector<VersionLink>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].older_rowid != b[i].older_rowid || a[i].newer_rowid != b[i].newer_rowid ||
          a[i].explicit_update != b[i].explicit_update) {
        return false;
      }
    }
    return true;
  };
  // Every other rowid of all 43: dense. Three far apart: sparse.
  std::vector<int64_t> dense;
  for (size_t i = 0; i < rowids_.size(); i += 2) dense.push_back(rowids_[i]);
  const std::vector<int64_t> sparse = {rowids_[3], rowids_[21], rowids_[42]};
  // SQLite walks the range of the dense ones, which holds few links for
  // them, and looks the sparse ones up, their range holding many.
  const auto links_in_range = [&](const std::vector<int64_t>& asked) {
    return std::count_if(all.begin(), all.end(), [&](const VersionLink& l) {
      return l.older_rowid >= asked.front() && l.older_rowid <= asked.back();
    });
  };
  ASSERT_LE(links_in_range(dense),
            static_cast<int64_t>(dense.size()) * SqliteVersionStore::kLookupRows);
  ASSERT_GT(links_in_range(sparse),
            static_cast<int64_t>(sparse.size()) * SqliteVersionStore::kLookupRows);
  for (const auto& asked : {dense, sparse}) {
    auto got = store_->versions().NewerThan({kDefaultScope}, asked);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_FALSE(expected(asked).empty());
    EXPECT_TRUE(same(*got, expected(asked))) << got->size() << " links";
  }
}

// What a read transaction asks of its links follows every commit: another
// connection's, its own connection's, a fact's deletion; a transaction
// that rolls back leaves nothing. (SQLite keeps the links of the last
// snapshot read in memory, sqlite_version_store.h.)
TEST_P(VersionStoreTest, LinksReadInATransactionFollowEveryCommit) {
  auto reader = store_->OpenReader();
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const auto newer_of = [](Store* store, int64_t rowid) -> int64_t {
    int64_t found = -1;
    const Status read = store->ReadTransact([&]() -> Status {
      auto links = store->versions().NewerThan({kDefaultScope}, {rowid});
      if (links.ok()) found = static_cast<int64_t>(links->size());
      return links.status();
    });
    EXPECT_TRUE(read.ok()) << read.ToString();
    return found;
  };
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 0.7, false}).ok());
  EXPECT_EQ(newer_of(reader->get(), rowids_[0]), 1);
  EXPECT_EQ(newer_of(store_, rowids_[0]), 1);

  ASSERT_TRUE(Put({rowids_[0], rowids_[2], 0.9, true}).ok());
  EXPECT_EQ(newer_of(reader->get(), rowids_[0]), 2) << "another connection's commit";
  EXPECT_EQ(newer_of(store_, rowids_[0]), 2) << "this connection's own commit";

  const Status rolled_back = store_->Transact([&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(
        store_->versions().Put(kDefaultScope, {rowids_[1], rowids_[2], 0.9, true}));
    auto inside = store_->versions().NewerThan({kDefaultScope}, {rowids_[1]});
    EXPECT_TRUE(inside.ok() && inside->size() == 1) << "a transaction sees its own link";
    return Internal("rolled back on purpose");
  });
  ASSERT_FALSE(rolled_back.ok());
  EXPECT_EQ(newer_of(store_, rowids_[1]), 0);
  EXPECT_EQ(newer_of(reader->get(), rowids_[1]), 0);

  ASSERT_TRUE(store_
                  ->Transact([&] {
                    return store_->facts().DeleteRowids({kDefaultScope}, {rowids_[2]}).status();
                  })
                  .ok());
  EXPECT_EQ(newer_of(reader->get(), rowids_[0]), 1) << "a deleted fact's links are gone";
  EXPECT_EQ(newer_of(store_, rowids_[0]), 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, VersionStoreTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
