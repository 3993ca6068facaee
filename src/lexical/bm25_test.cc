// BM25 against hand-computed values on a three-fact corpus, through the
// real FTS5 index in a real SQLite file.
#include "src/lexical/bm25.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "src/lexical/lexical_searcher.h"
#include "src/store/fact_store.h"
#include "tests/store_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

TEST(Bm25Test, LuceneIdfNeverNegative) {
  // ln(1 + (N - n + 0.5) / (n + 0.5)) for N = 3.
  EXPECT_NEAR(Bm25Idf(3, 1), 0.980829, 1e-6);
  EXPECT_NEAR(Bm25Idf(3, 2), 0.470004, 1e-6);
  EXPECT_NEAR(Bm25Idf(3, 3), 0.133531, 1e-6);  // in every fact: small, not negative
  EXPECT_GT(Bm25Idf(1000, 1000), 0.0);
}

TEST(Bm25Test, SaturationFollowsK1AndB) {
  Bm25Options o;  // k1 0.9, b 0.4
  EXPECT_NEAR(Bm25Saturation(2, 3, 3, o), 3.8 / 2.9, 1e-12);
  EXPECT_NEAR(Bm25Saturation(1, 2, 3, o), 1.9 / 1.78, 1e-12);
  EXPECT_EQ(Bm25Saturation(0, 2, 3, o), 0.0);
  o.b = 0;  // no length normalisation
  EXPECT_NEAR(Bm25Saturation(1, 100, 3, o), 1.0, 1e-12);
}

// Two documents, two terms, two fields (content, tags), laid out flat:
// each document's counts [term][field] after its lengths.
TEST(Bm25Test, FlatMatchesScoreEachDocumentByItsOwnCountsAndLengths) {
  Bm25Matches matches(/*n_terms=*/2, /*n_fields=*/2);
  std::span<int32_t> first = matches.Add({4, 1});
  ASSERT_EQ(first.size(), 4U);
  EXPECT_EQ(first[0] + first[1] + first[2] + first[3], 0);
  first[0] = 2;  // term 0 twice in content
  first[3] = 1;  // term 1 once in tags
  std::span<int32_t> second = matches.Add({2, 0});
  second[2] = 1;  // term 1 once in content
  ASSERT_EQ(matches.size(), 2U);

  const Bm25Options o;
  const Bm25Collection collection{10, {3.0, 0.5}, {1.0, 0.5}};
  std::vector<std::vector<size_t>> matched;
  std::vector<int64_t> doc_freq;
  const std::vector<double> scores =
      Bm25Scores(matches, {1.0, 2.0}, collection, o, &matched, &doc_freq);
  EXPECT_EQ(doc_freq, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(matched, (std::vector<std::vector<size_t>>{{0, 1}, {1}}));
  const double idf0 = Bm25Idf(10, 1);
  const double idf1 = Bm25Idf(10, 2);
  ASSERT_EQ(scores.size(), 2U);
  EXPECT_DOUBLE_EQ(scores[0], 1.0 * idf0 * Bm25Saturation(2, 4, 3.0, o) +
                                  2.0 * idf1 * 0.5 * Bm25Saturation(1, 1, 0.5, o));
  EXPECT_DOUBLE_EQ(scores[1], 2.0 * idf1 * Bm25Saturation(1, 2, 3.0, o));
}

class Bm25CorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = testing::OpenStoreForTest(dir_.File("memory.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }

  void Add(const std::string& id, const std::string& content,
           const std::vector<std::string>& tags = {}) {
    FactRow row;
    row.fact.id = id;
    row.fact.content = content;
    row.fact.tags = tags;
    row.text.content_terms = CountTerms(content);
    row.text.tags_terms = CountTagTerms(tags);
    ASSERT_TRUE(store_->Transact([&] { return store_->facts().Insert(row).status(); }).ok());
  }

  std::map<std::string, double> Scores(const std::string& query, const Bm25Options& o = {}) {
    auto hits = SearchLexical(store_->facts(), AnalyzeQuery(query), {}, o);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::map<std::string, double> out;
    for (const auto& h : *hits) out[h.id] = h.score;
    return out;
  }

  testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(Bm25CorpusTest, MatchesHandComputedScores) {
  // Lengths in terms: 3, 2, 4; average 3. k1 = 0.9, b = 0.4.
  Add("d1", "apple banana apple");
  Add("d2", "banana cherry");
  Add("d3", "cherry date elderberry fig");
  const auto scores = Scores("apple cherry");
  ASSERT_EQ(scores.size(), 3u);
  // d1: idf(df=1) = ln(1 + 2.5/1.5) = 0.980829; tf 2, len 3: 2*1.9/(2+0.9) = 1.310345
  EXPECT_NEAR(scores.at("d1"), 1.2852245, 1e-6);
  // d2: idf(df=2) = ln(1.6) = 0.470004; tf 1, len 2: 1.9/(1+0.9*(0.6+0.4*2/3)) = 1.067416
  EXPECT_NEAR(scores.at("d2"), 0.5016893, 1e-6);
  // d3: tf 1, len 4: 1.9/(1+0.9*(0.6+0.4*4/3)) = 0.940594
  EXPECT_NEAR(scores.at("d3"), 0.4420826, 1e-6);
}

TEST_F(Bm25CorpusTest, ARepeatedQueryTermCountsOncePerOccurrence) {
  // The corpus of MatchesHandComputedScores. Lucene's query term frequency:
  // "apple" twice adds its term score twice (docs/ARCHITECTURE.md, "BM25").
  Add("d1", "apple banana apple");
  Add("d2", "banana cherry");
  Add("d3", "cherry date elderberry fig");
  const LexicalQuery query = AnalyzeQuery("apple cherry apple");
  ASSERT_EQ(query.Terms(), (std::vector<std::string>{"appl", "cherri"}));
  EXPECT_EQ(query.Weights(), (std::vector<double>{2.0, 1.0}));
  const auto scores = Scores("apple cherry apple");
  ASSERT_EQ(scores.size(), 3u);
  // d1: 2 x 0.980829 x 1.310345 = 2 x 1.2852245.
  EXPECT_NEAR(scores.at("d1"), 2.5704490, 1e-6);
  // d2, d3: cherry once, as before.
  EXPECT_NEAR(scores.at("d2"), 0.5016893, 1e-6);
  EXPECT_NEAR(scores.at("d3"), 0.4420826, 1e-6);
  // Repeating cherry instead doubles the other two.
  const auto cherries = Scores("cherry apple cherry");
  EXPECT_NEAR(cherries.at("d1"), 1.2852245, 1e-6);
  EXPECT_NEAR(cherries.at("d2"), 1.0033786, 1e-6);
  EXPECT_NEAR(cherries.at("d3"), 0.8841652, 1e-6);
}

TEST_F(Bm25CorpusTest, TagMatchAddsBoostedFieldScore) {
  Add("d1", "apple banana apple");
  Add("d2", "banana cherry", {"apple"});
  Add("d3", "cherry date elderberry fig");
  Bm25Options o;
  o.tag_boost = 0.5;
  const auto scores = Scores("apple", o);
  ASSERT_EQ(scores.size(), 2u);
  // df(apple) = 2 (d1 content, d2 tag): idf = ln(1.6) = 0.470004.
  // d1 content as before: 1.310345 * 0.470004 = 0.615867.
  EXPECT_NEAR(scores.at("d1"), 0.6158674, 1e-6);
  // d2 tags: one term, average tag length 1/3: norm = 0.6 + 0.4 * 3 = 1.8;
  // sat = 1.9 / (1 + 0.9 * 1.8) = 0.725191; x 0.5 boost x idf = 0.170421.
  EXPECT_NEAR(scores.at("d2"), 0.1704212, 1e-6);
  // A boost of 0 makes tags unsearchable: d2 is no candidate and apple's
  // document frequency drops to 1 (idf 0.980829).
  o.tag_boost = 0;
  const auto content_only = Scores("apple", o);
  EXPECT_EQ(content_only.count("d2"), 0u);
  EXPECT_NEAR(content_only.at("d1"), 1.2852245, 1e-6);
}

TEST_F(Bm25CorpusTest, TermInEveryFactStillScoresPositive) {
  Add("d1", "deploy on thursday");
  Add("d2", "deploy with make release");
  const auto scores = Scores("deploy");
  ASSERT_EQ(scores.size(), 2u);
  for (const auto& [id, score] : scores) EXPECT_GT(score, 0.0) << id;
}

}  // namespace
}  // namespace engram
