// SqliteFactStore's full-text index: the collection statistics, the matches of a
// query's phrases and the facts holding a term, from FTS5 with engram's
// tokenizer and engram_tf() (fts5_engram.h). Scoring them is the lexical
// module's (src/lexical/bm25.h).
#include <string>
#include <vector>

#include "src/store/sqlite/fts5_engram.h"
#include "src/store/sqlite/schema.h"
#include "src/store/sqlite/sqlite_fact_store.h"

namespace engram {

Result<FullTextTotals> SqliteFactStore::FullTextTotalsOf(
    const std::vector<std::string>& scopes_in) {
  const std::vector<std::string> scopes = ScopesOrDefault(scopes_in);
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT coalesce(sum(facts), 0), total(content_terms), total(tags_terms), "
                   "coalesce(sum(portuguese_facts), 0) "
                   "FROM scope_stats WHERE scope IN (" +
                   Placeholders(scopes.size()) + ")"));
  BindTexts(&s, 1, scopes);
  ENGRAM_ASSIGN_OR_RETURN(const bool has_row, s.Step());
  FullTextTotals totals;
  if (!has_row) return totals;
  totals.facts = s.ColumnInt(0);
  totals.content_terms = s.ColumnDouble(1);
  totals.tags_terms = s.ColumnDouble(2);
  totals.portuguese_facts = s.ColumnInt(3);
  return totals;
}

Result<std::vector<FullTextMatch>> SqliteFactStore::MatchFullText(
    const std::vector<std::string>& phrases, bool content_only,
    const std::vector<std::string>& scopes_in, const FactVisibility& visibility) {
  std::vector<FullTextMatch> out;
  if (phrases.empty()) return out;
  const std::vector<std::string> scopes = ScopesOrDefault(scopes_in);
  // CROSS JOIN pins the order: FTS5 finds the matches once, then each is
  // looked up by rowid. Left to itself the planner may walk the scope's
  // facts and re-run the MATCH per row, 50x slower on 1,400 facts. The
  // lookup reads the rank index, not the rows with their content.
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(std::string("SELECT f.rowid, f.id, engram_tf(facts_fts), f.content_terms, "
                               "f.tags_terms, f.access_count, f.last_accessed, f.scope, "
                               "f.created_at FROM facts_fts CROSS JOIN facts f INDEXED BY ") +
                   kRankIndexName +
                   " ON f.rowid = facts_fts.rowid WHERE facts_fts MATCH ?1 AND f.scope IN (" +
                   Placeholders(scopes.size()) + ")" + VisibilityCondition(visibility, "f")));
  s.BindText(1, FtsMatchExpression(phrases, content_only ? "content" : ""));
  BindTexts(&s, 2, scopes);
  BindVisibility(&s, visibility);
  constexpr size_t kFields = 2;  // content, tags: the columns of facts_fts
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(const bool row, s.Step());
    if (!row) break;
    FullTextMatch& m = out.emplace_back();
    m.rowid = s.ColumnInt(0);
    m.id = s.ColumnText(1);
    ENGRAM_ASSIGN_OR_RETURN(m.tf, DecodeTermFrequencies(s.ColumnBlob(2), phrases.size(), kFields));
    m.content_terms = s.ColumnInt(3);
    m.tags_terms = s.ColumnInt(4);
    m.access_count = s.ColumnInt(5);
    m.last_accessed = s.ColumnInt(6);
    m.scope = s.ColumnText(7);
    m.created_at = s.ColumnInt(8);
  }
  return out;
}

Result<int64_t> SqliteFactStore::FactsHolding(const std::string& term, const std::string& scope) {
  // Content and tags, as BM25 counts a term's documents.
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement count,
                          db_->Prepare("SELECT count(*) FROM facts_fts CROSS JOIN facts f "
                                       "ON f.rowid = facts_fts.rowid "
                                       "WHERE facts_fts MATCH ?1 AND f.scope = ?2"));
  count.BindText(1, FtsMatchExpression({term}, ""));
  count.BindText(2, scope);
  ENGRAM_ASSIGN_OR_RETURN(const bool row, count.Step());
  return row ? count.ColumnInt(0) : 0;
}

}  // namespace engram
