// EngineImpl::Search: candidates from the lexical index (or, failing that,
// every fact of the scopes by recency), fused into one ranking.
#include <string>
#include <vector>

#include "src/engine/engine_impl.h"
#include "src/lexical/lexical_searcher.h"
#include "src/rank/fusion.h"
#include "src/rank/temporal.h"

namespace engram {
namespace {

// Every fact of the scopes, as temporal-only candidates.
Result<std::vector<LexicalHit>> AllFacts(SqliteDb* db, const std::vector<std::string>& scopes) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db->Prepare("SELECT rowid, id, access_count, last_accessed FROM facts WHERE scope IN (" +
                  Placeholders(scopes.size()) + ")"));
  BindScopes(&s, 1, scopes);
  std::vector<LexicalHit> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    LexicalHit h;
    h.rowid = s.ColumnInt(0);
    h.id = s.ColumnText(1);
    h.access_count = s.ColumnInt(2);
    h.last_accessed = s.ColumnInt(3);
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace

Result<SearchResponse> EngineImpl::Search(const std::string& query, const SearchOptions& options) {
  const std::vector<std::string> scopes = ScopesOrDefault(options.scopes);
  SearchResponse response;
  const LexicalQuery lexical_query = AnalyzeQuery(query);
  response.query_terms = lexical_query.terms;
  response.language = lexical_query.language;

  std::lock_guard lock(mutex_);
  const Timestamp now = options_.clock->NowMillis();
  std::vector<LexicalHit> hits;
  bool lexical_scored = false;
  if (options.mode != FusionMode::kTemporal) {
    ENGRAM_ASSIGN_OR_RETURN(hits,
                            SearchLexical(store_->db(), lexical_query, scopes, options_.bm25));
    lexical_scored = true;
  }
  if (options.mode == FusionMode::kTemporal ||
      (hits.empty() && options.mode == FusionMode::kBlended && options_.fusion.temporal_fallback)) {
    response.temporal_fallback = options.mode != FusionMode::kTemporal;
    ENGRAM_ASSIGN_OR_RETURN(hits, AllFacts(store_->db(), scopes));
    lexical_scored = false;
  }

  std::vector<FusionCandidate> candidates;
  candidates.reserve(hits.size());
  for (const LexicalHit& h : hits) {
    FusionCandidate c;
    c.id = h.id;
    if (lexical_scored) c.lexical = h.score;
    c.temporal = TemporalScore(h.access_count, h.last_accessed, now, options_.temporal);
    candidates.push_back(std::move(c));
  }
  response.candidates = candidates.size();
  const FusionResult fused = Fuse(candidates, options.mode, options_.fusion.weights);

  const size_t k = std::min(options.k, fused.ranked.size());
  std::vector<int64_t> rowids;
  rowids.reserve(k);
  for (size_t i = 0; i < k; ++i) rowids.push_back(hits[fused.ranked[i].index].rowid);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> facts, store_->GetByRowids(rowids));

  if (options.record_access && !rowids.empty()) {
    Status s = store_->Transact([&] { return store_->RecordAccess(rowids, now); });
    if (!s.ok()) return s.WithContext("engine: search: record access");
    for (StoredFact& f : facts) {
      ++f.fact.access_count;
      f.fact.last_accessed = now;
    }
  }

  response.hits.reserve(k);
  for (size_t i = 0; i < k; ++i) {
    const FusedCandidate& c = fused.ranked[i];
    SearchHit hit;
    hit.fact = std::move(facts[i].fact);
    hit.score = c.score;
    if (options.explain) {
      Explanation& e = hit.explanation;
      e.lexical = c.lexical;
      e.temporal = c.temporal;
      e.weights = fused.weights;
      e.final_score = c.score;
      for (size_t t : hits[c.index].matched) e.matched_terms.push_back(lexical_query.terms[t]);
    }
    response.hits.push_back(std::move(hit));
  }
  return response;
}

}  // namespace engram
