// PgFactStore's full-text index: the collection statistics, the matches of
// a query's phrases and the facts holding a term, from the term arrays
// (pg_schema.h). Candidates come from the GIN index on `terms` (&&, @>);
// each match's term frequencies are read here from its `terms`,
// `content_tf` and `tags_tf` (finding each phrase's position on the server
// costs five times as much CPU there). Scoring them is the lexical
// module's (src/lexical/bm25.h), as on SQLite.
#include <string>
#include <vector>

#include "src/store/postgres/pg_fact_store.h"
#include "src/store/postgres/pg_term_index.h"

namespace engram {

Result<FullTextTotals> PgFactStore::FullTextTotalsOf(const std::vector<std::string>& scopes) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT coalesce(sum(facts), 0), coalesce(sum(content_terms), 0), "
                 "coalesce(sum(tags_terms), 0), coalesce(sum(portuguese_facts), 0) "
                 "FROM scope_stats WHERE scope = ANY($1::text[])",
                 {TextArray(ScopesOrDefault(scopes))}));
  FullTextTotals totals;
  ENGRAM_ASSIGN_OR_RETURN(totals.facts, r.Int(0, 0));
  ENGRAM_ASSIGN_OR_RETURN(totals.content_terms, r.Double(0, 1));
  ENGRAM_ASSIGN_OR_RETURN(totals.tags_terms, r.Double(0, 2));
  ENGRAM_ASSIGN_OR_RETURN(totals.portuguese_facts, r.Int(0, 3));
  return totals;
}

Result<std::vector<FullTextMatch>> PgFactStore::MatchFullText(
    const std::vector<std::string>& phrases, bool content_only,
    const std::vector<std::string>& scopes, const FactVisibility& visibility) {
  std::vector<FullTextMatch> out;
  if (phrases.empty()) return out;
  PgQuery q(
      "SELECT f.label, f.id, f.content_terms, f.tags_terms, f.access_count, f.last_accessed, "
      "f.scope, f.created_at, f.terms, f.content_tf, f.tags_tf FROM facts f "
      "WHERE f.terms && $1::text[] AND f.scope = ANY($2::text[])");
  q.Param(TextArray(phrases));
  q.Param(TextArray(ScopesOrDefault(scopes)));
  AppendVisibility(visibility, "f", &q);
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r, RunOnTermIndex(db(), q));
  const PhraseCounter counter(phrases);
  constexpr size_t kFields = 2;  // content, tags
  out.reserve(static_cast<size_t>(r.Rows()));
  for (int i = 0; i < r.Rows(); ++i) {
    FullTextMatch m;
    ENGRAM_ASSIGN_OR_RETURN(m.tf, counter.Count(r.Text(i, 8), {r.Text(i, 9), r.Text(i, 10)},
                                                "fact row " + std::string(r.Text(i, 0))));
    bool in_content = false;
    for (size_t p = 0; p < phrases.size(); ++p) in_content = in_content || m.tf[p * kFields] > 0;
    if (content_only && !in_content) continue;
    ENGRAM_ASSIGN_OR_RETURN(m.rowid, r.Int(i, 0));
    m.id = r.Text(i, 1);
    ENGRAM_ASSIGN_OR_RETURN(m.content_terms, r.Int(i, 2));
    ENGRAM_ASSIGN_OR_RETURN(m.tags_terms, r.Int(i, 3));
    ENGRAM_ASSIGN_OR_RETURN(m.access_count, r.Int(i, 4));
    ENGRAM_ASSIGN_OR_RETURN(m.last_accessed, r.Int(i, 5));
    m.scope = r.Text(i, 6);
    ENGRAM_ASSIGN_OR_RETURN(m.created_at, r.Int(i, 7));
    out.push_back(std::move(m));
  }
  return out;
}

Result<int64_t> PgFactStore::FactsHolding(const std::string& term, const std::string& scope) {
  // Content and tags, as BM25 counts a term's documents.
  PgQuery q("SELECT count(*) FROM facts WHERE scope = $1 AND terms @> ARRAY[$2::text]");
  q.Param(PgParam::Text(scope));
  q.Param(PgParam::Text(term));
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r, RunOnTermIndex(db(), q));
  return r.Int(0, 0);
}

Result<ScopeChanges> PgFactStore::ChangesOf(const std::string& /*scope*/) {
  return NotSupported("store: this PostgreSQL store does not number changes of facts");
}

Status PgFactStore::ForEachChangedSince(
    const std::string& /*scope*/, int64_t /*after*/,
    const std::function<bool(const StoredFact&, int64_t changed)>& /*sink*/) {
  return NotSupported("store: this PostgreSQL store does not number changes of facts");
}

}  // namespace engram
