// LexicalSearcher: BM25 over the store's full-text index, restricted to
// scopes (facts) or to attachments (chunks of attached files).
//
// The store finds the facts of the scopes that contain any form of a query
// term and reports, per fact, each form's frequency in content and in tags
// (FactStore::MatchFullText); the collection statistics (facts, average
// lengths, document frequencies) are those of the searched scopes only, so
// one scope's data never shifts another's scores. Scoring is
// src/lexical/bm25.h.
//
// Thread-safety: none; uses the caller's store under the caller's lock.
#ifndef ENGRAM_SRC_LEXICAL_LEXICAL_SEARCHER_H_
#define ENGRAM_SRC_LEXICAL_LEXICAL_SEARCHER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/clock.h"
#include "engram/options.h"
#include "engram/status.h"
#include "src/lexical/lexical_index.h"
#include "src/store/chunk_store.h"
#include "src/store/fact_store.h"

namespace engram {

// One term of a query as BM25 weighs it (docs/ARCHITECTURE.md, "BM25").
struct QueryTerm {
  // The form the query's language gives the word: what explain output and
  // SearchResponse::query_terms show.
  std::string term;
  // Every index form that counts as this term, distinct, `term` first; for a
  // Portuguese query also the word's English stem, so the word matches
  // itself in a fact detected as English, and its English translations; for
  // an English query, when the searched scopes hold Portuguese facts, the
  // word's Portuguese stem and translations, matching in those facts only
  // (WithPortugueseForms). A fact's frequency of the term is the sum over its
  // forms.
  std::vector<std::string> forms;
  // BM25's query term frequency: the times the query holds the word
  // (Lucene adds a repeated term once per occurrence); expansion terms
  // carry the weight their source gives them.
  double weight = 1.0;
  // The word of an English query the term was analysed from, as the query
  // writes it; empty for a Portuguese query's terms and for terms taken
  // from the index (AddTermWeight).
  std::string word;
};

// A query after analysis: unique terms in first-seen order.
struct LexicalQuery {
  std::vector<QueryTerm> terms;
  std::string language;  // "en" or "pt"
  // Add translations to the terms' forms (QueryAnalysisOptions::translate).
  bool translate = true;

  // The analysed forms shown for the query, `term` of each.
  std::vector<std::string> Terms() const;
  // Each term's weight, in order.
  std::vector<double> Weights() const;
  // Index of the term whose form `term` is, or terms.size().
  size_t Find(std::string_view term) const;
};

// `text` analysed as a query; `translate` adds a Portuguese query's English
// translations to its terms' forms (QueryAnalysisOptions::translate).
LexicalQuery AnalyzeQuery(std::string_view text, bool translate = true);

// Appends the terms of `keywords` (HyDE's expansion, DESIGN §5 3a) to
// `query`, analysed in the query's language, each with weight `weight`
// (and translated as AnalyzeQuery does), skipping terms it already has.
// Returns how many terms were added.
size_t ExpandQuery(LexicalQuery* query, const std::vector<std::string>& keywords,
                   double weight = 1.0, bool translate = true);

// `query` with, for an English query, forms that match in the facts
// detected as Portuguese only (their index holds PortugueseTextForm of each
// term, src/store/index_forms.h): each word's Portuguese stem and, with
// `translate`, its Portuguese translations ("language": idiom, lingu,
// linguag), each where it differs from the term, which matches there
// already. A
// Portuguese query comes back as it is. SearchLexical adds them when the
// searched scopes hold a Portuguese fact; not in every fact, because the
// Portuguese stem of an English word is another English word's stem often
// enough ("rates" -> "rat"), which cost scifact and locomo-dev 0.001-0.002
// nDCG@10 when measured.
LexicalQuery WithPortugueseForms(LexicalQuery query);

// Adds `weight` to the term of `query` whose form `term` is (an analysed
// term, as the index holds it), or appends it as a new term of that one
// form. Returns true when it was new.
bool AddTermWeight(LexicalQuery* query, const std::string& term, double weight);

// The phrases one FTS5 MATCH looks for to find every form of `query`'s
// terms, each once, and for each term the indexes of its forms among them.
struct QueryPhrases {
  std::vector<std::string> phrases;
  std::vector<std::vector<size_t>> of_term;
};
QueryPhrases PhrasesOf(const LexicalQuery& query);

// Number of analysed terms in `text`: the field length BM25 normalises by.
int64_t CountTerms(std::string_view text);

// Analysed length of a fact's tags as the index sees them.
int64_t CountTagTerms(const std::vector<std::string>& tags);

// What the index records of a fact's text (FactTextCounts).
FactTextCounts CountFactText(std::string_view content, const std::vector<std::string>& tags);

// Counts [phrase][field] of `phrases` (FullTextMatch::tf) added into
// counts [term][field] of the query's terms, `by_term`: each term's
// frequency is the sum of its forms'.
void FoldPhraseFrequencies(std::span<const int32_t> by_phrase, const QueryPhrases& phrases,
                           size_t n_fields, std::span<int32_t> by_term);

struct LexicalHit {
  int64_t rowid = 0;
  std::string id;
  double score = 0.0;  // BM25, >= 0
  std::string scope;
  std::vector<size_t> matched;  // indexes into LexicalQuery::terms
  int64_t access_count = 0;     // carried for the temporal signal
  Timestamp last_accessed = 0;
  Timestamp created_at = 0;
};

// How common each query term is among the facts searched.
struct QueryTermCounts {
  int64_t n_docs = 0;             // facts of the searched scopes
  std::vector<int64_t> doc_freq;  // per query term, the facts holding it
};

// Every fact of `scopes` (default scope when empty) that `visibility` sees
// matching at least one term, unordered, scored. Collection statistics
// count every stored fact of the scopes, seen or not; `counts` (when
// given) receives them (doc_freq empty when the scopes hold no fact).
// The matches come from `indexes` when given, one per scope searched, each
// describing what `store` reads (LexicalIndex::Answers(visibility) must
// hold); else from the store's full-text index. Both give the same hits.
Result<std::vector<LexicalHit>> SearchLexical(
    FactStore& store, const LexicalQuery& query, const std::vector<std::string>& scopes,
    const Bm25Options& options, const FactVisibility& visibility = {},
    QueryTermCounts* counts = nullptr, const std::vector<const LexicalIndex*>* indexes = nullptr);

// A chunk of an attached file that matched, scored.
struct ChunkLexicalHit {
  int64_t rowid = 0;
  double score = 0.0;  // BM25, >= 0
};

// Every chunk of the attachments `attachment_ids` holding at least one
// term of `query`, unordered, scored as SearchLexical scores facts (one
// field, the text), with the collection statistics of those attachments'
// chunks only.
Result<std::vector<ChunkLexicalHit>> SearchChunksLexical(ChunkStore& store,
                                                         const LexicalQuery& query,
                                                         const std::vector<int64_t>& attachment_ids,
                                                         const Bm25Options& options);

// The share of the weight of query terms [first, last) that a fact's
// matched terms carry: sum of w(t) over the `matched` indexes in the range
// / sum over the range, with w(t) the term's query weight times BM25's idf
// over max(n_docs, kCoverageMinDocs) facts. The floor keeps
// a small scope from making its every word look common: in a scope of three
// facts a word held by one is not thereby worth less than one held by none.
// In [0, 1]; 0 when the terms weigh nothing.
inline constexpr int64_t kCoverageMinDocs = 1000;
double LexicalCoverage(const std::vector<size_t>& matched, const LexicalQuery& query,
                       const QueryTermCounts& counts, size_t first, size_t last);

}  // namespace engram

#endif  // ENGRAM_SRC_LEXICAL_LEXICAL_SEARCHER_H_
