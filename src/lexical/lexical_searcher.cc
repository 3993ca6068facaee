#include "src/lexical/lexical_searcher.h"

#include <cstring>
#include <string>
#include <unordered_set>

#include "src/lexical/bm25.h"
#include "src/store/fact_store.h"
#include "src/text/analyzer.h"

namespace engram {
namespace {

// Each term becomes an FTS5 string, "term" with inner quotes doubled, ORed
// together; restricted to the content column when tags do not count.
std::string MatchExpression(const std::vector<std::string>& terms, bool content_only) {
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
  return content_only ? "content : (" + out + ")" : out;
}

struct RawHit {
  LexicalHit hit;
  std::vector<int32_t> tf;  // [term][column]: column 0 content, 1 tags
  int64_t content_terms = 0;
  int64_t tags_terms = 0;
};

}  // namespace

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

int64_t CountTerms(std::string_view text) { return static_cast<int64_t>(Analyze(text).size()); }

int64_t CountTagTerms(const std::vector<std::string>& tags) { return CountTerms(EncodeTags(tags)); }

Result<std::vector<LexicalHit>> SearchLexical(SqliteDb* db, const LexicalQuery& query,
                                              const std::vector<std::string>& scopes_in,
                                              const Bm25Options& options) {
  std::vector<LexicalHit> out;
  if (query.terms.empty()) return out;
  const auto scopes = ScopesOrDefault(scopes_in);
  const size_t n_terms = query.terms.size();

  // Collection statistics of the searched scopes.
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement totals,
      db->Prepare("SELECT count(*), total(content_terms), total(tags_terms) FROM facts "
                  "WHERE scope IN (" +
                  Placeholders(scopes.size()) + ")"));
  BindScopes(&totals, 1, scopes);
  ENGRAM_ASSIGN_OR_RETURN(bool has_row, totals.Step());
  const int64_t n_docs = has_row ? totals.ColumnInt(0) : 0;
  if (n_docs == 0) return out;
  const double avg_content = totals.ColumnDouble(1) / static_cast<double>(n_docs);
  const double avg_tags = totals.ColumnDouble(2) / static_cast<double>(n_docs);

  // CROSS JOIN pins the order: FTS5 finds the matches once, then each is
  // looked up by rowid. Left to itself the planner may walk the scope's
  // facts and re-run the MATCH per row, 50x slower on 1,400 facts.
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db->Prepare("SELECT f.rowid, f.id, engram_tf(facts_fts), f.content_terms, f.tags_terms, "
                  "f.access_count, f.last_accessed, f.scope FROM facts_fts CROSS JOIN facts f "
                  "ON f.rowid = facts_fts.rowid WHERE facts_fts MATCH ?1 AND f.scope IN (" +
                  Placeholders(scopes.size()) + ")"));
  s.BindText(1, MatchExpression(query.terms, options.tag_boost <= 0));
  BindScopes(&s, 2, scopes);
  std::vector<RawHit> raw;
  std::vector<int64_t> doc_freq(n_terms, 0);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    RawHit r;
    r.hit.rowid = s.ColumnInt(0);
    r.hit.id = s.ColumnText(1);
    const std::string_view blob = s.ColumnBlob(2);
    if (blob.size() != n_terms * 2 * sizeof(int32_t)) {
      return Internal("lexical: search: term-frequency blob of " + std::to_string(blob.size()) +
                      " bytes, expected " + std::to_string(n_terms * 2 * sizeof(int32_t)));
    }
    r.tf.resize(n_terms * 2);
    std::memcpy(r.tf.data(), blob.data(), blob.size());
    r.content_terms = s.ColumnInt(3);
    r.tags_terms = s.ColumnInt(4);
    r.hit.access_count = s.ColumnInt(5);
    r.hit.last_accessed = s.ColumnInt(6);
    r.hit.scope = s.ColumnText(7);
    for (size_t t = 0; t < n_terms; ++t) {
      if (r.tf[2 * t] > 0 || r.tf[2 * t + 1] > 0) {
        ++doc_freq[t];
        r.hit.matched.push_back(t);
      }
    }
    raw.push_back(std::move(r));
  }

  std::vector<double> idf(n_terms);
  for (size_t t = 0; t < n_terms; ++t) idf[t] = Bm25Idf(n_docs, doc_freq[t]);
  out.reserve(raw.size());
  for (RawHit& r : raw) {
    double score = 0.0;
    for (size_t t : r.hit.matched) {
      score +=
          idf[t] *
          (Bm25Saturation(r.tf[2 * t], static_cast<double>(r.content_terms), avg_content, options) +
           options.tag_boost * Bm25Saturation(r.tf[2 * t + 1], static_cast<double>(r.tags_terms),
                                              avg_tags, options));
    }
    r.hit.score = score;
    out.push_back(std::move(r.hit));
  }
  return out;
}

}  // namespace engram
