// How much two texts say in the same words, weighted by how rare each word
// is in a scope (docs/ARCHITECTURE.md, "Facts that change").
//
//   overlap(A, B) = 2 * sum_{t in A and B} idf(t)
//                   / (sum_{t in A} idf(t) + sum_{t in B} idf(t))
//
// over the distinct analysed terms A and B of the two texts, with BM25's
// idf over the facts of the scope (src/lexical/bm25.h). It is 1 for texts
// with the same terms, 0 when they share none or either has none. Names and
// values rare in the scope weigh most: two facts about the same thing
// share them, two facts about a scope's usual subject share only its
// common words.
//
// Thread-safety: TermDocumentFrequencies uses the caller's store (and
// index) under the caller's lock; the rest is pure.
#ifndef ENGRAM_SRC_LEXICAL_TERM_OVERLAP_H_
#define ENGRAM_SRC_LEXICAL_TERM_OVERLAP_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engram/status.h"
#include "src/lexical/lexical_index.h"
#include "src/store/fact_store.h"

namespace engram {

// Facts of a scope, and in how many of them each term occurs.
struct TermStatistics {
  int64_t n_docs = 0;
  std::unordered_map<std::string, int64_t> doc_freq;
};

// The statistics of `terms` over the facts of `scope`, every stored fact
// counted (as BM25 counts them); a term in no fact counts 0. Each term's
// count comes from `index` when given (the scope's index as `store`'s
// current transaction sees it: the same counts without a query per term),
// and from the store's own index otherwise.
Result<TermStatistics> TermDocumentFrequencies(FactStore& store,
                                               const std::vector<std::string>& terms,
                                               const std::string& scope,
                                               const LexicalIndex* index = nullptr);

// The weighted overlap above of two sets of distinct terms. A term missing
// from `stats` counts as occurring in no fact.
double WeightedTermOverlap(const std::vector<std::string>& a, const std::vector<std::string>& b,
                           const TermStatistics& stats);

}  // namespace engram

#endif  // ENGRAM_SRC_LEXICAL_TERM_OVERLAP_H_
