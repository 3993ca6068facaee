#include "src/lexical/lexical_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "src/lexical/lexical_searcher.h"
#include "src/lexical/term_overlap.h"
#include "src/store/index_forms.h"
#include "tests/store_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

constexpr Timestamp kNow = 1'700'000'000'000;

// A store of English and Portuguese facts with tags, some superseded, some
// expiring, some accessed; and the same facts in a LexicalIndex.
class LexicalIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = testing::OpenStoreForTest(dir_.File("memory.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }

  void Add(const std::string& scope, const std::string& content,
           const std::vector<std::string>& tags, Timestamp expires_at = 0) {
    FactRow row;
    row.fact.id = "f" + std::to_string(next_id_++);
    row.fact.scope = scope;
    row.fact.content = content;
    row.fact.tags = tags;
    row.fact.created_at = kNow - 1000 * next_id_;
    row.fact.last_accessed = row.fact.created_at;
    row.fact.expires_at = expires_at;
    row.text = CountFactText(content, tags);
    auto rowid = Insert(row);
    ASSERT_TRUE(rowid.ok()) << rowid.status().ToString();
    rowids_.push_back(*rowid);
  }

  Result<int64_t> Insert(const FactRow& row) {
    Result<int64_t> rowid = 0;
    const Status s = store_->Transact([&] {
      rowid = store_->facts().Insert(row);
      return rowid.status();
    });
    if (!s.ok()) return s;
    return rowid;
  }

  // The index of `scope` as the store holds it now.
  LexicalIndex Build(const std::string& scope) {
    LexicalIndex index(scope);
    const Status s = store_->facts().ForEach({scope}, [&](const StoredFact& f) {
      index.Add(f);
      return true;
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    index.Seal();
    return index;
  }

  // Match and MatchFullText agree on `phrases` for `scope`.
  void ExpectSameMatches(const LexicalIndex& index, const std::vector<std::string>& phrases,
                         bool content_only, const FactVisibility& visibility) {
    auto expected =
        store_->facts().MatchFullText(phrases, content_only, {index.Scope()}, visibility);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    std::sort(expected->begin(), expected->end(),
              [](const FullTextMatch& a, const FullTextMatch& b) { return a.rowid < b.rowid; });
    const std::vector<FullTextMatch> got = index.Match(phrases, content_only, visibility);
    std::string what;
    for (const std::string& p : phrases) what += p + " ";
    what += content_only ? "(content only)" : "";
    ASSERT_EQ(got.size(), expected->size()) << what;
    for (size_t i = 0; i < got.size(); ++i) {
      const FullTextMatch& g = got[i];
      const FullTextMatch& e = (*expected)[i];
      ASSERT_EQ(g.rowid, e.rowid) << what;
      EXPECT_EQ(g.id, e.id);
      EXPECT_EQ(g.scope, e.scope);
      EXPECT_EQ(g.content_terms, e.content_terms) << e.id;
      EXPECT_EQ(g.tags_terms, e.tags_terms) << e.id;
      EXPECT_EQ(g.access_count, e.access_count);
      EXPECT_EQ(g.last_accessed, e.last_accessed);
      EXPECT_EQ(g.created_at, e.created_at);
      ASSERT_EQ(g.tf.size(), e.tf.size());
      for (size_t k = 0; k < g.tf.size(); k += 2) {
        EXPECT_EQ(g.tf[k], e.tf[k]) << e.id << " content " << phrases[k / 2];
        EXPECT_EQ(g.tf[k + 1], e.tf[k + 1]) << e.id << " tags " << phrases[k / 2];
      }
    }
    ++compared_;
    matched_ += got.size();
  }

  testing::TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
  std::vector<int64_t> rowids_;
  int next_id_ = 0;
  size_t compared_ = 0;
  size_t matched_ = 0;
};

const std::vector<std::string>& Words() {
  static const std::vector<std::string> words = {
      "deploy", "deploying", "deploys", "billing",   "service", "postgres", "port",
      "backup", "nightly",   "window",  "approvals", "release", "staging",  "cluster",
      "memory", "vitamin",   "blood",   "levels",    "cells",   "protein",  "the",
      "a",      "of",        "and",     "is",        "runs",    "needs",    "two"};
  return words;
}

const std::vector<std::string>& PortugueseSentences() {
  static const std::vector<std::string> sentences = {
      "A configuração do servidor de configuração fica em /etc/ledger",
      "O serviço de cobrança precisa de duas aprovações antes da implantação",
      "Prefiro respostas curtas em português, sem rodeios",
      "O banco de dados roda na porta 5433 do servidor de teste",
  };
  return sentences;
}

TEST_F(LexicalIndexTest, MatchesWhatTheStoreMatchesWithTheSameCounts) {
  std::mt19937 random(20261207);
  const auto pick = [&](size_t n) { return static_cast<size_t>(random() % n); };
  for (int i = 0; i < 240; ++i) {
    std::string content;
    const size_t length = 3 + pick(14);
    for (size_t w = 0; w < length; ++w) {
      content += (w ? " " : "") + Words()[pick(Words().size())];
    }
    if (i % 7 == 0) content = PortugueseSentences()[pick(PortugueseSentences().size())];
    std::vector<std::string> tags;
    if (i % 3 == 0) tags.push_back(Words()[pick(Words().size())]);
    if (i % 5 == 0) tags.push_back("rare-tag");
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    const Timestamp expires = i % 11 == 0 ? kNow - 5 : (i % 13 == 0 ? kNow + 5 : 0);
    Add(i % 4 == 0 ? "other" : "default", content + " " + std::to_string(i), tags, expires);
  }
  // Some superseded, some accessed.
  ASSERT_TRUE(store_
                  ->Transact([&]() -> Status {
                    for (size_t i = 1; i < rowids_.size(); i += 9) {
                      const std::string scope = (i % 4 == 0) ? "other" : "default";
                      ENGRAM_RETURN_IF_ERROR(store_->facts().SetSuperseded(
                          scope, rowids_[i], "f" + std::to_string(i + 1), kNow - 1));
                    }
                    std::vector<AccessCount> counts;
                    for (size_t i = 2; i < rowids_.size(); i += 5) {
                      counts.push_back(AccessCount{(i % 4 == 0) ? "other" : "default", rowids_[i],
                                                   "f" + std::to_string(i),
                                                   static_cast<int64_t>(i % 6 + 1), kNow - 7});
                    }
                    return store_->facts().RecordAccess(counts);
                  })
                  .ok());

  for (const std::string scope : {"default", "other"}) {
    const LexicalIndex index = Build(scope);
    std::vector<std::string> forms;
    for (const std::string& w : Words()) {
      for (const std::string& f : FullTextEntryOf(w, "[]").terms) forms.push_back(f);
    }
    for (const std::string& s : PortugueseSentences()) {
      for (const std::string& f : FullTextEntryOf(s, "[]").terms) forms.push_back(f);
    }
    forms.push_back("absent");
    forms.push_back("rare");
    forms.push_back("tag");
    std::sort(forms.begin(), forms.end());
    forms.erase(std::unique(forms.begin(), forms.end()), forms.end());

    FactVisibility plain;
    plain.now = kNow;
    FactVisibility everything = plain;
    everything.include_superseded = true;
    everything.include_expired = true;
    FactVisibility later = plain;
    later.now = kNow + 10;
    for (int q = 0; q < 60; ++q) {
      std::vector<std::string> phrases;
      const size_t n = 1 + pick(12);
      for (size_t k = 0; k < n; ++k) phrases.push_back(forms[pick(forms.size())]);
      std::sort(phrases.begin(), phrases.end());
      phrases.erase(std::unique(phrases.begin(), phrases.end()), phrases.end());
      std::shuffle(phrases.begin(), phrases.end(), random);
      for (const FactVisibility& v : {plain, everything, later}) {
        ExpectSameMatches(index, phrases, /*content_only=*/false, v);
        ExpectSameMatches(index, phrases, /*content_only=*/true, v);
      }
    }
    // A query as a search analyses it, with every form of every term.
    for (const char* text : {"deploying the billing service", "configuração do servidor",
                             "rare-tag nightly backups", "aprovações de implantação"}) {
      ExpectSameMatches(index, PhrasesOf(WithPortugueseForms(AnalyzeQuery(text))).phrases, false,
                        plain);
    }
    // Each form's count of facts, superseded and expired ones included, and
    // so the statistics of term overlap.
    int64_t held = 0;
    for (const std::string& form : forms) {
      auto expected = store_->facts().FactsHolding(form, scope);
      ASSERT_TRUE(expected.ok()) << expected.status().ToString();
      EXPECT_EQ(index.FactsHolding(form), *expected) << scope << " " << form;
      held += *expected;
    }
    EXPECT_EQ(index.FactsHolding("absent"), 0);
    EXPECT_GT(held, 100);
    auto from_store = TermDocumentFrequencies(store_->facts(), forms, scope);
    auto from_index = TermDocumentFrequencies(store_->facts(), forms, scope, &index);
    ASSERT_TRUE(from_store.ok() && from_index.ok());
    EXPECT_EQ(from_index->n_docs, from_store->n_docs);
    EXPECT_EQ(from_index->n_docs, static_cast<int64_t>(index.Size()));
    EXPECT_EQ(from_index->doc_freq, from_store->doc_freq);
  }
  // The comparisons were of something.
  EXPECT_EQ(compared_, 2u * (60 * 6 + 4));
  EXPECT_GT(matched_, 5000u);
}

// Changes applied in order keep the index matching what the store
// matches; a fact whose tags changed cannot be applied.
TEST_F(LexicalIndexTest, AppliedChangesKeepItInStepUntilATextChanges) {
  for (int i = 0; i < 30; ++i) {
    Add("default",
        Words()[i % Words().size()] + " " + Words()[(i * 7) % Words().size()] + " deploy " +
            std::to_string(i),
        i % 2 ? std::vector<std::string>{"ops"} : std::vector<std::string>{});
  }
  LexicalIndex index = Build("default");
  const int64_t built_at = store_->facts().ChangesOf("default")->last;
  // Accesses, a supersession, and facts added after the last.
  ASSERT_TRUE(store_
                  ->Transact([&]() -> Status {
                    ENGRAM_RETURN_IF_ERROR(
                        store_->facts().RecordAccess({{"default", rowids_[3], "f3", 4, kNow - 3}}));
                    return store_->facts().SetSuperseded("default", rowids_[5], "f6", kNow - 2);
                  })
                  .ok());
  Add("default", "a deploy window added later", {"ops"});
  Add("default", "billing later still", {});
  size_t applied = 0;
  ASSERT_TRUE(store_->facts()
                  .ForEachChangedSince("default", built_at,
                                       [&](const StoredFact& f, int64_t) {
                                         EXPECT_TRUE(index.Apply(f)) << f.fact.id;
                                         ++applied;
                                         return true;
                                       })
                  .ok());
  EXPECT_EQ(applied, 4u);
  EXPECT_EQ(index.Size(), 32u);
  FactVisibility plain;
  plain.now = kNow;
  for (const std::vector<std::string>& phrases :
       {std::vector<std::string>{"deploy"}, {"deploy", "ops", "later", "window", "bill"}}) {
    ExpectSameMatches(index, phrases, false, plain);
    ExpectSameMatches(index, phrases, true, plain);
  }
  // New tags are a new text: the index cannot follow.
  const int64_t applied_at = store_->facts().ChangesOf("default")->last;
  ASSERT_TRUE(store_
                  ->Transact([&] {
                    return store_->facts().UpdateTags("default", rowids_[7], {"ci"}, kNow, 1);
                  })
                  .ok());
  bool followed = true;
  ASSERT_TRUE(store_->facts()
                  .ForEachChangedSince("default", applied_at,
                                       [&](const StoredFact& f, int64_t) {
                                         followed = index.Apply(f);
                                         return followed;
                                       })
                  .ok());
  EXPECT_FALSE(followed);
}

// SearchLexical over two scopes scores the same hits the same from the
// scopes' indexes as from the store.
TEST_F(LexicalIndexTest, SearchLexicalFromIndexesScoresAsFromTheStore) {
  for (int i = 0; i < 40; ++i) {
    Add(i % 3 ? "default" : "other",
        Words()[i % Words().size()] + " deploy " + Words()[(i * 5) % Words().size()],
        i % 4 ? std::vector<std::string>{} : std::vector<std::string>{"deploy"});
  }
  const LexicalIndex mine = Build("default");
  const LexicalIndex theirs = Build("other");
  const std::vector<const LexicalIndex*> indexes = {&theirs, &mine};
  FactVisibility plain;
  plain.now = kNow;
  for (const double tag_boost : {0.0, 0.6}) {
    Bm25Options options;
    options.tag_boost = tag_boost;
    for (const char* text : {"deploy the billing service", "postgres port backup", "vitamin"}) {
      const LexicalQuery query = AnalyzeQuery(text);
      QueryTermCounts from_store_counts;
      QueryTermCounts from_index_counts;
      auto from_store = SearchLexical(store_->facts(), query, {"default", "other"}, options, plain,
                                      &from_store_counts);
      auto from_index = SearchLexical(store_->facts(), query, {"default", "other"}, options, plain,
                                      &from_index_counts, &indexes);
      ASSERT_TRUE(from_store.ok() && from_index.ok());
      ASSERT_EQ(from_index->size(), from_store->size()) << text;
      ASSERT_FALSE(from_store->empty()) << text;
      std::sort(from_store->begin(), from_store->end(),
                [](const LexicalHit& a, const LexicalHit& b) { return a.rowid < b.rowid; });
      for (size_t i = 0; i < from_store->size(); ++i) {
        EXPECT_EQ((*from_index)[i].rowid, (*from_store)[i].rowid);
        EXPECT_EQ((*from_index)[i].scope, (*from_store)[i].scope);
        EXPECT_EQ((*from_index)[i].score, (*from_store)[i].score) << text;
        EXPECT_EQ((*from_index)[i].matched, (*from_store)[i].matched);
      }
      EXPECT_EQ(from_index_counts.doc_freq, from_store_counts.doc_freq);
    }
  }
}

TEST_F(LexicalIndexTest, AnswersOnlyWithoutFilters) {
  FactVisibility v;
  EXPECT_TRUE(LexicalIndex::Answers(v));
  v.include_superseded = true;
  v.include_expired = true;
  EXPECT_TRUE(LexicalIndex::Answers(v));
  FactVisibility tagged;
  tagged.filter.tags_any = {"ops"};
  EXPECT_FALSE(LexicalIndex::Answers(tagged));
  FactVisibility as_of;
  as_of.filter.as_of = kNow;
  EXPECT_FALSE(LexicalIndex::Answers(as_of));
  FactVisibility kind;
  kind.filter.kind = "lesson";
  EXPECT_FALSE(LexicalIndex::Answers(kind));
}

}  // namespace
}  // namespace engram
