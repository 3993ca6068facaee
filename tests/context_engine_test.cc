// Attached files through the Engine, on each store: attach, search,
// refresh after an edit (only the chunks whose text changed are embedded
// again), embedder failures, and the errors of attach and detach.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>

#include "engram/engine.h"
#include "src/common/hash.h"
#include "src/context/chunker.h"
#include "src/context/file_scanner.h"
#include "src/embed/hash_embedder.h"
#include "src/store/testing/store_place_test.h"
#include "tests/test_embedders.h"
#include "tests/test_util.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using testing::CountingEmbedder;
using testing::TempDir;
using testing::WriteFile;

// An engine on a store of the test's backend; the files it attaches are
// in a directory of their own.
class ContextEngineTest : public testing::StorePlaceTest,
                          public ::testing::WithParamInterface<testing::Backend> {
 protected:
  ContextEngineTest() : StorePlaceTest(GetParam()) {}

  std::unique_ptr<Engine> Open(std::shared_ptr<const Embedder> embedder) {
    EngineOptions o;
    place_->Apply(&o);
    o.embedder = std::move(embedder);
    o.vector.background_backfill = false;
    auto engine = Engine::Open(o);
    EXPECT_TRUE(engine.ok()) << engine.status().ToString();
    return engine.ok() ? std::move(*engine) : nullptr;
  }
  std::string Write(const std::string& rel, const std::string& text) {
    const fs::path p = dir_.path() / "files" / rel;
    fs::create_directories(p.parent_path());
    WriteFile(p.string(), text);
    return p.string();
  }
  std::string Files() const { return (dir_.path() / "files").string(); }

  TempDir dir_;
};

// The content hashes of every chunk the attachment of `root` holds, as the
// scanner and chunker cut them with the default options.
std::set<std::string> ChunkHashes(const std::string& root) {
  std::set<std::string> out;
  auto scan = ScanFiles({root}, {});
  EXPECT_TRUE(scan.ok());
  for (const ScannedFile& f : scan->files) {
    const FileText text = ReadTextFile(f.path, ScanOptions{}.max_file_bytes);
    if (!text.skip_reason.empty()) continue;
    for (const TextChunk& c : ChunkText(text.text, {})) out.insert(Sha256Hex(c.text));
  }
  return out;
}

bool Ends(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST_P(ContextEngineTest, EditingOneFunctionReembedsOnlyTheChangedChunks) {
  const fs::path src = dir_.path() / "copy" / "src";
  fs::create_directories(src.parent_path());
  fs::copy(fs::path(ENGRAM_SOURCE_DIR) / "src", src, fs::copy_options::recursive);
  auto counting = std::make_shared<CountingEmbedder>(std::make_shared<HashEmbedder>(256));
  auto engine = Open(counting);
  ASSERT_NE(engine, nullptr);

  auto attached = engine->Attach({{src.string()}, ""});
  ASSERT_TRUE(attached.ok()) << attached.status().ToString();
  const std::set<std::string> before = ChunkHashes(src.string());
  EXPECT_EQ(attached->name, "src");
  EXPECT_GT(attached->files, 100u);
  EXPECT_EQ(attached->embedded, before.size());  // each distinct text once
  EXPECT_EQ(counting->documents(), before.size());
  EXPECT_EQ(attached->reused, attached->chunks - before.size());
  EXPECT_EQ(attached->unembedded, 0u);

  auto found = engine->SearchContext("SigV4 canonical request", {});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_FALSE(found->hits.empty());
  EXPECT_TRUE(found->semantic);
  // The signer and its test share the words; the signer is in the top 3.
  size_t rank = 0;
  while (rank < found->hits.size() && !Ends(found->hits[rank].path, "src/http/sigv4_signer.cc")) {
    ++rank;
  }
  EXPECT_LT(rank, 3u) << found->hits[0].path;

  // Change one function in the middle of the largest .cc file.
  fs::path largest;
  for (const auto& e : fs::recursive_directory_iterator(src)) {
    if (e.path().extension() == ".cc" &&
        (largest.empty() || e.file_size() > fs::file_size(largest))) {
      largest = e.path();
    }
  }
  std::string text = testing::ReadFile(largest.string());
  const size_t middle = text.find("\n}\n", text.size() / 2);
  ASSERT_NE(middle, std::string::npos);
  text.insert(middle + 1, "  // Edited: the refresh must notice this line.\n");
  WriteFile(largest.string(), text);
  const std::set<std::string> after = ChunkHashes(src.string());

  size_t fresh = 0;
  for (const std::string& h : after) fresh += before.count(h) == 0;

  const size_t documents = counting->documents();
  auto refreshed = engine->RefreshAttachments("src");
  ASSERT_TRUE(refreshed.ok()) << refreshed.status().ToString();
  ASSERT_EQ(refreshed->size(), 1u);
  const AttachReport& r = (*refreshed)[0];
  EXPECT_EQ(r.files_changed, 1u);
  EXPECT_EQ(r.files_unchanged, r.files - 1);
  EXPECT_EQ(r.embedded, fresh);
  EXPECT_EQ(counting->documents() - documents, fresh);
  EXPECT_GE(fresh, 1u);
  EXPECT_LE(fresh, 4u);  // the edited window and its neighbours at most
  EXPECT_LT(fresh * 100, r.chunks);
  std::cout << "attach: " << attached->files << " files, " << attached->chunks << " chunks, "
            << attached->embedded << " texts embedded in " << attached->embed_calls
            << " calls; refresh after the edit: " << r.embedded << " embedded in " << r.embed_calls
            << " call(s), " << r.reused << " reused, of " << r.chunks << " chunks\n";

  const size_t settled = counting->documents();
  refreshed = engine->RefreshAttachments("");
  ASSERT_TRUE(refreshed.ok());
  EXPECT_EQ((*refreshed)[0].embedded, 0u);
  EXPECT_EQ((*refreshed)[0].embed_calls, 0u);
  EXPECT_EQ((*refreshed)[0].files_unchanged, (*refreshed)[0].files);
  EXPECT_EQ(counting->documents(), settled);
}

TEST_P(ContextEngineTest, AFailingEmbedderLeavesChunksForTheNextRefresh) {
  Write("notes/deploy.md", "Deploys go out on Tuesday mornings.\n");
  Write("notes/shell.md", "The interactive shell is fish.\n");
  auto faulty = std::make_shared<testing::ScriptedFaultEmbedder>(8);
  faulty->set_fault(testing::ScriptedFaultEmbedder::Fault::kError);
  auto engine = Open(faulty);
  ASSERT_NE(engine, nullptr);
  auto attached = engine->Attach({{Files()}, "notes"});
  ASSERT_TRUE(attached.ok()) << attached.status().ToString();
  EXPECT_EQ(attached->chunks, 2u);
  EXPECT_EQ(attached->unembedded, 2u);
  EXPECT_EQ(attached->embedded, 0u);
  ASSERT_EQ(attached->warnings.size(), 1u);
  EXPECT_NE(attached->warnings[0].find("provider down"), std::string::npos);

  auto found = engine->SearchContext("deploys tuesday", {});  // the text side is whole
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->hits.size(), 1u);
  EXPECT_EQ(found->unembedded, 2u);
  EXPECT_TRUE(Ends(found->hits[0].path, "deploy.md"));

  faulty->set_fault(testing::ScriptedFaultEmbedder::Fault::kNone);
  auto refreshed = engine->RefreshAttachments("notes");
  ASSERT_TRUE(refreshed.ok());
  EXPECT_EQ((*refreshed)[0].embedded, 2u);
  EXPECT_EQ((*refreshed)[0].unembedded, 0u);
}

TEST_P(ContextEngineTest, ErrorsLeaveTheStoreAsItWas) {
  Write("a.txt", "alpha\n");
  auto engine = Open(nullptr);
  ASSERT_NE(engine, nullptr);
  auto missing = engine->Attach({{Files(), dir_.File("nope")}, "x"});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("context: attach: '"), std::string::npos)
      << missing.status().message();
  EXPECT_TRUE(engine->Attachments()->empty());

  ASSERT_TRUE(engine->Attach({{Files()}, "x"}).ok());
  auto twice = engine->Attach({{Files()}, "x"});
  EXPECT_EQ(twice.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(engine->Detach("nope").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(engine->RefreshAttachments("nope").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(engine->Attach({{}, "y"}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(engine->Attachments()->size(), 1u);
}

TEST_P(ContextEngineTest, WithoutAnEmbedderSearchIsLexicalOnly) {
  Write("a.md", "The billing service is written in Go.\n");
  Write("b.md", "Postgres listens on port 5433.\n");
  auto engine = Open(nullptr);
  ASSERT_NE(engine, nullptr);
  auto attached = engine->Attach({{Files()}, "docs"});
  ASSERT_TRUE(attached.ok());
  EXPECT_EQ(attached->unembedded, 2u);
  auto found = engine->SearchContext("which port does postgres use", {});
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->semantic);
  ASSERT_EQ(found->hits.size(), 1u);
  EXPECT_TRUE(found->hits[0].lexical.present);
  EXPECT_FALSE(found->hits[0].semantic.present);
  EXPECT_DOUBLE_EQ(found->hits[0].weights.lexical, 1.0);
  EXPECT_EQ(found->hits[0].start_line, 1);
}

TEST_P(ContextEngineTest, SemanticSignalFindsAParaphrase) {
  Write("cars.md", "Park the automobile in the garage.\n");
  Write("food.md", "Lunch is served at noon in the cafeteria.\n");
  auto concepts = std::make_shared<testing::ConceptEmbedder>(
      std::vector<std::vector<std::string>>{{"car", "automobile", "vehicle"}, {"lunch", "meal"}});
  auto engine = Open(concepts);
  ASSERT_NE(engine, nullptr);
  ASSERT_TRUE(engine->Attach({{Files()}, ""}).ok());
  ContextSearchOptions options;
  options.k = 1;
  auto found = engine->SearchContext("vehicle", options);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->hits.size(), 1u);
  EXPECT_TRUE(Ends(found->hits[0].path, "cars.md"));
  EXPECT_FALSE(found->hits[0].lexical.present);
  EXPECT_TRUE(found->hits[0].semantic.present);
  EXPECT_DOUBLE_EQ(found->hits[0].weights.temporal, 0.0);
}

TEST_P(ContextEngineTest, RefreshFollowsTheDiskAndDetachRemovesEverything) {
  Write("keep.md", "kept text\n");
  const std::string gone = Write("gone.md", "removed text\n");
  auto engine = Open(std::make_shared<HashEmbedder>(32));
  ASSERT_NE(engine, nullptr);
  ASSERT_TRUE(engine->Attach({{Files()}, "d"}).ok());
  fs::remove(gone);
  Write("new.md", "added text\n");
  Write("huge.md", std::string(2 << 20, 'x'));
  auto refreshed = engine->RefreshAttachments("d");
  ASSERT_TRUE(refreshed.ok());
  const AttachReport& r = (*refreshed)[0];
  EXPECT_EQ(r.files_added, 1u);
  EXPECT_EQ(r.files_removed, 1u);
  EXPECT_EQ(r.files, 2u);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_TRUE(Ends(r.skipped[0].path, "huge.md"));
  EXPECT_NE(r.skipped[0].reason.find("larger than 1048576 bytes"), std::string::npos);
  EXPECT_TRUE(engine->SearchContext("removed", {})->hits.empty());

  auto detached = engine->Detach("d");
  ASSERT_TRUE(detached.ok());
  EXPECT_EQ(detached->files, 2u);
  EXPECT_TRUE(engine->Attachments()->empty());
  EXPECT_TRUE(engine->SearchContext("kept", {})->hits.empty());
}

TEST(ContextOptionsTest, ChunkerOptionsOutOfRangeAreRefused) {
  TempDir dir;
  EngineOptions o;
  o.db_path = dir.File("memory.db");
  o.context.chunk_bytes = 10;
  auto engine = Engine::Open(o);
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().message(), "engine: options: context.chunk_bytes outside [64, 65536]");
  o.context.chunk_bytes = 1200;
  o.context.overlap_lines = 101;
  EXPECT_EQ(Engine::Open(o).status().code(), StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Backends, ContextEngineTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
