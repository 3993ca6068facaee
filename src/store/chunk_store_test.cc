#include "src/store/chunk_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "src/common/hash.h"
#include "src/store/index_forms.h"
#include "src/store/testing/store_backends.h"

namespace engram {
namespace {

// The index forms of `text`, as a search asks the index for them.
std::vector<std::string> Phrases(const std::string& text) {
  std::vector<std::string> out;
  for (const IndexForm& f : IndexForms(text)) out.push_back(f.form);
  return out;
}

// A chunk whose analysed length is its number of index forms.
ChunkRow Row(const std::string& path, int64_t line, const std::string& text) {
  return {path, line, line, Sha256Hex(text), text, static_cast<int64_t>(Phrases(text).size())};
}

class ChunkStoreTest : public ::testing::TestWithParam<testing::Backend> {
 protected:
  void SetUp() override {
    auto made = testing::StoreForTest::Create(GetParam());
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    made_ = std::move(*made);
    store_ = &made_->store();
    chunks_ = &store_->chunks();
  }
  int64_t Attach(const std::string& name) {
    Result<int64_t> id = Internal("not run");
    EXPECT_TRUE(store_
                    ->Transact([&] {
                      id = chunks_->Create(name, {"/r"}, "1200/2", 1000);
                      return id.status();
                    })
                    .ok());
    return id.ok() ? *id : 0;
  }
  Status Run(const std::function<Status()>& body) { return store_->Transact(body); }
  // Chunk vectors of the space, by content hash.
  std::vector<std::string> VectorHashes(int64_t space) {
    std::vector<std::string> out;
    EXPECT_TRUE(chunks_
                    ->ForEachVectorBlob(space, [&](const std::string& hash,
                                                   std::string_view) { out.push_back(hash); })
                    .ok());
    return out;
  }

  std::unique_ptr<testing::StoreForTest> made_;
  Store* store_ = nullptr;
  ChunkStore* chunks_ = nullptr;
};

TEST_P(ChunkStoreTest, NamesAreUnique) {
  Attach("docs");
  Status s = Run([&] { return chunks_->Create("docs", {"/x"}, "1200/2", 2000).status(); });
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(s.message().find("an attachment named 'docs' already exists"), std::string::npos);
  auto found = chunks_->Find("docs");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->info.roots, std::vector<std::string>{"/r"});
  EXPECT_EQ(found->info.created_at, 1000);
  EXPECT_EQ(chunks_->Find("nope").status().code(), StatusCode::kNotFound);
}

TEST_P(ChunkStoreTest, ChunksAreSearchableAndFollowTheirFile) {
  const int64_t id = Attach("docs");
  const ChunkRow signed_row = Row("/r/a.md", 1, "the canonical request is signed, signed twice");
  const ChunkRow other = Row("/r/a.md", 2, "nothing to see here");
  ASSERT_TRUE(Run([&]() -> Status {
                ENGRAM_RETURN_IF_ERROR(chunks_->PutFile(id, {"/r/a.md", 10, 1, "h1"}));
                ENGRAM_RETURN_IF_ERROR(chunks_->ReplaceChunks(id, "/r/a.md", {signed_row, other}));
                return chunks_->PutFile(id, {"/r/b.md", 10, 1, "h2"});
              }).ok());
  auto totals = chunks_->TextTotalsOf({id});
  ASSERT_TRUE(totals.ok()) << totals.status().ToString();
  EXPECT_EQ(totals->chunks, 2);
  EXPECT_EQ(totals->terms, static_cast<double>(signed_row.terms + other.terms));

  // "signed requests": each form's occurrences in the one chunk holding any.
  const std::vector<std::string> phrases = Phrases("signed requests");
  ASSERT_EQ(phrases.size(), 2u);
  auto m = chunks_->MatchText(phrases, {id});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->size(), 1u);
  EXPECT_EQ((*m)[0].tf, (std::vector<int32_t>{2, 1}));
  EXPECT_EQ((*m)[0].terms, signed_row.terms);
  auto record = chunks_->Chunks({(*m)[0].rowid});
  ASSERT_TRUE(record.ok());
  ASSERT_EQ(record->size(), 1u);
  EXPECT_EQ((*record)[0].attachment, "docs");
  EXPECT_EQ((*record)[0].row.text, signed_row.text);
  EXPECT_EQ((*record)[0].row.start_line, 1);

  auto listed = chunks_->List();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ((*listed)[0].info.files, 2u);
  EXPECT_EQ((*listed)[0].info.chunks, 2u);
  // Another attachment's chunks are not searched.
  EXPECT_TRUE(chunks_->MatchText(phrases, {id + 1000})->empty());

  ASSERT_TRUE(Run([&] { return chunks_->RemoveFile(id, "/r/a.md"); }).ok());
  m = chunks_->MatchText(phrases, {id});
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->empty());  // the index followed the delete
  EXPECT_EQ(chunks_->TextTotalsOf({id})->chunks, 0);
  auto files = chunks_->Files(id);
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].path, "/r/b.md");
}

TEST_P(ChunkStoreTest, RestoreAndChunksOfGiveBackWhatWasWritten) {
  StoredAttachment a;
  a.info.name = "copied";
  a.info.roots = {"/one", "/two \"quoted\""};
  a.info.created_at = 11;
  a.info.refreshed_at = 22;
  a.chunking = "800/1";
  const std::vector<ChunkRow> rows = {Row("/one/b.md", 1, "bravo"), Row("/one/b.md", 5, "charlie"),
                                      Row("/one/a.md", 1, "alpha")};
  int64_t id = 0;
  ASSERT_TRUE(Run([&]() -> Status {
                ENGRAM_ASSIGN_OR_RETURN(id, chunks_->Restore(a));
                ENGRAM_RETURN_IF_ERROR(chunks_->ReplaceChunks(id, "/one/b.md", {rows[0], rows[1]}));
                return chunks_->ReplaceChunks(id, "/one/a.md", {rows[2]});
              }).ok());
  auto found = chunks_->Find("copied");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->info.roots, a.info.roots);
  EXPECT_EQ(found->info.created_at, 11);
  EXPECT_EQ(found->info.refreshed_at, 22);
  EXPECT_EQ(found->chunking, "800/1");
  auto back = chunks_->ChunksOf(id);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 3u);
  // By path, then as written.
  EXPECT_EQ((*back)[0].text, "alpha");
  EXPECT_EQ((*back)[1].text, "bravo");
  EXPECT_EQ((*back)[2].text, "charlie");
  EXPECT_EQ((*back)[2].start_line, 5);
  EXPECT_EQ((*back)[2].content_hash, Sha256Hex("charlie"));
  EXPECT_EQ(Run([&] { return chunks_->Restore(a).status(); }).code(), StatusCode::kAlreadyExists);
}

TEST_P(ChunkStoreTest, ARebuildCountsEveryChunkAgain) {
  const int64_t id = Attach("docs");
  ASSERT_TRUE(
      Run([&] {
        return chunks_->ReplaceChunks(id, "/a", {Row("/a", 1, "one two"), Row("/a", 2, "three")});
      }).ok());
  ASSERT_TRUE(Run([&] {
                return chunks_->RebuildLexicalIndex([](std::string_view) { return int64_t{7}; });
              }).ok());
  EXPECT_EQ(chunks_->TextTotalsOf({id})->terms, 14.0);
  auto m = chunks_->MatchText(Phrases("three"), {id});
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->size(), 1u);
  EXPECT_EQ((*m)[0].terms, 7);
}

TEST_P(ChunkStoreTest, VectorsAreSharedByHashAndDroppedWhenUnused) {
  const int64_t a = Attach("a");
  const int64_t b = Attach("b");
  VectorStore& spaces = store_->vectors();
  int64_t space = 0;
  ASSERT_TRUE(Run([&]() -> Status {
                ENGRAM_ASSIGN_OR_RETURN(space, spaces.EnsureSpace({"test", "x", 2}, 0));
                ENGRAM_RETURN_IF_ERROR(chunks_->ReplaceChunks(a, "/a", {Row("/a", 1, "same")}));
                ENGRAM_RETURN_IF_ERROR(chunks_->ReplaceChunks(b, "/b", {Row("/b", 1, "same")}));
                const std::vector<float> v = {1.0f, 0.0f};
                return chunks_->PutVector(space, Sha256Hex("same"), v);
              }).ok());
  EXPECT_EQ(*chunks_->WithVectors(space, {Sha256Hex("same"), Sha256Hex("other")}),
            std::unordered_set<std::string>{Sha256Hex("same")});
  EXPECT_TRUE(chunks_->WithoutVectors(a, space)->empty());
  EXPECT_EQ(*chunks_->CountWithoutVectors({a, b}, space), 0);
  size_t seen = 0;
  ASSERT_TRUE(chunks_
                  ->ForEachVector({a, b}, space, 2, 1,
                                  [&](int64_t, std::span<const float> v) { seen += v[0] == 1.0f; })
                  .ok());
  EXPECT_EQ(seen, 2u);  // one vector serves both chunks
  const auto ignore = [](int64_t, std::span<const float>) {};
  EXPECT_EQ(chunks_->ForEachVector({a}, space, 3, 1, ignore).code(), StatusCode::kCorruption);
  // Read as a windowed space's blob of 1-d vectors, it is two windows.
  size_t floats = 0;
  ASSERT_TRUE(chunks_
                  ->ForEachVector({a}, space, 1, 2,
                                  [&](int64_t, std::span<const float> v) { floats = v.size(); })
                  .ok());
  EXPECT_EQ(floats, 2u);
  EXPECT_EQ(chunks_->ForEachVector({a}, space, 1, 1, ignore).code(), StatusCode::kCorruption);

  ASSERT_TRUE(Run([&] { return chunks_->Delete(a); }).ok());
  auto dropped = chunks_->DropUnusedVectors();
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(*dropped, 0);  // b still uses it
  ASSERT_TRUE(Run([&] { return chunks_->Delete(b); }).ok());
  dropped = chunks_->DropUnusedVectors();
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(*dropped, 1);
  EXPECT_TRUE(chunks_->List()->empty());
  EXPECT_TRUE(VectorHashes(space).empty());
}

TEST_P(ChunkStoreTest, PruningASpaceDeletesItsChunkVectors) {
  const int64_t a = Attach("a");
  VectorStore& spaces = store_->vectors();
  int64_t old_space = 0;
  int64_t keep = 0;
  ASSERT_TRUE(Run([&]() -> Status {
                ENGRAM_ASSIGN_OR_RETURN(old_space, spaces.EnsureSpace({"t", "old", 2}, 0));
                ENGRAM_ASSIGN_OR_RETURN(keep, spaces.EnsureSpace({"t", "new", 2}, 0));
                ENGRAM_RETURN_IF_ERROR(chunks_->ReplaceChunks(a, "/a", {Row("/a", 1, "text")}));
                const std::vector<float> v = {0.0f, 1.0f};
                ENGRAM_RETURN_IF_ERROR(chunks_->PutVector(old_space, Sha256Hex("text"), v));
                ENGRAM_RETURN_IF_ERROR(chunks_->PutVector(keep, Sha256Hex("text"), v));
                return spaces.PruneOtherSpaces(keep).status();
              }).ok());
  EXPECT_TRUE(VectorHashes(old_space).empty());
  EXPECT_EQ(VectorHashes(keep), std::vector<std::string>{Sha256Hex("text")});
  ASSERT_EQ(chunks_->WithoutVectors(a, old_space)->size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, ChunkStoreTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
