#include "src/context/context_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "src/common/hash.h"
#include "src/store/sqlite/sqlite_store.h"
#include "tests/test_util.h"

namespace engram {
namespace {

ChunkRow Row(const std::string& path, int64_t line, const std::string& text) {
  return {path, line, line, Sha256Hex(text), text, CountTerms(text)};
}

class ContextStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SqliteStoreOptions options;
    options.path = dir_.File("memory.db");
    auto store = SqliteStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    context_ = std::make_unique<ContextStore>(store_->sqlite());
  }
  int64_t Attach(const std::string& name) {
    Result<int64_t> id = Internal("not run");
    EXPECT_TRUE(store_
                    ->Transact([&] {
                      id = context_->Create(name, {"/r"}, "1200/2", 1000);
                      return id.status();
                    })
                    .ok());
    return id.ok() ? *id : 0;
  }
  Status Run(const std::function<Status()>& body) { return store_->Transact(body); }

  testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<ContextStore> context_;
};

TEST_F(ContextStoreTest, NamesAreUnique) {
  Attach("docs");
  Status s = Run([&] { return context_->Create("docs", {"/x"}, "1200/2", 2000).status(); });
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(s.message().find("an attachment named 'docs' already exists"), std::string::npos);
  auto found = context_->Find("docs");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->info.roots, std::vector<std::string>{"/r"});
  EXPECT_EQ(context_->Find("nope").status().code(), StatusCode::kNotFound);
}

TEST_F(ContextStoreTest, ChunksAreSearchableAndFollowTheirFile) {
  const int64_t id = Attach("docs");
  ASSERT_TRUE(Run([&]() -> Status {
                ENGRAM_RETURN_IF_ERROR(context_->PutFile(id, {"/r/a.md", 10, 1, "h1"}));
                ENGRAM_RETURN_IF_ERROR(
                    context_->ReplaceChunks(id, "/r/a.md",
                                            {Row("/r/a.md", 1, "the canonical request is signed"),
                                             Row("/r/a.md", 2, "nothing to see here")}));
                return context_->PutFile(id, {"/r/b.md", 10, 1, "h2"});
              }).ok());
  auto m = context_->Match({id}, AnalyzeQuery("signed requests"));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->collection.n_docs, 2);
  ASSERT_EQ(m->rowids.size(), 1u);
  auto listed = context_->List();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ((*listed)[0].info.files, 2u);
  EXPECT_EQ((*listed)[0].info.chunks, 2u);

  ASSERT_TRUE(Run([&] { return context_->RemoveFile(id, "/r/a.md"); }).ok());
  m = context_->Match({id}, AnalyzeQuery("signed requests"));
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->rowids.empty());  // the FTS index followed the delete
}

TEST_F(ContextStoreTest, VectorsAreSharedByHashAndDroppedWhenUnused) {
  const int64_t a = Attach("a");
  const int64_t b = Attach("b");
  VectorStore& spaces = store_->vectors();
  int64_t space = 0;
  ASSERT_TRUE(Run([&]() -> Status {
                ENGRAM_ASSIGN_OR_RETURN(space, spaces.EnsureSpace({"test", "x", 2}, 0));
                ENGRAM_RETURN_IF_ERROR(context_->ReplaceChunks(a, "/a", {Row("/a", 1, "same")}));
                ENGRAM_RETURN_IF_ERROR(context_->ReplaceChunks(b, "/b", {Row("/b", 1, "same")}));
                const std::vector<float> v = {1.0f, 0.0f};
                return context_->PutVector(space, Sha256Hex("same"), v);
              }).ok());
  size_t seen = 0;
  ASSERT_TRUE(context_
                  ->ForEachVector({a, b}, space, 2, 1,
                                  [&](int64_t, std::span<const float> v) { seen += v[0] == 1.0f; })
                  .ok());
  EXPECT_EQ(seen, 2u);  // one vector serves both chunks
  const auto ignore = [](int64_t, std::span<const float>) {};
  EXPECT_EQ(context_->ForEachVector({a}, space, 3, 1, ignore).code(), StatusCode::kCorruption);
  // Read as a windowed space's blob of 1-d vectors, it is two windows.
  size_t floats = 0;
  ASSERT_TRUE(context_
                  ->ForEachVector({a}, space, 1, 2,
                                  [&](int64_t, std::span<const float> v) { floats = v.size(); })
                  .ok());
  EXPECT_EQ(floats, 2u);
  EXPECT_EQ(context_->ForEachVector({a}, space, 1, 1, ignore).code(), StatusCode::kCorruption);

  ASSERT_TRUE(Run([&] { return context_->Delete(a); }).ok());
  auto dropped = context_->DropUnusedVectors();
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(*dropped, 0);  // b still uses it
  ASSERT_TRUE(Run([&] { return context_->Delete(b); }).ok());
  dropped = context_->DropUnusedVectors();
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(*dropped, 1);
  EXPECT_EQ(*store_->sqlite()->QueryInt("SELECT count(*) FROM context_chunks"), 0);
}

TEST_F(ContextStoreTest, PruningASpaceDeletesItsChunkVectors) {
  const int64_t a = Attach("a");
  VectorStore& spaces = store_->vectors();
  ASSERT_TRUE(Run([&]() -> Status {
                ENGRAM_ASSIGN_OR_RETURN(int64_t old_space, spaces.EnsureSpace({"t", "old", 2}, 0));
                ENGRAM_ASSIGN_OR_RETURN(int64_t keep, spaces.EnsureSpace({"t", "new", 2}, 0));
                ENGRAM_RETURN_IF_ERROR(context_->ReplaceChunks(a, "/a", {Row("/a", 1, "text")}));
                const std::vector<float> v = {0.0f, 1.0f};
                ENGRAM_RETURN_IF_ERROR(context_->PutVector(old_space, Sha256Hex("text"), v));
                ENGRAM_RETURN_IF_ERROR(context_->PutVector(keep, Sha256Hex("text"), v));
                return spaces.PruneOtherSpaces(keep).status();
              }).ok());
  EXPECT_EQ(*store_->sqlite()->QueryInt("SELECT count(*) FROM context_vectors"), 1);
}

}  // namespace
}  // namespace engram
