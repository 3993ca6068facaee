// Pseudo-relevance feedback end to end on a real SQLite file, with an
// embedder behind its seam: the first pass's terms find a fact the query
// shares no word with (RM3), its vectors move the query vector (Rocchio),
// the report says what was used, and every fallback.
#include <gtest/gtest.h>

#include "engram/engine.h"
#include "src/store/testing/store_place_test.h"
#include "tests/engine_for_test.h"
#include "tests/test_embedders.h"
#include "tests/test_util.h"

namespace engram {
namespace {

constexpr Timestamp kNow = 1780000000000;  // 2026-05-28

class FeedbackEngineTestBase : public testing::StorePlaceTest {
 protected:
  explicit FeedbackEngineTestBase(testing::Backend backend) : StorePlaceTest(backend) {}
  EngineOptions Options(std::shared_ptr<const Embedder> embedder, bool feedback = true) {
    EngineOptions o;
    place_->Apply(&o);
    o.clock = std::make_shared<ManualClock>(kNow);
    o.embedder = std::move(embedder);
    o.vector.background_backfill = false;
    o.feedback.enabled = feedback;
    return o;
  }
  static std::unique_ptr<Engine> Open(const EngineOptions& o) {
    return testing::OpenEngineForTest(o);
  }
  static std::string Add(Engine& engine, const std::string& content) {
    return testing::AddForTest(engine, content);
  }
  static SearchResponse Search(Engine& engine, const std::string& query, FusionMode mode,
                               bool hyde = true) {
    return testing::ExplainedSearchForTest(engine, query, mode, hyde);
  }
  static const SearchHit* Find(const SearchResponse& r, const std::string& id) {
    for (const SearchHit& h : r.hits) {
      if (h.fact.id == id) return &h;
    }
    return nullptr;
  }
};

class FeedbackEngineTest : public FeedbackEngineTestBase,
                           public ::testing::WithParamInterface<testing::Backend> {
 protected:
  FeedbackEngineTest() : FeedbackEngineTestBase(GetParam()) {}
};

const char kInvoices[] = "Invoices are stored in the billing bucket on S3";
const char kReplica[] = "The billing bucket is replicated to the archive bucket nightly";
const char kDeploys[] = "Deploys go out on Thursdays";

TEST_P(FeedbackEngineTest, FirstPassTermsFindAFactTheQueryMisses) {
  auto engine = Open(Options(nullptr));  // keyword-only: RM3 alone
  const std::string invoices = Add(*engine, kInvoices);
  const std::string replica = Add(*engine, kReplica);
  Add(*engine, kDeploys);

  const SearchResponse off = Search(*engine, "invoices", FusionMode::kLexical, /*hyde=*/false);
  EXPECT_FALSE(off.hyde.enabled);
  ASSERT_EQ(off.hits.size(), 1u);
  EXPECT_EQ(off.hits[0].fact.id, invoices);

  const SearchResponse on = Search(*engine, "invoices", FusionMode::kLexical);
  EXPECT_TRUE(on.hyde.enabled);
  EXPECT_EQ(on.hyde.llm, "feedback");
  EXPECT_TRUE(on.hyde.hypothesis.empty());
  EXPECT_EQ(on.hyde.feedback_facts, std::vector<std::string>{invoices});
  // The first pass's fact holds five terms of 1/5 each; all but the query's
  // own are new, in order of term.
  EXPECT_EQ(on.hyde.keywords, (std::vector<std::string>{"bill", "bucket", "s3", "store"}));
  EXPECT_TRUE(on.hyde.fallbacks.empty());
  ASSERT_EQ(on.hits.size(), 2u);
  EXPECT_EQ(on.hits[0].fact.id, invoices) << "the query's own match stays first";
  EXPECT_EQ(on.hits[1].fact.id, replica);
  EXPECT_EQ(on.hits[1].explanation.matched_terms, (std::vector<std::string>{"bill", "bucket"}));
  EXPECT_EQ(on.query_terms, (std::vector<std::string>{"invoic", "bill", "bucket", "s3", "store"}));
}

TEST_P(FeedbackEngineTest, FeedbackVectorsMoveTheQueryVector) {
  auto embedder = std::make_shared<testing::ConceptEmbedder>(
      std::vector<std::vector<std::string>>{{"invoice"}, {"bucket", "archive"}, {"deploy"}});
  EngineOptions o = Options(embedder);
  o.vector.min_cosine = 0.0;  // every fact a candidate, so cosines compare
  o.feedback.vector_weight = 1.0;
  auto engine = Open(o);
  Add(*engine, kInvoices);
  const std::string replica = Add(*engine, kReplica);
  Add(*engine, kDeploys);
  const SearchResponse on = Search(*engine, "invoices", FusionMode::kSemantic);
  const SearchResponse off = Search(*engine, "invoices", FusionMode::kSemantic, /*hyde=*/false);
  EXPECT_EQ(on.hyde.vector, "query+feedback");
  const SearchHit* with = Find(on, replica);
  const SearchHit* without = Find(off, replica);
  ASSERT_NE(with, nullptr);
  ASSERT_NE(without, nullptr);
  // The replica is all bucket; the first pass's best fact is invoice and
  // bucket, so the moved query leans toward the replica.
  EXPECT_GT(with->explanation.semantic.raw, without->explanation.semantic.raw + 0.2);
}

TEST_P(FeedbackEngineTest, NothingToLearnFromIsAFallback) {
  auto engine = Open(Options(nullptr));
  Add(*engine, kDeploys);
  const SearchResponse r = Search(*engine, "invoices", FusionMode::kLexical);
  EXPECT_TRUE(r.hyde.enabled);
  EXPECT_TRUE(r.hits.empty());
  ASSERT_EQ(r.hyde.fallbacks.size(), 1u);
  EXPECT_EQ(r.hyde.fallbacks[0], "the first pass found nothing to learn from");
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_EQ(r.warnings.back(), "hyde: the first pass found nothing to learn from");
}

TEST_P(FeedbackEngineTest, FeedbackIsAnOptionAndRecordsNoAccessForItsFirstPass) {
  auto off = Open(Options(nullptr, /*feedback=*/false));
  Add(*off, kInvoices);
  Add(*off, kReplica);
  EXPECT_FALSE(Search(*off, "invoices", FusionMode::kLexical).hyde.enabled);
  off.reset();

  auto engine = Open(Options(nullptr));
  SearchOptions o;
  o.mode = FusionMode::kLexical;
  auto r = engine->Search("invoices", o);  // records access for its hits only
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->hits.size(), 2u);
  for (const SearchHit& h : r->hits) EXPECT_EQ(h.fact.access_count, 1) << h.fact.content;
}

INSTANTIATE_TEST_SUITE_P(Backends, FeedbackEngineTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
