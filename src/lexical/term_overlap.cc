#include "src/lexical/term_overlap.h"

#include <algorithm>
#include <cassert>

#include "src/lexical/bm25.h"

namespace engram {

Result<TermStatistics> TermDocumentFrequencies(FactStore& store,
                                               const std::vector<std::string>& terms,
                                               const std::string& scope,
                                               const LexicalIndex* index) {
  assert(index == nullptr || index->Scope() == scope);
  TermStatistics stats;
  ENGRAM_ASSIGN_OR_RETURN(const FullTextTotals totals, store.FullTextTotalsOf({scope}));
  stats.n_docs = totals.facts;
  for (const std::string& term : terms) {
    if (stats.doc_freq.count(term)) continue;
    if (index != nullptr) {
      stats.doc_freq[term] = index->FactsHolding(term);
    } else {
      ENGRAM_ASSIGN_OR_RETURN(stats.doc_freq[term], store.FactsHolding(term, scope));
    }
  }
  return stats;
}

double WeightedTermOverlap(const std::vector<std::string>& a, const std::vector<std::string>& b,
                           const TermStatistics& stats) {
  const auto idf = [&](const std::string& term) {
    const auto it = stats.doc_freq.find(term);
    const int64_t df = it == stats.doc_freq.end() ? 0 : it->second;
    return Bm25Idf(std::max(stats.n_docs, df), df);
  };
  double shared = 0.0;
  double total = 0.0;
  for (const std::string& t : a) {
    const double w = idf(t);
    total += w;
    if (std::find(b.begin(), b.end(), t) != b.end()) shared += w;
  }
  for (const std::string& t : b) total += idf(t);
  return total > 0.0 ? 2.0 * shared / total : 0.0;
}

}  // namespace engram
