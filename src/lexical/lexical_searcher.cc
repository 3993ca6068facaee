#include "src/lexical/lexical_searcher.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_set>

#include "src/lexical/bm25.h"
#include "src/store/fact_store.h"
#include "src/text/analyzer.h"

namespace engram {

std::string FtsMatchExpression(const std::vector<std::string>& terms, std::string_view column) {
  std::string out;
  for (const auto& t : terms) {
    if (!out.empty()) out += " OR ";
    out += '"';
    for (char c : t) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
  }
  return column.empty() ? out : std::string(column) + " : (" + out + ")";
}

Result<std::vector<int32_t>> DecodeTermFrequencies(std::string_view blob, size_t n_terms,
                                                   size_t n_fields) {
  const size_t want = n_terms * n_fields * sizeof(int32_t);
  if (blob.size() != want) {
    return Internal("lexical: search: term-frequency blob of " + std::to_string(blob.size()) +
                    " bytes, expected " + std::to_string(want));
  }
  std::vector<int32_t> tf(n_terms * n_fields);
  std::memcpy(tf.data(), blob.data(), blob.size());
  return tf;
}

LexicalQuery AnalyzeQuery(std::string_view text) {
  LexicalQuery q;
  const Language lang = DetectLanguage(text);
  q.language = std::string(LanguageName(lang));
  std::unordered_set<std::string> seen;
  for (auto& t : Analyze(text, lang)) {
    if (seen.insert(t.term).second) q.terms.push_back(std::move(t.term));
  }
  return q;
}

size_t ExpandQuery(LexicalQuery* query, const std::vector<std::string>& keywords) {
  const Language lang = query->language == LanguageName(Language::kPortuguese)
                            ? Language::kPortuguese
                            : Language::kEnglish;
  std::unordered_set<std::string> seen(query->terms.begin(), query->terms.end());
  size_t added = 0;
  for (const std::string& keyword : keywords) {
    for (auto& t : Analyze(keyword, lang)) {
      if (seen.insert(t.term).second) {
        query->terms.push_back(std::move(t.term));
        ++added;
      }
    }
  }
  return added;
}

double LexicalCoverage(const std::vector<size_t>& matched, const QueryTermCounts& counts,
                       size_t first, size_t last) {
  last = std::min(last, counts.doc_freq.size());
  const int64_t n_docs = std::max(counts.n_docs, kCoverageMinDocs);
  const auto weight = [&](size_t t) { return Bm25Idf(n_docs, counts.doc_freq[t]); };
  double total = 0.0;
  for (size_t t = first; t < last; ++t) total += weight(t);
  double covered = 0.0;
  for (const size_t t : matched) {
    if (t >= first && t < last) covered += weight(t);
  }
  return total > 0.0 ? covered / total : 0.0;
}

int64_t CountTerms(std::string_view text) { return static_cast<int64_t>(Analyze(text).size()); }

int64_t CountTagTerms(const std::vector<std::string>& tags) { return CountTerms(EncodeTags(tags)); }

Result<std::vector<LexicalHit>> SearchLexical(SqliteDb* db, const LexicalQuery& query,
                                              const std::vector<std::string>& scopes_in,
                                              const Bm25Options& options,
                                              const FactVisibility& visibility,
                                              QueryTermCounts* counts) {
  std::vector<LexicalHit> out;
  if (query.terms.empty()) return out;
  const auto scopes = ScopesOrDefault(scopes_in);
  const size_t n_terms = query.terms.size();

  // Collection statistics of the searched scopes, one row per scope.
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement totals,
      db->Prepare("SELECT coalesce(sum(facts), 0), total(content_terms), total(tags_terms) "
                  "FROM scope_stats WHERE scope IN (" +
                  Placeholders(scopes.size()) + ")"));
  BindScopes(&totals, 1, scopes);
  ENGRAM_ASSIGN_OR_RETURN(bool has_row, totals.Step());
  const int64_t n_docs = has_row ? totals.ColumnInt(0) : 0;
  if (counts != nullptr) *counts = QueryTermCounts{n_docs, {}};
  if (n_docs == 0) return out;
  const double avg_content = totals.ColumnDouble(1) / static_cast<double>(n_docs);
  const double avg_tags = totals.ColumnDouble(2) / static_cast<double>(n_docs);

  // CROSS JOIN pins the order: FTS5 finds the matches once, then each is
  // looked up by rowid. Left to itself the planner may walk the scope's
  // facts and re-run the MATCH per row, 50x slower on 1,400 facts.
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db->Prepare("SELECT f.rowid, f.id, engram_tf(facts_fts), f.content_terms, f.tags_terms, "
                  "f.access_count, f.last_accessed, f.scope, f.created_at FROM facts_fts CROSS "
                  "JOIN facts f "
                  "ON f.rowid = facts_fts.rowid WHERE facts_fts MATCH ?1 AND f.scope IN (" +
                  Placeholders(scopes.size()) + ")" + visibility.Condition("f")));
  s.BindText(1, FtsMatchExpression(query.terms, options.tag_boost <= 0 ? "content" : ""));
  BindScopes(&s, 2, scopes);
  BindVisibility(&s, visibility);
  std::vector<Bm25Match> matches;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    LexicalHit hit;
    hit.rowid = s.ColumnInt(0);
    hit.id = s.ColumnText(1);
    Bm25Match m;
    ENGRAM_ASSIGN_OR_RETURN(m.tf, DecodeTermFrequencies(s.ColumnBlob(2), n_terms, 2));
    m.field_len = {static_cast<double>(s.ColumnInt(3)), static_cast<double>(s.ColumnInt(4))};
    hit.access_count = s.ColumnInt(5);
    hit.last_accessed = s.ColumnInt(6);
    hit.scope = s.ColumnText(7);
    hit.created_at = s.ColumnInt(8);
    matches.push_back(std::move(m));
    out.push_back(std::move(hit));
  }
  const Bm25Collection collection{n_docs, {avg_content, avg_tags}, {1.0, options.tag_boost}};
  std::vector<std::vector<size_t>> matched;
  const std::vector<double> scores = Bm25Scores(matches, n_terms, collection, options, &matched,
                                                counts != nullptr ? &counts->doc_freq : nullptr);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].score = scores[i];
    out[i].matched = std::move(matched[i]);
  }
  return out;
}

}  // namespace engram
