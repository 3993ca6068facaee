#include "src/lexical/lexical_searcher.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "src/store/fact_store.h"
#include "src/text/analyzer.h"
#include "src/text/bilingual_dictionary.h"
#include "tests/store_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

class LexicalSearcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = testing::OpenStoreForTest(dir_.File("memory.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }

  void Add(const std::string& id, const std::string& scope, const std::string& content) {
    FactRow row;
    row.fact.id = id;
    row.fact.scope = scope;
    row.fact.content = content;
    row.text = CountFactText(content, {});
    ASSERT_TRUE(store_->Transact([&] { return store_->facts().Insert(row).status(); }).ok());
  }

  std::vector<LexicalHit> Search(const std::string& q, const std::vector<std::string>& scopes) {
    auto hits = SearchLexical(store_->facts(), AnalyzeQuery(q), scopes, Bm25Options{});
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    return hits.ok() ? *hits : std::vector<LexicalHit>{};
  }

  testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(LexicalSearcherTest, QuestionWordsAloneMatchNothing) {
  Add("a", "default", "What did we decide about the deploy window?");
  EXPECT_TRUE(AnalyzeQuery("what did you do when").terms.empty());
  EXPECT_TRUE(Search("what did", {}).empty());
}

TEST_F(LexicalSearcherTest, StemmedAndAccentFoldedTermsMatch) {
  Add("a", "default", "Deploying the billing service needs two approvals");
  Add("b", "default", "A configuração do servidor fica em /etc/ledger");
  ASSERT_EQ(Search("deploy", {}).size(), 1u);
  EXPECT_EQ(Search("deploy", {})[0].id, "a");
  ASSERT_EQ(Search("configuracao servidor", {}).size(), 1u);
  EXPECT_EQ(Search("CONFIGURAÇÃO", {})[0].id, "b");
}

TEST_F(LexicalSearcherTest, ScopesIsolateHitsAndStatistics) {
  Add("a", "alice", "postgres runs on port 5433");
  Add("b", "bob", "postgres runs on port 5432");
  Add("c", "bob", "postgres backups are nightly");
  const auto alice = Search("postgres port", {"alice"});
  ASSERT_EQ(alice.size(), 1u);
  EXPECT_EQ(alice[0].id, "a");
  // Bob's facts do not change Alice's score: the same fact alone in a store
  // of its own scores the same.
  testing::TempDir other;
  auto solo = testing::OpenStoreForTest(other.File("solo.db"));
  ASSERT_TRUE(solo.ok());
  FactRow row;
  row.fact.id = "a";
  row.fact.scope = "alice";
  row.fact.content = "postgres runs on port 5433";
  row.text.content_terms = CountTerms(row.fact.content);
  ASSERT_TRUE((*solo)->Transact([&] { return (*solo)->facts().Insert(row).status(); }).ok());
  auto solo_hits = SearchLexical((*solo)->facts(), AnalyzeQuery("postgres port"), {"alice"}, {});
  ASSERT_TRUE(solo_hits.ok());
  ASSERT_EQ(solo_hits->size(), 1u);
  EXPECT_DOUBLE_EQ((*solo_hits)[0].score, alice[0].score);
  EXPECT_EQ(Search("postgres", {"alice", "bob"}).size(), 3u);
}

TEST_F(LexicalSearcherTest, ReportsWhichTermsMatched) {
  Add("a", "default", "neovim is the editor of choice");
  const auto q = AnalyzeQuery("editor neovim vscode");
  auto hits = SearchLexical(store_->facts(), q, {}, {});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  std::vector<std::string> matched;
  for (size_t t : (*hits)[0].matched) matched.push_back(q.terms[t].term);
  EXPECT_EQ(matched.size(), 2u);
  EXPECT_EQ(std::count(matched.begin(), matched.end(), "vscode"), 0);
}

TEST_F(LexicalSearcherTest, APortugueseWordMatchesItselfInAnEnglishFact) {
  // The fact reads as English, so "idioma" is stemmed as English
  // ("idioma"); the query reads as Portuguese ("idiom"). The word still
  // matches, counted once.
  Add("a", "default", "Set the idioma field to English for the reply");
  const LexicalQuery q = AnalyzeQuery("preferência de idioma", /*translate=*/false);
  ASSERT_EQ(q.language, "pt");
  ASSERT_EQ(q.terms.size(), 2u);
  EXPECT_EQ(q.terms[1].forms, (std::vector<std::string>{"idiom", "idioma"}));
  auto hits = SearchLexical(store_->facts(), q, {}, {});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].matched, std::vector<size_t>{1});
}

TEST_F(LexicalSearcherTest, APortugueseQueryFindsTheEnglishTranslationOfItsWord) {
  if (BilingualDictionary::PortugueseEnglish().size() == 0) {
    GTEST_SKIP() << "dict-freedict-por-eng is not installed";
  }
  Add("a", "default", "Reply in the user's language");
  Add("b", "default", "Deploys go out on Thursdays");
  const LexicalQuery q = AnalyzeQuery("qual idioma usar");
  ASSERT_EQ(q.language, "pt");
  auto hits = SearchLexical(store_->facts(), q, {}, {});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].id, "a");
  // Not without translations (query.translate = false).
  auto untranslated =
      SearchLexical(store_->facts(), AnalyzeQuery("qual idioma usar", false), {}, {});
  ASSERT_TRUE(untranslated.ok()) << untranslated.status().ToString();
  EXPECT_TRUE(untranslated->empty());
  // An English query's analysis gives no Portuguese forms: a search adds
  // them when its scopes hold Portuguese facts (next test).
  for (const QueryTerm& t : AnalyzeQuery("which language to use").terms) {
    EXPECT_EQ(t.forms, std::vector<std::string>{t.term});
  }
}

TEST_F(LexicalSearcherTest, AnEnglishQueryFindsPortugueseFactsByTranslationAndByItsOwnWords) {
  if (BilingualDictionary::EnglishPortuguese().size() == 0) {
    GTEST_SKIP() << "dict-freedict-eng-por is not installed";
  }
  Add("pt", "default", "A taxa de juros do Rafael é de 5% ao ano");
  Add("en", "default", "The lab rat ran away on Monday");
  const LexicalQuery q = AnalyzeQuery("What rates does Rafael pay?");
  ASSERT_EQ(q.language, "en");
  ASSERT_EQ(q.terms.size(), 3u);
  const LexicalQuery with = WithPortugueseForms(q);
  const std::vector<std::string>& rate = with.terms[0].forms;
  EXPECT_EQ(rate.front(), "rate");
  // "rate" translates to "taxa" (stem "tax").
  EXPECT_NE(std::find(rate.begin(), rate.end(), PortugueseTextForm("tax")), rate.end());
  // The word's own Portuguese stem, "rat", is what the English fact holds
  // for "rat": it counts in Portuguese facts only, so that fact does not
  // match.
  EXPECT_NE(std::find(rate.begin(), rate.end(), PortugueseTextForm("rat")), rate.end());
  auto hits = SearchLexical(store_->facts(), q, {}, {});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].id, "pt");
  EXPECT_EQ((*hits)[0].matched, (std::vector<size_t>{0, 1}));
  // Without translations only "Rafael" matches the Portuguese fact.
  LexicalQuery untranslated = AnalyzeQuery("What rates does Rafael pay?", false);
  auto own = SearchLexical(store_->facts(), untranslated, {}, {});
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  ASSERT_EQ(own->size(), 1u);
  EXPECT_EQ((*own)[0].matched, std::vector<size_t>{1});
  // A term found in a fact by its own form gets no Portuguese form that
  // would count the same word twice; a Portuguese query is left as it is.
  for (const QueryTerm& t : WithPortugueseForms(untranslated).terms) {
    EXPECT_EQ(std::count(t.forms.begin(), t.forms.end(), PortugueseTextForm(t.term)), 0) << t.term;
  }
  const LexicalQuery pt = AnalyzeQuery("qual é a taxa de juros", false);
  EXPECT_EQ(WithPortugueseForms(pt).terms.front().forms, pt.terms.front().forms);
}

TEST_F(LexicalSearcherTest, QuotesInQueryAreHarmless) {
  Add("a", "default", "say \"hello\" to the team");
  EXPECT_EQ(Search("\"hello\" OR NOT team*", {}).size(), 1u);
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

TEST(ExpandQueryTest, AddsNewTermsInTheQueryLanguage) {
  LexicalQuery q = AnalyzeQuery("which port does postgres use");
  const std::vector<std::string> before = q.Terms();
  // "ports" stems to "port", which the query has; "listening" is new.
  EXPECT_EQ(ExpandQuery(&q, {"ports", "listening", "5432"}, 0.25), 2u);
  const std::vector<std::string> after = q.Terms();
  ASSERT_EQ(after.size(), before.size() + 2);
  EXPECT_EQ(std::vector<std::string>(after.begin(), after.begin() + before.size()), before);
  EXPECT_EQ(after[before.size()], "listen");
  EXPECT_EQ(after[before.size() + 1], "5432");
  // An expansion term carries the weight it was given; a term the query
  // already had keeps its own.
  EXPECT_EQ(q.Weights(), (std::vector<double>{1.0, 1.0, 1.0, 0.25, 0.25}));

  LexicalQuery pt = AnalyzeQuery("qual é a porta que o banco de dados usa");
  ASSERT_EQ(pt.language, "pt");
  EXPECT_EQ(ExpandQuery(&pt, {"configurações"}), 1u);
  // Stemmed with the Portuguese stemmer and accent-folded, as the query is.
  EXPECT_EQ(pt.terms.back().term, AnalyzeQuery("configurações do banco").terms.front().term);
}

// Four terms of weight 1, as a query without repeated words has.
const LexicalQuery kFourTerms{{{"a", {"a"}, 1.0, "a"},
                               {"b", {"b"}, 1.0, "b"},
                               {"c", {"c"}, 1.0, "c"},
                               {"d", {"d"}, 1.0, "d"}},
                              "en",
                              true};

TEST(LexicalCoverageTest, SharesOfTheQuerysOwnWeight) {
  // Over 1,000 facts (the floor): idf 6.503290 (df 1), 4.557380 (df 10),
  // 2.298597 (df 100); the fourth term was added by HyDE.
  const QueryTermCounts counts{1000, {1, 10, 100, 0}};
  EXPECT_NEAR(LexicalCoverage({0}, kFourTerms, counts, 0, 3), 0.486800, 1e-6);
  EXPECT_NEAR(LexicalCoverage({1, 2}, kFourTerms, counts, 0, 3), 0.513200, 1e-6);
  EXPECT_DOUBLE_EQ(LexicalCoverage({0, 1, 2}, kFourTerms, counts, 0, 3), 1.0);
  EXPECT_DOUBLE_EQ(LexicalCoverage({3}, kFourTerms, counts, 0, 3), 0.0)
      << "an added term is not the query's own";
  EXPECT_DOUBLE_EQ(LexicalCoverage({3}, kFourTerms, counts, 3, 4), 1.0)
      << "but covers the added ones";
  EXPECT_DOUBLE_EQ(LexicalCoverage({}, kFourTerms, counts, 0, 3), 0.0);
  EXPECT_DOUBLE_EQ(LexicalCoverage({0}, kFourTerms, QueryTermCounts{}, 0, 3), 0.0)
      << "an empty scope";
}

TEST(LexicalCoverageTest, ARepeatedTermWeighsByItsCount) {
  // The first term twice: 2 * 6.503290 / (2 * 6.503290 + 4.557380 + 2.298597)
  // = 0.654829.
  LexicalQuery q = kFourTerms;
  q.terms[0].weight = 2.0;
  EXPECT_NEAR(LexicalCoverage({0}, q, QueryTermCounts{1000, {1, 10, 100, 0}}, 0, 3), 0.654829,
              1e-6);
}

TEST(LexicalCoverageTest, ASmallScopeCountsAsAThousandFacts) {
  // Two query terms held by one fact of three, two held by none: over 1,000
  // facts 2 * 6.503290 / (2 * 6.503290 + 2 * 7.601902) = 0.461056; over the
  // scope's own three facts it would be 0.320504.
  EXPECT_NEAR(LexicalCoverage({0, 1}, kFourTerms, QueryTermCounts{3, {1, 1, 0, 0}}, 0, 4), 0.461056,
              1e-6);
}

}  // namespace
}  // namespace engram
