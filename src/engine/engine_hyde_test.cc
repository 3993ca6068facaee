// HyDE and Reload end to end on a real SQLite file, with an LLM and
// embedders behind their seams: keyword expansion (3a), the hypothesis
// vector (3b), the cache in the store, every fallback, and switching
// providers on a running engine.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "engram/engine.h"
#include "src/embed/hash_embedder.h"
#include "src/store/testing/store_place_test.h"
#include "tests/engine_for_test.h"
#include "tests/test_embedders.h"
#include "tests/test_llms.h"
#include "tests/test_util.h"

namespace engram {
namespace {

constexpr Timestamp kNow = 1780000000000;  // 2026-05-28

class HydeEngineTestBase : public testing::StorePlaceTest {
 protected:
  explicit HydeEngineTestBase(testing::Backend backend) : StorePlaceTest(backend) {}
  EngineOptions Options(std::shared_ptr<const Embedder> embedder) {
    EngineOptions o;
    place_->Apply(&o);
    o.clock = clock_;
    o.embedder = std::move(embedder);
    o.vector.background_backfill = false;
    o.vector.min_cosine = 0.5;
    o.llm = llm_;
    o.hyde.enabled = true;
    return o;
  }
  static std::unique_ptr<Engine> Open(const EngineOptions& o) {
    return testing::OpenEngineForTest(o);
  }
  static void Add(Engine& engine, const std::string& content) {
    testing::AddForTest(engine, content);
  }
  static SearchResponse Search(Engine& engine, const std::string& query,
                               FusionMode mode = FusionMode::kBlended, bool hyde = true) {
    return testing::ExplainedSearchForTest(engine, query, mode, hyde);
  }
  static bool Found(const SearchResponse& r, const std::string& content) {
    for (const auto& h : r.hits) {
      if (h.fact.content == content) return true;
    }
    return false;
  }

  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(kNow);
  std::shared_ptr<testing::TableLlm> llm_ = std::make_shared<testing::TableLlm>();
};

class HydeEngineTest : public HydeEngineTestBase,
                       public ::testing::WithParamInterface<testing::Backend> {
 protected:
  HydeEngineTest() : HydeEngineTestBase(GetParam()) {}
};

const char kQuery[] = "where did we decide to keep the order records";
const char kHypothesis[] =
    "The order records live in Postgres, in the purchases table of the main database.";
const char kFact[] = "Purchases table sits in Postgres on db-main";

TEST_P(HydeEngineTest, HypothesisKeywordsFindAFactTheQueryMisses) {
  auto engine = Open(Options(nullptr));  // keyword-only: 3a alone
  Add(*engine, kFact);
  Add(*engine, "Deploys go out on Thursdays");
  const SearchResponse without = Search(*engine, kQuery, FusionMode::kLexical, /*hyde=*/false);
  EXPECT_FALSE(Found(without, kFact));  // the query shares no term with the fact
  EXPECT_FALSE(without.hyde.enabled);
  EXPECT_TRUE(llm_->requests().empty());

  llm_->Answer(kQuery, kHypothesis);
  const SearchResponse with = Search(*engine, kQuery, FusionMode::kLexical);
  ASSERT_TRUE(with.hyde.enabled);
  EXPECT_EQ(with.hyde.llm, "table:test");
  EXPECT_EQ(with.hyde.hypothesis, kHypothesis);
  EXPECT_FALSE(with.hyde.cached);
  EXPECT_TRUE(with.hyde.fallbacks.empty());
  EXPECT_TRUE(with.warnings.empty());
  // The hypothesis's first five keywords (all once, so in byte order) less
  // the query's own "order": database, live, main, postgres.
  EXPECT_EQ(with.hyde.keywords, (std::vector<std::string>{"database", "live", "main", "postgres"}));
  ASSERT_FALSE(with.hits.empty());
  EXPECT_EQ(with.hits[0].fact.content, kFact);
  EXPECT_FALSE(with.hits[0].explanation.matched_terms.empty());
  // The query is the user message; the prompt asks for a short answer.
  ASSERT_EQ(llm_->requests().size(), 1u);
  EXPECT_EQ(llm_->requests()[0].user, kQuery);
  EXPECT_EQ(llm_->requests()[0].max_tokens, 200u);
}

TEST_P(HydeEngineTest, HypothesesAreCachedInTheStoreAcrossEngines) {
  llm_->Answer(kQuery, kHypothesis);
  {
    auto engine = Open(Options(nullptr));
    Add(*engine, kFact);
    EXPECT_FALSE(Search(*engine, kQuery).hyde.cached);
    EXPECT_TRUE(Search(*engine, kQuery).hyde.cached);
  }
  auto reopened = Open(Options(nullptr));
  const SearchResponse r = Search(*reopened, kQuery);
  EXPECT_TRUE(r.hyde.cached);
  EXPECT_EQ(r.hyde.hypothesis, kHypothesis);
  EXPECT_EQ(llm_->requests().size(), 1u);
  // Another LLM never reuses it.
  EngineOptions other = Options(nullptr);
  other.llm = std::make_shared<testing::TableLlm>("table:other");
  auto engine = Open(other);
  const SearchResponse fresh = Search(*engine, kQuery);
  EXPECT_FALSE(fresh.hyde.cached);
  EXPECT_TRUE(fresh.hyde.hypothesis.empty());  // table:other has no answer
}

TEST_P(HydeEngineTest, AFailingLlmNeverAbortsTheSearch) {
  auto engine = Open(Options(nullptr));
  Add(*engine, "Order records are archived monthly");
  for (const Status& failure : {Unavailable("llm: table: HTTP 503: overloaded"),
                                DeadlineExceeded("llm: table: timed out after 30000 ms"),
                                FailedPrecondition("llm: table: HTTP 401: invalid key")}) {
    llm_->Fail(failure);
    const SearchResponse r = Search(*engine, kQuery);
    EXPECT_TRUE(r.hyde.enabled);
    EXPECT_TRUE(r.hyde.hypothesis.empty());
    ASSERT_EQ(r.hyde.fallbacks.size(), 1u);
    EXPECT_NE(r.hyde.fallbacks[0].find(failure.message()), std::string::npos);
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_NE(r.warnings[0].find("hyde: "), std::string::npos);
    ASSERT_EQ(r.hits.size(), 1u);  // the query's own terms still match
  }
  llm_->Fail(Status::OK());
  llm_->Answer(kQuery, "   ");  // an empty answer is a failure too
  EXPECT_EQ(Search(*engine, kQuery).hyde.fallbacks.size(), 1u);
}

// 3b: the ConceptEmbedder puts "postgres"/"database" on one axis. The query
// has no concept word; its hypothesis does, so only the hypothesis vector
// reaches the fact.
TEST_P(HydeEngineTest, HypothesisVectorReachesWhatTheQueryVectorCannot) {
  auto embedder = std::make_shared<testing::ConceptEmbedder>(std::vector<std::vector<std::string>>{
      {"postgre", "database", "sql", "db"}, {"release", "ship", "deploy"}});
  EngineOptions o = Options(embedder);
  o.hyde.num_keywords = 0;  // vectors only
  const std::string query = "where is the customer ledger kept";
  llm_->Answer(query, "It is kept in a database table.");
  auto engine = Open(o);
  Add(*engine, "Postgres holds the billing data");
  Add(*engine, "Releases ship on Thursday");

  const SearchResponse plain = Search(*engine, query, FusionMode::kSemantic, /*hyde=*/false);
  EXPECT_TRUE(plain.hits.empty());
  const SearchResponse both = Search(*engine, query, FusionMode::kSemantic);
  EXPECT_EQ(both.hyde.vector, "query+hypothesis");
  ASSERT_FALSE(both.hits.empty());
  EXPECT_EQ(both.hits[0].fact.content, "Postgres holds the billing data");

  o.hyde.embed = HydeEmbed::kHypothesis;
  ASSERT_TRUE(engine->Reload(o).ok());
  const SearchResponse hyp = Search(*engine, query, FusionMode::kSemantic);
  EXPECT_EQ(hyp.hyde.vector, "hypothesis");
  ASSERT_FALSE(hyp.hits.empty());
  EXPECT_NEAR(hyp.hits[0].explanation.semantic.raw, 0.998, 0.01);

  o.hyde.embed = HydeEmbed::kQuery;
  ASSERT_TRUE(engine->Reload(o).ok());
  const SearchResponse own = Search(*engine, query, FusionMode::kSemantic);
  EXPECT_EQ(own.hyde.vector, "query");
  EXPECT_TRUE(own.hits.empty());

  o.hyde.use_vectors = false;
  o.hyde.embed = HydeEmbed::kBoth;
  ASSERT_TRUE(engine->Reload(o).ok());
  EXPECT_EQ(Search(*engine, query, FusionMode::kSemantic).hyde.vector, "query");
}

TEST_P(HydeEngineTest, AnEmbedderFailureOnTheHypothesisFallsBackToTheQuery) {
  auto faulty = std::make_shared<testing::ScriptedFaultEmbedder>(16);
  EngineOptions o = Options(faulty);
  llm_->Answer(kQuery, kHypothesis);
  auto engine = Open(o);
  Add(*engine, kFact);
  faulty->set_fault(testing::ScriptedFaultEmbedder::Fault::kError);
  const SearchResponse r = Search(*engine, kQuery);
  EXPECT_EQ(r.hyde.hypothesis, kHypothesis);
  ASSERT_FALSE(r.hyde.fallbacks.empty());
  EXPECT_NE(r.hyde.fallbacks[0].find("hypothesis not embedded"), std::string::npos);
  ASSERT_FALSE(r.hits.empty());  // keywords still found it
  EXPECT_EQ(r.hits[0].fact.content, kFact);
}

TEST_P(HydeEngineTest, ReloadSwitchesProviderWithoutMixingSpaces) {
  auto engine = Open(Options(std::make_shared<HashEmbedder>(64)));
  Add(*engine, kFact);
  Add(*engine, "Deploys go out on Thursdays");
  auto stats = engine->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->active_space.dimension, 64u);
  EXPECT_EQ(stats->vectors, 2);

  EngineOptions next = Options(std::make_shared<HashEmbedder>(32));
  ASSERT_TRUE(engine->Reload(next).ok());
  EXPECT_EQ(engine->options().embedder->Space().dimension, 32u);
  stats = engine->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->active_space.dimension, 32u);
  EXPECT_EQ(stats->missing_vectors, 2);
  // Searching the new space before backfill: the lexical signal answers.
  EXPECT_FALSE(Search(*engine, "postgres").hits.empty());
  auto filled = engine->Backfill({});
  ASSERT_TRUE(filled.ok());
  EXPECT_EQ(filled->embedded, 2u);
  const SearchResponse r = Search(*engine, "postgres purchases", FusionMode::kSemantic);
  EXPECT_TRUE(r.semantic);
  EXPECT_FALSE(r.hits.empty());
  // Back to 64: the old space is still there, complete.
  ASSERT_TRUE(engine->Reload(Options(std::make_shared<HashEmbedder>(64))).ok());
  stats = engine->Stats();
  EXPECT_EQ(stats->vectors, 2);
  EXPECT_EQ(stats->missing_vectors, 0);
}

TEST_P(HydeEngineTest, ReloadRefusesAnotherDatabaseAndInvalidOptions) {
  auto engine = Open(Options(nullptr));
  EngineOptions moved = Options(nullptr);
  moved.db_path = place_->Directory() + "/other.db";
  Status s = engine->Reload(moved);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("database cannot change"), std::string::npos);
  EngineOptions bad = Options(nullptr);
  bad.hyde.num_keywords = 99;
  EXPECT_EQ(engine->Reload(bad).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(engine->options().hyde.num_keywords, 5u);  // unchanged
}

TEST_P(HydeEngineTest, SearchesDuringReloadsNeverFail) {
  auto engine = Open(Options(std::make_shared<HashEmbedder>(64)));
  for (int i = 0; i < 20; ++i) Add(*engine, "fact number " + std::to_string(i) + " about postgres");
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::atomic<int> searches{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        SearchOptions o;
        o.record_access = false;
        auto r = engine->Search("postgres fact", o);
        if (!r.ok() || r->hits.empty()) ++failures;
        ++searches;
      }
    });
  }
  for (int i = 0; i < 30; ++i) {
    const size_t dim = i % 2 == 0 ? 32 : 64;
    EXPECT_TRUE(engine->Reload(Options(std::make_shared<HashEmbedder>(dim))).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(searches.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, HydeEngineTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
