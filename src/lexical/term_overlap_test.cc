#include "src/lexical/term_overlap.h"

#include <gtest/gtest.h>

#include "src/lexical/lexical_searcher.h"
#include "src/store/fact_store.h"
#include "tests/store_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

// idf over 10 facts: df 1 -> ln(1 + 9.5/1.5) = 1.992430, df 5 -> ln 2 =
// 0.693147, df 10 -> ln(1 + 0.5/10.5) = 0.046520, df 0 -> ln 22 = 3.091042.
TermStatistics TenFacts() {
  TermStatistics stats;
  stats.n_docs = 10;
  stats.doc_freq = {{"rare", 1}, {"half", 5}, {"everywhere", 10}};
  return stats;
}

TEST(WeightedTermOverlapTest, SharedRareTermsWeighMost) {
  const TermStatistics stats = TenFacts();
  // 2 * 0.693147 / (1.992430 + 0.693147 + 0.693147 + 0.046520) = 0.404729
  EXPECT_NEAR(WeightedTermOverlap({"rare", "half"}, {"half", "everywhere"}, stats), 0.404729, 1e-6);
  // 2 * 1.992430 / (1.992430 + 0.693147 + 1.992430 + 0.046520) = 0.843441
  EXPECT_NEAR(WeightedTermOverlap({"rare", "half"}, {"rare", "everywhere"}, stats), 0.843441, 1e-6);
}

TEST(WeightedTermOverlapTest, BoundsAndTermsNoFactHolds) {
  const TermStatistics stats = TenFacts();
  EXPECT_DOUBLE_EQ(WeightedTermOverlap({"rare", "half"}, {"half", "rare"}, stats), 1.0);
  EXPECT_DOUBLE_EQ(WeightedTermOverlap({"rare"}, {"half"}, stats), 0.0);
  EXPECT_DOUBLE_EQ(WeightedTermOverlap({}, {"half"}, stats), 0.0);
  EXPECT_DOUBLE_EQ(WeightedTermOverlap({}, {}, stats), 0.0);
  // "unseen" counts as in no fact: 2 * 0.693147 / (3.091042 + 2 * 0.693147)
  EXPECT_NEAR(WeightedTermOverlap({"unseen", "half"}, {"half"}, stats), 0.309625, 1e-6);
}

TEST(TermDocumentFrequenciesTest, CountsTheFactsOfOneScope) {
  testing::TempDir dir;
  auto store = testing::OpenStoreForTest(dir.File("memory.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const auto add = [&](const std::string& id, const std::string& scope,
                       const std::string& content) {
    FactRow row;
    row.fact.id = id;
    row.fact.scope = scope;
    row.fact.content = content;
    row.text.content_terms = CountTerms(content);
    ASSERT_TRUE((*store)->Transact([&] { return (*store)->facts().Insert(row).status(); }).ok());
  };
  add("a", "home", "The bowls club fee is 120 a year");
  add("b", "home", "Bowls club subscription: 135 per year");
  add("c", "home", "Choir practice is on Wednesday");
  add("d", "work", "The bowls team plays on Fridays");
  const std::vector<std::string> terms = AnalyzeQuery("bowls club choir unseen").Terms();
  ASSERT_EQ(terms.size(), 4u);
  auto stats = TermDocumentFrequencies((*store)->facts(), terms, "home");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->n_docs, 3);
  EXPECT_EQ(stats->doc_freq.at(terms[0]), 2);  // the work scope's fact is not counted
  EXPECT_EQ(stats->doc_freq.at(terms[1]), 2);
  EXPECT_EQ(stats->doc_freq.at(terms[2]), 1);
  EXPECT_EQ(stats->doc_freq.at(terms[3]), 0);

  // The same counts from the scope's index in memory.
  LexicalIndex index("home");
  ASSERT_TRUE((*store)
                  ->facts()
                  .ForEach({"home"},
                           [&](const StoredFact& f) {
                             index.Add(f);
                             return true;
                           })
                  .ok());
  index.Seal();
  auto from_index = TermDocumentFrequencies((*store)->facts(), terms, "home", &index);
  ASSERT_TRUE(from_index.ok()) << from_index.status().ToString();
  EXPECT_EQ(from_index->n_docs, 3);
  EXPECT_EQ(from_index->doc_freq, stats->doc_freq);
}

}  // namespace
}  // namespace engram
