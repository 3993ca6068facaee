// PgFactStore's full-text index: the collection statistics, the matches of
// a query's phrases and the facts holding a term, from the term arrays
// (pg_schema.h). Candidates come from the GIN index on `terms` (&&, @>);
// each match's term frequencies are read from `content_tf` and `tags_tf`
// at the phrase's position in `terms`, on the server. Scoring them is the
// lexical module's (src/lexical/bm25.h), as on SQLite.
#include <string>
#include <vector>

#include "src/store/postgres/pg_fact_store.h"

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
  // tf as FullTextMatch holds it: phrase by phrase, content then tags.
  PgQuery q(
      "SELECT f.label, f.id, f.content_terms, f.tags_terms, f.access_count, f.last_accessed, "
      "f.scope, f.created_at, ARRAY(SELECT tf FROM unnest($1::text[]) WITH ORDINALITY AS "
      "p(term, i), LATERAL (SELECT array_position(f.terms, p.term) AS at) AS pos, "
      "LATERAL (VALUES (1, coalesce(f.content_tf[pos.at], 0)), "
      "(2, coalesce(f.tags_tf[pos.at], 0))) AS field(n, tf) ORDER BY p.i, field.n) "
      "FROM facts f WHERE f.terms && $1::text[] AND f.scope = ANY($2::text[])");
  q.Param(TextArray(phrases));
  q.Param(TextArray(ScopesOrDefault(scopes)));
  if (content_only) {
    q += " AND EXISTS (SELECT 1 FROM unnest($1::text[]) AS p(term) "
         "WHERE f.content_tf[array_position(f.terms, p.term)] > 0)";
  }
  AppendVisibility(visibility, "f", &q);
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r, q.Run(db()));
  out.reserve(static_cast<size_t>(r.Rows()));
  for (int i = 0; i < r.Rows(); ++i) {
    FullTextMatch& m = out.emplace_back();
    ENGRAM_ASSIGN_OR_RETURN(m.rowid, r.Int(i, 0));
    m.id = r.Text(i, 1);
    ENGRAM_ASSIGN_OR_RETURN(m.content_terms, r.Int(i, 2));
    ENGRAM_ASSIGN_OR_RETURN(m.tags_terms, r.Int(i, 3));
    ENGRAM_ASSIGN_OR_RETURN(m.access_count, r.Int(i, 4));
    ENGRAM_ASSIGN_OR_RETURN(m.last_accessed, r.Int(i, 5));
    m.scope = r.Text(i, 6);
    ENGRAM_ASSIGN_OR_RETURN(m.created_at, r.Int(i, 7));
    ENGRAM_ASSIGN_OR_RETURN(const std::vector<int64_t> tf, ParseIntArray(r.Text(i, 8)));
    m.tf.assign(tf.begin(), tf.end());
  }
  return out;
}

Result<int64_t> PgFactStore::FactsHolding(const std::string& term, const std::string& scope) {
  // Content and tags, as BM25 counts a term's documents.
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT count(*) FROM facts WHERE scope = $1 AND terms @> ARRAY[$2::text]",
                 {PgParam::Text(scope), PgParam::Text(term)}));
  return r.Int(0, 0);
}

}  // namespace engram
