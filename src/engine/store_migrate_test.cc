// engram migrate's copy (include/engram/migrate.h): a store copied from
// SQLite into each backend and back into SQLite exports the same bytes, and
// keeps its vectors, version links, HyDE cache and attached files.
#include "engram/migrate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

#include "engram/engine.h"
#include "src/embed/hash_embedder.h"
#include "src/engine/fact_files.h"
#include "src/store/testing/store_backends.h"
#include "tests/engine_for_test.h"
#include "tests/test_llms.h"
#include "tests/test_util.h"

namespace engram {
namespace {

using testing::Backend;

constexpr Timestamp kNow = 1780000000000;  // 2026-05-28
constexpr char kQuery[] = "where are the invoices kept";

class MigrateTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    llm_->Answer(kQuery, "Invoices are kept in the billing bucket.");
    for (Backend backend : {Backend::kSqlite, GetParam(), Backend::kSqlite}) {
      auto place = testing::StorePlace::Create(backend);
      ASSERT_TRUE(place.ok()) << place.status().ToString();
      places_.push_back(std::move(*place));
    }
  }

  // Options that open the store of place `i`, with vectors and HyDE.
  EngineOptions At(size_t i) const {
    EngineOptions o;
    places_[i]->Apply(&o);
    o.clock = clock_;
    o.embedder = std::make_shared<HashEmbedder>(64);
    o.vector.background_backfill = false;
    o.llm = llm_;
    o.hyde.enabled = true;
    return o;
  }

  // Every fact of the store at place `i`, as `engram export` writes them.
  std::string Exported(size_t i) const {
    auto engine = testing::OpenEngineForTest(At(i));
    std::ostringstream out;
    EXPECT_TRUE(WriteFactsJsonl(*engine, {}, out, "test").ok());
    return out.str();
  }

  // The attachments of the store at place `i` and a search of their chunks
  // with both signals, as lines of text.
  std::vector<std::string> ContextShown(size_t i) const {
    auto engine = testing::OpenEngineForTest(At(i));
    std::vector<std::string> out;
    const auto attachments = engine->Attachments();
    EXPECT_TRUE(attachments.ok()) << attachments.status().ToString();
    if (!attachments.ok()) return out;
    for (const Attachment& a : *attachments) {
      std::ostringstream line;
      line << a.name << " " << a.roots.size() << " " << a.files << " " << a.chunks << " "
           << a.created_at << " " << a.refreshed_at;
      out.push_back(line.str());
    }
    const auto found = engine->SearchContext("where are old invoices and standup notes", {});
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    if (!found.ok()) return out;
    EXPECT_TRUE(found->semantic);
    for (const ContextHit& hit : found->hits) {
      std::ostringstream line;
      line << hit.path.substr(hit.path.rfind('/')) << " " << hit.start_line << " " << hit.score;
      out.push_back(line.str());
    }
    return out;
  }

  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(kNow);
  std::shared_ptr<testing::TableLlm> llm_ = std::make_shared<testing::TableLlm>();
  std::vector<std::unique_ptr<testing::StorePlace>> places_;
};

TEST_P(MigrateTest, ARoundTripExportsTheSameBytesAndKeepsVectorsLinksAndTheCache) {
  std::string replaced_id;
  {
    auto engine = testing::OpenEngineForTest(At(0));
    NewFact described;
    described.content = "Invoices are stored in the billing bucket on S3";
    described.tags = {"billing", "storage"};
    described.kind = "lesson";
    described.source = "retro";
    described.confidence = 0.75;
    described.metadata = R"({"ticket":"ENG-12","weight":0.1,"done":true})";
    ASSERT_TRUE(engine->Add(described).ok());
    NewFact elsewhere;
    elsewhere.content = "Revisão de código: sempre com dois aprovadores";
    elsewhere.scope = "team";
    elsewhere.expires_at = kNow + 30LL * 86400000;
    ASSERT_TRUE(engine->Add(elsewhere).ok());
    replaced_id = testing::AddForTest(*engine, "The standup is at 9:30");
    clock_->AdvanceMillis(86400000);
    UpdateRequest update;
    update.id = replaced_id;
    update.replacement.content = "The standup moved to 10:15";
    ASSERT_TRUE(engine->Update(update).ok());
    SearchOptions search;
    search.record_access = true;
    ASSERT_FALSE(testing::SearchForTest(*engine, kQuery, search).hits.empty());
    const std::string notes = places_[0]->Directory() + "/notes";
    std::filesystem::create_directories(notes);
    testing::WriteFile(notes + "/billing.md", "Invoices older than a year move to cold storage.\n");
    testing::WriteFile(notes + "/standup.md", "The standup notes live in the team wiki.\n");
    ASSERT_TRUE(engine->Attach({{notes}, "notes"}).ok());
  }
  const std::string original = Exported(0);
  const std::vector<std::string> original_context = ContextShown(0);
  ASSERT_EQ(original_context.size(), 3u);  // the attachment and its two chunks
  ASSERT_NE(original.find("\"access_count\":1"), std::string::npos) << original;

  for (size_t hop : {size_t{1}, size_t{2}}) {
    SCOPED_TRACE("into place " + std::to_string(hop));
    auto report = MigrateStore(At(hop - 1), At(hop));
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->facts, 4);
    EXPECT_EQ(report->version_links, 1);
    EXPECT_EQ(report->spaces, 1);
    EXPECT_EQ(report->vectors, 4);
    EXPECT_EQ(report->hypotheses, 1);
    EXPECT_EQ(report->attachments, 1);
    EXPECT_EQ(report->chunks, 2);
    EXPECT_EQ(report->chunk_vectors, 2);
    EXPECT_TRUE(report->warnings.empty()) << report->warnings.front();
    EXPECT_EQ(Exported(hop), original);
    EXPECT_EQ(ContextShown(hop), original_context);
  }

  // The copy searches with its own vectors, knows the history and answers
  // the query from the cache, without asking the LLM again.
  auto copy = testing::OpenEngineForTest(At(2));
  const auto stats = copy->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->vectors, 4);
  EXPECT_EQ(stats->missing_vectors, 0);
  const auto history = copy->History("default", replaced_id);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  EXPECT_EQ(history->size(), 2u);
  const size_t asked = llm_->requests().size();
  SearchOptions search;
  search.record_access = false;
  search.explain = true;
  const SearchResponse r = testing::SearchForTest(*copy, kQuery, search);
  EXPECT_TRUE(r.hyde.cached);
  EXPECT_TRUE(r.semantic);
  EXPECT_EQ(llm_->requests().size(), asked);
  // The chunks came with their vectors: a refresh embeds nothing.
  const auto refreshed = copy->RefreshAttachments("notes");
  ASSERT_TRUE(refreshed.ok()) << refreshed.status().ToString();
  ASSERT_EQ(refreshed->size(), 1u);
  EXPECT_EQ((*refreshed)[0].embedded, 0u);
  EXPECT_EQ((*refreshed)[0].files_unchanged, 2u);
}

TEST_P(MigrateTest, AStoreThatHoldsFactsIsNotWrittenInto) {
  {
    auto source = testing::OpenEngineForTest(At(0));
    testing::AddForTest(*source, "a fact to copy");
    auto destination = testing::OpenEngineForTest(At(1));
    testing::AddForTest(*destination, "a fact already there");
  }
  const std::string before = Exported(1);
  auto report = MigrateStore(At(0), At(1));
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(report.status().message().find("holds 1 facts"), std::string::npos)
      << report.status().ToString();
  EXPECT_EQ(Exported(1), before);
}

INSTANTIATE_TEST_SUITE_P(Backends, MigrateTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
