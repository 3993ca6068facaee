#include "src/store/version_store.h"

#include <gtest/gtest.h>

#include "src/store/fact_id.h"
#include "src/store/fact_store.h"
#include "tests/store_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

class VersionStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = FactStore::Open(testing::StoreOptionsForTest(dir_.File("m.db")));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    for (const char* content : {"one", "two", "three"}) {
      FactRow row;
      row.fact.id = FactId(content);
      row.fact.content = content;
      ASSERT_TRUE(store_->Transact([&] { return store_->Insert(row); }).ok());
      rowids_.push_back(store_->db()->LastInsertRowid());
    }
  }
  Status Put(const VersionLink& link) {
    return store_->Transact([&] { return VersionStore(store_->db()).Put(link); });
  }
  std::vector<VersionLink> All() { return VersionStore(store_->db()).All().value(); }

  testing::TempDir dir_;
  std::unique_ptr<FactStore> store_;
  std::vector<int64_t> rowids_;
};

TEST_F(VersionStoreTest, AnExplicitLinkReplacesAFoundOneAndNeverTheReverse) {
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 0.7, false}).ok());
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 0.8, false}).ok());
  ASSERT_EQ(All().size(), 1u);
  EXPECT_DOUBLE_EQ(All()[0].cosine, 0.7) << "a found link keeps the first";
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 1.0, true}).ok());
  EXPECT_TRUE(All()[0].explicit_update);
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 0.5, false}).ok());
  EXPECT_TRUE(All()[0].explicit_update) << "found later, still explicit";
}

TEST_F(VersionStoreTest, NewerThanListsLinksByOlderFactAndLinksGoWithTheirFacts) {
  ASSERT_TRUE(Put({rowids_[0], rowids_[1], 0.7, false}).ok());
  ASSERT_TRUE(Put({rowids_[1], rowids_[2], 0.9, true}).ok());
  auto newer = VersionStore(store_->db()).NewerThan({rowids_[1], rowids_[1], rowids_[2]});
  ASSERT_TRUE(newer.ok());
  ASSERT_EQ(newer->size(), 1u);
  EXPECT_EQ((*newer)[0].newer_rowid, rowids_[2]);
  ASSERT_TRUE(store_->Transact([&] { return store_->DeleteRowids({rowids_[1]}).status(); }).ok());
  EXPECT_TRUE(All().empty()) << "both links named the deleted fact";
}

}  // namespace
}  // namespace engram
