#include "src/lexical/term_overlap.h"

#include <algorithm>

#include "src/lexical/bm25.h"
#include "src/lexical/lexical_searcher.h"

namespace engram {

Result<TermStatistics> TermDocumentFrequencies(SqliteDb* db, const std::vector<std::string>& terms,
                                               const std::string& scope) {
  TermStatistics stats;
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement totals,
                          db->Prepare("SELECT coalesce(sum(facts), 0) FROM scope_stats "
                                      "WHERE scope = ?1"));
  totals.BindText(1, scope);
  ENGRAM_ASSIGN_OR_RETURN(bool has_row, totals.Step());
  stats.n_docs = has_row ? totals.ColumnInt(0) : 0;
  // Content and tags, as BM25 counts a term's documents.
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement count,
                          db->Prepare("SELECT count(*) FROM facts_fts CROSS JOIN facts f "
                                      "ON f.rowid = facts_fts.rowid "
                                      "WHERE facts_fts MATCH ?1 AND f.scope = ?2"));
  for (const std::string& term : terms) {
    if (stats.doc_freq.count(term)) continue;
    count.Reset();
    count.BindText(1, FtsMatchExpression({term}, ""));
    count.BindText(2, scope);
    ENGRAM_ASSIGN_OR_RETURN(bool row, count.Step());
    stats.doc_freq[term] = row ? count.ColumnInt(0) : 0;
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
